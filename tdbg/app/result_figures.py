"""Figures for the result tables, read from committed result files and written as table cells.

Every figure comes from a file: a per-game CSV's headline line ('# win_rate: m (95% CI lo ..
hi)', checked against the file's own rows), a paired difference of two such CSVs
(results_file.compare), a luck JSON (gnubg_eval.py --luck), the decision-error benchmark's
JSON lines, or a checkpoint's bytes (md5).  ``ResultFiles`` reads each file once and answers
in the text the tables print.
"""

from __future__ import annotations

import errno
import math
import os
import re

from tdbg.infra.fileio import strict_json_loads
from tdbg.infra.provenance import file_md5
from tdbg.play.results_file import Results, compare, read_results

HEADER = re.compile(r"^(-?[\d.]+) \(95% CI (-?[\d.]+) \.\. (-?[\d.]+)\)$")
# how far a header's mean may lie from the rows' (its rounding when it was written):
# 0.051 mEq for the per-game equities, 0.051e-3 for the rates
MEQ_KEYS = ("meq", "capped")


def count(x: int) -> str:
    """An integer with thousands separators: 10000 -> '10,000'."""
    return f"{x:,}"


def rows_figure(results: Results, key: str) -> float:
    """What the rows give for a header line's ``key``: a rate, or points per game x 1000 (mEq)."""
    if key == "match_win_rate":
        return float((results.points > 0).mean())
    if key == "win_rate":
        return float(results.metric("win").mean())
    # meq_per_game, capped_meq_per_game: points x 1000
    return float(results.metric("capped" if key.startswith("capped") else "points").mean()) * 1000


def header_figure(results: Results, name: str, key: str) -> tuple[float, float, float]:
    """(mean, low, high) of the '# key: m (95% CI lo .. hi)' line of ``results`` (the file
    ``name``), its mean checked against the rows."""
    m = HEADER.match(results.header.get(key) or "")
    if not m:
        raise ValueError(f"{name}.csv: no '# {key}:' summary line")
    mean, lo, hi = (float(x) for x in m.groups())
    rows = rows_figure(results, key)
    if abs(rows - mean) > 0.051 * (1 if key.startswith(MEQ_KEYS) else 1e-3):
        raise ValueError(f"{name}.csv: header {key} {mean} but the rows give {rows}")
    return mean, lo, hi


def pct_text(figure: tuple[float, float, float]) -> str:
    """A rate and its interval in percent: '47.70% [46.80, 48.58]'."""
    m, lo, hi = figure
    return f"{100 * m:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"


def meq_text(figure: tuple[float, float, float]) -> str:
    """Equity per game and its interval in mEq, signed: '+12.3 mEq/game [-1.0, +25.6]'."""
    m, lo, hi = figure
    return f"{m:+.1f} mEq/game [{lo:+.1f}, {hi:+.1f}]"


def paired_text(r: dict) -> str:
    """A paired difference (results_file.compare's answer): points of percent for a rate,
    mEq for equity; where too few pairs allow an interval, the reason instead of one."""
    scale, fmt = (100.0, "{:+.2f}") if r["metric"] == "win" else (1000.0, "{:+.1f}")
    if r["ci_low"] is None:
        return f"{fmt.format(r['difference'] * scale)} (no interval: {r['ci_reason']})"
    return f"{fmt.format(r['difference'] * scale)} [{fmt.format(r['ci_low'] * scale)}, {fmt.format(r['ci_high'] * scale)}]"


def workers_text(command: str) -> str:
    """How many workers a recorded command line asked for ('--workers N'; one without it)."""
    m = re.search(r"--workers (\d+)", command)
    k = int(m.group(1)) if m else 1
    return f"{k} worker" + ("s" if k != 1 else "")


def decision_text(zero_ply: dict, one_ply: dict) -> str:
    """'0-ply mEq [CI]; 1-ply mEq' of two decision-benchmark entries' overall figures."""
    z, o = zero_ply, one_ply
    return f"{z['meq']:.1f} [{z['ci'][0]:.1f}, {z['ci'][1]:.1f}]; {o['meq']:.1f}"


def read_json(path: str, text: str | None = None):
    """A result file's JSON (``text``: one line of it), strict as the scripts write it:
    ValueError naming the file for NaN or Infinity (a table showed "nan%"), a key twice (the
    last was read) or nesting too deep (a RecursionError traceback)."""
    if text is None:
        with open(path) as fh:
            text = fh.read()
    try:
        return strict_json_loads(text)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


# the entries the tables read from each kind of result JSON: a key's value is a number (finite,
# not a bool), text, a whole number, a list of two numbers, or a dict of further entries
NUMBER, TEXT, WHOLE, RANGE = "a number", "text", "a whole number", "two numbers"
MATCH_FIELDS = {"points_per_game": {"mean": NUMBER}, "drops_per_match": {"a": NUMBER, "b": NUMBER}}
LUCK_FIELDS = {"luck": {"luck_adjusted": {"mean": NUMBER, "ci_low": NUMBER, "ci_high": NUMBER}}}
DECISION_FIELDS = {
    "model": TEXT,
    "ply": WHOLE,
    "plays_by": TEXT,
    "overall": {"meq": NUMBER, "ci": RANGE, "best": NUMBER, "outside": NUMBER},
    "by_class": {k: {"meq": NUMBER} for k in ("contact", "crashed", "race")},
}


