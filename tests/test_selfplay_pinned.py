"""Seeded self-play pinned per game mode and output head: the numbers below were
computed by the code before the turn loop and the game modes became objects
(issue 15, commit acf8683), so a refactor that changes what self-play does fails here.

The features are exact (encodings of the boards played), so they are hashed; the
targets are summed to 3 decimals, which tolerates float rounding across CPUs."""
import hashlib

import numpy as np
import pytest
import torch

from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import SelfPlay
from tdbg.net.model import TDNetwork

PINNED = {  # (mode, head, oneply): (features sha256[:16], samples, sum of targets, stats)
    ("dmp", "probability", False): ("b4b72714fc5102ac", 386, 169.169, [386, 1, 0, 0, 0, 0, 6.0]),
    ("dmp", "probability", True): ("788299bce8fd121f", 124, 54.345, [124, 1, 0, 0, 0, 0, 2.0]),
    ("cubeless-money", "equity", False): ("b4b72714fc5102ac", 386, -101.123, [386, 1, 0, 0, 0, 0, 7.0]),
    ("cubeless-money", "equity", True): ("788299bce8fd121f", 124, -32.035, [124, 1, 0, 0, 0, 0, 3.0]),
    ("cubeless-money", "prob5", False): ("3e6c8cec484bd637", 490, 642.395, [490, 4, 0, 0, 0, 0, 10.0]),
    ("cubeless-money", "prob5", True): ("06c89bbbba61d8df", 149, 192.881, [149, 1, 0, 0, 0, 0, 3.0]),
    ("cubeful-money", "equity", False): ("8ca3bd77cf566e39", 769, -68.875, [709, 1, 4, 60, 60, 0, 15360.0]),
    ("cubeful-money", "equity", True): ("e79b2ba76c933722", 366, -33.868, [346, 1, 1, 20, 20, 0, 5120.0]),
}
STATS = ("plies", "gammons", "backgammons", "doubles", "takes", "drops", "points")


@pytest.mark.parametrize("key", list(PINNED), ids=lambda k: f"{k[0]}-{k[1]}-{'oneply' if k[2] else 'sampled'}")
def test_seeded_selfplay_is_pinned(key):
    mode_name, head, oneply = key
    mode = game_mode(mode_name)
    torch.manual_seed(7)
    model = TDNetwork(mode.n_inputs, [8], head).eval()
    data = SelfPlay(model, mode, oneply, backend="c", parallel_games=4).collect(2 if oneply else 6,
                                                                               np.random.default_rng(11))
    got = (hashlib.sha256(data["features"].tobytes()).hexdigest()[:16], len(data["targets"]),
           round(float(data["targets"].sum()), 3), [data["stats"][k] for k in STATS])
    assert got == PINNED[key]
