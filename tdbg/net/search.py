"""Lookahead for our models: 1-ply values of after-states and a filtered 2-ply search.

Values are from the mover's side in the model's representation, built only from the
batched primitive every player shares (``Scorer.score``: all candidates of many
(board, roll) pairs in one pass) and its 1-ply backup (``Scorer.oneply``).

* 1-ply value of an after-state: exact when the game is over, otherwise the flipped
  1-ply backup of the opponent's position (their best 0-ply reply to each of their
  21 rolls, averaged over the rolls).
* 2-ply backup of a position (side on roll in row 1, before its roll): for each of
  the 21 rolls, the ``k2`` best moves by 0-ply are valued at 1-ply, and the best of
  those counts; the mean over the rolls is the position's 2-ply value.
* 2-ply move choice (``--twoply-k1 K1 --twoply-k2 K2``): every candidate is valued at
  1-ply, the ``k1`` best go on to 2-ply (the flipped 2-ply backup of the opponent's
  position), and the best of those is played.

So K1 filters our candidates by their 1-ply values and K2 the replies inside the
search by their 0-ply values (gnubg's own n-ply evaluation keeps one reply per roll,
K2 = 1).  With K1 and K2 at least the number of legal moves the search is the full
2-ply expectimax (tests/net/test_twoply.py checks that against a move-by-move reference).
As the 1-ply lookahead, the search does not model the cube decisions inside it: a
cubeful position's value at each node is the network's value of that cube state.
"""
from __future__ import annotations

import numpy as np

from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdbg.net.scoring import segment_argmax

DEFAULT_K1, DEFAULT_K2 = 3, 3


def top_k(scalar: np.ndarray, offsets: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the ``k`` largest values of each segment (best first; ties keep
    their order) and the offsets of the kept segments."""
    counts = np.diff(offsets)
    seg = np.repeat(np.arange(len(counts)), counts)
    order = np.lexsort((-scalar, seg))  # by segment, then value descending (stable)
    rank = np.arange(len(order)) - np.repeat(offsets[:-1], counts)
    kept = np.minimum(counts, k)
    return order[rank < k], np.concatenate([[0], np.cumsum(kept)])


class TwoPly:
    """Filtered 2-ply search over one Scorer (see the module notes)."""

    def __init__(self, scorer, k1: int = DEFAULT_K1, k2: int = DEFAULT_K2, lookahead=None):
        """``lookahead(after, values, owner)``: the 1-ply values of after-states the search
        uses (default ``scorer.lookahead``, exact; e.g. a move filter's)."""
        if k1 < 1 or k2 < 1:
            raise ValueError(f"--twoply-k1 and --twoply-k2 must be at least 1, got {k1} and {k2}")
        self.scorer, self.k1, self.k2 = scorer, k1, k2
        self.lookahead = lookahead or scorer.lookahead

    def _candidates(self, boards, dice, owner):
        """Every candidate with its 0-ply values, and each candidate's mover's owner."""
        after, offsets, values, scalar = self.scorer.score(boards, dice, owner)
        rep_owner = None if owner is None else np.repeat(np.asarray(owner), np.diff(offsets))
        # copies: the expander reuses its buffers on the next call
        return after.astype(np.int64), offsets, values.copy(), scalar.copy(), rep_owner

    def position_values(self, boards, owner=None) -> np.ndarray:
        """2-ply backup of positions with row 1 on roll (model representation)."""
        boards = np.asarray(boards)
        n = len(boards)
        rep_owner = None if owner is None else np.repeat(np.asarray(owner), len(ALL_ROLLS))
        after, offsets, values, scalar, cand_owner = self._candidates(
            np.repeat(boards, len(ALL_ROLLS), axis=0), np.tile(ALL_ROLLS, (n, 1)), rep_owner)
        keep, kept_offsets = top_k(scalar, offsets, self.k2)
        v1 = self.lookahead(after[keep], values[keep], None if cand_owner is None else cand_owner[keep])
        rows, _ = segment_argmax(self.scorer.values.scalar(v1), kept_offsets)
        best = v1[rows]
        if best.ndim == 1:
            return (best.reshape(n, -1) * ROLL_WEIGHTS).sum(axis=1)
        return (best.reshape(n, len(ALL_ROLLS), -1) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)

    def after_values(self, after: np.ndarray, values: np.ndarray, owner) -> np.ndarray:
        """The mover's 2-ply values of after-states: exact where the game is over,
        otherwise the flipped 2-ply backup of the opponent's position."""
        out = np.array(values, dtype=np.float64, copy=True)
        live = np.flatnonzero(after[:, 1].sum(axis=1) != 0)
        if len(live):
            opp_owner = None if owner is None else self.scorer.mode.for_opponent(np.asarray(owner)[live])
            out[live] = self.scorer.values.flip(self.position_values(after[live][:, ::-1], opp_owner))
        return out

    def choose(self, boards, dice, owner=None) -> np.ndarray:
        """The 2-ply choice among each position's ``k1`` best candidates by 1-ply."""
        after, offsets, values, _, cand_owner = self._candidates(np.asarray(boards), dice, owner)
        v1 = self.lookahead(after, values, cand_owner)
        keep, kept_offsets = top_k(self.scorer.values.scalar(v1), offsets, self.k1)
        v2 = self.after_values(after[keep], v1[keep], None if cand_owner is None else cand_owner[keep])
        rows, _ = segment_argmax(self.scorer.values.scalar(v2), kept_offsets)
        return after[keep][rows]