def _is(kind: str, value) -> bool:
    if kind == NUMBER:
        return (
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        )
    if kind == TEXT:
        return isinstance(value, str)
    if kind == WHOLE:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, list) and len(value) == 2 and all(_is(NUMBER, x) for x in value)


def check_fields(path: str, data, fields: dict, where: str = ""):
    """``data`` (a result JSON of ``path``) when it holds every entry of ``fields`` in its kind;
    ValueError naming the file and the entry otherwise (a string where a number was, a missing
    key: the tables' formatting failed with a line that named neither)."""
    if not isinstance(data, dict):
        raise ValueError(f"{path}: {where or 'the file'} is not an object of entries")
    for key, kind in fields.items():
        name = f"{where}/{key}" if where else key
        if key not in data:
            raise ValueError(f"{path}: no {name!r} entry")
        if isinstance(kind, dict):
            check_fields(path, data[key], kind, name)
        elif not _is(kind, data[key]):
            raise ValueError(f"{path}: {name!r} is {data[key]!r}, not {kind}")
    return data


class ResultFiles:
    """The result files under ``root``: a bare name is a CSV (and its match JSON) of ``h2h``,
    a name with a folder a CSV at that path from the root; ``luck``: the folder of the luck
    JSONs; ``decisions``: the decision benchmark's JSON-lines file.  Each file is read once."""

    def __init__(self, root: str, h2h: str, luck: str, decisions: str):
        self.root, self.h2h, self.luck_folder, self.decisions = root, h2h, luck, decisions
        self._results: dict[str, Results] = {}
        self._decisions: dict[tuple[str, int], dict] = {}

    def path(self, rel: str) -> str:
        return os.path.join(self.root, rel)

    def results(self, name: str) -> Results:
        if name not in self._results:
            rel = f"{name}.csv" if "/" in name else f"{self.h2h}/{name}.csv"
            self._results[name] = read_results(self.path(rel))
        return self._results[name]

    def figure(self, name: str, key: str) -> tuple[float, float, float]:
        return header_figure(self.results(name), name, key)

    def seed(self, name: str) -> str:
        results = self.results(name)
        if "seed" not in results.header:
            raise ValueError(f"{results.path}: no '# seed:' line in its header")
        return results.header["seed"]

    def games(self, name: str) -> int:
        return len(self.results(name).games)

    def pct(self, name: str, key: str = "win_rate") -> str:
        return pct_text(self.figure(name, key))

    def meq(self, name: str, key: str = "meq_per_game") -> str:
        return meq_text(self.figure(name, key))

    def capped_equal(self, name: str) -> bool:
        return self.figure(name, "meq_per_game") == self.figure(name, "capped_meq_per_game")

    def paired(self, a: str, b: str) -> str:
        r = compare(self.results(a), self.results(b))
        if not r["paired"]:
            raise ValueError(f"{a} and {b} did not play the same dice")
        return paired_text(r)

    def match_json(self, name: str) -> dict:
        path = self.path(f"{self.h2h}/{name}.json")
        return check_fields(path, read_json(path), MATCH_FIELDS)

    def luck(self, name: str) -> str:
        path = self.path(f"{self.luck_folder}/{name}.json")
        d = check_fields(path, read_json(path), LUCK_FIELDS)["luck"]["luck_adjusted"]
        return pct_text((d["mean"], d["ci_low"], d["ci_high"]))

    def workers(self, name: str) -> str:
        return workers_text(self.results(name).header.get("command", ""))

    def decision_entries(self) -> list[dict]:
        path = self.path(self.decisions)
        with open(path) as fh:
            return [check_fields(path, read_json(path, line), DECISION_FIELDS) for line in fh]

    def decision(self, model: str) -> str:
        """'0-ply mEq [CI]; 1-ply mEq' of ``model`` (a file of best_models/) on the benchmark."""
        if not self._decisions:
            self._decisions = {(d["model"], d["ply"]): d for d in self.decision_entries()}
        key = f"best_models/{model}"
        missing = [ply for ply in (0, 1) if (key, ply) not in self._decisions]
        if missing:  # (a KeyError's line named neither the file nor what it lacks)
            raise ValueError(
                f"{self.path(self.decisions)}: no {missing[0]}-ply entry for {key} (a line per "
                f"model and ply, as all_models.sh writes)"
            )
        return decision_text(
            self._decisions[(key, 0)]["overall"], self._decisions[(key, 1)]["overall"]
        )

    def md5(self, model: str) -> str:
        path = self.path(f"best_models/{model}")
        digest = file_md5(path)
        if digest is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        return digest
