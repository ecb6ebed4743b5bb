"""Rollouts: what a position (or each move of a roll) is worth, by playing it out many
times with one player for both sides, with a stated standard error.

Many trials advance together through the shared turn loop (turns.Table): one batched
scoring of all live trials per ply.  Variance is reduced as GNU Backgammon does it:

* stratified dice (RolloutDice): every 36 trials throw each first roll once and
  every 1,296 each pair of first and second rolls; later rolls are random, drawn from
  the seed by trial and ply, so that every candidate move sees the same dice;
* luck adjustment: at each turn the roller's own 0-ply judges every roll (value of
  its best move) and the roll's luck is the thrown roll's value minus the mean over
  the 21 rolls (the definition of luck.py).  Its expectation is zero whatever the
  judge, so the adjusted result (result minus the luck of the root side's rolls plus
  the opponent's) has the same mean and, with a good judge, much less noise;
* truncation: a trial stopped after N plies is scored by the roller's value of the
  position then (its network, from the side on roll).

Values are in points from the root side's view (cube 1): DMP 2 P(win) - 1, money the
cubeless equity.  P(win) and gammon rates come from finished games, and from the
network's probabilities at the horizon where its head has them.  No cube: cubeless
rollouts only (a cubeful model's equity here is its cubeless play's result).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np
from tqdm import tqdm

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ROLL_WEIGHTS, RolloutDice, roll_index
from tdbg.game.modes import game_mode
from tdbg.game.turns import ABANDONED, Table
from tdbg.infra.workers import WorkerPool
from tdbg.net.model import CheckpointError
from tdbg.net.search import Search
from tdbg.play.evaluator import Evaluator
from tdbg.play.metrics import win_probability
from tdbg.play.players import Player
from tdbg.play.seating import evaluator


@dataclass
class Outcome:
    """Per-trial results of one rollout, from the root side's view."""

    points: np.ndarray  # result in points (truncated: the network's value at the horizon)
    luck: np.ndarray  # sum of the root side's luck minus the opponent's
    win: np.ndarray  # P(win) per trial (1/0 for a finished game)
    gammon: np.ndarray  # P(win gammon) - P(lose gammon) terms, see summary; nan where unknown
    finished: np.ndarray

    @property
    def adjusted(self) -> np.ndarray:
        return self.points - self.luck


@dataclass(frozen=True)
class RolloutSettings:
    """One rollout's settings, built once by the caller and sent whole to each worker: who
    plays (``model``, ``game_mode``, ``ply``: ``roller``) and how the trials run."""

    model: str  # a checkpoint, or gnubg-nn
    trials: int  # per position (each 36 throw every first roll once, each 1,296 every pair)
    game_mode: str | None = None  # default: the checkpoint's (gnubg-nn: dmp)
    ply: int = 0  # the players' move choice: 0 or 1 ply
    truncate: int = 0  # plies before the roller's value scores a trial (0: played out)
    seed: int = 0  # the dice
    use_luck: bool = True  # the luck adjustment (it judges all 21 rolls at every ply)
    workers: int = 1  # processes sharing the trials (the same dice: the same result)
    # the checkpoint's bytes, read once (pinned): every worker plays them, whatever replaces the file
    data: bytes | None = field(default=None, repr=False, compare=False)

    def roller(self) -> Evaluator:
        """The evaluator that plays both sides and judges every roll: a checkpoint in
        ``game_mode`` (default: its own), or gnubg-nn (0-ply; default mode dmp).
        CheckpointError for a file that is not a checkpoint, ValueError for a cubeful one
        (rollouts are cubeless) or for gnubg-nn at another depth."""
        if self.model == "gnubg-nn":
            if self.ply != 0:
                raise ValueError("gnubg-nn rolls out at 0 ply only")
            return evaluator(Player("gnubg-nn"), game_mode(self.game_mode or "dmp"))
        if not os.path.isfile(self.model):  # a named opponent other than gnubg-nn judges no rolls
            raise CheckpointError(f"{self.model}: no such checkpoint file")
        roller = evaluator(
            Player(self.model, Search(oneply=self.ply == 1), data=self.data),
            game_mode(self.game_mode) if self.game_mode else None,
        )
        roller.mode.require(
            f"{self.model} is a cubeful model: rollouts here are cubeless, and its inputs "
            "need a cube",
            cube=False,
        )
        return roller


class _Players:
    """The roller playing both sides of every trial, recording each roll's luck."""

    def __init__(self, roller, signs: np.ndarray, use_luck: bool):
        self.roller, self.signs, self.use_luck = roller, signs, use_luck
        self.luck = np.zeros(len(signs))

    def cube(
        self, slots, boards, owner
    ):  # cubeless rollouts: never reached (no mode lets them double)
        raise AssertionError("rollouts are cubeless")

    def move(self, slots, boards, dice, owner):
        if not self.use_luck and self.roller.plays_own_0ply:
            return self.roller.choose_moves(boards, dice)
        values, best_after = self.roller.all_rolls(boards)
        thrown = roll_index(dice)
        luck = values[np.arange(len(slots)), thrown] - values @ ROLL_WEIGHTS
        self.luck[slots] += luck * self.signs[slots]
        if self.roller.plays_own_0ply:
            return best_after[np.arange(len(slots)), thrown]
        return self.roller.choose_moves(boards, dice)


