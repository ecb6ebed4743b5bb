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
"""
from __future__ import annotations

import numpy as np

from tdbg.game.modes.base import GameMode
from tdbg.net.move_filter import FilteredOnePly
from tdbg.net.scoring import Scorer, segment_argmax
from tdbg.net.search import TwoPly, top_k
from tdbg.play.agents import Agent


class TDAgent(Agent):
    cube_capable = True

    def __init__(self, model, mode: GameMode, oneply: bool = False, engine: str = "auto",
                 device: str | None = None, name: str | None = None, first_layer: str = "auto",
                 twoply: tuple[int, int] | None = None, oneply_k: int | None = None,
                 oneply_filter: int | None = None):
        if oneply_k is not None and (oneply_k < 1 or not oneply):
            raise ValueError(f"--oneply-k filters a 1-ply player's candidates and must be at least 1, got {oneply_k}")
        if oneply_filter is not None and not (oneply or twoply):
            raise ValueError("--oneply-filter prunes the replies of a 1-ply or 2-ply player's lookahead; "
                             "this player plays at 0-ply")
        mode.check_model(model.output_mode, model.n_inputs)
        model.eval()
        self.model = model
        self.mode = mode
        self.oneply = oneply
        self.oneply_k = oneply_k
        self.scorer = Scorer(model, mode, engine=engine, device=device, first_layer=first_layer)
        # ValueError (no move filter in the model, K < 1) before any game
        self.filtered = FilteredOnePly(self.scorer, k=oneply_filter) if oneply_filter is not None else None
        self.twoply = TwoPly(self.scorer, *twoply, lookahead=self._lookahead) if twoply else None
        depth = "-2ply" if twoply else (f"-1ply-k{oneply_k}" if oneply_k else "-1ply") if oneply else ""
        depth += f"-filter{oneply_filter}" if oneply_filter is not None else ""
        self.name = name or f"td[{','.join(map(str, model.hidden))}]{depth}"
        self.cube_capable = mode.cubeful
        self.match_capable = mode.is_match

    def _owner(self, owner, n):
        return np.zeros(n, dtype=np.int64) if owner is None else owner

    def choose_moves(self, boards, dice, owner=None) -> np.ndarray:
        boards = np.asarray(boards)
        owner = self._owner(owner, len(boards))
        if self.twoply is not None:
            return self.twoply.choose(boards, dice, owner)
        if not self.oneply:
            return self.scorer.best_moves(boards, dice, owner)[0]
        after, offsets, values, scalar = self.scorer.score(boards, dice, owner)
        cand_owner = np.repeat(owner, np.diff(offsets))
        if self.oneply_k is not None:
            keep, offsets = top_k(scalar, offsets, self.oneply_k)
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
                  else self._backup if self.filtered is not None and self.oneply else None)
        return self.mode.cube_action(*self.scorer.cube_values(boards, owner, self.oneply, backup), owner)

    def double_decisions(self, boards, owner) -> np.ndarray:
        return self.cube_action(boards, owner).double

    def take_decisions(self, boards, owner) -> np.ndarray:
        return self.cube_action(boards, owner).take
