"""Which networks and agents play a game mode, and the game a network plays at a mode's table.

A network plays a mode when its output head is one of the mode's (GameMode.outputs) and it
reads the mode's inputs, with or without the board features after them.  A network of
another head may still sit at the table as another game (``game_for``: a DMP network
plays cubeless money maximising P(win); a cubeful money network plays a match by its money
rules).  A refusal says which warm start makes a network that fits.  An agent plays a
mode when it has what the mode's decisions need (``check_agent``: cube decisions for cubeful
money, the match score for match play).  Tables are keyed by the mode's class
(game.modes.for_mode).
"""

from __future__ import annotations

from tdbg.game.encoding import NUM_BOARD_FEATURES
from tdbg.game.modes import DMP, CubefulMoney, CubelessMoney, GameMode, MatchPlay, for_mode

PROB5_CUBELESS = "; prob5 models play cubeless money only"
TO_MATCH = "; warm-start a cubeful money model with --warm-start-match"
# the advice after "a <head> model cannot be used for <mode>", by the model's head
HEAD_HINT = {
    GameMode: lambda head: "",
    DMP: lambda head: PROB5_CUBELESS if head == "prob5" else "",
    CubelessMoney: lambda head: (
        "; warm-start it with --warm-start-equity" if head == "probability" else ""
    ),
    CubefulMoney: lambda head: {
        "probability": "; warm-start a cubeless model with --warm-start-cubeful",
        "prob5": PROB5_CUBELESS,
    }.get(head, ""),
    MatchPlay: lambda head: TO_MATCH,
}
# the advice after "<mode> needs an N-input model"
INPUTS_HINT = {
    GameMode: "",
    CubefulMoney: "; warm-start it with --warm-start-cubeful",
    MatchPlay: TO_MATCH,
}
GAME_FOR = {
    GameMode: lambda mode, head: mode,
    CubelessMoney: lambda mode, head: DMP() if head == "probability" else mode,
    CubefulMoney: lambda mode, head: mode,
    MatchPlay: lambda mode, head: CubefulMoney(jacoby=False) if head == "equity" else mode,
}


def game_for(mode: GameMode, head: str) -> GameMode:
    """The game a network with output head ``head`` plays at ``mode``'s table."""
    return for_mode(GAME_FOR, mode)(mode, head)


def check_model(mode: GameMode, head: str, n_inputs: int) -> None:
    """ValueError when a network with output head ``head`` and ``n_inputs`` inputs cannot play
    or train ``mode``."""
    if head not in mode.outputs:
        raise ValueError(
            f"a {head} model cannot be used for {mode.name}{for_mode(HEAD_HINT, mode)(head)}"
        )
    if n_inputs not in (
        mode.n_inputs,
        mode.n_inputs + NUM_BOARD_FEATURES,
    ):  # raw, or + board features
        raise ValueError(
            f"{mode.name} needs a {mode.n_inputs}-input model, this one has {n_inputs}"
            f"{for_mode(INPUTS_HINT, mode)}"
        )


def _plays_anything(agent) -> None:
    pass


def _makes_cube_decisions(agent) -> None:
    if not agent.cube_capable:
        raise ValueError(f"{agent.name} makes no cube decisions, so it cannot play cubeful money")


def _reads_the_score(agent) -> None:
    if not getattr(agent, "match_capable", False):
        raise ValueError(f"{agent.name} cannot play match play (it needs the match score)")


AGENT_CHECK = {
    GameMode: _plays_anything,
    CubefulMoney: _makes_cube_decisions,
    MatchPlay: _reads_the_score,
}


def check_agent(mode: GameMode, agent) -> None:
    """ValueError when ``agent`` cannot play ``mode``'s games."""
    for_mode(AGENT_CHECK, mode)(agent)
