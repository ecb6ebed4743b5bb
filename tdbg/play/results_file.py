"""Per-game result files (written by ``play_models.py --csv``) and the differences
between two of them.

A file is '# key: value' provenance lines (command, commit, seed, games, game
mode, players), then one row per game.  Two files made with the same seed and game
mode played the same dice in the same games (duplicate pairs 2k, 2k+1), so their
difference is *paired*: per pair, A's mean minus B's, bootstrapped over pairs.
That removes the dice's luck shared by both runs and gives a much tighter CI than
the plain (unpaired) difference, which resamples each file on its own.  Games
against the gnubg binary use gnubg's own dice, so they are never paired.

A match file (``play_models.py --game-mode match --csv``: one row per game under
its match) is read one entry per match, +1 for a match model1 won and -1 for one it
lost; matches 2k and 2k+1 are duplicate pairs as games are, and the metric is the
match-win rate.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass

import numpy as np

from tdbg.game.modes import game_mode
from tdbg.infra.stats import CAP, bootstrap_ci, pair_means

UNPAIRED_OPPONENTS = ("gnubg-ext", "gnubg-ext-full")  # they roll their own dice


class ResultsFileError(ValueError):
    """A file that is not a per-game result file, or two files that cannot be compared."""


@dataclass
class Results:
    path: str
    header: dict
    games: np.ndarray   # game index (pairs are 2k, 2k+1)
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
        with open(path, newline="") as fh:
            lines = [ln for ln in fh]
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsFileError(f"{path}: cannot read a result file ({exc.__class__.__name__})") from None
    body = []
    for ln in lines:
        if ln.startswith("# ") and ":" in ln:
            key, value = ln[2:].split(":", 1)
            header[key.strip()] = value.strip()
        elif ln.strip():
            body.append(ln)
    reader = csv.DictReader(body)
    if reader.fieldnames and {"match", "winner"} <= set(reader.fieldnames):
        return _read_matches(path, header, reader)
    if not reader.fieldnames or not {"game", "points"} <= set(reader.fieldnames):
        raise ResultsFileError(f"{path}: not a per-game result file (no 'game' and 'points' columns)")
    try:
        for r in reader:
            rows.append((int(r["game"]), float(r["points"])))
    except (TypeError, ValueError):
        raise ResultsFileError(f"{path}: malformed row {reader.line_num}") from None
    if not rows:
        raise ResultsFileError(f"{path}: no games")
    g, p = np.array(rows).T
    return Results(path, header, g.astype(np.int64), p)


def _read_matches(path: str, header: dict, reader) -> Results:
    """One entry per match: +1 won by model1, -1 lost, 0 abandoned (winner -1)."""
    winners = {}
    try:
        for r in reader:
            winners[int(r["match"])] = int(r["winner"])
    except (TypeError, ValueError):
        raise ResultsFileError(f"{path}: malformed row {reader.line_num}") from None
    if not winners:
        raise ResultsFileError(f"{path}: no matches")
    header.setdefault("game_mode", "match")
    idx = np.array(sorted(winners), dtype=np.int64)
    won = np.array([{0: 1.0, 1: -1.0}.get(winners[i], 0.0) for i in idx])
    return Results(path, header, idx, won)


def is_paired(a: Results, b: Results) -> bool:
    """Same seed, same game mode (and match length), same games, and neither against
    gnubg's own dice."""
    same = all(a.header.get(k) == b.header.get(k) for k in ("seed", "game_mode", "match_length"))
    own_dice = {a.header.get("model2"), b.header.get("model2")} & set(UNPAIRED_OPPONENTS)
    return same and not own_dice and np.array_equal(np.sort(a.games), np.sort(b.games))


def _mode(name: str):
    """The game mode a file's header names (match play too), or None."""
    try:
        return game_mode(name)
    except ValueError:
        return None


def default_metric(name: str) -> str:
    """The metric of a file's game mode (as its header names it): the mode's own (a match
    file's entries are matches: the match-win rate)."""
    return getattr(_mode(name), "result_metric", "points")


def compare(a: Results, b: Results, metric: str | None = None, paired: bool | None = None,
            seed: int = 0) -> dict:
    """A minus B: mean, 95% CI low and high, and whether the difference is paired."""
    if a.game_mode != b.game_mode:
        raise ResultsFileError(f"different game modes: {a.game_mode} vs {b.game_mode}")
    metric = metric or default_metric(a.game_mode)
    can_pair = is_paired(a, b)
    if paired and not can_pair:
        raise ResultsFileError("these files did not play the same dice (seed, mode, games or a gnubg-ext opponent "
                               "differ): only the unpaired difference applies")
    paired = can_pair if paired is None else paired
    va, vb = a.metric(metric), b.metric(metric)
    out = {"metric": metric, "paired": bool(paired), "a": a.path, "b": b.path,
           "entries": "matches" if getattr(_mode(a.game_mode), "is_match", False) else "games",
           "games_a": len(va), "games_b": len(vb), "mean_a": float(va.mean()), "mean_b": float(vb.mean())}
    if paired:
        ia, ib = np.argsort(a.games), np.argsort(b.games)
        diff = va[ia] - vb[ib]
        m, lo, hi = bootstrap_ci(pair_means(a.games[ia], diff), seed=seed)
    else:
        ua, ub = pair_means(a.games, va), pair_means(b.games, vb)
        rng = np.random.default_rng(seed)
        boots = np.array([ua[rng.integers(0, len(ua), len(ua))].mean() - ub[rng.integers(0, len(ub), len(ub))].mean()
                          for _ in range(2000)])
        m = float(va.mean() - vb.mean())
        lo, hi = (float(x) for x in np.quantile(boots, [0.025, 0.975]))
    out.update(difference=m, ci_low=lo, ci_high=hi)
    return out
