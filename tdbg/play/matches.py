"""Whole N-point matches between two agents, many at once, with duplicate dice.

Match ``m`` belongs to pair ``m // 2``.  Game ``j`` of either match of a pair rolls
the dice of its own seeded stream (seed, pair, j); agent A moves first in game j of
match m when m + j is even, so the two matches of a pair replay the same dice with
the sides swapped for as long as they last.  The games are the turn loop's
(turns.Table) with the match state of the mover in the cube-owner slot
(matchplay.py); this module keeps the score: a game's points count up to what its
winner needs, a player who first reaches 1-away plays the Crawford game next, and a
match ends when a player needs no more points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tdbg.game.dice import DiceStream
from tdbg.game.modes import GameMode, MatchPlay, for_mode
from tdbg.game.turns import ABANDONED, Ended, Table
from tdbg.infra import threads
from tdbg.infra.stats import bootstrap_ci, ci_text, interval, pair_means, units_of
from tdbg.play.evaluator import Evaluator
from tdbg.play.match import Seats
from tdbg.play.players import Player


@dataclass
class MatchRecord:
    index: int
    winner: int  # 0 agent A, 1 agent B, -1 abandoned (a game over the ply limit)
    length: int
    games: list = field(
        default_factory=list
    )  # (points from A's side, result, cube, crawford, A away, B away)
    doubles: tuple = (0, 0)  # offered by A, by B, over the match
    takes: tuple = (0, 0)
    drops: tuple = (0, 0)
    game_records: list = field(default_factory=list)  # match.GameRecord of each game, when recorded

    @property
    def points(self) -> float:
        """+1 for a match A won, -1 for one it lost (0 abandoned)."""
        return {0: 1.0, 1: -1.0}.get(self.winner, 0.0)


class Score:
    """One match's score: the points each side (0, 1) still needs, and whether the game
    being played is the Crawford game.  The rules live here once, for our own matches and
    for our record of matches against the gnubg binary."""

    def __init__(self, length: int):
        self.away = [length, length]
        self.crawford = False

    @property
    def over(self) -> bool:
        return min(self.away) <= 0

    def game_won(self, winner: int, points: int) -> int:
        """Count a game ``winner`` won for ``points``; returns the points that count (up to
        what it needed).  A player who first reaches 1-away plays the Crawford game next."""
        won = int(min(points, self.away[winner]))
        past = 1 in self.away  # this game was the Crawford game or after it
        self.away[winner] -= won
        self.crawford = not past and not self.over and 1 in self.away
        return won


MATCH_LENGTH = {GameMode: lambda mode: 0, MatchPlay: lambda mode: mode.length}


def match_length(mode: GameMode) -> int:
    """The points of the matches ``mode`` plays, 0 for single games."""
    return for_mode(MATCH_LENGTH, mode)(mode)


class _MatchesInPlay:
    """The matches one ``play_matches`` call plays side by side on one table: each one's
    score, game number, dice and record; as a game ends its match starts its next game, or
    ends."""

    def __init__(self, agents, idx: np.ndarray, mode: MatchPlay, seed: int, on_done, record):
        n = len(idx)
        self.idx, self.mode, self.seed, self.on_done, self.record = idx, mode, seed, on_done, record
        self.scores = [Score(mode.length) for _ in range(n)]  # A is side 0, B side 1
        self.game_no = np.zeros(n, dtype=np.int64)
        self.cube_stats = np.zeros((n, 3, 2), dtype=np.int64)
        self.table = Table(mode, n)
        self.seats = Seats(agents, np.zeros(n, dtype=np.int64), self.table, record, seed)
        self.streams: list = [None] * n
        self.records = {i: MatchRecord(int(idx[i]), -1, mode.length) for i in range(n)}
        self.done: list[MatchRecord] = []

    def start(self, slots) -> None:
        """Start the next game of the matches in ``slots``: who moves first, the game's dice,
        the score and the Crawford rule."""
        first = (self.idx[slots] + self.game_no[slots]) % 2
        self.seats.first[slots] = first
        self.seats.cube_stats[slots] = 0
        for i in slots:
            self.streams[i] = DiceStream(
                self.seed, int(self.idx[i] // 2), game=int(self.game_no[i])
            )
        scores = self.scores
        me = np.array([scores[i].away[f] for i, f in zip(slots, first, strict=True)])
        opp = np.array([scores[i].away[1 - f] for i, f in zip(slots, first, strict=True)])
        crawford = np.array([scores[i].crawford for i in slots])
        self.table.new_games(slots, self.mode.start_state(me, opp, crawford))

    def roll(self, slots) -> np.ndarray:
        """The dice of the games in ``slots`` at their current plies."""
        return np.array([self.streams[i].roll(int(self.table.ply[i])) for i in slots])

    def finish(self, i: int, winner: int) -> None:
        """End match ``i`` won by ``winner`` (-1: abandoned) and pass on its record."""
        rec = self.records.pop(i)
        rec.winner = winner
        rec.doubles, rec.takes, rec.drops = (
            tuple(int(x) for x in self.cube_stats[i, k]) for k in range(3)
        )
        self.done.append(rec)
        if self.on_done:
            self.on_done(rec)

    def on_end(self, ended: Ended) -> None:
        """Score the games that ended, end the matches they decided (or that were abandoned)
        and start the next game of the rest."""
        again = []
        for i, points, result, turn in zip(
            ended.slots, ended.points, ended.result, ended.turn, strict=True
        ):
            self.cube_stats[i] += self.seats.cube_stats[i]
            if self.record:  # the game's own points (the .mat's "Wins" line); the score counts what the match needs
                self.records[i].game_records.append(
                    self.seats.game_record(i, int(self.game_no[i]), points, result, turn)
                )
            if result == ABANDONED:
                self.finish(i, -1)
                continue
            winner, score = int(self.seats.mover(i, turn)), self.scores[i]
            before = (score.crawford, *score.away)
            won = score.game_won(winner, round(points))
            self.records[i].games.append(
                (won if winner == 0 else -won, int(result), int(self.table.cube[i]), *before)
            )
            if score.over:
                self.finish(i, winner)
                continue
            self.game_no[i] += 1
            again.append(i)
        if again:
            self.start(np.array(again, dtype=np.int64))


def play_matches(
    agent_a: Evaluator | Player,
    agent_b: Evaluator | Player,
    match_indices,
    mode: MatchPlay,
    seed: int,
    on_done=None,
    record: bool = False,
) -> list[MatchRecord]:
    """Play the matches numbered ``match_indices``; ``on_done(record)`` as each ends.
    ``record``: each match keeps its games' turns (``game_records``, for .mat files).  An agent
    plays ``mode`` as given; a Player is seated as match.Seats says (A's seed ``seed``, B's
    ``seed + 1``)."""
    idx = np.asarray(list(match_indices), dtype=np.int64)
    matches = _MatchesInPlay((agent_a, agent_b), idx, mode, seed, on_done, record)
    matches.start(np.arange(len(idx)))
    matches.table.play(matches.seats, matches.roll, matches.on_end)
    matches.done.sort(key=lambda r: r.index)
    return matches.done


MATCH_CI = "95% CI {low} .. {high}"
PAIRS = "duplicate pairs (matches 2k and 2k+1 share their dice; a lone last match is a unit of one)"
SINGLE = "single matches (each match rolls its own dice)"


def summarize_matches(
    records: list[MatchRecord], seed: int = 0, n_boot: int = 2000, paired: bool = True
) -> dict:
    """Match-win rate of agent A, points per game, cube use.  The CIs resample ``n_boot``
    times the independent unit: duplicate pairs where we rolled duplicate dice (``paired``),
    single matches where the opponent rolled its own (gnubg-ext)."""
    finished = [r for r in records if r.winner >= 0]
    idx = np.array([r.index for r in finished])
    wins = np.array([r.winner == 0 for r in finished], dtype=np.float64)
    per_match = np.array([np.mean([g[0] for g in r.games]) for r in finished])
    units = (lambda v: pair_means(idx, v)) if paired else (lambda v: v)
    win_units, pm_units = units(wins), units(per_match)
    pm, plo, phi = bootstrap_ci(pm_units, n_boot=n_boot, seed=seed)
    per_match_ci = interval(pm, plo, phi, units_of(pm_units))
    games = [g for r in finished for g in r.games]
    out = {
        "matches": len(records),
        "match_length": records[0].length if records else 0,
        "match_win_rate": interval(
            *bootstrap_ci(win_units, n_boot=n_boot, seed=seed), units_of(win_units)
        ),
        "points_per_game": {
            "mean": float(np.mean([g[0] for g in games])) if games else 0.0,
            "per_match_mean": pm,
            **{k: v for k, v in per_match_ci.items() if k != "mean"},
        },
        "games": len(games),
        "games_per_match": len(games) / max(len(finished), 1),
        "gammon_rate": float(np.mean([g[1] >= 2 for g in games])) if games else 0.0,
        "abandoned": len(records) - len(finished),
        "n_bootstrap": n_boot,
        "resample_unit": PAIRS if paired else SINGLE,
    }
    for key in ("doubles", "takes", "drops"):
        counts = np.array([getattr(r, key) for r in finished]).reshape(-1, 2)
        out[f"{key}_per_match"] = {"a": float(counts[:, 0].mean()), "b": float(counts[:, 1].mean())}
    return out


def dice_text(paired: bool) -> str:
    """How a summary's first line says whose dice were rolled."""
    return "in duplicate pairs" if paired else "(gnubg's dice)"


def format_matches(summary: dict, name1: str, name2: str, paired: bool = True) -> str:
    w, p = summary["match_win_rate"], summary["points_per_game"]
    lines = [
        f"{summary['matches']} {summary['match_length']}-point matches {dice_text(paired)} "
        f"({summary['games']} games, {summary['games_per_match']:.2f} per match{threads.text(summary)})",
        f"  {name1} vs {name2}",
        f"  match-win rate: {100 * w['mean']:.2f}%  ({ci_text(w, '{:.2f}', 100, template=MATCH_CI)})",
        f"  points/game:    {p['mean']:+.4f}  (per-match mean {p['per_match_mean']:+.4f}, "
        f"{ci_text(p, '{:+.4f}', template=MATCH_CI)})",
        f"  gammon rate {summary['gammon_rate']:.3f}; doubles/match A {summary['doubles_per_match']['a']:.2f} "
        f"B {summary['doubles_per_match']['b']:.2f}; drops/match A {summary['drops_per_match']['a']:.2f} "
        f"B {summary['drops_per_match']['b']:.2f}",
    ]
    if summary["abandoned"]:
        lines.append(f"  abandoned matches: {summary['abandoned']}")
    return "\n".join(lines)
