"""Each game mode's network input layout has a name (tdbg.net.model.input_layout, keyed by the
mode's class): checkpoints record it as their ``encoder``, the same strings as always."""

import pytest

from tdbg.game.modes import GAME_MODES, mode_class
from tdbg.net.model import ENCODERS, TDNetwork, input_layout, new_metadata

# the layouts checkpoints have always recorded, by input count
RECORDED = {
    196: "tesauro196",
    200: "tesauro196+cube4",
    208: "tesauro196+cube4+match8",
    216: "tesauro196+board20",
    220: "tesauro196+cube4+board20",
    228: "tesauro196+cube4+match8+board20",
}


@pytest.mark.parametrize("name", GAME_MODES)
def test_mode_names_its_layout(name):
    cls = mode_class(name)
    for n in (cls.n_inputs, cls.n_inputs + 20):
        assert input_layout(cls, n) == RECORDED[n]
        meta = new_metadata(TDNetwork(n, [4], cls.outputs[0]), name)
        assert meta["encoder"] == RECORDED[n]
    with pytest.raises(ValueError, match="needs a"):
        input_layout(cls, cls.n_inputs + 1)


def test_no_other_layouts():
    assert ENCODERS == RECORDED


def test_a_model_that_does_not_fit_its_mode_has_no_layout():
    with pytest.raises(ValueError, match="dmp needs a 196-input model"):
        new_metadata(TDNetwork(200, [4], "probability"), "dmp")
