"""The 1-ply move filter: a small network that ranks each roll's candidates, so that
only the best ``k`` of them go through the main network (``train_batch.py --oneply-filter K``).

Exact 1-ply (``Scorer.oneply``) values every candidate of every one of the 21 rolls with
the main network: about 20 candidates a roll, 400 rows a position.  The per-roll max
needs only the best candidate, and most candidates are plainly worse than the best few.
So here:

1. the C engine expands all 21 rolls once and computes, per candidate, the first hidden
   layer of the main network *and* the filter's in one incremental pass (their first
   layers side by side: W1 of shape (inputs, H + F));
2. the filter (``[64]`` on the same inputs, the same head: a ``TDNetwork``) finishes its
   value of every candidate (F x 1 multiply-adds a row: nearly free);
3. per (position, roll) the ``k`` candidates the filter ranks best (finished games by
   their exact value), and every candidate of the roll actually thrown (``played``), go
   on through the main network's layers after the first (the expensive part);
4. each roll's value is the best of its kept candidates by the main network, as in exact
   1-ply; the position's target is the probability-weighted mean over the 21 rolls.

Races are where the filter misses most (at K=3 about a quarter of their best moves, where
contact positions lose few): ``exact_races`` keeps every candidate of a position with no
contact left (``backgammon_engine.no_contact``), so races get exact 1-ply targets and only
contact positions are filtered.

Scoring the thrown roll in full keeps the game that is played the same as exact 1-ply's
(its 0-ply greedy move), and gives the filter its training rows for free: the main
network's raw values of every candidate of that roll (``filter_rows``), an unbiased
sample of candidates, not only the ones the filter already likes.  learn/filter_training.py
fits the filter to them by regression.

With ``k`` at least the largest candidate count the kept rows are all rows, in their
order, so the targets equal exact 1-ply's bit for bit; with a filter that ranks as the
main network does, they equal them for any ``k`` >= 1 (tests/net/test_move_filter.py).
The filter rides on the model (model.move_filter_of), is saved in its checkpoint and
carried through growth (net_growth).
"""

from __future__ import annotations

import time

import numpy as np
import torch

from tdbg.game import backgammon_engine as be, movegen
from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdbg.game.encoding import MATCH_PAYOFFS, NUM_FEATURES
from tdbg.game.features import board_features
from tdbg.net.model import TDNetwork, move_filter_of
from tdbg.net.scoring import Scorer, segment_argmax

FILTER_HIDDEN = 64  # [32]: K=2 mean |target diff| 1.1e-3 at 3.6x; [64] 8.4e-4 at 3.5x; [128] 6.4e-4 at 3.2x (docs/training.md)


def new_filter(model: TDNetwork, hidden: int = FILTER_HIDDEN) -> TDNetwork:
    """An untrained filter for ``model``: one ReLU layer of ``hidden`` on the same inputs, the same head."""
    filt = TDNetwork(model.n_inputs, [hidden], model.output_mode, "relu")
    filt.samples = 0
    return filt


def check_filter(filt: TDNetwork) -> None:
    """ValueError unless ``filt`` can be a move filter (one ReLU hidden layer)."""
    if len(filt.hidden) != 1 or filt.activation != "relu":
        raise ValueError(f"a move filter has one ReLU hidden layer, got {filt.describe()}")


def segment_top_k(scalar: np.ndarray, offsets: np.ndarray, k: int) -> np.ndarray:
    """Mask of the ``k`` largest values of each segment offsets[i]:offsets[i+1] (ties: the
    first rows), as search.top_k keeps them; ``k`` passes of a segmented argmax, which for
    small ``k`` is several times faster than sorting ~50,000 rows by (segment, value)."""
    counts = np.diff(offsets)
    keep = np.repeat(counts <= k, counts)  # short segments: every row
    work = np.where(keep, -np.inf, scalar)
    for _ in range(min(k, int(counts.max(initial=0)))):
        rows, _ = segment_argmax(work, offsets)
        keep[rows] = True
        work[rows] = -np.inf
    return keep


def filter_rows(
    after: np.ndarray,
    offsets: np.ndarray,
    values: np.ndarray,
    cube: np.ndarray | None,
    flip,
    segments: np.ndarray | None = None,
) -> dict:
    """The filter's training rows from scored candidates (``Scorer.score``'s after-states,
    offsets and mover's values; ``cube``: each input's reply cube inputs or None): the
    after-states of ``segments`` (default all), the cube inputs the network saw with them,
    and the network's raw outputs (``flip`` of the mover's values); finished games left out."""
    counts = np.diff(offsets)
    seg = np.repeat(np.arange(len(counts)), counts)
    pick = np.ones(len(after), dtype=bool) if segments is None else np.isin(seg, segments)
    pick &= after[:, 1].sum(axis=1, dtype=np.int64) != 0
    rows = np.flatnonzero(pick)
    return {
        "after": after[rows].astype(np.int8),
        "cube": None if cube is None else np.asarray(cube, dtype=np.float32)[seg[rows]],
        "raw": np.asarray(flip(values[rows]), dtype=np.float32),
    }


