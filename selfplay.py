"""Vectorised self-play: many games per process, one forward pass per step.

Each step advances every live game by one turn.  The side on roll's position
(before the dice) becomes a training sample whose target is

* sampled TD(0): the value of the best move for the roll actually thrown, or
* exact 1-ply (``oneply``): the mean over all 21 rolls (1/36 doubles, 2/36
  others) of the best move's value; the roll actually thrown is then played
  from the same scores.

Finished games are scored exactly.  In cubeful money, a turn whose mover may
double first passes a cube node (see modes.py): the node is a sample too, with
target max(no double, min(2 x take value, 1)), and the cube decisions are the
greedy ones under the network's own values.

``Collector`` spreads the episodes over worker processes (workers.WorkerPool: they
die with the run, and a lost share of a round is collected again); they return
plain numpy arrays.
"""
from __future__ import annotations

import time

import numpy as np
import torch

import backgammon_engine as be
from encoding import CUBE_CENTERED, CUBE_THEIRS
from modes import GameMode, can_double, owner_for_opponent
from scoring import Scorer, roll_index, segment_argmax
from workers import WorkerPool

MAX_PLIES = 3000  # a game this long is abandoned (never seen in practice; guards a broken net)


def roll_dice(rng: np.random.Generator, n: int, opening: np.ndarray | None = None) -> np.ndarray:
    """(n, 2) dice; rows flagged ``opening`` are re-rolled until not a double (the opening roll)."""
    dice = rng.integers(1, 7, (n, 2))
    if opening is not None:
        redo = opening & (dice[:, 0] == dice[:, 1])
        while redo.any():
            dice[redo] = rng.integers(1, 7, (int(redo.sum()), 2))
            redo = opening & (dice[:, 0] == dice[:, 1])
    return dice


class SelfPlay:
    """Plays ``n_episodes`` games of a model against itself and returns (features, targets)."""

    def __init__(self, model, mode: GameMode, oneply: bool = False, backend: str = "auto",
                 parallel_games: int = 128, device: str | None = None, first_layer: str = "auto"):
        self.scorer = Scorer(model, mode, backend=backend, device=device, first_layer=first_layer)
        self.mode = mode
        self.oneply = oneply
        self.parallel_games = parallel_games

    def collect(self, n_episodes: int, rng: np.random.Generator) -> dict:
        mode, scorer = self.mode, self.scorer
        g = max(1, min(self.parallel_games, n_episodes))
        boards = np.tile(be.initial_board(), (g, 1, 1))
        owner = np.zeros(g, dtype=np.int64)     # cube owner from the mover's view
        cube = np.ones(g, dtype=np.int64)
        ply = np.zeros(g, dtype=np.int64)
        active = np.ones(g, dtype=bool)
        started = g
        feats, targets = [], []
        stats = {"episodes": 0, "plies": 0, "gammons": 0, "backgammons": 0, "abandoned": 0,
                 "doubles": 0, "takes": 0, "drops": 0, "points": 0.0}
        evals_before = scorer.evaluations
        engine_before, net_before = scorer.engine_seconds, scorer.net_seconds
        started_at = time.perf_counter()

        def end_games(slots: np.ndarray) -> None:
            nonlocal started
            for s in slots:
                if started < n_episodes:
                    boards[s] = be.initial_board()
                    owner[s], cube[s], ply[s] = CUBE_CENTERED, 1, 0
                    started += 1
                else:
                    active[s] = False

        while active.any():
            idx = np.flatnonzero(active)
            if mode.cubeful:
                idx = self._cube_step(idx, boards, owner, cube, ply, feats, targets, stats, end_games)
                if not len(idx):
                    continue
            dice = roll_dice(rng, len(idx), opening=ply[idx] == 0)
            cube_input = np.zeros(len(idx)) if mode.cubeful else None
            feats.append(scorer.encode_states(boards[idx], owner[idx] if mode.cubeful else None, cube_input))
            own = owner[idx] if mode.cubeful else None
            if self.oneply:
                target, (after, rows) = scorer.oneply(boards[idx], own)
                chosen = after[rows[np.arange(len(idx)), roll_index(dice)]].astype(np.int64)
            else:
                after, offsets, values, scalar = scorer.score(boards[idx], dice, own)
                best, _ = segment_argmax(scalar, offsets)
                target, chosen = values[best], after[best].astype(np.int64)
            targets.append(target)
            results = be.game_results(chosen)
            done = results != 0
            ply[idx] += 1
            if done.any():
                slots = idx[done]
                pts = mode.points(results[done], owner[slots] == CUBE_CENTERED)
                stats["gammons"] += int((np.abs(results[done]) == 2).sum())
                stats["backgammons"] += int((np.abs(results[done]) == 3).sum())
                stats["points"] += float(np.abs(pts * cube[slots]).sum())
                stats["plies"] += int(ply[slots].sum())
                stats["episodes"] += len(slots)
                end_games(slots)
            go_on = idx[~done]
            boards[go_on] = be.swap(chosen[~done].transpose(1, 0, 2)).transpose(1, 0, 2)
            owner[go_on] = owner_for_opponent(owner[go_on])
            stuck = go_on[ply[go_on] >= MAX_PLIES]
            if len(stuck):
                stats["abandoned"] += len(stuck)
                end_games(stuck)

        width = scorer.values.width
        out_t = np.concatenate(targets).astype(np.float32)
        return {
            "features": np.concatenate(feats).astype(np.float32, copy=False),
            "targets": out_t if width > 1 else out_t.reshape(-1),
            "stats": {**stats, "evaluations": scorer.evaluations - evals_before,
                      # where the time went (benchmarks): C engine (incremental: + first layer), network
                      "engine_seconds": scorer.engine_seconds - engine_before,
                      "net_seconds": scorer.net_seconds - net_before,
                      "collect_seconds": time.perf_counter() - started_at},
        }

    def _cube_step(self, idx, boards, owner, cube, ply, feats, targets, stats, end_games):
        """Cube nodes for the games in ``idx`` whose mover may double; returns the games that roll on."""
        may = can_double(owner[idx], cube[idx]) & (ply[idx] > 0)
        if not may.any():
            return idx
        j = idx[may]
        n = len(j)
        v_no_double, v_take = self.scorer.cube_values(boards[j], owner[j])
        v_double = np.minimum(2.0 * v_take, 1.0)        # the opponent takes or drops, whichever is worse for us
        feats.append(self.scorer.encode_states(boards[j], owner[j], np.ones(n)))
        targets.append(np.maximum(v_no_double, v_double))
        doubles = v_double > v_no_double
        takes = doubles & (2.0 * v_take < 1.0)
        drops = doubles & ~takes
        stats["doubles"] += int(doubles.sum())
        stats["takes"] += int(takes.sum())
        stats["drops"] += int(drops.sum())
        cube[j[takes]] *= 2
        owner[j[takes]] = CUBE_THEIRS
        if drops.any():
            slots = j[drops]
            stats["points"] += float(cube[slots].sum())
            stats["plies"] += int(ply[slots].sum())
            stats["episodes"] += len(slots)
            end_games(slots)
            return np.setdiff1d(idx, slots)
        return idx


