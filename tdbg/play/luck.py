"""Luck-adjusted head-to-head results: the same answer from fewer games.

The luck of a roll is what the dice gave beyond what they give on average, judged by
a reference evaluator: the value of the reference's best move for the roll thrown,
minus the mean over all 21 rolls (an opening roll: the 15 non-doubles) of the best
move's value.  Its expectation given the position is exactly zero whatever the
reference, so subtracting the luck of A's rolls and adding that of B's leaves the
expected result unchanged (unbiased) while removing most of the dice's noise, as far
as the reference judges positions well.  Values are in the game mode's points from
the roller's side (DMP: 2 P(win) - 1), times the cube at the time in cubeful games.

References: ``gnubg-nn`` (GNU Backgammon's 0-ply network, playing the game mode's
objective: one ``bestmove`` call per position and roll) or a checkpoint (every roll
of every position of a batch of games in one Scorer pass).
"""
from __future__ import annotations

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS, OPENING_WEIGHTS, ROLL_WEIGHTS, roll_index
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.modes.base import GameMode
from tdbg.infra.stats import ci_text, has_interval, pair_means, summary_ci
from tdbg.net.scoring import Scorer, segment_argmax
from tdbg.play.players import load_checkpoint_mode
from tdbg.play.rollers import GnubgNNRoller



class CheckpointReference:
    """A trained network judging every roll's best move (its own 0-ply choice)."""

    def __init__(self, path: str):
        model, _, self.mode = load_checkpoint_mode(path)
        model.eval()
        self.mode.check_luck_reference(path)
        self.scorer = Scorer(model, self.mode)
        self.name = path

    BLOCK = 256  # positions per pass: 256 x 21 rolls x ~20 candidates keeps the inputs near 100 MB

    def roll_values(self, boards: np.ndarray, owners: np.ndarray) -> np.ndarray:
        """(N, 21) value in points (cube 1, mover's side) of the best move of each roll."""
        return np.concatenate([self._block(boards[s:s + self.BLOCK], owners[s:s + self.BLOCK])
                               for s in range(0, len(boards), self.BLOCK)])

    def _block(self, boards: np.ndarray, owners: np.ndarray) -> np.ndarray:
        n = len(boards)
        rep_owner = np.repeat(owners, len(ALL_ROLLS))
        _, offsets, values, scalar = self.scorer.score(np.repeat(boards, len(ALL_ROLLS), axis=0),
                                                       np.tile(ALL_ROLLS, (n, 1)), rep_owner)
        _, best = segment_argmax(scalar, offsets)
        return self.scorer.values.points_of(best).reshape(n, len(ALL_ROLLS))


class GnubgNNReference:
    """gnubg-nn's 0-ply network maximising the game mode's objective (as GnubgNNAgent);
    the same judge rollouts use (rollers.GnubgNNRoller)."""

    name = "gnubg-nn"

    def __init__(self, mode: GameMode):
        self.mode = mode
        self.roller = GnubgNNRoller(mode)

    def roll_values(self, boards: np.ndarray, owners: np.ndarray) -> np.ndarray:
        return self.roller.all_rolls(boards)[0]


def make_reference(spec: str, mode: GameMode):
    return GnubgNNReference(mode) if spec == "gnubg-nn" else CheckpointReference(spec)


def _rolls_of(records):
    """Every checker-play turn of every game: (game, sign for A, cube, board, owner, dice, opening)."""
    out = []
    for g, rec in enumerate(records):
        cube, owner_player, opening = 1, None, True
        for mover, dice, event, before, _ in rec.turns:
            if event == "take":  # the taker (this turn's player) now owns the doubled cube
                cube *= 2
                owner_player = mover
            elif event == "move":
                owner = CUBE_CENTERED if owner_player is None else CUBE_MINE if owner_player == mover else CUBE_THEIRS
                out.append((g, 1.0 if mover == 0 else -1.0, cube, before, owner, dice, opening))
                opening = False
    return out