def join_rows(parts: list) -> dict | None:
    """One dict of filter rows from several (None where there are none)."""
    parts = [p for p in parts if p is not None and len(p["after"])]
    if not parts:
        return None
    return {
        "after": np.concatenate([p["after"] for p in parts]),
        "cube": None if parts[0]["cube"] is None else np.concatenate([p["cube"] for p in parts]),
        "raw": np.concatenate([p["raw"] for p in parts]),
    }


def encode_after_states(
    after: np.ndarray,
    cube: np.ndarray | None,
    n_inputs: int,
    engine: str = "auto",
    with_board_features: bool = False,
) -> np.ndarray:
    """The network's inputs of after-states (mover in row 1; the opponent, on roll next, is
    the encoded side), as the expander encodes them: the 196 board inputs, the reply cube
    inputs, then the board features when the model reads them."""
    feats = np.zeros((len(after), n_inputs), dtype=np.float32)
    feats[:, :NUM_FEATURES] = movegen.encode_on_roll(np.ascontiguousarray(after[:, ::-1]), engine)
    if cube is not None:
        feats[:, NUM_FEATURES : NUM_FEATURES + cube.shape[1]] = cube
    if with_board_features:
        feats[:, n_inputs - board_features(after[:1], on_roll_row=0).shape[1] :] = board_features(
            after, on_roll_row=0
        )
    return feats


