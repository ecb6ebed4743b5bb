"""Seeded self-play through two independent rules engines: the C engine (move generation
and encoding in c_engine) and the Python one (backgammon_engine and the numpy encoder, each
checked against gnubg-nn in test_engine_oracle and test_encoding) play the same games, per
game mode and output head, sampled and 1-ply targets alike.

This replaced eight values pinned from the code's own output (issue 36): a pin says only
that nothing changed, where two engines agreeing says both are right or both wrong the same
way.  The features are exact (encodings of the boards played), the targets agree within
float32 rounding (the two paths sum the 1-ply means in different orders)."""

from dataclasses import replace
import numpy as np
import pytest
import torch

from tdbg.game.modes import game_mode
from tdbg.learn.selfplay import FP32_COLLECTION, SelfPlay, SelfPlaySetup
from tdbg.net.model import TDNetwork

KEYS = [
    ("dmp", "probability", False),
    ("dmp", "probability", True),
    ("cubeless-money", "equity", False),
    ("cubeless-money", "equity", True),
    ("cubeless-money", "prob5", False),
    ("cubeless-money", "prob5", True),
    ("cubeful-money", "equity", False),
    ("cubeful-money", "equity", True),
]


def _collect(mode_name, head, oneply, engine):
    mode = game_mode(mode_name)
    torch.manual_seed(7)
    model = TDNetwork(mode.n_inputs, [8], head).eval()
    return SelfPlay(
        model,
        SelfPlaySetup(
            mode, replace(FP32_COLLECTION, oneply=oneply, parallel_games=4), engine=engine
        ),
    ).collect(2 if oneply else 6, np.random.default_rng(11))


@pytest.mark.parametrize(
    "key", KEYS, ids=lambda k: f"{k[0]}-{k[1]}-{'oneply' if k[2] else 'sampled'}"
)
def test_c_and_python_engines_play_the_same_selfplay(key):
    c, py = (_collect(*key, engine) for engine in ("c", "python"))
    assert len(c["targets"]) > 100  # whole games, not a stub
    assert np.array_equal(c["features"], py["features"])
    assert (
        c["targets"].shape == py["targets"].shape
        and np.abs(c["targets"] - py["targets"]).max() < 1e-6
    )
    stats = [{k: v for k, v in d["stats"].items() if not k.endswith("_seconds")} for d in (c, py)]
    assert stats[0] == stats[1]
    if key[0] == "cubeful-money":  # the cube was used, so its nodes are compared too
        assert stats[0]["doubles"] > 0
