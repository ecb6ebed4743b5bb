"""Plays a trained checkpoint: 0-ply, 1-ply lookahead, and money cube decisions.

* 0-ply: every candidate of every game scored in one forward pass (C batch path).
* 1-ply: each candidate's value is the expectimax over the opponent's 21 rolls
  with the opponent's best 0-ply reply, all candidates of all games batched.
  ``oneply_k`` keeps only each position's k best candidates by 0-ply for that
  (a move filter, as gnubg's n-ply play has): the choice costs about k/n of the
  full lookahead over n candidates, and k=1 is the 0-ply choice.
* 2-ply (``twoply=(k1, k2)``): search.TwoPly, the k1 best candidates by 1-ply valued
  at 2-ply with k2 replies per roll (see search.py).
* ``oneply_filter=K`` (a model trained with ``--oneply-filter``): every 1-ply backup in
  the lookahead (the 1-ply choice, 1-ply cube values, and the 1-ply values inside the
  2-ply search) values only each roll's K best replies by the model's move filter with
  the main network (move_filter.FilteredOnePly), as filtered 1-ply targets do.
* Cube (cubeful models): the game mode's cube rule (modes.CubefulMoney.cube_action)
  on v_nd, the value of rolling on without doubling, and v_take, the value after a
  take (cube doubled, owned by the opponent), both normalised to the current cube.
  At 1-ply (2-ply) those values are 1-ply (2-ply) backups instead of raw network outputs.

The depth and its filters (``oneply``, ``oneply_k``, ``twoply``, ``oneply_filter``) come
as one value, ``search`` (search.Search; 0-ply by default).

As a judge (luck, rollouts, evaluator.Evaluator's ``all_rolls``, ``after_values`` and
``position_values``) it reads the network at 0-ply, whatever its depth of play: every roll
of a block of BLOCK positions scored in one Scorer pass.
"""

from __future__ import annotations

import numpy as np

from tdbg.game import backgammon_engine as be
from tdbg.game.dice import ALL_ROLLS
from tdbg.game.modes import CubefulMoney, GameMode, MatchPlay, for_mode
from tdbg.net.move_filter import FilteredOnePly
from tdbg.net.scoring import Scorer, ScoringSettings, segment_argmax
from tdbg.net.search import Search, TwoPly, top_k
from tdbg.play.evaluator import Evaluator
from tdbg.play.model_fit import check_model

BLOCK = 256  # positions per all-rolls pass: 256 x 21 rolls x ~20 candidates keeps the inputs near 100 MB


# (cube_capable, match_capable) of an agent whose network was trained for the mode
CAPABILITIES = {GameMode: (False, False), CubefulMoney: (True, False), MatchPlay: (True, True)}


