"""Luck-adjusted head-to-head results: the same answer from fewer games.

The luck of a roll is what the dice gave beyond what they give on average, judged by
a reference evaluator: the value of the reference's best move for the roll thrown,
minus the mean over all 21 rolls (an opening roll: the 15 non-doubles) of the best
move's value.  Its expectation given the position is exactly zero whatever the
reference, so subtracting the luck of A's rolls and adding that of B's leaves the
expected result unchanged (unbiased) while removing most of the dice's noise, as far
as the reference judges positions well.  Values are in the game mode's points from
the roller's side (DMP: 2 P(win) - 1), times the cube at the time in cubeful games.

References (``judge``): ``gnubg-nn`` (GNU Backgammon's 0-ply network, playing the game
mode's objective: one ``bestmove`` call per position and roll) or a checkpoint (every
roll of every position of a batch of games in one Scorer pass); either is an Evaluator and
judges through its ``all_rolls``.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import OPENING_WEIGHTS, ROLL_WEIGHTS, roll_index
from tdbg.game.encoding import CUBE_CENTERED, CUBE_MINE, CUBE_THEIRS
from tdbg.game.modes import GameMode, MatchPlay, for_mode
from tdbg.infra.errors import InputError
from tdbg.infra.stats import ci_text, has_interval, pair_means, summary_ci
from tdbg.net.model import CheckpointError, read_checkpoint
from tdbg.play import opponents
from tdbg.play.evaluator import Evaluator
from tdbg.play.metrics import headline, metric_of_points
from tdbg.play.players import Player
from tdbg.play.seating import evaluator

JUDGES_SINGLE_GAMES = {GameMode: True, MatchPlay: False}  # a model of the mode values single games


def judge(spec: str, mode: GameMode | None, data: bytes | None = None) -> Evaluator:
    """The evaluator ``spec`` names as a judge of ``mode``'s games: gnubg-nn (playing the
    mode's objective), or a checkpoint (``data``: its bytes) in the game mode it was trained
    for (``mode`` None: only a checkpoint, which knows its own).  InputError for a checkpoint
    that cannot judge (a match model)."""
    if spec == "gnubg-nn":
        return evaluator(Player(spec), mode)
    found = evaluator(Player(spec, data=data))
    if not for_mode(JUDGES_SINGLE_GAMES, found.mode):
        raise InputError(f"{spec} is a match-play model: it cannot judge the luck of single games")
    return found


def read_reference(spec: str, data: bytes | None = None) -> bytes | None:
    """Before any game: the bytes of the checkpoint ``spec`` names (None for gnubg-nn), read
    once (``data``: already read, as a player's); InputError for a spec that is neither gnubg-nn nor a checkpoint that can judge
    single games (a named opponent such as pubeval plays, it does not evaluate every roll)."""
    if spec == "gnubg-nn":
        return None
    if opponents.get(spec) is not None:
        raise InputError(
            f"--luck {spec}: the judge is gnubg-nn or a checkpoint file ({spec} plays; it does not "
            f"value every roll)"
        )
    if not os.path.isfile(spec):
        raise InputError(
            f"--luck {spec}: no such checkpoint file (the judge is gnubg-nn or a checkpoint)"
        )
    try:
        data = data if data is not None else read_checkpoint(spec)
        judge(spec, None, data)
    except (CheckpointError, InputError, ValueError) as exc:
        raise InputError(str(exc) if str(exc).startswith(spec) else f"{spec}: {exc}") from None
    return data


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
                owner = (
                    CUBE_CENTERED
                    if owner_player is None
                    else CUBE_MINE
                    if owner_player == mover
                    else CUBE_THEIRS
                )
                out.append((g, 1.0 if mover == 0 else -1.0, cube, before, owner, dice, opening))
                opening = False
    return out


def game_luck(records, reference: Evaluator) -> np.ndarray:
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
    keys = [
        (k, o, f)
        for k, o, f in zip(
            be.position_keys(boards).tolist(), owners.tolist(), opening.tolist(), strict=True
        )
    ]
    index: dict[tuple, int] = {}
    inverse = np.empty(len(rolls), dtype=np.int64)
    for i, key in enumerate(keys):
        inverse[i] = index.setdefault(key, len(index))
    first = np.zeros(len(index), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(rolls))[::-1]
    values = reference.all_rolls(boards[first], owners[first])[0][inverse]  # (n, 21)
    weights = np.where(opening[:, None], OPENING_WEIGHTS[None, :], ROLL_WEIGHTS[None, :])
    thrown = values[np.arange(len(rolls)), roll_index(np.array([r[5] for r in rolls]))]
    per_roll = (thrown - (values * weights).sum(axis=1)) * np.array([r[1] * r[2] for r in rolls])
    np.add.at(luck, np.array([r[0] for r in rolls]), per_roll)
    return luck


def add_luck(
    records, spec: str, mode: GameMode, keep_turns: bool = False, data: bytes | None = None
) -> None:
    """Set ``record.luck`` on each record (and drop the per-turn record unless asked)."""
    luck = game_luck(records, judge(spec, mode, data))
    for rec, x in zip(records, luck, strict=True):
        rec.luck = float(x)
        if not keep_turns:
            rec.turns = []


def luck_summary(
    records, mode: GameMode, reference: str, seed: int = 0, data: bytes | None = None
) -> dict:
    """Adjusted mean with a bootstrap CI over duplicate pairs, in the table's metric (DMP
    win rate, else points per game), and the factor by which adjustment cuts the games
    needed for the same CI width (raw over adjusted variance of the pair means).
    ``data``: the reference checkpoint's bytes that judged the luck, named by their md5
    (``reference_md5``; None for gnubg-nn)."""
    idx = np.array([r.index for r in records])
    pts = np.array([r.points for r in records], dtype=np.float64)
    adjusted = pts - np.array([r.luck for r in records])
    raw_pairs = pair_means(idx, metric_of_points(mode, pts))
    adj_pairs = pair_means(idx, metric_of_points(mode, adjusted))
    out = {
        "reference": reference,
        "reference_md5": hashlib.md5(data).hexdigest() if data is not None else None,
        "metric": headline(mode),
        **summary_ci(adj_pairs, seed=seed),
        "raw_mean": float(raw_pairs.mean()),
        "units": len(raw_pairs),
    }
    if not has_interval(len(raw_pairs)):  # one unit has no variance either
        return {**out, "raw_variance": None, "adjusted_variance": None, "games_factor": None}
    raw_var, adj_var = float(raw_pairs.var(ddof=1)), float(adj_pairs.var(ddof=1))
    return {
        **out,
        "raw_variance": raw_var,
        "adjusted_variance": adj_var,
        "games_factor": raw_var / adj_var if adj_var > 0 else float("inf"),
    }


def format_luck(s: dict) -> str:
    scale, unit, fmt = (
        (100, "%", "{:.2f}") if s["metric"] == "win_rate" else (1000, "mEq/game", "{:+.1f}")
    )
    f = lambda x: fmt.format(x * scale)  # noqa: E731
    head = f"  luck-adjusted ({s['reference']}): {f(s['mean'])} {unit}  {ci_text(s, fmt, scale)}"
    if s["raw_variance"] is None:
        return head + "\n  variance per pair: none (one unit)"
    return (
        f"{head}\n"
        f"  variance per pair: raw {s['raw_variance']:.4g}, adjusted {s['adjusted_variance']:.4g} "
        f"-> {s['games_factor']:.2f}x fewer games for the same CI"
    )