# --------------------------------------------------------------------------- worker processes

_WORKER_CACHE: dict = {}


def _collect_job(job: dict) -> dict:
    from model import TDNetwork
    key = (job["n_inputs"], tuple(job["hidden"]), job["output_mode"])
    model = _WORKER_CACHE.get(key)
    if model is None:
        model = _WORKER_CACHE[key] = TDNetwork(*key)
        model.eval()
    model.load_state_dict({k: torch.from_numpy(v) for k, v in job["state"].items()})
    sp = SelfPlay(model, job["mode"], job["oneply"], job["backend"], job["parallel_games"],
                  first_layer=job["first_layer"])
    t0 = time.process_time()
    out = sp.collect(job["episodes"], np.random.default_rng(job["seed"]))
    out["stats"]["cpu_seconds"] = time.process_time() - t0  # this worker's CPU time, for CPU-hour accounting
    return out


class Collector:
    """Self-play over ``workers`` processes (in-process when workers == 1)."""

    def __init__(self, workers: int, mode: GameMode, oneply: bool, backend: str, parallel_games: int,
                 first_layer: str = "auto"):
        self.workers = workers
        self.mode, self.oneply, self.backend, self.parallel_games = mode, oneply, backend, parallel_games
        self.first_layer = first_layer  # Scorer's first_layer: auto | incremental | dense
        self.pool = None
        if workers > 1:
            self.pool = WorkerPool(workers, what="self-play worker")

    def collect(self, model, n_episodes: int, seed_seq: np.random.SeedSequence) -> dict:
        return self.result(self.submit(model, n_episodes, seed_seq))

    def submit(self, model, n_episodes: int, seed_seq: np.random.SeedSequence):
        """Start collecting with a snapshot of the model's current weights; ``result``
        waits for it.  With worker processes the caller can train meanwhile (--overlap)."""
        if self.pool is None:
            model.eval()
            sp = SelfPlay(model, self.mode, self.oneply, self.backend, self.parallel_games,
                          first_layer=self.first_layer)
            out = sp.collect(n_episodes, np.random.default_rng(seed_seq))
            out["stats"]["cpu_seconds"] = 0.0  # counted by the caller's own process time
            return out
        state = {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
        shares = [n_episodes // self.workers + (i < n_episodes % self.workers) for i in range(self.workers)]
        jobs = [{"n_inputs": model.n_inputs, "hidden": model.hidden, "output_mode": model.output_mode,
                 "state": state, "mode": self.mode, "oneply": self.oneply, "backend": self.backend,
                 "parallel_games": self.parallel_games, "first_layer": self.first_layer,
                 "episodes": share, "seed": child}
                for share, child in zip(shares, seed_seq.spawn(self.workers)) if share > 0]
        return [self.pool.submit(_collect_job, job) for job in jobs]

    def result(self, pending) -> dict:
        """The round's samples; workers.WorkerError if a share could not be collected."""
        if isinstance(pending, dict):
            return pending
        parts = self.pool.results(pending)
        stats = {k: sum(p["stats"][k] for p in parts) for k in parts[0]["stats"]}
        return {"features": np.concatenate([p["features"] for p in parts]),
                "targets": np.concatenate([p["targets"] for p in parts]),
                "stats": stats}

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None