class TDAgent(Evaluator):
    """A network playing ``mode`` at the depth ``search`` says (module notes); an Evaluator."""

    cube_capable = True
    values_positions = True

    def __init__(
        self,
        model,
        mode: GameMode,
        search: Search = Search(),
        engine: str = "auto",
        device: str | None = None,
        name: str | None = None,
        scoring: ScoringSettings = ScoringSettings(),
    ):
        check_model(mode, model.output_mode, model.n_inputs)
        model.eval()
        self.model = model
        self.mode = mode
        self.search = search
        self.scorer = Scorer(model, mode, engine=engine, device=device, scoring=scoring)
        # ValueError (no move filter in the model, K < 1) before any game
        self.filtered = (
            FilteredOnePly(self.scorer, k=search.oneply_filter)
            if search.oneply_filter is not None
            else None
        )
        self.twoply = (
            TwoPly(self.scorer, *search.twoply, lookahead=self._lookahead)
            if search.twoply
            else None
        )
        self.name = name or f"td[{','.join(map(str, model.hidden))}]{search.name_suffix}"
        self.cube_capable, self.match_capable = for_mode(CAPABILITIES, mode)
        self.plays_own_0ply = not search.looks_ahead

    def _owner(self, owner, n):
        return np.zeros(n, dtype=np.int64) if owner is None else owner

    def choose_moves(
        self, boards: np.ndarray, dice: np.ndarray, owner: np.ndarray | None = None
    ) -> np.ndarray:
        boards = np.asarray(boards)
        owner = self._owner(owner, len(boards))
        if self.twoply is not None:
            return self.twoply.choose(boards, dice, owner)
        if not self.search.oneply:
            return self.scorer.best_moves(boards, dice, owner)[0]
        after, offsets, values, scalar = self.scorer.score(boards, dice, owner)
        cand_owner = np.repeat(owner, np.diff(offsets))
        if self.search.oneply_k is not None:
            keep, offsets = top_k(scalar, offsets, self.search.oneply_k)
            after, values, cand_owner = after[keep], values[keep], cand_owner[keep]
        after = after.astype(np.int64)  # keep: the lookahead reuses the expander's buffers
        values = values.copy()
        look = self._lookahead(after, values, cand_owner)
        rows, _ = segment_argmax(self.scorer.values.scalar(look), offsets)
        return after[rows]

    def candidate_values(self, board: np.ndarray, dice, owner: int = 0) -> tuple:
        """(after-states, values in the model's representation, what the mover maximises) of
        every candidate of one position and roll, at this agent's depth (0- or 1-ply): what
        an analysis ranks."""
        owner_arr = np.array([owner])
        after, _, values, scalar = self.scorer.score(board[None], np.array([dice]), owner_arr)
        after, values, scalar = after.astype(np.int64), values.copy(), scalar.copy()
        if self.search.oneply:
            values = self._lookahead(after, values, np.repeat(owner_arr, len(after)))
            scalar = self.scorer.values.scalar(values)
        return after, values, scalar

    def _lookahead(self, after: np.ndarray, values: np.ndarray, owner) -> np.ndarray:
        """Mover's 1-ply values of after-states (Scorer.lookahead, through the filter if any)."""
        if self.filtered is not None:
            return self.filtered.lookahead(after, values, owner)
        return self.scorer.lookahead(after, values, owner)

    def _backup(self, boards, owner) -> np.ndarray:
        """1-ply backup of positions through the move filter (for the cube's values)."""
        assert self.filtered is not None  # cube_action chooses _backup only where there is a filter
        return self.filtered.oneply(boards, owner)[0]

    def cube_action(self, boards, owner):
        """The mode's cube rule on this model's values (ValueError for a mode without a cube)."""
        if not self.cube_capable:
            raise ValueError(f"{self.name} is not a cubeful model")
        backup = (
            self.twoply.position_values
            if self.twoply is not None
            else self._backup
            if self.filtered is not None and self.search.oneply
            else None
        )
        return self.mode.cube_action(
            *self.scorer.cube_values(boards, owner, self.search.oneply, backup), owner
        )

    def double_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return self.cube_action(boards, owner).double

    def take_decisions(self, boards: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return self.cube_action(boards, owner).take

    # ---- as a judge: the network's 0-ply values

    def all_rolls(
        self, boards: np.ndarray, owner: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(values (n, 21) in points, after-states (n, 21, 2, 25)): each roll's 0-ply best move."""
        values, afters = [], []
        for s in range(0, len(boards), BLOCK):
            b = np.asarray(boards[s : s + BLOCK])
            n = len(b)
            rep_owner = None if owner is None else np.repeat(owner[s : s + BLOCK], len(ALL_ROLLS))
            after, offsets, _, scalar = self.scorer.score(
                np.repeat(b, len(ALL_ROLLS), axis=0), np.tile(ALL_ROLLS, (n, 1)), rep_owner
            )
            rows, best = segment_argmax(scalar, offsets)
            values.append(self.scorer.values.points_of(best).reshape(n, len(ALL_ROLLS)))
            afters.append(after[rows].astype(np.int64).reshape(n, len(ALL_ROLLS), 2, 25))
        return np.concatenate(values), np.concatenate(afters)

    def position_values(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        head = self.scorer.values
        v = self.scorer.state_values(np.asarray(boards))
        return head.points_of(head.scalar(v)), head.win_probability(v), head.net_gammons(v)

    def after_values(self, afters: np.ndarray) -> np.ndarray:
        head = self.scorer.values
        afters = np.asarray(afters, dtype=np.int64)
        out = np.empty(len(afters))
        results = be.game_results(afters)
        done = results != 0
        if done.any():
            out[done] = self.mode.points(results[done])
        if (~done).any():
            opp = self.scorer.state_values(afters[~done][:, ::-1])
            out[~done] = head.points_of(head.scalar(head.flip(opp)))
        return out
