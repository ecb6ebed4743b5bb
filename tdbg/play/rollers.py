"""Who plays a rollout: a checkpoint (batched through its Scorer) or gnubg-nn (0-ply).

A roller plays both sides of every trial and judges positions for the rollout's
luck adjustment and truncation.  Each offers, for boards with the side on roll in
row 1 and values in points from the mover's side (cube 1):

* ``all_rolls(boards)`` -> (values (n, 21), best after-states (n, 21, 2, 25)): the
  0-ply best move of each of the 21 rolls and its value;
* ``choose(boards, dice)`` -> after-states: the move the roller plays (0- or 1-ply);
* ``position_values(boards)`` -> (points, P(win), net gammons) of the side on roll
  (nan where the evaluator does not say);
* ``after_values(afters)`` -> the mover's value of after-states (ranks candidates).
"""
from __future__ import annotations

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.heads import output_head
from tdbg.game.modes import game_mode
from tdbg.net.scoring import Scorer, segment_argmax
from tdbg.net.search import Search
from tdbg.play.agents import GnubgNNAgent, _mover_on_roll, mover_probabilities
from tdbg.play.players import checkpoint_agent, load_checkpoint_mode

BLOCK = 256  # positions per scoring pass: 256 x 21 rolls x ~20 candidates keeps the inputs near 100 MB


class NetRoller:
    def __init__(self, model, mode, ply: int = 0, engine: str = "auto"):
        model.eval()
        self.model, self.mode, self.ply = model, mode, ply
        self.head = output_head(model.output_mode)
        self.scorer = Scorer(model, mode, engine=engine)
        self.plays_own_0ply = ply == 0
        self.agent = checkpoint_agent(model, mode, Search(oneply=True), engine=engine) if ply == 1 else None
        self.name = f"td[{','.join(map(str, model.hidden))}]"

    def all_rolls(self, boards):
        values, afters = [], []
        for s in range(0, len(boards), BLOCK):
            b = np.asarray(boards[s:s + BLOCK])
            n = len(b)
            after, offsets, _, scalar = self.scorer.score(np.repeat(b, len(ALL_ROLLS), axis=0),
                                                          np.tile(ALL_ROLLS, (n, 1)))
            rows, best = segment_argmax(scalar, offsets)
            values.append(self.head.points_of(best).reshape(n, len(ALL_ROLLS)))
            afters.append(after[rows].astype(np.int64).reshape(n, len(ALL_ROLLS), 2, 25))
        return np.concatenate(values), np.concatenate(afters)

    def choose(self, boards, dice):
        if self.agent is not None:
            return self.agent.choose_moves(boards, dice)
        return self.scorer.best_moves(boards, dice)[0]

    def position_values(self, boards):
        v = self.scorer.state_values(np.asarray(boards))
        return self.head.points_of(self.head.scalar(v)), self.head.win_probability(v), self.head.net_gammons(v)

    def after_values(self, afters):
        afters = np.asarray(afters, dtype=np.int64)
        out = np.empty(len(afters))
        results = be.game_results(afters)
        done = results != 0
        if done.any():
            out[done] = self.mode.points(results[done])
        if (~done).any():
            opp = self.scorer.state_values(afters[~done][:, ::-1])
            out[~done] = self.head.points_of(self.head.scalar(self.head.flip(opp)))
        return out


class GnubgNNRoller:
    """gnubg-nn's 0-ply network playing the game mode's objective (as GnubgNNAgent)."""

    plays_own_0ply = True
    name = "gnubg-nn"

    def __init__(self, mode):
        self.mode = mode
        self.agent = GnubgNNAgent(mode, 0)

    def _points(self, probs):
        return self.mode.value_points(self.mode.objective(probs))

    def all_rolls(self, boards):
        """As ``all_rolls_exact``, faster: a mover with five or more checkers left cannot
        finish the game this turn (at most four checkers move), so where gnubg lists two or
        more candidates their values come straight from the listed probabilities, all 21
        rolls in one array, and only the best key becomes a board.  Same values and moves
        (tests/play/test_rollout.py compares the two); the other rolls take the exact path."""
        import gnubg_nn
        boards = np.asarray(boards)
        values = np.empty((len(boards), len(ALL_ROLLS)))
        afters = np.empty((len(boards), len(ALL_ROLLS), 2, 25), dtype=np.int64)
        rolls = ALL_ROLLS.tolist()
        for i, board in enumerate(boards.tolist()):
            if sum(board[1]) <= 4:
                values[i], afters[i] = (x[0] for x in self.all_rolls_exact(boards[i:i + 1]))
                continue
            listed = [gnubg_nn.bestmove(board, d1, d2, b=1, list=1)[2] for d1, d2 in rolls]
            fast = [r for r, e in enumerate(listed) if len(e) >= 2]
            if fast:
                probs = mover_probabilities([p[2] for r in fast for p in listed[r]])
                v = self._points(probs)
                offsets = np.cumsum([0] + [len(listed[r]) for r in fast])
                for j, r in enumerate(fast):
                    seg = v[offsets[j]:offsets[j + 1]]
                    best = int(np.argmax(seg))
                    values[i, r] = seg[best]
                    afters[i, r] = _mover_on_roll(gnubg_nn.board_from_position_key(listed[r][best][0]))
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
        after, probs = self.agent.candidates(board, d1, d2)
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

    def choose(self, boards, dice):
        return self.agent.choose_moves(boards, dice)

    def position_values(self, boards):
        import gnubg_nn
        probs = np.array([gnubg_nn.probabilities(b, 0) for b in np.asarray(boards).tolist()])
        return self._points(probs), probs[:, 0], probs[:, 1] - probs[:, 3]

    def after_values(self, afters):
        import gnubg_nn
        out = np.empty(len(afters))
        for k, a in enumerate(np.asarray(afters).tolist()):
            result = be.game_result(np.asarray(a))
            if result:
                out[k] = float(self.mode.points(np.array([result]))[0])
            else:
                out[k] = self._points(mover_probabilities([gnubg_nn.probabilities([a[1], a[0]], 0)]))[0]
        return out


def make_roller(spec: str, mode_name: str | None = None, ply: int = 0, engine: str = "auto"):
    """A checkpoint path or ``gnubg-nn`` (which needs ``mode_name``: dmp or cubeless-money)."""
    if spec == "gnubg-nn":
        if ply != 0:
            raise ValueError("gnubg-nn rolls out at 0 ply only")
        return GnubgNNRoller(game_mode(mode_name or "dmp"))
    model, _, mode = load_checkpoint_mode(spec, mode_name)
    mode.check_cubeless(f"{spec} is a cubeful model: rollouts here are cubeless, and its inputs need a cube")
    return NetRoller(model, mode, ply, engine)
