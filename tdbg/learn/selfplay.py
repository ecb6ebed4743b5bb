"""Vectorised self-play: many games per process, one forward pass per step.

Each step advances every live game by one turn of the shared turn loop
(turns.Table).  The side on roll's position (before the dice) becomes a training
sample whose target is

* sampled TD(0): the value of the best move for the roll actually thrown, or
* exact 1-ply (``oneply``): the mean over all 21 rolls (1/36 doubles, 2/36
  others) of the best move's value; the roll actually thrown is then played
  from the same scores.

Finished games are scored exactly.  In cubeful money, a turn whose mover may
double first passes a cube node (see game.modes.base): the node is a sample too, with
the value the mode's cube rule gives it, max(no double, min(2 x take value, 1)),
and the cube decisions are that rule's under the network's own values (read
directly, or backed up over the 21 rolls with ``Acting.cube_targets_1ply``).

Exploration (``Acting``) changes which move is *played*, never the target: the
target is always the greedy value above (the best candidate's value for the roll
thrown, or the 1-ply mean of each roll's best), whatever move the game goes on
with.  So the network keeps learning the value of greedy play (an off-policy,
Q-learning-like backup), and exploration only widens the positions it sees.
``boltzmann_temp`` T > 0 plays candidate i of a roll with probability proportional
to exp(s_i / T), s the mover's scalar (P(win) or equity; 1-ply values with
``oneply_acting``); ``oneply_acting`` picks (or weighs) moves by their 1-ply value
instead of the network's 0-ply one.  T = 0 and no 1-ply acting draw nothing extra
from the random stream: the same games as before these options existed.

``Collector`` spreads the episodes over workers (backends.py: worker processes on
this machine, or Ray actors; a lost share of a round is collected again); they
return plain numpy arrays.  Worker i's share of round k is seeded from (seed, stage,
k, i) alone, so the data are the same whichever backend collects them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NotRequired, TypedDict

import numpy as np
import torch

from tdbg.game.dice import roll_dice, roll_index
from tdbg.game.modes.base import GameMode
from tdbg.game.turns import DROPPED, Ended, Table
from tdbg.infra import profiling
from tdbg.infra.backends import Backend, open_pool
from tdbg.learn.lambda_returns import lambda_returns
from tdbg.learn.stage_settings import Acting, Collection, CollectionScoring
from tdbg.net import lowp
from tdbg.net.model import TDNetwork, move_filter_of, set_move_filter
from tdbg.net.move_filter import FilteredOnePly, filter_rows, join_rows
from tdbg.net.scoring import Scorer, segment_argmax, segment_sample


class Samples(TypedDict):
    """A round's self-play (``SelfPlay.collect``, ``Collector.result``): the positions'
    encoded ``features`` and their ``targets``, the move filter's training rows (or None)
    and the counts and times in ``stats``."""

    features: np.ndarray
    targets: np.ndarray
    filter: dict | None
    stats: dict[str, float]
    profile: NotRequired[dict]  # a worker's profiling counts, when profiling is on


# a collection whose precision is concrete: the stage's "auto" is chosen by BatchLearner.prepare
FP32_COLLECTION = Collection(scoring=CollectionScoring(precision="fp32"))


@dataclass(frozen=True)
class SelfPlaySetup:
    """What self-play plays, besides the network: one value, sent whole to each worker.  The
    stage's ``Collection`` and ``Acting`` settings (learn.stage_settings) travel in it as they are,
    each field read where it is used, beside the game mode and the move generator
    (``Run.engine``).  ``record_filter``: 0-ply play keeps the thrown roll's candidates as
    the move filter's rows (the filter's warm-up, filter_training.py)."""

    mode: GameMode
    collection: Collection = FP32_COLLECTION
    acting: Acting = Acting()
    engine: str = "auto"
    record_filter: bool = False


class SelfPlay:
    """Plays ``n_episodes`` games of a model against itself and returns (features, targets)."""

    def __init__(self, model, setup: SelfPlaySetup):
        col, self.acting, self.mode = setup.collection, setup.acting, setup.mode
        self.acting.check(self.mode)
        if col.scoring.precision == lowp.AUTO:
            raise ValueError(
                "self-play needs a concrete collect precision (BatchLearner.prepare chooses auto's)"
            )
        self.collection = col
        self.scorer = Scorer(model, self.mode, engine=setup.engine, scoring=col.scoring)
        # --oneply-filter K: 1-ply targets over the model's move filter's K best candidates a roll
        # (move_filter.py); record_filter: 0-ply play keeps the thrown roll's candidates as filter rows
        self.filtered = (
            FilteredOnePly(self.scorer, k=col.oneply_filter, exact_races=col.filter_exact_races)
            if col.oneply and col.oneply_filter
            else None
        )
        self.record_filter = setup.record_filter

    def collect(self, n_episodes: int, rng: np.random.Generator) -> Samples:
        """Play ``n_episodes`` self-play games, ``parallel_games`` of them at a time on one
        table (a slot starts a new game as its game ends), and return their samples."""
        c0 = profiling.clock() if profiling.ENABLED else 0.0
        scorer = self.scorer
        g = max(1, min(self.collection.parallel_games, n_episodes))
        table = Table(self.mode, g)
        table.new_games(
            np.arange(g), self.mode.initial_states(g, rng, self.acting.cube_start)
        )  # match: a spread of scores
        players = _Recorder(self, table, self._exploration_rng(rng))
        players.new_games(np.arange(g))
        started = g
        # the scorer's counters before the batch: the batch's share is reported
        before = (
            scorer.evaluations,
            scorer.engine_seconds,
            scorer.net_seconds,
            time.perf_counter(),
        )

        def on_end(ended: Ended) -> None:
            nonlocal started
            _tally_ended_games(players, ended)
            fresh = ended.slots[: max(0, min(len(ended.slots), n_episodes - started))]
            table.new_games(
                fresh, self.mode.initial_states(len(fresh), rng, self.acting.cube_start)
            )
            players.new_games(fresh)
            started += len(fresh)

        table.play(
            players, lambda idx: roll_dice(rng, len(idx), opening=table.ply[idx] == 0), on_end
        )

        samples = self._samples(players, before)
        if profiling.ENABLED:
            profiling.add("collect", c0)
        return samples

    def _exploration_rng(self, rng: np.random.Generator) -> np.random.Generator | None:
        """Exploration's own stream, seeded from the dice stream only when some exploration
        is on (so that a run without it draws the same dice as before it existed)."""
        acting = self.acting
        if (
            acting.boltzmann_temp > 0
            or acting.cube_explore > 0
            or acting.cube_hold > 0
            or acting.take_explore > 0
        ):
            return np.random.default_rng(rng.integers(0, 2**63, 2))
        return None

    def _samples(self, players: _Recorder, before: tuple) -> Samples:
        """The batch's training rows (features, targets, the move filter's rows) and its
        statistics, with the evaluations and time the batch took (``before``: the scorer's
        evaluations, engine and net seconds, and the clock, when it began)."""
        scorer = self.scorer
        evals_before, engine_before, net_before, started_at = before
        width = scorer.values.width
        out_t = players.returns() if self.acting.td_lambda > 0 else np.concatenate(players.targets)
        out_t = out_t.astype(np.float32)
        filter_parts = players.filter_parts + (
            [self.filtered.take_rows()] if self.filtered is not None else []
        )
        return {
            "features": np.concatenate(players.feats).astype(np.float32, copy=False),
            "targets": out_t if width > 1 else out_t.reshape(-1),
            "filter": join_rows(filter_parts),  # the move filter's training rows, or None
            "stats": {
                **players.stats,
                "evaluations": scorer.evaluations - evals_before,
                # where the time went (benchmarks): C engine (incremental: + first layer), network
                "engine_seconds": scorer.engine_seconds - engine_before,
                "net_seconds": scorer.net_seconds - net_before,
                "collect_seconds": time.perf_counter() - started_at,
            },
        }


def _tally_ended_games(players: _Recorder, ended: Ended) -> None:
    """Count the games that ``ended`` into ``players.stats``: the abandoned ones (whose
    samples are dropped), and of the rest the gammons, backgammons, points and plies."""
    stats = players.stats
    abandoned = ended.result < 0
    stats["abandoned"] += int(abandoned.sum())
    players.abandoned += players.game_of_slot[ended.slots[abandoned]].tolist()
    fin = ~abandoned
    if fin.any():
        res = ended.result[fin]
        stats["gammons"] += int((res == 2).sum())
        stats["backgammons"] += int((res == 3).sum())
        stats["points"] += float(np.abs(ended.points[fin]).sum())
        stats["plies"] += int((ended.turn[fin] + (res != DROPPED)).sum())
        stats["episodes"] += int(fin.sum())


class _Recorder:
    """The network playing both sides (greedily unless ``Acting`` says otherwise) while
    recording each decision as a sample:
    a cube node's target is its value under the cube rule, a pre-roll position's the
    best move's value (sampled) or the mean over all 21 rolls (1-ply)."""

    def __init__(
        self, selfplay: SelfPlay, table: Table, explore: np.random.Generator | None = None
    ):
        self.scorer, self.mode, self.collection = (
            selfplay.scorer,
            selfplay.mode,
            selfplay.collection,
        )
        self.acting, self.explore, self.table = selfplay.acting, explore, table
        self.filtered, self.record_filter = selfplay.filtered, selfplay.record_filter
        self.filter_parts: list = []
        self.feats: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        # for lambda-returns: each sample's game, side (ply parity), trace cut and cube scale
        self.trace = selfplay.acting.td_lambda > 0
        self.games: list[np.ndarray] = []
        self.sides: list[np.ndarray] = []
        self.cuts: list[np.ndarray] = []
        self.scales: list[np.ndarray] = []
        self.game_of_slot = np.zeros(len(table.ply) if table is not None else 0, dtype=np.int64)
        self.next_game = 0
        self.abandoned: list = []
        self.stats = {
            "episodes": 0,
            "plies": 0,
            "gammons": 0,
            "backgammons": 0,
            "abandoned": 0,
            "doubles": 0,
            "takes": 0,
            "drops": 0,
            "points": 0.0,
        }

    def new_games(self, slots) -> None:
        self.game_of_slot[slots] = self.next_game + np.arange(len(slots))
        self.next_game += len(slots)

    def _note(self, slots, cut, scale=None) -> None:
        """What lambda-returns need of the samples just recorded (callers note only when tracing)."""
        self.games.append(self.game_of_slot[slots].copy())
        self.sides.append(self.table.ply[slots] % 2)
        self.cuts.append(np.asarray(cut, dtype=bool))
        self.scales.append(np.ones(len(slots)) if scale is None else scale)

    def returns(self) -> np.ndarray:
        """Every sample's lambda-return (lambda_returns.py); an abandoned game's samples keep
        their one-step targets."""
        targets = np.concatenate(self.targets)
        game = np.concatenate(self.games)
        out = lambda_returns(
            targets,
            game,
            np.concatenate(self.sides),
            np.concatenate(self.cuts),
            np.concatenate(self.scales),
            self.acting.td_lambda,
            self.scorer.values.flip,
        )
        lost = np.isin(game, self.abandoned)
        out[lost] = targets[lost]
        return out

    def cube(self, slots, boards, owner):
        v_no_double, v_take = self.scorer.cube_values(boards, owner, self.acting.cube_targets_1ply)
        act = self.mode.cube_action(v_no_double, v_take, owner)
        self.feats.append(self.scorer.encode_states(boards, owner, np.ones(len(slots))))
        self.targets.append(act.value)
        double, take = act.double, act.take
        if self.acting.cube_explore:
            # visit the branches the greedy rule avoids (its values are learned only where they
            # are visited): now and then double anyway, and take a double the rule would drop.
            # The node's target stays the greedy value above.
            r = self.explore.random((2, len(slots)))
            double = double | (r[0] < self.acting.cube_explore)
            take = take | (double & (r[1] < self.acting.cube_explore))
        if self.acting.cube_hold:
            # and the other way: now and then roll on where the rule doubles, so the value of
            # keeping the cube is learned in the very positions the rule doubles in (greedy
            # doubles never visit them, and an undervalued "no double" is never corrected)
            double = double & ~(
                act.double & (self.explore.random(len(slots)) < self.acting.cube_hold)
            )
        if self.acting.take_explore:
            # and take now and then where the rule drops, so the value after a take is learned
            # where greedy play never takes (b3 dropped 47% of gnubg's correct takes)
            take = take | (double & (self.explore.random(len(slots)) < self.acting.take_explore))
        takes = double & take
        if (
            self.trace
        ):  # the trace stops where the played action is not the greedy one the target assumes
            self._note(
                slots,
                (double != act.double) | (double & (take != act.take)),
                np.where(takes, self.mode.take_scale, 1.0),
            )
        self.stats["doubles"] += int(double.sum())
        self.stats["takes"] += int(takes.sum())
        self.stats["drops"] += int((double & ~takes).sum())
        return double, take

    def move(self, slots, boards, dice, owner):
        self.feats.append(self.scorer.encode_states(boards, owner, np.zeros(len(slots))))
        greedy = not (self.acting.boltzmann_temp > 0 or self.acting.oneply_acting)
        if self.collection.oneply:
            if (
                self.filtered is not None
            ):  # the thrown roll in full: the same move as exact 1-ply plays
                target, (after, rows) = self.filtered.oneply(boards, owner, played=roll_index(dice))
            else:
                target, (after, rows) = self.scorer.oneply(boards, owner)
            if greedy:
                chosen = after[rows[np.arange(len(slots)), roll_index(dice)]]
        if not self.collection.oneply or not greedy:
            after, offsets, values, scalar = self.scorer.score(boards, dice, owner)
            best, _ = segment_argmax(scalar, offsets)
            if not self.collection.oneply:
                target = values[best]
                if self.record_filter:
                    self.filter_parts.append(
                        filter_rows(
                            after,
                            offsets,
                            values,
                            self.mode.reply_cube_inputs(owner),
                            self.scorer.values.flip,
                        )
                    )
            greedy_after = after[
                best
            ]  # a copy, taken before the lookahead reuses the scorer's buffers
            chosen = (
                greedy_after if greedy else self._explore(after, offsets, values, scalar, owner)
            )
            if (
                self.trace
            ):  # the trace stops where exploration played another move than the greedy one
                self._note(slots, (chosen != greedy_after).reshape(len(slots), -1).any(axis=1))
        elif self.trace:
            self._note(slots, np.zeros(len(slots), dtype=bool))
        self.targets.append(target)
        return chosen.astype(np.int64)

    def _explore(self, after, offsets, values, scalar, owner) -> np.ndarray:
        """The played after-states when acting is not greedy 0-ply (the module notes)."""
        if self.acting.oneply_acting:
            after = after.astype(np.int64)  # a copy: the lookahead reuses the scorer's buffers
            rep_owner = None if owner is None else np.repeat(np.asarray(owner), np.diff(offsets))
            scalar = self.scorer.values.scalar(
                self.scorer.lookahead(after, values.copy(), rep_owner)
            )
        if self.acting.boltzmann_temp > 0:
            assert self.explore is not None  # SelfPlay.collect makes it whenever boltzmann_temp > 0
            rows = segment_sample(scalar, offsets, self.acting.boltzmann_temp, self.explore)
        else:
            rows, _ = segment_argmax(scalar, offsets)
        return after[rows]


