"""The C move generator (``c_engine/bgcore.c``, built by ``make setup`` into the extension
``tdbg.game._bgcore``) behind a numpy interface.

``legal_moves`` mirrors :func:`backgammon_engine.legal_moves`; ``expand_batch``
turns many (board, dice) inputs into all their resulting boards and encodings in
numpy buffers, with no Python object per candidate move.
"""

from __future__ import annotations

import numpy as np

try:
    from tdbg.game._bgcore import ffi, lib
except ImportError as exc:  # pragma: no cover - exercised only without a build
    raise ImportError(
        "the C engine is not built; run `make setup` (or `python c_engine/build_cffi.py`)"
    ) from exc

from tdbg.game.backgammon_engine import check_batch, check_board, check_dice

NUM_FEATURES = lib.BG_NUM_FEATURES
MAX_MOVES = lib.BG_MAX_MOVES


def _raise_for(code: int, where: int, boards=None) -> None:
    """Turn a C error code into the same ValueError the Python engine gives."""
    if code == lib.BG_ERR_NOMEM:
        raise MemoryError("c_engine: out of memory")
    if code == lib.BG_ERR_CAPACITY:
        raise RuntimeError("c_engine: more results than BG_MAX_MOVES for one roll")
    prefix = "" if boards is None else f"input {where}: "
    if code == lib.BG_ERR_DICE:
        raise ValueError(f"{prefix}dice must be whole numbers from 1 to 6")
    try:
        check_board(boards[where] if boards is not None else None)
    except ValueError as exc:  # the same detailed message as the Python engine
        raise ValueError(f"{prefix}{exc}") from None
    raise ValueError(f"{prefix}invalid board (error {code})")


def _as_board(board) -> np.ndarray:
    arr = np.asarray(board)
    if arr.dtype != np.int8 or arr.shape != (2, 25) or not arr.flags.c_contiguous:
        arr = check_board(arr)  # full check before narrowing to int8
        arr = np.ascontiguousarray(arr, dtype=np.int8)
    return arr


