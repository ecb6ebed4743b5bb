"""Which networks and agents play each mode (tdbg.play.model_fit): the heads and input counts
of game.modes' outputs and inputs, written out by hand, the advice a refusal gives, and the
capabilities an agent needs at each mode's table."""

import pytest

from tdbg.game.modes import DMP, CubefulMoney, CubelessMoney, MatchPlay
from tdbg.play.model_fit import check_agent, check_model, game_for


@pytest.mark.parametrize(
    "mode, head, n_inputs",
    [
        (DMP(), "probability", 196),
        (DMP(), "probability", 216),  # 196 + the 20 board features
        (CubelessMoney(), "equity", 196),
        (CubelessMoney(), "prob5", 196),
        (CubefulMoney(), "equity", 200),
        (MatchPlay(length=3), "mwc", 208),
        (MatchPlay(length=3), "mwc-outcomes", 228),
    ],
)
def test_networks_that_fit(mode, head, n_inputs):
    check_model(mode, head, n_inputs)


@pytest.mark.parametrize(
    "mode, head, n_inputs, words",
    [
        (
            DMP(),
            "prob5",
            196,
            "a prob5 model cannot be used for dmp; prob5 models play cubeless money only",
        ),
        (CubelessMoney(), "probability", 196, "warm-start it with --warm-start-equity"),
        (
            CubefulMoney(),
            "probability",
            200,
            "warm-start a cubeless model with --warm-start-cubeful",
        ),
        (
            CubefulMoney(),
            "equity",
            196,
            "cubeful-money needs a 200-input model, this one has 196; warm-start it with",
        ),
        (
            MatchPlay(length=3),
            "equity",
            200,
            "an? equity model cannot be used for match; warm-start a cubeful money",
        ),
        (DMP(), "probability", 200, "dmp needs a 196-input model, this one has 200$"),
    ],
)
def test_networks_that_do_not_fit_are_told_what_would(mode, head, n_inputs, words):
    with pytest.raises(ValueError, match=words):
        check_model(mode, head, n_inputs)


def test_the_game_a_network_of_another_head_plays():
    assert game_for(CubelessMoney(), "probability") == DMP()  # P(win), gammons ignored
    assert game_for(CubelessMoney(), "equity") == CubelessMoney()
    assert game_for(MatchPlay(length=5), "equity") == CubefulMoney(
        jacoby=False
    )  # by its money rules
    assert game_for(MatchPlay(length=5), "mwc") == MatchPlay(length=5)
    assert game_for(DMP(), "probability") == DMP()


def test_only_agents_with_what_a_mode_needs_play_it():
    from tdbg.play.agents import RandomAgent

    check_agent(DMP(), RandomAgent())
    check_agent(CubelessMoney(), RandomAgent())
    with pytest.raises(ValueError, match="random makes no cube decisions"):
        check_agent(CubefulMoney(), RandomAgent())
    # a match needs the score: cube decisions alone are not enough
    cube_only = type("A", (), {"name": "cube-only", "cube_capable": True})()
    check_agent(CubefulMoney(), cube_only)
    with pytest.raises(ValueError, match="cube-only cannot play match play"):
        check_agent(MatchPlay(length=7), cube_only)
    check_agent(MatchPlay(length=7), type("A", (), {"name": "m", "match_capable": True})())