# --------------------------------------------------------------------------- worker processes

_WORKER_CACHE: dict = {}
_WORKER_CPU: dict = {}  # profiling: this worker's CPU clock at the end of its last job


def _profile_setup(job_start: float) -> None:
    """Profiling: a worker's first job counts its CPU so far (spawn, imports, the first
    network and scorer) as its start; later ones their CPU since the last job ended (that
    job's samples pickled, this one's weights unpickled) and their setup as transfer."""
    if "end" in _WORKER_CPU:
        profiling.count("worker_between_jobs", job_start - _WORKER_CPU["end"])
        profiling.add("worker_job_setup", job_start)
    else:
        profiling.count("worker_start", profiling.clock())


def _collect_job(job: dict) -> Samples:
    """One worker's share: ``job`` holds the network (``net``: its shape, ``state``: its
    weights, ``filter``: its move filter or None), the ``setup`` (SelfPlaySetup) whole, and
    the share's ``episodes`` and ``seed``."""
    job_start = profiling.clock() if profiling.ENABLED else 0.0
    key = job["net"]
    model = _WORKER_CACHE.get(key)
    if model is None:
        model = _WORKER_CACHE[key] = TDNetwork(*key)
        model.eval()
    model.load_state_dict(
        {k: torch.tensor(v) for k, v in job["state"].items()}
    )  # a copy: v may be read-only
    filt = None
    if job.get("filter") is not None:
        f = job["filter"]
        filt = TDNetwork(model.n_inputs, f["hidden"], model.output_mode, "relu")
        filt.load_state_dict({k: torch.tensor(v) for k, v in f["state"].items()})
        filt.eval()
    set_move_filter(model, filt)
    sp = SelfPlay(model, job["setup"])
    if profiling.ENABLED:
        _profile_setup(job_start)
    t0 = time.process_time()
    out = sp.collect(job["episodes"], np.random.default_rng(job["seed"]))
    out["stats"]["cpu_seconds"] = (
        time.process_time() - t0
    )  # this worker's CPU time, for CPU-hour accounting
    if profiling.ENABLED:
        out["profile"] = profiling.take()
        _WORKER_CPU["end"] = profiling.clock()
    return out


