"""Per-game result files (``play_models.py --csv``): their writers (``write_games``,
``write_matches``), their reader and the differences between two of them.

A file is '# key: value' provenance lines (command, commit, seed, games, game
mode, players), then one row per game.  Two files made with the same seed and game
mode played the same dice in the same games (duplicate pairs 2k, 2k+1), so their
difference is *paired*: per pair, A's mean minus B's, bootstrapped over pairs.
That removes the dice's luck shared by both runs and gives a much tighter CI than
the plain (unpaired) difference, which resamples each file on its own, in that file's
independent units: its duplicate pairs where we rolled the dice, its single games
(matches) against the gnubg binary, which rolls its own dice, so games 2k and 2k+1 there
share nothing and such a file is never paired.  The result says what was resampled
("resample_unit", and "units_a"/"units_b"); with fewer than two units on a side there is
no interval (null ends and "ci_reason").

A match file (``play_models.py --game-mode match --csv``: one row per game under
its match) is read one entry per match, +1 for a match model1 won and -1 for one it
lost; matches 2k and 2k+1 are duplicate pairs as games are, and the metric is the
match-win rate.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from tdbg.game.modes import game_mode
from tdbg.infra import fileio
from tdbg.infra.errors import InputError
from tdbg.infra.fileio import MAX_TEXT, check_input, ragged_row, repeated_column
from tdbg.infra.stats import (
    CAP,
    bootstrap_ci,
    ci_text,
    has_interval,
    no_interval_reason,
    pair_means,
)
from tdbg.play.matches import MATCH_CI
from tdbg.play.metrics import results_file_metric
from tdbg.play.units import series_unit

UNPAIRED_OPPONENTS = ("gnubg-ext", "gnubg-ext-full")  # they roll their own dice

PAIRED_UNIT = "duplicate pairs (entries 2k and 2k+1 of both files share their dice): A - B per pair"
OWN_PAIRS = "duplicate pairs (entries 2k and 2k+1 share their dice)"
ENTRIES = {
    "game": "games",
    "match": "matches",
}  # what a file's entries are, by the mode's series unit
OWN_SINGLES = "single entries (the opponent rolled its own dice: no duplicate pairs)"


GAME_HEADER = (
    "command",
    "commit",
    "date",
    "seed",
    "games",
    "game_mode",
    "model1",
    "model1_md5",
    "model2",
    "model2_md5",
    "oneply1",
    "oneply2",
    "oneply_k",
    "oneply_filter",
    "twoply1",
    "twoply2",
    "plies",
    "jacoby",
    "n_bootstrap",
    "resample_unit",
)
MATCH_HEADER = (
    "command",
    "commit",
    "date",
    "seed",
    "matches",
    "match_length",
    "met",
    "model1",
    "model1_md5",
    "model2",
    "model2_md5",
    "oneply1",
    "oneply2",
    "oneply_k",
    "oneply_filter",
    "n_bootstrap",
    "resample_unit",
)


def write_games(path: str, summary: dict, records, gnubg: str | None = None) -> None:
    """Per-game results with the provenance of the run in '#' header lines; ``gnubg``: the
    binary that played (gnubg_binary.describe), against gnubg-ext."""
    head = {k: summary.get(k) for k in GAME_HEADER if k in summary}
    if gnubg is not None:
        head["gnubg"] = gnubg
    lines = [f"# {k}: {v}" for k, v in head.items()]
    for key in ("win_rate", "meq_per_game", "capped_meq_per_game"):
        if key in summary:
            d = summary[key]
            lines.append(
                f"# {key}: {d['mean']:.6g} ({ci_text(d, '{:.6g}', template='95% CI {low} .. {high}')})"
            )
    lines.append(
        "game,first,points,result,cube,plies,doubles_1,doubles_2,takes_1,takes_2,drops_1,drops_2"
    )
    for r in records:
        lines.append(
            ",".join(
                str(x)
                for x in (
                    r.index,
                    r.first,
                    r.points,
                    r.result,
                    r.cube,
                    r.plies,
                    *r.doubles,
                    *r.takes,
                    *r.drops,
                )
            )
        )
    fileio.write_atomic(path, "\n".join(lines) + "\n")


def match_lines(summary: dict, records) -> list[str]:
    """One row per game (its match, the score before it, A's points) under a provenance header."""
    head = [f"# {k}: {summary.get(k)}" for k in MATCH_HEADER]
    w = summary["match_win_rate"]
    head.append(f"# match_win_rate: {w['mean']:.6g} ({ci_text(w, '{:.6g}', template=MATCH_CI)})")
    rows = ["match,winner,game,away_1,away_2,crawford,points_1,result,cube"]
    for r in records:
        for j, (pts, result, cube, crawford, a, b) in enumerate(r.games):
            rows.append(f"{r.index},{r.winner},{j},{a},{b},{int(crawford)},{pts},{result},{cube}")
    return head + rows


def write_matches(path: str, summary: dict, records, gnubg: str | None = None) -> None:
    """One row per game under its match (``gnubg``: not recorded in a matches file)."""
    fileio.write_atomic(path, "\n".join(match_lines(summary, records)) + "\n")


WRITERS = {"game": write_games, "match": write_matches}  # by the series' unit (units.series_unit)


def write_results(path: str, summary, records, gnubg: str | None = None) -> None:
    """The one writer: ``summary`` (summary.Summary) and its records, a games file or a
    matches file as the series counted; ``gnubg``: the binary that played, a games file's
    header line."""
    WRITERS[summary.unit](path, summary.fields, records, gnubg)


class ResultsFileError(ValueError):
    """A file that is not a per-game result file, or two files that cannot be compared."""


@dataclass
class Results:
    path: str
    header: dict
    games: np.ndarray  # game index (pairs are 2k, 2k+1)
    points: np.ndarray  # points won by model1 in each game (times the cube)

    @property
    def game_mode(self) -> str:
        return self.header.get("game_mode", "")

    def metric(self, name: str) -> np.ndarray:
        """Per-game value of ``name``: 'win' (1/0), 'points', or 'capped' (+-128)."""
        if name == "win":
            return (self.points > 0).astype(np.float64)
        if name == "points":
            return self.points
        if name == "capped":
            return np.clip(self.points, -CAP, CAP)
        raise ResultsFileError(f"unknown metric {name!r}; choose win, points or capped")


def read_results(path: str) -> Results:
    header, rows = {}, []
    try:
        check_input(path, "a result file", MAX_TEXT)  # (a 10 GB file was read whole)
    except InputError as exc:
        raise ResultsFileError(str(exc)) from None
    try:
        # utf-8-sig: a file saved from a spreadsheet starts with a byte-order mark
        with open(path, newline="", encoding="utf-8-sig") as fh:
            lines = [ln for ln in fh]
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsFileError(
            f"{path}: cannot read a result file ({exc.__class__.__name__})"
        ) from None
    body = []
    for ln in lines:
        if ln.startswith("# ") and ":" in ln:
            key, value = ln[2:].split(":", 1)
            if key.strip() in header:  # the last would be read: which one was meant cannot be told
                raise ResultsFileError(
                    f"{path}: not a per-game result file (its header names {key.strip()!r} twice: "
                    f"an edited or joined file?)"
                )
            header[key.strip()] = value.strip()
        elif ln.strip():
            body.append(ln)
    reader = csv.DictReader(body)
    try:
        fields = reader.fieldnames  # (a header field beyond csv's limit was a traceback)
    except csv.Error as exc:
        raise ResultsFileError(f"{path}: not a per-game result file ({exc})") from None
    names = set(fields or ())
    is_match = {"match", "winner"} <= names
    if not is_match and not {"game", "points"} <= names:
        # before the repeated-column check: rows with no header line read as one
        raise ResultsFileError(
            f"{path}: not a per-game result file (no 'game' and 'points' columns)"
        )
    twice = repeated_column(fields)
    if twice is not None:  # csv keeps the last of them: which one was meant cannot be told
        raise ResultsFileError(f"{path}: not a per-game result file (column {twice!r} twice)")
    _check_mode(path, header.get("game_mode"), "match" if is_match else "game")
    if is_match:
        return _read_matches(path, header, reader)
    try:
        for r in reader:
            rows.append((_index(r["game"]), _points(r["points"])))
            _whole(r)
    except (TypeError, ValueError, csv.Error):
        raise ResultsFileError(
            f"{path}: malformed row {reader.line_num} (every field of the header's columns, a "
            f"game's number and its points, a finite number of at most {MAX_POINTS:,} either "
            f"way, are needed)"
        ) from None
    if not rows:
        raise ResultsFileError(f"{path}: no games")
    _check_entries(path, header, "games", [g for g, _ in rows])
    g, p = np.array(rows).T
    return Results(path, header, g.astype(np.int64), p)


def _check_mode(path: str, name: str | None, rows_unit: str) -> None:
    """ResultsFileError unless the game mode a file's header names (play_models.py names it
    in a games file and not in a match file) is one this version plays, with rows of its
    series unit: a name no mode has ("DMP", "money") or a mode whose rows are not the file's
    (a games file's rows under "match", a match file's under "dmp") would be compared and
    shown in another unit than its own."""
    if name is None:
        return
    mode = _mode(name)
    if mode is None:
        raise ResultsFileError(
            f"{path}: its header names the game mode {name!r}, which no mode of this version "
            f"plays (an edited file?)"
        )
    if series_unit(mode) != rows_unit:
        raise ResultsFileError(
            f"{path}: its header names the game mode {name}, but its rows are "
            f"{ENTRIES[rows_unit]} (an edited or joined file?)"
        )


def _check_entries(path: str, header: dict, what: str, indices: list[int]) -> None:
    """ResultsFileError unless the rows are what the header says: as many ``what`` (games,
    matches) as its count, each numbered once from 0."""
    if len(set(indices)) != len(indices) or min(indices) < 0:
        raise ResultsFileError(
            f"{path}: a {what[:-1]} number is negative or repeated (an edited or joined file?)"
        )
    if what in header:
        try:
            count = _index(header[what])
        except ValueError:
            raise ResultsFileError(
                f"{path}: its header's {what} is {header[what]!r}, not a count"
            ) from None
        if count != len(indices) or max(indices) >= count:
            raise ResultsFileError(
                f"{path}: its header says {count} {what}, its rows hold {len(indices)} numbered "
                f"{min(indices)} to {max(indices)} (an edited or joined file?)"
            )


# no game is worth more than a backgammon at gnubg's largest cube (3 x 4,096)
MAX_POINTS = 3 * 4096


def _index(text: str) -> int:
    """A game's or match's number (or a header's count) as play_models.py writes it: digits
    (int() also takes "1_0" and " 10 ")."""
    if not (text.isascii() and text.isdecimal()):
        raise ValueError(text)
    return int(text)


# a number as play_models.py writes one (str of a float or an int): float() also reads "1_0"
# as 10, other scripts' digits ("１", "٣") and "nan" or "inf"
_DECIMAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", flags=re.ASCII)


def _points(text: str) -> float:
    """A game's points: a finite number in ASCII digits, at most MAX_POINTS either way."""
    if not _DECIMAL.fullmatch(text):
        raise ValueError(text)
    value = float(text)
    if not abs(value) <= MAX_POINTS:
        raise ValueError(text)
    return value


_WINNER = {"0": 0, "1": 1, "-1": -1}  # model1, model2, abandoned


def _match_rows(reader) -> dict[int, int]:
    """Each match's winner from its rows (one per game, numbered 0, 1, ... in order); ValueError
    for a row that is not as play_models.py writes it or that disagrees with its match's
    others (a winner that changes, a game twice or missing: an edited or joined file)."""
    winners: dict[int, int] = {}
    games: dict[int, int] = {}
    for r in reader:
        _whole(r)
        match, winner = _index(r["match"]), _WINNER[r["winner"]]
        if "points_1" in r:
            _points(r["points_1"])
        if winners.setdefault(match, winner) != winner:
            raise ValueError(f"match {match}: two winners")
        game = _index(r["game"]) if "game" in r else games.get(match, 0)
        if game != games.get(match, 0):
            raise ValueError(f"match {match}: game {game} out of order")
        games[match] = game + 1
    return winners


def _whole(row: dict) -> None:
    """ValueError for a row with fields missing (None) or more than the header has (key None)."""
    if ragged_row(row):
        raise ValueError("fields missing or extra")


def _read_matches(path: str, header: dict, reader) -> Results:
    """One entry per match: +1 won by model1, -1 lost, 0 abandoned (winner -1)."""
    try:
        winners = _match_rows(reader)
    except (TypeError, ValueError, KeyError, csv.Error):
        raise ResultsFileError(f"{path}: malformed row {reader.line_num}") from None
    if not winners:
        raise ResultsFileError(f"{path}: no matches")
    _check_entries(path, header, "matches", list(winners))
    header.setdefault("game_mode", "match")
    idx = np.array(sorted(winners), dtype=np.int64)
    won = np.array([{0: 1.0, 1: -1.0}.get(winners[i], 0.0) for i in idx])
    return Results(path, header, idx, won)


def own_dice(r: Results) -> bool:
    """Whether the file's opponent rolled its own dice (gnubg-ext), so its entries are
    single, independent games (matches) rather than duplicate pairs."""
    unit = r.header.get("resample_unit", "")
    return r.header.get("model2") in UNPAIRED_OPPONENTS or unit.startswith("single")


def units(r: Results, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The file's independent units: (sum of ``values`` in each, entries in each): its
    duplicate pairs, or its single entries where the opponent rolled its own dice."""
    key = r.games if own_dice(r) else r.games // 2
    _, inv = np.unique(key, return_inverse=True)
    return np.bincount(inv, weights=values), np.bincount(inv).astype(np.float64)


def is_paired(a: Results, b: Results) -> bool:
    """Same seed, same game mode (and match length), same games, and neither against
    gnubg's own dice."""
    same = all(a.header.get(k) == b.header.get(k) for k in ("seed", "game_mode", "match_length"))
    return (
        same
        and not (own_dice(a) or own_dice(b))
        and np.array_equal(np.sort(a.games), np.sort(b.games))
    )


def _mode(name: str):
    """The game mode a file's header names (match play too), or None."""
    try:
        return game_mode(name)
    except ValueError:
        return None


def default_metric(name: str) -> str:
    """The metric of a file's game mode (as its header names it): the mode's own (a match
    file's entries are matches: the match-win rate)."""
    mode = _mode(name)
    return "points" if mode is None else results_file_metric(mode)


def _check_comparable(a: Results, b: Results) -> None:
    """Refuse two files whose differences would mean nothing: a file that does not say its
    game mode, or two files of different modes (their metrics are not the same quantity)."""
    for r in (a, b):
        if not r.game_mode:
            raise ResultsFileError(
                f"{r.path} does not say its game mode (no '# game_mode:' line in its header, "
                f"as play_models.py writes): it cannot be compared"
            )
    if a.game_mode != b.game_mode:
        raise ResultsFileError(
            f"different game modes: {a.game_mode} in {a.path}, {b.game_mode} in {b.path}"
        )


def entries_of(name: str) -> str:
    """What the entries of a file of the game mode called ``name`` are ("games" or
    "matches"), by the mode's series unit; a mode this version does not know plays games."""
    mode = _mode(name)
    return ENTRIES["game" if mode is None else series_unit(mode)]


class _Difference(NamedTuple):
    """A minus B as ``compare`` reports it: its mean and 95% CI (None ends: no interval),
    the fields that say what was resampled, and the fewest units on a side."""

    mean: float
    low: float | None
    high: float | None
    resampled: dict
    fewest: int


def _paired_difference(
    a: Results, b: Results, va: np.ndarray, vb: np.ndarray, seed: int, n_boot: int
) -> _Difference:
    """A minus B over the shared duplicate pairs, bootstrapped over the pairs."""
    ia, ib = np.argsort(a.games), np.argsort(b.games)
    diff = pair_means(a.games[ia], va[ia] - vb[ib])
    m, lo, hi = bootstrap_ci(diff, n_boot, seed=seed)
    fields = dict(resample_unit=PAIRED_UNIT, units_a=len(diff), units_b=len(diff))
    return _Difference(m, lo, hi, fields, len(diff))


def _unpaired_difference(
    a: Results, b: Results, va: np.ndarray, vb: np.ndarray, seed: int, n_boot: int
) -> _Difference:
    """A minus B with each file's own units resampled on their own, each resample's
    difference the ratio of sums (so entries weigh equally); no interval where a side has
    fewer than two units."""
    (sa, na), (sb, nb) = units(a, va), units(b, vb)
    m = float(va.mean() - vb.mean())
    fields = dict(
        resample_unit={
            "a": OWN_SINGLES if own_dice(a) else OWN_PAIRS,
            "b": OWN_SINGLES if own_dice(b) else OWN_PAIRS,
        },
        units_a=len(sa),
        units_b=len(sb),
    )
    fewest = min(len(sa), len(sb))
    lo = hi = None
    if has_interval(fewest):
        rng = np.random.default_rng(seed)
        ka, kb = (
            rng.integers(0, len(sa), (n_boot, len(sa))),
            rng.integers(0, len(sb), (n_boot, len(sb))),
        )
        boots = sa[ka].sum(1) / na[ka].sum(1) - sb[kb].sum(1) / nb[kb].sum(1)
        lo, hi = (float(x) for x in np.quantile(boots, [0.025, 0.975]))
    return _Difference(m, lo, hi, fields, fewest)


def compare(
    a: Results,
    b: Results,
    metric: str | None = None,
    paired: bool | None = None,
    seed: int = 0,
    n_boot: int = 2000,
) -> dict:
    """A minus B: mean, 95% CI low and high (None, with "ci_reason", where fewer than two
    units allow no interval), whether the difference is paired, and what the bootstrap
    resampled ``n_boot`` times.  Paired: the per-pair difference over the shared duplicate
    pairs.  Unpaired: each file's units resampled on their own (duplicate pairs, or single
    entries against an opponent that rolled its own dice); each resample's difference is
    the ratio of sums (entries weigh equally, a lone last game as one entry)."""
    _check_comparable(a, b)
    metric = metric or default_metric(a.game_mode)
    if metric != "win" and entries_of(a.game_mode) == ENTRIES["match"]:
        # (a match file's entries are +1/-1 per match: "points" gave the match-win difference
        # shown as mEq/game)
        raise ResultsFileError(
            f"metric {metric}: a match file's entries are matches won or lost, not points; "
            f"only the match-win rate (win) applies"
        )
    can_pair = is_paired(a, b)
    if paired and not can_pair:
        raise ResultsFileError(
            "these files did not play the same dice (seed, mode, games or a gnubg-ext opponent "
            "differ): only the unpaired difference applies"
        )
    paired = can_pair if paired is None else paired
    va, vb = a.metric(metric), b.metric(metric)
    out = {
        "metric": metric,
        "paired": bool(paired),
        "a": a.path,
        "b": b.path,
        "entries": entries_of(a.game_mode),
        "games_a": len(va),
        "games_b": len(vb),
        "mean_a": float(va.mean()),
        "mean_b": float(vb.mean()),
    }
    difference = _paired_difference if paired else _unpaired_difference
    d = difference(a, b, va, vb, seed, n_boot)
    out.update(d.resampled)
    out.update(difference=d.mean, ci_low=d.low, ci_high=d.high, n_bootstrap=n_boot)
    if d.low is None:
        out["ci_reason"] = no_interval_reason(d.fewest)
    return out
