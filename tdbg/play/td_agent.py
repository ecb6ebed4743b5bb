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
"""
from __future__ import annotations

import numpy as np

from tdbg.game.modes.base import GameMode
from tdbg.net.move_filter import FilteredOnePly
from tdbg.net.scoring import Scorer, segment_argmax
from tdbg.net.search import Search, TwoPly, top_k
from tdbg.play.agents import Agent


class TDAgent(Agent):
    cube_capable = True

    def __init__(self, model, mode: GameMode, search: Search = Search(), engine: str = "auto",
                 device: str | None = None, name: str | None = None, first_layer: str = "auto"):
        mode.check_model(model.output_mode, model.n_inputs)
        model.eval()
        self.model = model
        self.mode = mode
        self.search = search
        self.scorer = Scorer(model, mode, engine=engine, device=device, first_layer=first_layer)
        # ValueError (no move filter in the model, K < 1) before any game
        self.filtered = (FilteredOnePly(self.scorer, k=search.oneply_filter)
                         if search.oneply_filter is not None else None)
        self.twoply = TwoPly(self.scorer, *search.twoply, lookahead=self._lookahead) if search.twoply else None
        self.name = name or f"td[{','.join(map(str, model.hidden))}]{search.name_suffix}"
        self.cube_capable, self.match_capable = mode.agent_capabilities()

    def _owner(self, owner, n):
        return np.zeros(n, dtype=np.int64) if owner is None else owner

    def choose_moves(self, boards, dice, owner=None) -> np.ndarray:
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

    def _lookahead(self, after: np.ndarray, values: np.ndarray, owner) -> np.ndarray:
        """Mover's 1-ply values of after-states (Scorer.lookahead, through the filter if any)."""
        if self.filtered is not None:
            return self.filtered.lookahead(after, values, owner)
        return self.scorer.lookahead(after, values, owner)

    def _backup(self, boards, owner) -> np.ndarray:
        """1-ply backup of positions through the move filter (for the cube's values)."""
        return self.filtered.oneply(boards, owner)[0]

    def cube_action(self, boards, owner):
        """The mode's cube rule on this model's values (ValueError for a mode without a cube)."""
        if not self.cube_capable:
            raise ValueError(f"{self.name} is not a cubeful model")
        backup = (self.twoply.position_values if self.twoply is not None
                  else self._backup if self.filtered is not None and self.search.oneply else None)
        return self.mode.cube_action(*self.scorer.cube_values(boards, owner, self.search.oneply, backup), owner)

    def double_decisions(self, boards, owner) -> np.ndarray:
        return self.cube_action(boards, owner).double

    def take_decisions(self, boards, owner) -> np.ndarray:
        return self.cube_action(boards, owner).take