class FilteredOnePly:
    """Filtered 1-ply over one Scorer (the module notes); ``k`` >= 1 candidates a roll, every
    candidate in races with ``exact_races``."""

    def __init__(
        self, scorer: Scorer, filt: TDNetwork | None = None, k: int = 4, exact_races: bool = False
    ):
        filt = move_filter_of(scorer.model) if filt is None else filt
        if filt is None:
            raise ValueError(
                "this model has no move filter (train one first: train_batch.py --oneply-filter K)"
            )
        check_filter(filt)
        if k < 1:
            raise ValueError(f"the move filter keeps at least 1 candidate a roll, got {k}")
        if filt.n_inputs != scorer.model.n_inputs or filt.output_mode != scorer.model.output_mode:
            raise ValueError(
                "the move filter reads other inputs or has another head than the model"
            )
        self.scorer, self.filter, self.k, self.exact_races = scorer, filt, k, exact_races
        self._w: tuple[tuple, np.ndarray, np.ndarray] | None = (
            None  # (versions, W1^T of model and filter side by side, b1)
        )
        self.rows: list = []  # filter training rows of each call with ``played`` (filter_rows)
        self.kept = 0  # candidates the main network valued, and all candidates seen
        self.candidates = 0
        self.last_best = None

    def _versions(self):
        return tuple(
            t._version
            for t in (
                self.scorer.model.layers[0].weight,
                self.scorer.model.layers[0].bias,
                self.filter.layers[0].weight,
                self.filter.layers[0].bias,
            )
        ) + (id(self.scorer.model.layers[0].weight), id(self.filter.layers[0].weight))

    def _first_layers(self) -> tuple[np.ndarray, np.ndarray]:
        """W1^T (inputs, H + F) and b1 (H + F,) of the model then the filter, float32, cached."""
        v = self._versions()
        if self._w is None or self._w[0] != v:
            w = torch.cat(
                [
                    self.scorer.model.layers[0].weight.detach().cpu(),
                    self.filter.layers[0].weight.detach().cpu(),
                ]
            )
            b = torch.cat(
                [
                    self.scorer.model.layers[0].bias.detach().cpu(),
                    self.filter.layers[0].bias.detach().cpu(),
                ]
            )
            self._w = (
                v,
                np.ascontiguousarray(w.to("cpu", torch.float32).numpy().T),
                b.to("cpu", torch.float32).numpy().copy(),
            )
        _, w1t, b1 = self._w
        return w1t, b1

    @torch.inference_mode()
    def _filter_values(self, x: np.ndarray, first_hidden: bool, payoffs) -> np.ndarray:
        """The filter's raw outputs from its first hidden layer (or from inputs)."""
        t = torch.from_numpy(np.ascontiguousarray(x))
        if not first_hidden:
            return self.filter(t).numpy().astype(np.float64)
        p = None if payoffs is None else torch.from_numpy(payoffs)
        # the C engine applied ReLU when the model's units are ReLU, else handed back pre-activations
        out = (
            self.filter.from_first_hidden(t, p)
            if self.scorer._relu
            else self.filter.from_first_pre(t, p)
        )
        return out.numpy().astype(np.float64)

    def _expand_all_rolls(self, boards: np.ndarray, rep_owner):
        """Every candidate of every roll of ``boards`` (rolls in ALL_ROLLS order; ``rep_owner``
        the cube owner repeated per roll): (after-states, the net's inputs or first hidden
        layer, offsets, the reply's cube inputs, the match payoffs or None, the filter's raw
        values)."""
        sc = self.scorer
        n, r = len(boards), len(ALL_ROLLS)
        rep_boards = np.repeat(boards, r, axis=0)
        rep_dice = np.tile(ALL_ROLLS, (n, 1))
        t0 = time.perf_counter()
        cube = sc.mode.reply_cube_inputs(rep_owner)
        payoffs = None
        if sc.first_layer == "incremental":
            after, hidden, offsets = sc.expand_first_layer(
                rep_boards, rep_dice, cube, *self._first_layers()
            )
            sc.engine_seconds += time.perf_counter() - t0
            if getattr(sc.model, "reads_payoffs", False):
                payoffs = np.repeat(
                    cube[:, MATCH_PAYOFFS.start - NUM_FEATURES : MATCH_PAYOFFS.stop - NUM_FEATURES],
                    np.diff(offsets),
                    axis=0,
                ).astype(np.float32)
            f_raw = self._filter_values(hidden[:, sc.model.layers[0].out_features :], True, payoffs)
        else:
            after, hidden, offsets = sc.expander.expand(rep_boards, rep_dice)
            sc.engine_seconds += time.perf_counter() - t0
            if cube is not None:
                hidden[:, NUM_FEATURES : sc.base_inputs] = np.repeat(cube, np.diff(offsets), axis=0)
            if sc.board_features:
                hidden[:, sc.base_inputs :] = board_features(after, on_roll_row=0)
            f_raw = self._filter_values(hidden, False, None)
        return after, hidden, offsets, cube, payoffs, f_raw

    def oneply(self, boards, owner=None, played=None):
        """As ``Scorer.oneply`` (targets, (after, rows (N, 21))), each roll's max over the
        filter's ``k`` best candidates.  ``played`` (N,) roll indices: those rolls are
        valued in full (rows[i, played[i]] is then the exact 0-ply best) and their
        candidates become filter training rows (``self.rows``)."""
        sc = self.scorer
        boards = np.asarray(boards)
        n, r = len(boards), len(ALL_ROLLS)
        rep_owner = None if owner is None else np.repeat(np.asarray(owner), r)
        after, hidden, offsets, cube, payoffs, f_raw = self._expand_all_rolls(boards, rep_owner)
        h = sc.model.layers[0].out_features
        counts = np.diff(offsets)
        won = after[:, 1].sum(axis=1, dtype=np.int64) == 0
        terminal = None
        if won.any():
            own = None if rep_owner is None else np.repeat(np.asarray(rep_owner), counts)[won]
            terminal = sc.mode.terminal_values(sc.values, be.game_results(after[won]), own)
        f_values = sc.values.flip(f_raw)
        if terminal is not None:
            f_values[won] = terminal
        keep = segment_top_k(sc.values.scalar(f_values), offsets, self.k)
        if self.exact_races:  # every roll of a position with no contact left valued in full
            keep |= np.repeat(np.repeat(be.no_contact(boards), r), counts)
        if played is not None:
            played_segments = np.arange(n) * r + np.asarray(played)
            in_full = np.zeros(len(counts), dtype=bool)
            in_full[played_segments] = True
            keep |= np.repeat(in_full, counts)
        kept = np.flatnonzero(keep)  # in row order: with every row kept, exactly exact 1-ply's rows
        seg = np.repeat(np.arange(len(counts)), counts)
        kept_offsets = np.concatenate(
            [[0], np.cumsum(np.bincount(seg[kept], minlength=len(counts)))]
        )
        self.kept += len(kept)
        self.candidates += len(after)
        if sc.first_layer == "incremental":
            raw = sc.net(
                np.ascontiguousarray(hidden[kept, :h]),
                first_hidden=True,
                payoffs=None if payoffs is None else payoffs[kept],
            )
        else:
            raw = sc.net(hidden[kept])
        values = sc.values.flip(raw)
        if terminal is not None:
            values[won[kept]] = terminal[np.cumsum(won)[kept][won[kept]] - 1]
        best_k, _ = segment_argmax(sc.values.scalar(values), kept_offsets)
        best = values[best_k]
        self.last_best = best  # each (position, roll)'s value, for accuracy reports
        if best.ndim == 1:
            targets = (best.reshape(n, -1) * ROLL_WEIGHTS).sum(axis=1)
        else:
            targets = (best.reshape(n, r, -1) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
        if played is not None:
            self.rows.append(
                filter_rows(
                    after[kept], kept_offsets, values, cube, sc.values.flip, played_segments
                )
            )
        return targets, (after, kept[best_k].reshape(n, r))

    def lookahead(self, after: np.ndarray, values: np.ndarray, owner) -> np.ndarray:
        """``Scorer.lookahead`` with the filtered backup (for 1-ply and 2-ply play)."""
        out = np.array(values, dtype=np.float64, copy=True)
        live = np.flatnonzero(after[:, 1].sum(axis=1) != 0)
        for s in range(0, len(live), 128):
            rows = live[s : s + 128]
            opp_owner = (
                None if owner is None else self.scorer.mode.for_opponent(np.asarray(owner)[rows])
            )
            opp_values, _ = self.oneply(after[rows][:, ::-1], opp_owner)
            out[rows] = self.scorer.values.flip(opp_values)
        return out

    def take_rows(self) -> dict | None:
        """The training rows gathered since the last call."""
        rows, self.rows = join_rows(self.rows), []
        return rows