def worker_shares(n_episodes: int, seed_seq: np.random.SeedSequence, workers: int) -> list:
    """(episodes, seed) of each worker: worker i's seed depends on the round's seed and i
    only, so a share lost with its worker is collected again exactly."""
    if workers == 1:
        return [(n_episodes, seed_seq)]  # as collected in-process
    shares = [n_episodes // workers + (i < n_episodes % workers) for i in range(workers)]
    # seed_seq.spawn(workers) of a fresh sequence, without changing seed_seq
    return [
        (
            share,
            np.random.SeedSequence(
                seed_seq.entropy, spawn_key=(*seed_seq.spawn_key, i), pool_size=seed_seq.pool_size
            ),
        )
        for i, share in enumerate(shares)
    ]


class Collector:
    """Self-play as ``setup`` says over its ``Collection.workers`` workers, run where the
    stage's ``where`` says (backends.py; local with one worker: in this process, unless
    ``separate``, for a caller that trains while it collects).  One worker plays the same
    games in this process or its own."""

    def __init__(self, setup: SelfPlaySetup, where: Backend = Backend(), separate: bool = False):
        self.setup = setup
        self.pool = open_pool(where.backend, setup.collection.workers, "self-play worker", separate)

    def collect(self, model, n_episodes: int, seed_seq: np.random.SeedSequence) -> Samples:
        return self.result(self.submit(model, n_episodes, seed_seq))

    def submit(self, model, n_episodes: int, seed_seq: np.random.SeedSequence) -> Samples | list:
        """Start collecting with a snapshot of the model's current weights; ``result``
        waits for it.  With worker processes the caller can train meanwhile (--overlap)."""
        c0 = profiling.clock() if profiling.ENABLED else 0.0
        if self.pool is None:
            model.eval()
            out = SelfPlay(model, self.setup).collect(n_episodes, np.random.default_rng(seed_seq))
            out["stats"]["cpu_seconds"] = 0.0  # counted by the caller's own process time
            if profiling.ENABLED:
                profiling.add("collect_in_trainer", c0)
            return out
        state = self.pool.share(
            {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
        )
        col = self.setup.collection
        filt = move_filter_of(model) if col.oneply_filter and col.oneply else None
        filter_job = (
            None
            if filt is None
            else {
                "hidden": list(filt.hidden),
                "state": {k: v.detach().cpu().numpy().copy() for k, v in filt.state_dict().items()},
            }
        )
        net = (model.n_inputs, tuple(model.hidden), model.output_mode, model.activation)
        jobs = [
            {
                "net": net,
                "state": state,
                "filter": filter_job,
                "setup": self.setup,
                "episodes": share,
                "seed": seed,
            }
            for share, seed in worker_shares(n_episodes, seed_seq, col.workers)
            if share > 0
        ]
        tasks = [self.pool.submit(_collect_job, job) for job in jobs]
        if profiling.ENABLED:
            profiling.add("transfer_trainer", c0)  # the weights out to the workers
        return tasks

    def result(self, pending: Samples | list) -> Samples:
        """The round's samples; workers.WorkerError if a share could not be collected."""
        if isinstance(pending, dict):
            return pending
        c0 = profiling.clock() if profiling.ENABLED else 0.0
        parts = self.pool.results(pending)
        stats = {k: sum(p["stats"][k] for p in parts) for k in parts[0]["stats"]}
        out: Samples = {
            "features": np.concatenate([p["features"] for p in parts]),
            "targets": np.concatenate([p["targets"] for p in parts]),
            "filter": join_rows([p.get("filter") for p in parts]),
            "stats": stats,
        }
        if (
            profiling.ENABLED
        ):  # the samples back (the pool's threads unpickle them while this one waits)
            profiling.add("transfer_trainer", c0)
            for p in parts:
                profiling.merge(p.get("profile"))
        return out

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None