def game_luck(records, reference) -> np.ndarray:
    """Luck of each game from agent A's side (A's luck minus B's), in points; the records
    need their per-turn record (play_games(record=True))."""
    rolls = _rolls_of(records)
    luck = np.zeros(len(records))
    if not rolls:
        return luck
    boards = np.array([r[3] for r in rolls], dtype=np.int64)
    owners = np.array([r[4] for r in rolls], dtype=np.int64)
    opening = np.array([r[6] for r in rolls])
    # the same position (same cube owner, same opening flag) is judged once
    keys = [(k, o, f) for k, o, f in zip(be.position_keys(boards).tolist(), owners.tolist(), opening.tolist())]
    index, inverse = {}, np.empty(len(rolls), dtype=np.int64)
    for i, key in enumerate(keys):
        inverse[i] = index.setdefault(key, len(index))
    first = np.zeros(len(index), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(rolls))[::-1]
    values = reference.roll_values(boards[first], owners[first])[inverse]          # (n, 21)
    weights = np.where(opening[:, None], OPENING_WEIGHTS[None, :], ROLL_WEIGHTS[None, :])
    thrown = values[np.arange(len(rolls)), roll_index(np.array([r[5] for r in rolls]))]
    per_roll = (thrown - (values * weights).sum(axis=1)) * np.array([r[1] * r[2] for r in rolls])
    np.add.at(luck, np.array([r[0] for r in rolls]), per_roll)
    return luck


def add_luck(records, spec: str, mode: GameMode, keep_turns: bool = False) -> None:
    """Set ``record.luck`` on each record (and drop the per-turn record unless asked)."""
    luck = game_luck(records, make_reference(spec, mode))
    for rec, x in zip(records, luck):
        rec.luck = float(x)
        if not keep_turns:
            rec.turns = []


def luck_summary(records, mode: GameMode, reference: str, seed: int = 0) -> dict:
    """Adjusted mean with a bootstrap CI over duplicate pairs, in the table's metric (DMP
    win rate, else points per game), and the factor by which adjustment cuts the games
    needed for the same CI width (raw over adjusted variance of the pair means)."""
    idx = np.array([r.index for r in records])
    pts = np.array([r.points for r in records], dtype=np.float64)
    adjusted = pts - np.array([r.luck for r in records])
    raw_pairs, adj_pairs = pair_means(idx, mode.metric_of_points(pts)), pair_means(idx, mode.metric_of_points(adjusted))
    out = {"reference": reference, "metric": mode.metric,
           **summary_ci(adj_pairs, seed=seed), "raw_mean": float(raw_pairs.mean()), "units": len(raw_pairs)}
    if not has_interval(len(raw_pairs)):   # one unit has no variance either
        return {**out, "raw_variance": None, "adjusted_variance": None, "games_factor": None}
    raw_var, adj_var = float(raw_pairs.var(ddof=1)), float(adj_pairs.var(ddof=1))
    return {**out, "raw_variance": raw_var, "adjusted_variance": adj_var,
            "games_factor": raw_var / adj_var if adj_var > 0 else float("inf")}


def format_luck(s: dict) -> str:
    scale, unit, fmt = (100, "%", "{:.2f}") if s["metric"] == "win_rate" else (1000, "mEq/game", "{:+.1f}")
    f = lambda x: fmt.format(x * scale)  # noqa: E731
    head = f"  luck-adjusted ({s['reference']}): {f(s['mean'])} {unit}  {ci_text(s, fmt, scale)}"
    if s["raw_variance"] is None:
        return head + "\n  variance per pair: none (one unit)"
    return (f"{head}\n"
            f"  variance per pair: raw {s['raw_variance']:.4g}, adjusted {s['adjusted_variance']:.4g} "
            f"-> {s['games_factor']:.2f}x fewer games for the same CI")
