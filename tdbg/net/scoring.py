"""Score every candidate move of many (position, roll) pairs in one forward pass.

This is the one primitive behind self-play (0-ply move choice and sampled
targets), exact 1-ply targets (all 21 rolls) and the 0-ply/1-ply agents:

1. the C batch call turns (board, dice) x N into all after-states, already
   encoded from the opponent's side (they are on roll next);
2. one forward pass scores them; values are flipped to the mover's side and
   finished games get their exact value, never a network estimate;
3. a segmented argmax picks each input's best candidate.

First layer (``first_layer``): "dense" multiplies every candidate's 196 (200) inputs
by W1.  "incremental" lets the C engine compute W1 x + b1 of the pre-move board once
per input and add, per candidate, only the weight columns of the ~5 inputs the move
changed, then the ReLU (for other activations it hands back W1 x + b1 and the model
applies its own); the network goes on from there.  Same values within float32
rounding (the sums run in another order; tests/net/test_incremental_scoring.py), far
less first-layer arithmetic.  "auto" is incremental with the C engine on a CPU
device and dense otherwise (the Python engine has no incremental path; on a GPU the
dense product is cheap).  Online TD asks for dense: its weights change every move.

Shared rows (exact 1-ply): the 21 rolls of one position often reach the same after-state
(a checker moved 7 pips by 6-1, 5-2 or 4-3; about 12% of the candidates of self-play's
positions).  The C engine gives each distinct after-state of a position's rolls one first-layer
row, with the bits every copy would have had (the same pre-move sums plus the same columns),
and the kernel values it once; the value is copied to every candidate that reaches it before
the head's nonlinearity, so each value sits where it would have been (torch's sigmoid can
differ in the last bit with a value's place in its array).  Only with a reduced-precision C
kernel, whose rows never depend on each other (lowp.LowpMLP.rows_independent): targets and
moves are then the same to the bit as scoring every candidate
(tests/net/test_oneply_real_positions.py); torch's forward passes make no such promise and score
every candidate.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
import torch

from tdbg.game import backgammon_engine as be, movegen
from tdbg.game.dice import ALL_ROLLS, ROLL_WEIGHTS, roll_dice
from tdbg.game.encoding import MATCH_PAYOFFS, NUM_BOARD_FEATURES, NUM_FEATURES, reads_board_features
from tdbg.game.features import board_features
from tdbg.game.heads import output_head
from tdbg.game.modes.base import GameMode
from tdbg.infra import profiling
from tdbg.infra.errors import InputError
from tdbg.infra.settings_fields import option
from tdbg.net import lowp

CPU_BLOCK = 512  # rows per forward pass on the CPU (see Scorer.net)
LOOKAHEAD_BLOCK = 128  # after-states per 1-ply lookahead pass: 128 x 21 rolls x ~20 moves keeps the inputs near 40 MB
FIRST_LAYER_MODES = ("auto", "incremental", "dense")


@dataclass(frozen=True)
class ScoringSettings:
    """How a Scorer scores the candidates: its first layer (the module notes) and the
    precision of the layers after it (lowp.py).  A Scorer takes this value whole, so a
    setting added here reaches every Scorer built from a stage's settings (learn's
    ``Collection.scoring`` holds one, with the training scripts' flag words)."""

    first_layer: str = option(
        "auto", "candidates' first layer: incremental, dense, or auto", choices=FIRST_LAYER_MODES
    )
    precision: str = option(
        "fp32",
        "the layers after the first: fp32 (torch) or a C kernel (lowp.py)",
        choices=lowp.PRECISIONS + lowp.KERNELS,
    )


