#!/usr/bin/env python3
"""Export a checkpoint's network to the framework-independent .bin format read by c_inference/.

Format version 2, all little-endian:

  offset  type        field
  0       char[8]     magic "TDBGNET1"
  8       uint32      format version (2)
  12      uint32      output mode: 0 probability, 1 equity, 2 prob5
  16      uint32      game mode: 0 dmp, 1 cubeless money, 2 cubeful money
  20      uint32      flags: bit 0 = Jacoby rule (cubeful)
  24      uint32      hidden activation: 0 relu, 1 sigmoid, 2 tanh, 3 leaky relu (slope 0.01)
  28      uint32      number of inputs (196 or 200)
  32      uint32      number of hidden layers L (1..64)
  36      uint32[L]   hidden layer sizes
  ..      uint32      number of outputs (1, or 5 for prob5)
  then for each of the L+1 layers (hidden layers, then the head):
          float32[out*in]  weights, row-major (one row per output unit)
          float32[out]     biases

Version 1 (still read by c_inference/) is the same without the activation field
(everything from the inputs on 4 bytes earlier): ReLU hidden units.  The head is a
sigmoid (probability), linear (equity) or five sigmoids read as conditional probabilities (prob5: P(win), P(wg|win),
P(wbg|wg), P(lg|lose), P(lbg|lg), multiplied out as model.prob5_from_conditionals).

    python tools/export_weights.py models/dmp.pt models/dmp.bin
"""

from __future__ import annotations

# first: a signal during the imports ends in one line
from tdbg.infra.stop_signals import exit_on_signals

exit_on_signals(__name__)

import struct

import numpy as np

from tdbg.app import cli
from tdbg.game.encoding import reads_board_features
from tdbg.infra.fileio import Output, atomic_write, check_outputs
from tdbg.net.model import CheckpointError, load_checkpoint

MAGIC = b"TDBGNET1"
VERSION = 2
ACTIVATION_CODES = {"relu": 0, "sigmoid": 1, "tanh": 2, "leaky_relu": 3}
OUTPUT_CODES = {"probability": 0, "equity": 1, "prob5": 2}
GAME_CODES = {"dmp": 0, "cubeless-money": 1, "cubeful-money": 2}


def export_bytes(model, game_mode: str, jacoby: bool = True) -> bytes:
    parts = [
        MAGIC,
        struct.pack(
            "<6I",
            VERSION,
            OUTPUT_CODES[model.output_mode],
            GAME_CODES[game_mode],
            1 if jacoby else 0,
            ACTIVATION_CODES[model.activation],
            model.n_inputs,
        ),
    ]
    parts.append(struct.pack("<I", len(model.hidden)))
    parts.append(struct.pack(f"<{len(model.hidden)}I", *model.hidden))
    parts.append(struct.pack("<I", model.n_outputs))
    for layer in list(model.layers) + [model.head]:
        parts.append(layer.weight.detach().cpu().numpy().astype("<f4").tobytes())
        parts.append(layer.bias.detach().cpu().numpy().astype("<f4").tobytes())
    return b"".join(parts)


def version1_bytes(data: bytes) -> bytes:
    """A version-2 export of a ReLU network as format version 1, for readers built before
    version 2 (the C inference benchmark's baseline commit): the same bytes without the
    activation field.  ValueError for another version or activation (version 1 has no way
    to say it)."""
    if data[:8] != MAGIC or len(data) < 28:
        raise ValueError("not a TDBGNET1 weights file")
    version, activation = (
        struct.unpack_from("<I", data, 8)[0],
        struct.unpack_from("<I", data, 24)[0],
    )
    if version != 2:
        raise ValueError(f"format version {version}: only version 2 is converted")
    if activation != ACTIVATION_CODES["relu"]:
        raise ValueError("format version 1 holds ReLU networks only")
    return data[:8] + struct.pack("<I", 1) + data[12:24] + data[28:]


def main() -> None:
    p = cli.Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("output", help=".bin path (written atomically)")
    p.add_argument(
        "--no-jacoby", action="store_true", help="cubeful: score gammons with a centred cube"
    )
    p.add_argument(
        "--overwrite", action="store_true", help="allow replacing an existing exported weights file"
    )
    args = p.parse_args()
    check_outputs(
        [Output("output", args.output, "weights")],
        args.overwrite,
        {"the checkpoint": args.checkpoint},
    )
    try:
        model, meta, _ = load_checkpoint(args.checkpoint)
    except CheckpointError as exc:
        raise cli.UsageError(str(exc)) from None
    game_mode = meta["game_mode"]  # (the head's default where the checkpoint names none)
    if game_mode not in GAME_CODES or model.output_mode not in OUTPUT_CODES:
        raise cli.UsageError(
            f"the C programs play {', '.join(GAME_CODES)} models; this one is a {game_mode} "
            f"model ({model.output_mode} head)"
        )
    if reads_board_features(model.n_inputs):
        raise cli.UsageError(
            f"the C programs compute only the raw inputs; this model also reads the board "
            f"features (features.py, {model.n_inputs} inputs)"
        )
    data = export_bytes(model, game_mode, not args.no_jacoby)
    with atomic_write(args.output, "wb") as fh:
        fh.write(data)
    print(
        f"{args.output}: {len(data)} bytes, {model.describe()}, {game_mode}, "
        f"{int(np.sum([p.numel() for p in model.parameters()]))} parameters"
    )


if __name__ == "__main__":
    cli.run_main(main)