def _grown(arr: np.ndarray, rows: int, new) -> np.ndarray:
    """``arr`` with room for ``rows`` rows, its rows kept; ``new`` makes the new array."""
    out = new((rows,) + arr.shape[1:], dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


def _ptr(ctype: str, arr: np.ndarray):
    return ffi.cast(ctype, ffi.from_buffer(arr))


def legal_moves(board, die1, die2) -> list[tuple[tuple, np.ndarray]]:
    """Same contract as :func:`backgammon_engine.legal_moves`."""
    d1, d2 = check_dice(die1, die2)
    arr = _as_board(board)
    out_boards = np.empty((MAX_MOVES, 2, 25), dtype=np.int8)
    out_steps = np.empty((MAX_MOVES, 8), dtype=np.int8)
    out_n = np.empty(MAX_MOVES, dtype=np.int8)
    where = ffi.new("int *")
    n = lib.bg_legal_moves(
        _ptr("int8_t *", arr),
        d1,
        d2,
        _ptr("int8_t *", out_boards),
        _ptr("int8_t *", out_steps),
        _ptr("int8_t *", out_n),
        MAX_MOVES,
        where,
    )
    if n < 0:
        _raise_for(n, where[0], arr[None])
    boards = out_boards[:n].astype(np.int64)
    steps = out_steps[:n].reshape(n, 4, 2).tolist()
    return [
        (tuple(tuple(s) for s in steps[k][:c]), boards[k]) for k, c in enumerate(out_n[:n].tolist())
    ]


def encode_batch(boards, on_roll_row: int = 1, width: int = NUM_FEATURES) -> np.ndarray:
    """(N, width) float32 Tesauro inputs of (N, 2, 25) boards; columns past 196 are zero."""
    arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    out = np.zeros((len(arr), width), dtype=np.float32)
    lib.bg_encode_batch(_ptr("int8_t *", arr), len(arr), _ptr("float *", out), width, on_roll_row)
    return out


def board_features(boards, on_roll_row: int = 1) -> np.ndarray:
    """(N, 20) float32 board features (features.py's, which is the reference) of (N, 2, 25)
    boards; row ``on_roll_row`` is the side on roll."""
    arr = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    out = np.empty((len(arr), 20), dtype=np.float32)
    lib.bg_board_features_batch(
        _ptr("int8_t *", arr), len(arr), _ptr("float *", out), 20, on_roll_row
    )
    return out


def _first_layer_operands(w1t: np.ndarray, b1: np.ndarray, extra, n: int):
    """(n_extra, hidden, extra as (n, n_extra) float32) for ``Expander.expand_first_layer``;
    a ValueError where the weights are not what the C kernel reads (C-contiguous float32,
    196 to 196 + BG_MAX_EXTRA rows, a bias per hidden unit)."""
    n_extra = w1t.shape[0] - NUM_FEATURES
    hidden = w1t.shape[1]
    if (
        w1t.dtype != np.float32
        or not w1t.flags.c_contiguous
        or not 0 <= n_extra <= lib.BG_MAX_EXTRA
    ):
        raise ValueError(
            f"w1t must be C-contiguous float32 with 196 to {NUM_FEATURES + lib.BG_MAX_EXTRA} rows"
        )
    if b1.dtype != np.float32 or b1.shape != (hidden,):
        raise ValueError(f"b1 must be float32 of shape ({hidden},)")
    ex = (
        np.zeros((n, n_extra), dtype=np.float32)
        if extra is None
        else np.ascontiguousarray(extra, dtype=np.float32).reshape(n, n_extra)
    )
    return n_extra, hidden, ex


class Expander:
    """Batch move generation into buffers that are kept and grown between calls.

    One Expander per thread or process (it owns its buffers; the C side keeps no
    state).  The arrays returned by :meth:`expand` are views into those buffers
    and are overwritten by the next call: copy what must outlive it.
    """

    def __init__(self, width: int = NUM_FEATURES, on_roll_row: int = 0, capacity: int = 4096):
        if width < NUM_FEATURES:
            raise ValueError(f"width must be at least {NUM_FEATURES}")
        self.width = width
        self.on_roll_row = on_roll_row
        self._boards = np.empty((capacity, 2, 25), dtype=np.int8)
        # per-row outputs beside the boards, each allocated on first use and grown with them:
        # inputs (expand; columns past 196 are the caller's cube inputs, C never writes
        # them) and first hidden layers (expand_first_layer)
        self._features: np.ndarray | None = None
        self._hidden1: np.ndarray | None = None
        self._src: np.ndarray | None = (
            None  # expand_first_layer(distinct=True): each result's hidden row
        )
        self._where = ffi.new("int *")
        self._n_rows = ffi.new("int *")

    def _grow(self, rows: int) -> None:
        old_b = self._boards
        self._boards = np.empty((rows, 2, 25), dtype=np.int8)
        self._boards[: len(old_b)] = old_b
        if self._features is not None:
            self._features = _grown(self._features, rows, np.zeros)
        if self._hidden1 is not None:
            self._hidden1 = _grown(self._hidden1, rows, np.empty)
        if self._src is not None:
            self._src = _grown(self._src, rows, np.empty)

    def expand(self, boards, dice, encode: bool = True):
        """Every legal result of each (board, dice) input.

        ``boards``: (N, 2, 25), ``dice``: (N, 2).  Returns ``(boards, features,
        offsets)``: input i's results are rows offsets[i]:offsets[i+1]; boards keep
        the mover in row 1; features (None unless ``encode``) put row
        ``on_roll_row`` on roll: 0, the default, is the opponent, who is on roll
        once the move is made, so a network scores the position it will face.
        """
        b, d = check_batch(boards, dice)
        b = np.ascontiguousarray(b, dtype=np.int8)
        d = np.ascontiguousarray(d, dtype=np.int8)
        if encode and self._features is None:
            self._features = np.zeros((len(self._boards), self.width), dtype=np.float32)

        def call(done, offsets):
            return lib.bg_expand_batch(
                _ptr("int8_t *", b[done:]),
                _ptr("int8_t *", d[done:]),
                len(b) - done,
                _ptr("int8_t *", self._boards),
                _ptr("float *", self._features) if encode else ffi.NULL,
                self.width,
                self.on_roll_row,
                _ptr("int32_t *", offsets[done:]),
                len(self._boards),
                self._where,
            )

        offsets = self._run(call, b)
        total = int(offsets[-1])
        feats = self._features[:total] if encode and self._features is not None else None
        return self._boards[:total], feats, offsets

    def _first_layer_buffers(self, hidden: int, distinct: bool) -> None:
        """Size the hidden-row buffer for ``hidden`` units (kept between calls of the same
        width), allocate the shared-row index where ``distinct`` asks for one, and start the
        count of rows written at zero."""
        if self._hidden1 is None or self._hidden1.shape != (len(self._boards), hidden):
            self._hidden1 = np.empty((len(self._boards), hidden), dtype=np.float32)
        if distinct and self._src is None:
            self._src = np.empty(len(self._boards), dtype=np.int32)
        self._n_rows[0] = 0

    def expand_first_layer(
        self,
        boards,
        dice,
        w1t: np.ndarray,
        b1: np.ndarray,
        extra=None,
        relu: bool = True,
        distinct: bool = False,
    ):
        """Every legal result of each input with its first hidden layer max(0, W1 x + b1)
        in place of its inputs x: ``(boards, hidden1, offsets)``, views as in :meth:`expand`.
        ``relu`` False: the pre-activations W1 x + b1 (for other hidden activations).

        ``distinct``: consecutive identical inputs (board and extra: 1-ply's 21 rolls of one
        position) give each distinct after-state one hidden row, shared by every roll that
        reaches it (the bits it would have had anyway: the same pre-move sums and columns);
        returns ``(boards, hidden1, offsets, src)``, result r's row being ``hidden1[src[r]]``.

        ``w1t``: W1 transposed, float32 C-contiguous, (196 + n_extra, hidden); ``b1``:
        (hidden,) float32; ``extra``: (N, n_extra) inputs past the first 196 (the cube),
        one row per input, shared by all its results.  Only the inputs a move changes
        are touched per result, so this costs far less than W1 @ x when hidden is large."""
        b, d = check_batch(boards, dice)
        b = np.ascontiguousarray(b, dtype=np.int8)
        d = np.ascontiguousarray(d, dtype=np.int8)
        n_extra, hidden, ex = _first_layer_operands(w1t, b1, extra, len(b))
        self._first_layer_buffers(hidden, distinct)

        def call(done, offsets):
            return lib.bg_expand_first_layer_distinct(
                _ptr("int8_t *", b[done:]),
                _ptr("int8_t *", d[done:]),
                len(b) - done,
                _ptr("float *", ex[done:]),
                n_extra,
                _ptr("float *", w1t),
                _ptr("float *", b1),
                hidden,
                _ptr("int8_t *", self._boards),
                _ptr("float *", self._hidden1),
                self.on_roll_row,
                _ptr("int32_t *", offsets[done:]),
                len(self._boards),
                self._where,
                int(relu),
                _ptr("int32_t *", self._src) if distinct else ffi.NULL,
                self._n_rows,
            )

        offsets = self._run(call, b)
        total = int(offsets[-1])
        hidden1, src = self._hidden1, self._src
        assert hidden1 is not None  # allocated above (and src where distinct); _run only grows them
        if distinct:
            assert src is not None
            return self._boards[:total], hidden1[: self._n_rows[0]], offsets, src[:total]
        return self._boards[:total], hidden1[:total], offsets

    def _run(self, call, b) -> np.ndarray:
        """Call the C batch function until every input is done, growing the buffers
        whenever it runs out of rows; returns the offsets."""
        n = len(b)
        offsets = np.zeros(n + 1, dtype=np.int32)
        done = 0
        while done < n:
            got = call(done, offsets)
            if got < 0:
                _raise_for(got, done + self._where[0], b)
            done += got
            if done < n:  # out of room: grow by at least a worst-case roll and go on
                self._grow(max(2 * len(self._boards), int(offsets[done]) + MAX_MOVES))
        return offsets


def expand_batch(
    boards, dice, encode: bool = True, on_roll_row: int = 0, width: int = NUM_FEATURES
):
    """One-off :meth:`Expander.expand` whose arrays the caller owns."""
    ex = Expander(
        width=width,
        on_roll_row=on_roll_row,
        capacity=max(64, 24 * len(np.asarray(boards).reshape(-1, 50))),
    )
    out_b, out_f, offsets = ex.expand(boards, dice, encode)
    return out_b.copy(), (None if out_f is None else out_f.copy()), offsets
