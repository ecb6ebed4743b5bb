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
gnubg-nn package, playing the game mode's objective: P(win) in DMP, cubeless
equity in money).  None of them makes cube decisions except ``gnubg-nn-cubeful``
(gnubg_cube_agent.py: gnubg-nn's match cube decisions at 0-0 in a long match).
Their names are registered in tdbg.play.opponents.
"""
from __future__ import annotations

import time

import numpy as np

from tdbg.game import backgammon_engine as be, movegen
from tdbg.game.heads import output_head
from tdbg.game.modes.base import GameMode

GNUBG_NN_PLIES = (0, 1, 2)


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

    def __init__(self, seed: int = 0, engine: str = "auto"):
        self.rng = np.random.default_rng(seed)
        self.expander = movegen.make_expander(engine)

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


def mover_probabilities(opponent_probs) -> np.ndarray:
    """gnubg's five probabilities of positions (rows) as seen by the side on roll, turned
    into those of the side that just moved: the prob5 flip (my win = their loss, my
    gammons = their lost gammons)."""
    return output_head("prob5").flip(np.asarray(opponent_probs, dtype=np.float64))


class GnubgNNAgent(Agent):
    """GNU Backgammon 1.08's network (gnubg-nn) playing the game mode's own objective.

    ``gnubg_nn.bestmove`` on its own maximises cubeless *money* equity, which is the
    wrong game in DMP (there only winning counts: it picked another move than the
    P(win) maximiser in about a sixth of positions).  So the agent reads gnubg-nn's
    five probabilities of every candidate and maximises ``mode.objective``: P(win) in
    DMP, cubeless equity in money play.
    * 0-ply: one ``bestmove(list=1)`` call lists every candidate with its 0-ply
      probabilities (it does not prune at 0-ply);
    * 1- and 2-ply: ``probabilities(board, plies)`` of each candidate (full width),
      since gnubg's own n-ply search (``bestmove(n=...)``) drops candidates with its
      move filters (``set.ps``) first and ranks the rest by money equity.
    """

    def __init__(self, mode: GameMode, plies: int = 0):
        self.mode = mode
        self.plies = plies
        self.seconds = 0.0  # time inside gnubg-nn, for throughput reports
        self.name = "gnubg-nn" if plies == 0 else f"gnubg-nn-{plies}ply"

    def candidates(self, board: list, d1: int, d2: int) -> tuple[list, np.ndarray | None]:
        """(after-boards with the mover in row 1, the mover's five probabilities of each
        or None when there is at most one candidate and nothing to choose)."""
        import gnubg_nn
        if self.plies == 0:
            listed = gnubg_nn.bestmove(board, d1, d2, b=1, list=1)[2]
            # list keys put the mover in the first half: the board the opponent is on roll in
            boards = [_mover_on_roll(gnubg_nn.board_from_position_key(e[0])) for e in listed]
            if len(listed) < 2:  # bestmove does not evaluate a forced move
                return boards, None
            return boards, mover_probabilities([e[2] for e in listed])
        keys = gnubg_nn.moves(board, d1, d2)
        # moves() keys put the mover in the second half (row 1)
        boards = [[list(r) for r in gnubg_nn.board_from_position_key(k)] for k in keys]
        if len(boards) < 2:
            return boards, None
        probs = [gnubg_nn.probabilities([b[1], b[0]], self.plies) for b in boards]
        return boards, mover_probabilities(probs)

    def choose_moves(self, boards, dice, owner=None) -> np.ndarray:
        t0 = time.perf_counter()
        out = np.empty((len(boards), 2, 25), dtype=np.int64)
        for i, (b, (d1, d2)) in enumerate(zip(np.asarray(boards).tolist(), np.asarray(dice).tolist())):
            after, probs = self.candidates(b, d1, d2)
            if not after:
                out[i] = b  # no legal move: the pass
            elif probs is None:
                out[i] = after[0]
            else:
                out[i] = after[int(np.argmax(self.mode.objective(probs)))]
        self.seconds += time.perf_counter() - t0
        return out


def _mover_on_roll(after_from_opponent) -> list:
    """A board with the opponent on roll (row 1) turned back to the mover in row 1."""
    return [list(after_from_opponent[1]), list(after_from_opponent[0])]