def _score_at_the_horizon(roller, table, root_left, left, points, win, gammon) -> None:
    """Score the trials a truncated rollout stopped (``left``, their root signs ``root_left``)
    by the roller's value of their position, side on roll, turned to the root's view."""
    side = np.where(table.ply[left] % 2 == 0, 1.0, -1.0) * root_left
    v_points, p_win, p_gammon = roller.position_values(table.boards[left])
    points[left] = v_points * side
    win[left] = np.where(side > 0, p_win, 1.0 - p_win)
    gammon[left] = p_gammon * side


def rollout_positions(
    roller: Evaluator,
    boards: np.ndarray,
    settings: RolloutSettings,
    root_signs=None,
    trial_range=None,
    progress=None,
) -> list[Outcome]:
    """Roll out each of ``boards`` (side on roll in row 1) ``settings.trials`` times with
    ``roller`` (in this process: ``settings.workers`` is not read here), all positions on
    the same dice; ``root_signs[i]`` = -1 scores position i for the side *not* on roll (a
    candidate move's after-state seen by the mover).  One Table holds every trial.
    ``trial_range=(start, stop)`` plays only those trials (a worker's share: the dice are
    those of the whole rollout); ``progress(k)`` is told of k finished trials."""
    boards = np.asarray(boards, dtype=np.int64)
    n = len(boards)
    start, stop = trial_range or (0, settings.trials)
    dice = RolloutDice(settings.trials, settings.seed)
    trials = stop - start
    signs_root = np.ones(n) if root_signs is None else np.asarray(root_signs, dtype=np.float64)
    table = Table(roller.mode, n * trials, max_plies=settings.truncate or 10_000)
    table.boards[:] = np.repeat(boards, trials, axis=0)
    trial_of = np.tile(np.arange(start, stop), n)
    root = np.repeat(signs_root, trials)
    players = _Players(roller, root.copy(), settings.use_luck)
    # each trial's points, win and gammon to the root side's view; NaN until the trial is scored
    points, win, gammon = (np.full(n * trials, np.nan) for _ in range(3))

    def on_end(ended):
        keep = ended.result != ABANDONED  # the horizon of a truncated rollout: scored below
        s = ended.slots[keep]
        # the side that acted won ``points``; it is the root side when the turn parity says so
        side = np.where(ended.turn[keep] % 2 == 0, 1.0, -1.0) * root[s]
        points[s] = ended.points[keep] * side
        win[s] = side > 0
        gammon[s] = np.where(ended.result[keep] >= 2, side, 0.0)
        if progress:
            progress(len(s))

    while table.live.any():
        # each ply flips the side on roll: signs track the root side for luck
        players.signs = root * np.where(table.ply % 2 == 0, 1.0, -1.0)
        table.play_turn(
            np.flatnonzero(table.live), players, lambda s: dice(trial_of[s], table.ply[s]), on_end
        )
    finished = ~np.isnan(points)
    left = np.flatnonzero(~finished)
    if len(left):
        _score_at_the_horizon(roller, table, root[left], left, points, win, gammon)
        if progress:
            progress(len(left))
    return [
        Outcome(points[sl], players.luck[sl], win[sl], gammon[sl], finished[sl])
        for sl in (slice(i * trials, (i + 1) * trials) for i in range(n))
    ]


def _concat(parts: list[Outcome]) -> Outcome:
    return Outcome(
        *(
            np.concatenate([getattr(p, f) for p in parts])
            for f in ("points", "luck", "win", "gammon", "finished")
        )
    )


def _chunk_job(job: dict) -> list[Outcome]:
    settings = job["settings"]
    return rollout_positions(
        settings.roller(), job["boards"], settings, job["signs"], trial_range=job["range"]
    )


