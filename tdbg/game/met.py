"""Match equity tables: the chance of winning a match from a score, in GNU Backgammon's
XML format (data/met/; the default is Kazaross-XG2, as in GNU Backgammon).

Scores are *away* scores: the points a player still needs.  ``pre[i, j]`` is the
match-winning chance (MWC) of a player i+1 away against one j+1 away at the start
of a game with the cube centred; a row or column for 1-away is the Crawford game.
``post[j]`` is the MWC of a player j+1 away against a leader at 1-away after the
Crawford game (post-Crawford), for whom it is 1 - post[j].

The XML is parsed leniently (a regular expression over the rows), because some
versions of the files carry a stray closing tag that a strict parser rejects.
"""

from __future__ import annotations

import os
import re

import numpy as np

from tdbg.infra.errors import InputError
from tdbg.infra.fileio import MAX_SMALL_TEXT, check_input

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tdbg/
ROOT = os.path.dirname(PACKAGE)  # the repository, in a checkout
# the shipped table: the checkout's data/met, or where `pip install .` put it (tdbg/data/met)
DEFAULT_MET = next(
    (
        p
        for p in (
            os.path.join(ROOT, "data", "met", "Kazaross-XG2.xml"),
            os.path.join(PACKAGE, "data", "met", "Kazaross-XG2.xml"),
        )
        if os.path.isfile(p)
    ),
    os.path.join(ROOT, "data", "met", "Kazaross-XG2.xml"),
)
MAX_AWAY = 25


class METError(ValueError):
    """A match equity table file that is missing or malformed."""


class MatchEquityTable:
    def __init__(self, pre: np.ndarray, post: np.ndarray, name: str = ""):
        pre, post = np.asarray(pre, dtype=np.float64), np.asarray(post, dtype=np.float64)
        n = len(pre)
        if pre.shape != (n, n) or post.shape != (n,) or n < 1:
            raise METError(
                f"a pre-Crawford table must be square and the post-Crawford row as long "
                f"(got {pre.shape} and {post.shape})"
            )
        if not (np.all((pre >= 0) & (pre <= 1)) and np.all((post >= 0) & (post <= 1))):
            raise METError("match equities must lie in [0, 1]")
        self.pre, self.post, self.name = pre, post, name
        self.length = n

    def mwc(self, me, opp, post_crawford=False) -> np.ndarray:
        """MWC of a player ``me`` away against ``opp`` away at the start of a game (arrays).
        A score at or below 0 is a finished match (1 or 0).  ``post_crawford``: the game
        to come is after the Crawford game (only meaningful where one side is 1-away)."""
        me, opp = np.broadcast_arrays(
            np.asarray(me, dtype=np.int64), np.asarray(opp, dtype=np.int64)
        )
        post = np.broadcast_to(np.asarray(post_crawford, dtype=bool), me.shape)
        out = np.empty(me.shape, dtype=np.float64)
        won, lost = me <= 0, (opp <= 0) & (me > 0)
        live = ~won & ~lost
        out[won], out[lost] = 1.0, 0.0
        if (live & ((me > self.length) | (opp > self.length))).any():
            raise ValueError(f"away scores beyond {self.length} are outside this table")
        a, b = np.clip(me, 1, self.length) - 1, np.clip(opp, 1, self.length) - 1
        pre = live & ~(post & ((me == 1) ^ (opp == 1)))
        out[pre] = self.pre[a[pre], b[pre]]
        trailer = live & ~pre & (opp == 1)  # post-Crawford, I am the trailer
        leader = live & ~pre & (me == 1)
        out[trailer] = self.post[a[trailer]]
        out[leader] = 1.0 - self.post[b[leader]]
        return out


def load_met(path: str = DEFAULT_MET) -> MatchEquityTable:
    """The table in a GNU Backgammon MET XML file; METError with the reason otherwise."""
    if not os.path.isfile(path):  # a FIFO, a device or a folder is there, but no table file
        raise METError(
            f"{path}: "
            + (
                "not a regular file (a folder, a FIFO, a socket or a device), not a match "
                "equity table"
                if os.path.exists(path)
                else "no such match equity table file"
            )
        )
    try:  # (a 10 GB file was read whole)
        check_input(path, "a match equity table", MAX_SMALL_TEXT)
    except InputError as exc:
        raise METError(str(exc)) from None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError as exc:
        raise METError(f"{path}: cannot read it ({exc.strerror})") from None
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    pre_body = _section(text, "pre-crawford-table", path)
    post_body = _section(text, "post-crawford-table", path)
    if not re.search(r"""type\s*=\s*(["'])explicit\1""", text):  # (XML: either quote)
        raise METError(f"{path}: only explicit tables are supported")
    pre = [_numbers(row, path) for row in re.findall(_element("row"), pre_body, flags=re.S)]
    post = [_numbers(row, path) for row in re.findall(_element("row"), post_body, flags=re.S)]
    if not pre or any(len(r) != len(pre) for r in pre):
        raise METError(
            f"{path}: the pre-Crawford table is not square "
            f"({len(pre)} rows of {sorted({len(r) for r in pre})} entries)"
        )
    # gnubg copies as many rows as the <length> says and extends them by a formula: rows beyond
    # it, or a table without it, were read here as numbers gnubg does not use
    length = re.search(
        _element("length", r"[ \t\r\n]*([0-9]+)[ \t\r\n]*"), text, flags=re.ASCII | re.S
    )
    if not length or int(length.group(1)) != len(pre):
        raise METError(
            f"{path}: its <length> must be the table's {len(pre)} rows, as GNU Backgammon reads "
            f"that many (got {length.group(1) if length else 'none'})"
        )
    if len(post) != 1 or len(post[0]) != len(pre):
        raise METError(
            f'{path}: expected one post-Crawford row of {len(pre)} entries (player="both")'
        )
    try:
        return MatchEquityTable(np.array(pre), np.array(post[0]), os.path.basename(path))
    except METError as exc:
        raise METError(f"{path}: {exc}") from None


def _element(tag: str, body: str = "(.*?)") -> str:
    """A pattern for an XML element ``tag`` holding ``body``, written as XML allows: attributes
    and blanks inside its tags (``<me >0.5</me >`` was counted as no entry, and the table then
    "not square", where gnubg's XML reader takes it)."""
    return rf"<{tag}(?:[ \t\r\n][^>]*)?>{body}</{tag}[ \t\r\n]*>"


def _section(text: str, tag: str, path: str) -> str:
    m = re.search(_element(tag), text, flags=re.S)
    if not m:
        raise METError(f"{path}: not a match equity table (no <{tag}> section)")
    return m.group(1)


# an entry as GNU Backgammon's g_ascii_strtod reads it: ASCII digits after XML's blanks (float()
# also read "0.6_7" as 0.67 and "０.６" as 0.6, where gnubg reads 0.6 and 0)
_ENTRY = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", flags=re.ASCII)
_XML_BLANKS = " \t\r\n"


def _numbers(row: str, path: str) -> list[float]:
    entries = [x.strip(_XML_BLANKS) for x in re.findall(_element("me", "([^<]*)"), row)]
    bad = [x for x in entries if not _ENTRY.fullmatch(x)]
    if bad:
        raise METError(f"{path}: a table entry is not a number ({bad[0][:40]!r})")
    return [float(x) for x in entries]


_DEFAULT: MatchEquityTable | None = None


def default_met() -> MatchEquityTable:
    """The shipped Kazaross-XG2 table, read once per process."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_met(DEFAULT_MET)
    return _DEFAULT
