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

``Search`` is how deep a model's player looks, one frozen value (the player and its
agent take it whole): 0-ply by default, ``oneply`` (from its ``oneply_k`` best
candidates by 0-ply, or all) or ``twoply`` = (k1, k2); ``oneply_filter`` = K: the
lookahead values only each roll's K best replies by the model's move filter.  A value
that asks for a filter its depth has no use for is refused as it is made.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdbg.net.scoring import segment_argmax

DEFAULT_K1, DEFAULT_K2 = 3, 3


@dataclasses.dataclass(frozen=True)
class Search:
    """How deep a model's player looks (see the module notes); ValueError for a
    ``oneply_k`` below 1 or without ``oneply``, or a ``oneply_filter`` at 0-ply.  With
    both ``oneply`` and ``twoply`` the 2-ply search chooses the moves."""

    oneply: bool = False
    twoply: tuple[int, int] | None = None
    oneply_k: int | None = None
    oneply_filter: int | None = None

    def __post_init__(self):
        # the flags' names: these reach the command line's users as they are
        if self.oneply_k is not None and (self.oneply_k < 1 or not self.oneply):
            raise ValueError(
                f"--oneply-k filters a 1-ply player's candidates and must be at least 1, "
                f"got {self.oneply_k}"
            )
        if self.oneply_filter is not None and not self.looks_ahead:
            raise ValueError(
                "--oneply-filter prunes the replies of a 1-ply or 2-ply player's lookahead; "
                "this player plays at 0-ply"
            )

    @property
    def looks_ahead(self) -> bool:
        """1 ply or 2 plies ahead (not 0-ply)."""
        return bool(self.oneply or self.twoply)

    @property
    def name_suffix(self) -> str:
        """What a player's default name adds for this depth: "" at 0-ply, "-1ply",
        "-1ply-k3", "-2ply", each followed by "-filter10" for a filtered lookahead."""
        if self.twoply:
            depth = "-2ply"
        elif self.oneply:
            depth = f"-1ply-k{self.oneply_k}" if self.oneply_k is not None else "-1ply"
        else:
            depth = ""
        return depth + (f"-filter{self.oneply_filter}" if self.oneply_filter is not None else "")


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
            np.repeat(boards, len(ALL_ROLLS), axis=0), np.tile(ALL_ROLLS, (n, 1)), rep_owner
        )
        keep, kept_offsets = top_k(scalar, offsets, self.k2)
        v1 = self.lookahead(
            after[keep], values[keep], None if cand_owner is None else cand_owner[keep]
        )
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
            opp_owner = (
                None if owner is None else self.scorer.mode.for_opponent(np.asarray(owner)[live])
            )
            out[live] = self.scorer.values.flip(
                self.position_values(after[live][:, ::-1], opp_owner)
            )
        return out

    def choose(self, boards, dice, owner=None) -> np.ndarray:
        """The 2-ply choice among each position's ``k1`` best candidates by 1-ply."""
        after, offsets, values, _, cand_owner = self._candidates(np.asarray(boards), dice, owner)
        v1 = self.lookahead(after, values, cand_owner)
        keep, kept_offsets = top_k(self.scorer.values.scalar(v1), offsets, self.k1)
        v2 = self.after_values(
            after[keep], v1[keep], None if cand_owner is None else cand_owner[keep]
        )
        rows, _ = segment_argmax(self.scorer.values.scalar(v2), kept_offsets)
        return after[keep][rows]
