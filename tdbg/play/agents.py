"""The reference opponents, each an Evaluator (evaluator.py: the interface every player
and judge shares).

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
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.heads import output_head
from tdbg.game.modes.base import GameMode
from tdbg.play.evaluator import Evaluator, NoCubeDecisions, PlaysOnly

GNUBG_NN_PLIES = (0, 1, 2)


class RandomAgent(NoCubeDecisions, PlaysOnly, Evaluator):
    """A uniformly random legal move (each distinct resulting position equally likely)."""

    name = "random"

    def __init__(self, seed: int = 0, engine: str = "auto", mode: GameMode | None = None):
        # the game it plays; its moves ignore it, so tests that only ask for moves make one without
        self.mode = mode  # type: ignore[assignment]
        self.rng = np.random.default_rng(seed)
        self.expander = movegen.make_expander(engine)

    def choose_moves(
        self, boards: np.ndarray, dice: np.ndarray, owner: np.ndarray | None = None
    ) -> np.ndarray:
        after, _, offsets = self.expander.expand(boards, dice, encode=False)
        counts = np.diff(offsets)
        pick = offsets[:-1] + (self.rng.random(len(counts)) * counts).astype(np.int64)
        return after[pick].astype(np.int64)


class PubevalAgent(NoCubeDecisions, PlaysOnly, Evaluator):
    """Tesauro's public evaluation function, as gnubg-nn's ``pub_best_move``."""

    name = "pubeval"

    def __init__(self, mode: GameMode | None = None):
        # the game it plays; its moves ignore it, so tests that only ask for moves make one without
        self.mode = mode  # type: ignore[assignment]

    def choose_moves(
        self, boards: np.ndarray, dice: np.ndarray, owner: np.ndarray | None = None
    ) -> np.ndarray:
        import gnubg_nn

        out = np.empty((len(boards), 2, 25), dtype=np.int64)
        for i, (b, (d1, d2)) in enumerate(
            zip(np.asarray(boards).tolist(), np.asarray(dice).tolist(), strict=True)
        ):
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


class GnubgNNAgent(NoCubeDecisions, Evaluator):
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
    As a judge (``all_rolls``, ``after_values``, ``position_values``: luck and rollouts) it
    reads the 0-ply network whatever its depth of play.
    """

    values_positions = True

    def __init__(self, mode: GameMode, plies: int = 0):
        self.mode = mode
        self.plies = plies
        self.plays_own_0ply = plies == 0
        self.seconds = 0.0  # time inside gnubg-nn, for throughput reports
        self.name = "gnubg-nn" if plies == 0 else f"gnubg-nn-{plies}ply"

    def candidates(
        self, board: list, d1: int, d2: int, plies: int | None = None
    ) -> tuple[list, np.ndarray | None]:
        """(after-boards with the mover in row 1, the mover's five probabilities of each
        or None when there is at most one candidate and nothing to choose), at ``plies``
        (default: the agent's own depth)."""
        import gnubg_nn

        plies = self.plies if plies is None else plies
        if plies == 0:
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
        probs = [gnubg_nn.probabilities([b[1], b[0]], plies) for b in boards]
        return boards, mover_probabilities(probs)

    def choose_moves(
        self, boards: np.ndarray, dice: np.ndarray, owner: np.ndarray | None = None
    ) -> np.ndarray:
        t0 = time.perf_counter()
        out = np.empty((len(boards), 2, 25), dtype=np.int64)
        for i, (b, (d1, d2)) in enumerate(
            zip(np.asarray(boards).tolist(), np.asarray(dice).tolist(), strict=True)
        ):
            after, probs = self.candidates(b, d1, d2)
            if not after:
                out[i] = b  # no legal move: the pass
            elif probs is None:
                out[i] = after[0]
            else:
                out[i] = after[int(np.argmax(self.mode.objective(probs)))]
        self.seconds += time.perf_counter() - t0
        return out

    # ---- as a judge: gnubg-nn's 0-ply values (luck, rollouts)

    def _points(self, probs):
        return self.mode.value_points(self.mode.objective(probs))

    def all_rolls(
        self, boards: np.ndarray, owner: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """As ``all_rolls_exact``, faster: a mover with five or more checkers left cannot
        finish the game this turn (at most four checkers move), so where gnubg lists two or
        more candidates their values come straight from the listed probabilities, all 21
        rolls in one array, and only the best key becomes a board.  Same values and moves
        (tests/play/test_rollout.py compares the two); the other rolls take the exact path.
        ``owner`` is not read: gnubg-nn's values are cubeless."""
        import gnubg_nn

        boards = np.asarray(boards)
        values = np.empty((len(boards), len(ALL_ROLLS)))
        afters = np.empty((len(boards), len(ALL_ROLLS), 2, 25), dtype=np.int64)
        rolls = ALL_ROLLS.tolist()
        for i, board in enumerate(boards.tolist()):
            if sum(board[1]) <= 4:
                values[i], afters[i] = (x[0] for x in self.all_rolls_exact(boards[i : i + 1]))
                continue
            listed = [gnubg_nn.bestmove(board, d1, d2, b=1, list=1)[2] for d1, d2 in rolls]
            fast = [r for r, e in enumerate(listed) if len(e) >= 2]
            if fast:
                probs = mover_probabilities([p[2] for r in fast for p in listed[r]])
                v = self._points(probs)
                offsets = np.cumsum([0] + [len(listed[r]) for r in fast])
                for j, r in enumerate(fast):
                    seg = v[offsets[j] : offsets[j + 1]]
                    best = int(np.argmax(seg))
                    values[i, r] = seg[best]
                    afters[i, r] = _mover_on_roll(
                        gnubg_nn.board_from_position_key(listed[r][best][0])
                    )
            for r in set(range(len(rolls))) - set(fast):
                values[i, r], afters[i, r] = self._best_of_roll(board, *rolls[r])
        return values, afters

    def all_rolls_exact(self, boards):
        """The 0-ply best move of each of the 21 rolls and its value, one roll at a time."""
        boards = np.asarray(boards)
        values = np.empty((len(boards), len(ALL_ROLLS)))
        afters = np.empty((len(boards), len(ALL_ROLLS), 2, 25), dtype=np.int64)
        for i, board in enumerate(boards.tolist()):
            for r, (d1, d2) in enumerate(ALL_ROLLS.tolist()):
                values[i, r], afters[i, r] = self._best_of_roll(board, d1, d2)
        return values, afters

    def _best_of_roll(self, board, d1, d2):
        import gnubg_nn

        after, probs = self.candidates(board, d1, d2, plies=0)
        if not after:
            after = [board]  # no legal move: the pass
        if probs is None:  # one candidate: gnubg did not evaluate it
            probs = mover_probabilities([gnubg_nn.probabilities([after[0][1], after[0][0]], 0)])
        v = self._points(probs)
        for k, a in enumerate(after):  # a finished game is worth its result, not an estimate
            if sum(a[1]) == 0:
                v[k] = self.mode.result_points(be.game_result(np.asarray(a)))
        best = int(np.argmax(v))
        return v[best], after[best]

    def position_values(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        import gnubg_nn

        probs = np.array([gnubg_nn.probabilities(b, 0) for b in np.asarray(boards).tolist()])
        return self._points(probs), probs[:, 0], probs[:, 1] - probs[:, 3]

    def after_values(self, afters: np.ndarray) -> np.ndarray:
        import gnubg_nn

        out = np.empty(len(afters))
        for k, a in enumerate(np.asarray(afters).tolist()):
            result = be.game_result(np.asarray(a))
            if result:
                out[k] = float(self.mode.points(np.array([result]))[0])
            else:
                out[k] = self._points(
                    mover_probabilities([gnubg_nn.probabilities([a[1], a[0]], 0)])
                )[0]
        return out


def _mover_on_roll(after_from_opponent) -> list:
    """A board with the opponent on roll (row 1) turned back to the mover in row 1."""
    return [list(after_from_opponent[1]), list(after_from_opponent[0])]