def rollout_outcomes(
    settings: RolloutSettings, boards, root_signs=None, progress: bool = False, roller=None
) -> list[Outcome]:
    """rollout_positions over ``settings.workers`` processes, each a share of the trials (the
    same dice as one process would throw): one Outcome per board.  ``roller``: the one
    ``settings`` name, already made (one process only; each worker makes its own)."""
    boards = np.asarray(boards, dtype=np.int64)
    if not len(boards):
        return []
    trials, workers = settings.trials, settings.workers
    if workers <= 1:
        roller = roller or settings.roller()
        with tqdm(
            total=len(boards) * trials, unit="trial", disable=not progress, dynamic_ncols=True
        ) as bar:
            return rollout_positions(roller, boards, settings, root_signs, progress=bar.update)
    cuts = np.linspace(0, trials, min(workers, trials) * 4 + 1).astype(
        int
    )  # a few chunks each: even finish
    jobs = [
        {"settings": settings, "boards": boards, "signs": root_signs, "range": (int(a), int(b))}
        for a, b in pairwise(cuts)
        if b > a
    ]
    with (
        WorkerPool(min(workers, len(jobs)), what="rollout worker") as pool,
        tqdm(total=len(jobs), unit="chunk", disable=not progress, dynamic_ncols=True) as bar,
    ):
        tasks = [pool.submit(_chunk_job, j) for j in jobs]
        parts = pool.results(tasks)
        bar.update(len(jobs))
    return [_concat([p[i] for p in parts]) for i in range(len(boards))]


def _stats(x: np.ndarray) -> tuple[float, float]:
    se = float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
    return float(np.mean(x)), se


def summarize(o: Outcome, mode) -> dict:
    """Plain and luck-adjusted means (points, root side) with standard errors, P(win),
    and the factor by which adjustment shrinks the standard error."""
    mean, se = _stats(o.points)
    adj, adj_se = _stats(o.adjusted)
    d = {
        "value": mean,
        "se": se,
        "value_adjusted": adj,
        "se_adjusted": adj_se,
        "se_factor": se / adj_se if adj_se > 0 else float("inf"),
        "p_win": float(np.mean(o.win)) if not np.isnan(o.win).any() else None,
        "p_win_adjusted": win_probability(mode, adj),
        "finished": int(o.finished.sum()),
        "trials": len(o.points),
    }
    if not np.isnan(o.gammon).any():
        d["gammons_net"] = float(o.gammon.mean())  # (wins - losses) by a gammon or more, per game
    return d


def candidate_moves(roller: Evaluator, board, dice, top: int | None = None):
    """(moves, after-states) of ``dice`` in ``board``, best first by the roller's 0-ply, at most ``top``."""
    board = np.asarray(board, dtype=np.int64)
    legal = be.legal_moves(board, int(dice[0]), int(dice[1]))
    if not legal:
        return [()], np.array([board])
    afters = np.array([a for _, a in legal])
    order = np.argsort(-roller.after_values(afters), kind="stable")[: top or None]
    return [legal[k][0] for k in order], afters[order]


def rank_moves(
    roller: Evaluator, board, moves, outcomes: list[Outcome], use_luck: bool = True
) -> list[dict]:
    """Rows for each move, best first, with paired differences from the best (same dice)."""
    rows = [
        {
            "move": m,
            "text": be.format_move(board, m) if m else "(no move)",
            "outcome": o,
            **summarize(o, roller.mode),
        }
        for m, o in zip(moves, outcomes, strict=True)
    ]
    key = "value_adjusted" if use_luck else "value"
    rows.sort(key=lambda r: -r[key])
    best = rows[0]["outcome"]
    for r in rows:
        r["diff"], r["diff_se"] = _stats(r["outcome"].points - best.points)
        r["diff_adjusted"], r["diff_se_adjusted"] = _stats(r["outcome"].adjusted - best.adjusted)
        del r["outcome"]
    return rows


def move_outcomes(
    settings: RolloutSettings,
    roller: Evaluator,
    board,
    dice,
    top: int | None = None,
    progress: bool = False,
):
    """Each candidate's Outcome from the mover's side (see after_outcomes), the candidates
    being the ``top`` moves by the roller's 0-ply."""
    moves, afters = candidate_moves(roller, board, dice, top)
    return moves, after_outcomes(settings, roller, afters, progress)


def after_outcomes(
    settings: RolloutSettings, roller: Evaluator, afters, progress: bool = False
) -> list[Outcome]:
    """The Outcome of each after-state (mover in row 1) from the mover's side, all on the
    same dice: rolled out with the opponent on roll, or its exact result when the move
    ends the game.  ``roller``: the one ``settings`` name, already made (it scores the games
    a move ends and plays in this process; each worker makes its own)."""
    afters = np.asarray(afters, dtype=np.int64)
    results = be.game_results(afters)
    live = np.flatnonzero(results == 0)
    trials = settings.trials
    outs = rollout_outcomes(settings, afters[live][:, ::-1], -np.ones(len(live)), progress, roller)
    by_index = dict(zip(live.tolist(), outs, strict=True))
    outcomes = []
    for k in range(len(afters)):
        if k in by_index:
            outcomes.append(by_index[k])
        else:  # the move ends the game: its value is exact
            pts = float(roller.mode.points(np.array([results[k]]))[0])
            z = np.zeros(trials)
            outcomes.append(
                Outcome(
                    np.full(trials, pts),
                    z,
                    np.ones(trials),
                    z + (abs(results[k]) >= 2),
                    np.ones(trials, bool),
                )
            )
    return outcomes