def segment_argmax(values: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row of the (first) largest value in each segment offsets[i]:offsets[i+1], and that value.
    Every segment must be non-empty (a pass is one row)."""
    starts = offsets[:-1]
    seg_max = np.maximum.reduceat(values, starts)
    is_max = values >= np.repeat(seg_max, np.diff(offsets))
    rows = np.where(is_max, np.arange(len(values)), len(values))
    return np.minimum.reduceat(rows, starts), seg_max


def first_rows(src: np.ndarray) -> np.ndarray:
    """For rows mapped to shared rows numbered in order of first use (``src``, as
    c_engine.Expander.expand_first_layer's distinct mode gives), the first row of each."""
    new = np.empty(len(src), dtype=bool)
    new[:1] = True
    new[1:] = src[1:] > np.maximum.accumulate(src)[:-1]
    return np.flatnonzero(new)


def finished_games(boards, after: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Which after-states (mover in row 1) end the game: the mover has no checker left.  A move
    bears off at most four checkers, so only the candidates of inputs whose mover has four or
    fewer on the board are looked at (checking every candidate's row cost ~3% of 1-ply)."""
    won = np.zeros(len(after), dtype=bool)
    near = np.asarray(boards)[:, 1].sum(axis=1) <= 4
    if near.any():
        rows = np.flatnonzero(np.repeat(near, counts))
        won[rows] = ~after[rows, 1].any(axis=1)
    return won


def segment_sample(
    values: np.ndarray, offsets: np.ndarray, temp: float, rng: np.random.Generator
) -> np.ndarray:
    """A row drawn from each segment offsets[i]:offsets[i+1] with probability
    softmax(values / temp) within the segment (Boltzmann exploration), all segments at
    once: one uniform per segment placed on the running sum of the weights."""
    starts, counts = offsets[:-1], np.diff(offsets)
    seg_max = np.maximum.reduceat(values, starts)
    weights = np.exp((values - np.repeat(seg_max, counts)) / temp)  # the segment's best weighs 1
    cum = np.cumsum(weights)
    before = np.concatenate([[0.0], cum])[starts]
    u = before + rng.random(len(starts)) * (cum[offsets[1:] - 1] - before)
    return np.clip(np.searchsorted(cum, u, side="right"), starts, offsets[1:] - 1)


def resolve_first_layer(first_layer: str, engine: str, device: torch.device) -> str:
    """'incremental' or 'dense' for a requested first-layer mode (see the module notes)."""
    if first_layer not in FIRST_LAYER_MODES:
        raise ValueError(
            f"unknown first-layer mode {first_layer!r}; choose one of {', '.join(FIRST_LAYER_MODES)}"
        )
    if engine != "c":
        return "dense"  # only the C engine computes the deltas
    if first_layer == "auto":
        return "incremental" if device.type == "cpu" else "dense"
    return first_layer


def check_first_layer(first_layer: str, engine: str) -> None:
    """errors.InputError, before any game, for a first layer that ``engine`` cannot run:
    only the C engine computes the incremental sums, so "incremental" with the Python engine
    (asked for, or the only one built) would run dense."""
    if first_layer == "incremental" and (
        engine == "python" or (engine == "auto" and not movegen.c_available())
    ):
        why = (
            "--engine python"
            if engine == "python"
            else "the C engine is not built (run `make setup`)"
        )
        raise InputError(
            f"--scoring incremental needs the C engine, and {why}: use --scoring dense or auto "
            "(both dense with the Python engine)"
        )


def _lowp_mlp(model, precision: str, first_layer: str, device: torch.device):
    """lowp.LowpMLP for a collection precision other than fp32 (incremental first layer, CPU)."""
    if precision not in lowp.PRECISIONS + lowp.KERNELS:
        raise ValueError(
            f"unknown precision {precision!r}; choose one of {', '.join(lowp.PRECISIONS)}"
        )
    if first_layer != "incremental" or device.type != "cpu":
        raise ValueError(
            f"precision {precision} needs the incremental first layer on the CPU (C engine)"
        )
    return lowp.LowpMLP(model, precision)


class Scorer:
    """Evaluates positions and after-states for one model in one game mode."""

    def __init__(
        self,
        model,
        mode: GameMode,
        engine: str = "auto",
        device: str | None = None,
        scoring: ScoringSettings = ScoringSettings(),
    ):
        self.model = model
        self.mode = mode
        self.scoring = scoring  # as given (first_layer below is what it resolves to here)
        self.values = output_head(model.output_mode)
        self.device = torch.device(device) if device else next(model.parameters()).device
        self.n_inputs = model.n_inputs
        # a model may end its inputs with the board features (features.py): computed here from
        # each board, after the 196 raw inputs and the mode's cube inputs (which end at base_inputs)
        self.board_features = reads_board_features(model.n_inputs)
        self.base_inputs = model.n_inputs - (NUM_BOARD_FEATURES if self.board_features else 0)
        self.expander = movegen.make_expander(engine, width=model.n_inputs, on_roll_row=0)
        self.engine = movegen.resolve_engine(engine)
        self.first_layer = resolve_first_layer(scoring.first_layer, self.engine, self.device)
        self._relu = (
            getattr(model, "activation", "relu") == "relu"
        )  # else the C engine gives pre-activations
        # the layers after an incremental first layer in reduced precision (lowp.py); fp32: torch
        self.lowp = (
            None
            if scoring.precision == "fp32"
            else _lowp_mlp(model, scoring.precision, self.first_layer, self.device)
        )
        # 1-ply's rolls that reach the same after-state share its network row (with a kernel whose rows
        # are independent: the same bits either way); tests and benchmarks turn it off to compare
        self.share_rows = True
        # (weight, version, bias, version, W1^T, b1) cache
        self._w1: tuple[
            torch.Tensor | None, int, torch.Tensor | None, int, np.ndarray, np.ndarray
        ] = (None, -1, None, -1, np.empty(0, np.float32), np.empty(0, np.float32))
        self.evaluations = 0  # network rows evaluated, for throughput reports
        self.engine_seconds = 0.0  # time in move generation + encoding (incremental: + first layer)
        self.net_seconds = 0.0  # time in forward passes

    @torch.inference_mode()
    def net(
        self,
        features: np.ndarray,
        first_hidden: bool = False,
        payoffs: np.ndarray | None = None,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """Raw network values (N,) or (N, 5) as float64, side on roll = the encoded side.
        ``first_hidden``: the rows are the C engine's first hidden layer, not inputs: its
        activations for ReLU, its pre-activations W1 x + b1 for other activations (which
        are then applied here).

        On the CPU the rows go through in blocks of CPU_BLOCK: a block's activations
        stay in cache, which measured ~35% faster per row than one huge batch.  ``payoffs``:
        with ``first_hidden``, the payoff inputs for a head that reads them, one per value
        returned.  ``rows`` (with a reduced-precision kernel whose rows are independent): the
        values of these rows of ``features``, in that order; the head's nonlinearity runs on
        them as laid out here (torch's sigmoid can differ in the last bit with a value's place
        in its array, so this keeps each value where it would be without the sharing)."""
        self.evaluations += len(features)
        t0 = time.perf_counter()
        c0 = profiling.clock() if profiling.ENABLED else 0.0
        if rows is not None and not (
            first_hidden and self.lowp is not None and self.lowp.rows_independent
        ):
            raise ValueError(
                "rows= needs the first hidden layer and a reduced-precision kernel with independent rows"
            )
        inputs = [
            torch.from_numpy(features)
        ]  # with the payoffs, when given: sliced and moved together
        forward = self.model
        if first_hidden:
            forward = self.model.from_first_hidden if self._relu else self.model.from_first_pre
            if payoffs is not None:
                inputs.append(torch.from_numpy(payoffs))
        n = len(features)
        if first_hidden and self.lowp is not None:
            out = self.lowp.forward(features, *inputs[1:], rows=rows)
        elif self.device.type != "cpu":
            out = forward(*(r.to(self.device, non_blocking=True) for r in inputs)).float().cpu()
        elif n <= CPU_BLOCK:
            out = forward(*inputs)
        else:
            out = torch.cat(
                [forward(*(r[s : s + CPU_BLOCK] for r in inputs)) for s in range(0, n, CPU_BLOCK)]
            )
        if profiling.ENABLED and not (
            first_hidden and self.lowp is not None
        ):  # (lowp.py times its own)
            profiling.add("kernel", c0)
            profiling.count("kernel_rows", n)
            dense = (
                0 if first_hidden else self.n_inputs * self.model.hidden[0]
            )  # dense: the first layer too
            profiling.count("kernel_macs", n * (lowp.macs_per_row(self.model) + dense))
        out = out.numpy().astype(np.float64)
        self.net_seconds += time.perf_counter() - t0
        return out

    def encode_states(self, boards: np.ndarray, owner=None, cube_action=None) -> np.ndarray:
        """Inputs for positions with row 1 on roll (pre-roll states)."""
        feats = np.zeros((len(boards), self.n_inputs), dtype=np.float32)
        feats[:, :NUM_FEATURES] = movegen.encode_on_roll(boards, self.engine)
        cube = self.mode.cube_inputs(owner, cube_action)
        if cube is not None:
            feats[:, NUM_FEATURES : self.base_inputs] = cube
        if self.board_features:
            feats[:, self.base_inputs :] = board_features(boards)
        return feats

    def state_values(self, boards, owner=None, cube_action=None) -> np.ndarray:
        """Network values of positions with row 1 on roll."""
        return self.net(self.encode_states(np.asarray(boards), owner, cube_action))

    def cube_values(self, boards, owner, oneply: bool = False, backup=None):
        """(v_no_double, v_take) for positions with the doubler on roll: the value of rolling
        on with the cube as it is, and of the same position after a take (cube doubled, owned
        by the opponent), both normalised to their own cube.  ``oneply`` backs each up over
        the 21 rolls instead of reading the network directly; ``backup(boards, owner)``, when
        given, replaces both (e.g. search.TwoPly.position_values)."""
        boards, owner = np.asarray(boards), np.asarray(owner)
        n = len(boards)
        both = np.concatenate([boards, boards])
        owners = np.concatenate([owner, self.mode.after_take(owner)])
        if backup is not None:
            v = backup(both, owners)
        else:
            v = (
                self.oneply(both, owners)[0]
                if oneply
                else self.state_values(both, owners, np.zeros(2 * n))
            )
        return v[:n], v[n:]

    def expand_first_layer(self, boards, dice, cube, w1t, b1, distinct: bool = False):
        """Every candidate of each (board, dice) with its first hidden layer for the weights
        ``w1t`` (inputs x units) and ``b1``: (after_boards, hidden, offsets).  The C engine sums
        the raw and cube inputs' columns; numpy adds the board features' (a model that reads them).
        ``distinct``: one hidden row per distinct after-state of consecutive identical inputs
        (c_engine.Expander.expand_first_layer), and a fourth result, each candidate's row."""
        if not self.board_features:
            return self.expander.expand_first_layer(
                boards, dice, w1t, b1, cube, self._relu, distinct
            )
        after, hidden, offsets, *src = self.expander.expand_first_layer(
            boards, dice, w1t[: self.base_inputs], b1, cube, False, distinct
        )
        hidden = (
            hidden
            + board_features(after if not distinct else after[first_rows(src[0])], on_roll_row=0)
            @ w1t[self.base_inputs :]
        )
        if self._relu:
            np.maximum(hidden, 0.0, out=hidden)
        return (after, hidden, offsets, *src)

    def score(self, boards, dice, owner=None):
        """All candidates of each (board, dice): (after_boards, offsets, values, scalar).

        ``values`` are in the model's representation from the mover's side (exact for
        finished games); ``scalar`` is what the mover maximises.  ``owner`` is the
        cube owner from each mover's view (read by modes with a cube)."""
        t0 = time.perf_counter()
        c0 = profiling.clock() if profiling.ENABLED else 0.0
        cube = self.mode.reply_cube_inputs(owner)  # the cube as the opponent, on roll next, sees it
        if self.first_layer == "incremental":
            # with a kernel whose rows are independent, one network row per distinct after-state of
            # each position's rolls (1-ply), its value copied to every candidate that reaches it:
            # the same inputs, so the same value to the bit, for less work (module notes)
            distinct = self.share_rows and self.lowp is not None and self.lowp.rows_independent
            after, hidden1, offsets, *src = self.expand_first_layer(
                boards, dice, cube, *self._first_layer_weights(), distinct
            )
            self.engine_seconds += time.perf_counter() - t0
            if profiling.ENABLED:
                profiling.add("engine", c0)  # move generation and the first layer (one C call)
            payoffs = None
            if getattr(
                self.model, "reads_payoffs", False
            ):  # the head reads each row's payoffs: its board's, repeated
                payoffs = np.repeat(
                    cube[:, MATCH_PAYOFFS.start - NUM_FEATURES : MATCH_PAYOFFS.stop - NUM_FEATURES],
                    np.diff(offsets),
                    axis=0,
                ).astype(np.float32)
            raw = self.net(
                hidden1, first_hidden=True, payoffs=payoffs, rows=src[0] if src else None
            )
        else:
            after, feats, offsets = self.expander.expand(boards, dice)
            self.engine_seconds += time.perf_counter() - t0
            if profiling.ENABLED:
                profiling.add("engine", c0)  # move generation and encoding
            if cube is not None:
                feats[:, NUM_FEATURES : self.base_inputs] = np.repeat(
                    cube, np.diff(offsets), axis=0
                )
            if self.board_features:  # the opponent is on roll in each after-state
                feats[:, self.base_inputs :] = board_features(after, on_roll_row=0)
            raw = self.net(feats)
        counts = np.diff(offsets)
        values = self.values.flip(raw)
        won = finished_games(boards, after, counts)
        if won.any():
            results = be.game_results(after[won])
            own = None if owner is None else np.repeat(np.asarray(owner), counts)[won]
            values[won] = self.mode.terminal_values(self.values, results, own)
        scalar = self.values.scalar(values)
        if profiling.ENABLED:
            profiling.add("score", c0)  # the C call, the network and the numpy around them
        return after, offsets, values, scalar

    def _first_layer_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """W1 transposed and b1 as float32 numpy arrays for the C engine, recomputed only
        when the weights changed (in-place updates bump a tensor's version; online TD
        updates after every move)."""
        layer = self.model.layers[0]
        w, b = layer.weight, layer.bias
        assert b is not None  # TDNetwork's layers have biases
        cw, vw, cb, vb, w1t, b1 = self._w1
        if vw != w._version or vb != b._version or cw is not w or cb is not b:
            w1t = np.ascontiguousarray(
                w.detach().to("cpu", torch.float32).numpy().T
            )  # (numpy: 2x faster)
            b1 = b.detach().to("cpu", torch.float32).numpy().copy()
            self._w1 = (w, w._version, b, b._version, w1t, b1)
        return w1t, b1

    def best_moves(self, boards, dice, owner=None):
        """Greedy 0-ply choice: (chosen after-boards, their values in model representation)."""
        after, offsets, values, scalar = self.score(boards, dice, owner)
        rows, _ = segment_argmax(scalar, offsets)
        return after[rows].astype(np.int64), values[rows]

    def lookahead(self, after: np.ndarray, values: np.ndarray, owner) -> np.ndarray:
        """Mover's 1-ply values of after-states (mover in row 1; ``owner`` per row from the
        mover's view, or None): exact for finished games, otherwise the flipped 1-ply
        backup of the opponent's position.  ``after`` must not be a view of this scorer's
        buffers (the backup reuses them)."""
        out = np.array(values, dtype=np.float64, copy=True)
        live = np.flatnonzero(after[:, 1].sum(axis=1) != 0)
        for s in range(
            0, len(live), LOOKAHEAD_BLOCK
        ):  # blocks bound the 21-roll expansion's memory
            rows = live[s : s + LOOKAHEAD_BLOCK]
            opp_owner = None if owner is None else self.mode.for_opponent(np.asarray(owner)[rows])
            opp_values, _ = self.oneply(after[rows][:, ::-1], opp_owner)
            out[rows] = self.values.flip(opp_values)
        return out

    def oneply(self, boards, owner=None):
        """Exact 1-ply backup of each position (row 1 on roll, before its roll).

        Returns (targets, per_roll) where targets[i] is the probability-weighted mean
        over the 21 rolls of the best move's value (model representation), and
        per_roll = (after, rows (N, 21)) lets the caller play any roll's best move
        without scoring it again."""
        boards = np.asarray(boards)
        n = len(boards)
        rep_boards = np.repeat(boards, len(ALL_ROLLS), axis=0)
        rep_dice = np.tile(ALL_ROLLS, (n, 1))
        rep_owner = None if owner is None else np.repeat(np.asarray(owner), len(ALL_ROLLS))
        after, offsets, values, scalar = self.score(rep_boards, rep_dice, rep_owner)
        rows, _ = segment_argmax(scalar, offsets)
        best = values[rows]
        if best.ndim == 1:
            targets = (best.reshape(n, -1) * ROLL_WEIGHTS).sum(axis=1)
        else:
            targets = (best.reshape(n, len(ALL_ROLLS), -1) * ROLL_WEIGHTS[None, :, None]).sum(
                axis=1
            )
        return targets, (after, rows.reshape(n, len(ALL_ROLLS)))


@overload
def greedy_game_decisions(
    scorer: Scorer, games: int, rng: np.random.Generator, with_states: Literal[False] = False
) -> tuple[np.ndarray, np.ndarray]: ...


@overload
def greedy_game_decisions(
    scorer: Scorer, games: int, rng: np.random.Generator, with_states: Literal[True]
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]: ...


def greedy_game_decisions(
    scorer: Scorer, games: int, rng: np.random.Generator, with_states: bool = False
) -> tuple:
    """(boards, dice) of every decision of ``games`` games the scorer plays greedily against
    itself, in parallel: each pre-roll position (row 1 on roll) with the roll that was played
    from it; contact, race and bear-off positions from real play.  The cube is never turned:
    each game keeps its mode's start state (centred; match play: a score from its spread),
    seen from the mover's side; ``with_states`` adds those states, one per decision (None
    in a mode without a cube)."""
    mode = scorer.mode
    boards = np.repeat(be.initial_board()[None], games, axis=0)
    states = mode.initial_states(games, rng) if mode.cubeful else None
    ply = np.zeros(games, dtype=int)
    out_b, out_d, out_s, live = [], [], [], np.arange(games)
    while len(live):
        out_b.append(boards[live].copy())
        dice = roll_dice(rng, len(live), opening=ply[live] == 0)
        out_d.append(dice)
        owner = None if states is None else states[live]
        if owner is not None:
            out_s.append(owner.copy())
        after, _ = scorer.best_moves(boards[live], dice, owner)
        done = after[:, 1].sum(axis=1) == 0
        boards[live] = after[:, ::-1]
        if states is not None:
            states[live] = mode.for_opponent(owner)
        ply[live] += 1
        live = live[~done]
    if with_states:
        return (
            np.concatenate(out_b),
            np.concatenate(out_d),
            np.concatenate(out_s) if out_s else None,
        )
    return np.concatenate(out_b), np.concatenate(out_d)


def greedy_game_positions(scorer: Scorer, games: int, rng: np.random.Generator) -> np.ndarray:
    """The positions of greedy_game_decisions, without their rolls."""
    return greedy_game_decisions(scorer, games, rng)[0]
