"""The agent interface and the reference opponents.

An agent decides for many games at once (boards are (n, 2, 25) with row 1 the
side on roll):

* ``choose_moves(boards, dice, owner=None)`` -> resulting boards (n, 2, 25), the
  mover still in row 1 (``owner``: cube owner from the mover's view, cubeful only);
* ``double_decisions(boards, owner)`` -> bool (n,): offer a double now, before rolling;
* ``take_decisions(boards, owner)`` -> bool (n,): take a double.  ``boards`` and
  ``owner`` are from the *doubler's* view (the doubler is on roll).

``cube_capable`` says whether the agent makes cube decisions at all.

Reference opponents: ``random``, ``pubeval`` (gnubg-nn's ``pub_best_move``),
``gnubg-nn`` and ``gnubg-nn-1ply`` (GNU Backgammon 1.08's network through the
gnubg-nn package).  None of them makes cube decisions: gnubg-nn exposes no
money-cube policy, so cubeful games against gnubg go through the real binary.
"""
from __future__ import annotations

import time

import numpy as np

import backgammon_engine as be
import movegen

REFERENCE_AGENTS = ("random", "pubeval", "gnubg-nn", "gnubg-nn-1ply")


class Agent:
    name = "agent"
    cube_capable = False

    def choose_moves(self, boards, dice, owner=None) -> np.ndarray:
        raise NotImplementedError

    def double_decisions(self, boards, owner) -> np.ndarray:
        raise NotImplementedError(f"{self.name} makes no cube decisions")

    def take_decisions(self, boards, owner) -> np.ndarray:
        raise NotImplementedError(f"{self.name} makes no cube decisions")


class RandomAgent(Agent):
    """A uniformly random legal move (each distinct resulting position equally likely)."""

    name = "random"

    def __init__(self, seed: int = 0, backend: str = "auto"):
        self.rng = np.random.default_rng(seed)
        self.expander = movegen.make_expander(backend)

    def choose_moves(self, boards, dice, owner=None) -> np.ndarray:
        after, _, offsets = self.expander.expand(boards, dice, encode=False)
        counts = np.diff(offsets)
        pick = offsets[:-1] + (self.rng.random(len(counts)) * counts).astype(np.int64)
        return after[pick].astype(np.int64)


class PubevalAgent(Agent):
    """Tesauro's public evaluation function, as gnubg-nn's ``pub_best_move``."""

    name = "pubeval"

    def choose_moves(self, boards, dice, owner=None) -> np.ndarray:
        import gnubg_nn
        out = np.empty((len(boards), 2, 25), dtype=np.int64)
        for i, (b, (d1, d2)) in enumerate(zip(np.asarray(boards).tolist(), np.asarray(dice).tolist())):
            flat = gnubg_nn.pub_best_move(b, d1, d2)
            # pairs of 0-based (from, to); 24 = bar, -1 = off
            steps = tuple((flat[k] + 1, max(flat[k + 1] + 1, 0)) for k in range(0, len(flat), 2))
            out[i] = be.apply_move(b, steps)
        return out


class GnubgNNAgent(Agent):
    """GNU Backgammon's 1.08 network (gnubg-nn), at 0 or 1 ply, cubeless checker play."""

    def __init__(self, plies: int = 0):
        self.plies = plies
        self.seconds = 0.0  # time inside gnubg-nn, for throughput reports
        self.name = "gnubg-nn" if plies == 0 else f"gnubg-nn-{plies}ply"

    def choose_moves(self, boards, dice, owner=None) -> np.ndarray:
        import gnubg_nn
        t0 = time.perf_counter()
        out = np.empty((len(boards), 2, 25), dtype=np.int64)
        for i, (b, (d1, d2)) in enumerate(zip(np.asarray(boards).tolist(), np.asarray(dice).tolist())):
            if not gnubg_nn.moves(b, d1, d2):
                out[i] = b  # no legal move: the pass
                continue
            key = gnubg_nn.bestmove(b, d1, d2, n=self.plies, b=1)[1]
            after = gnubg_nn.board_from_position_key(key)  # already from the opponent's side
            out[i] = (after[1], after[0])
        self.seconds += time.perf_counter() - t0
        return out


def make_reference_agent(name: str, seed: int = 0, backend: str = "auto") -> Agent:
    if name == "random":
        return RandomAgent(seed, backend)
    if name == "pubeval":
        return PubevalAgent()
    if name == "gnubg-nn":
        return GnubgNNAgent(0)
    if name == "gnubg-nn-1ply":
        return GnubgNNAgent(1)
    raise ValueError(f"unknown opponent {name!r}; choose a checkpoint path or one of {', '.join(REFERENCE_AGENTS)}")
