"""Which networks and agents play a game mode, and the game a network plays at a mode's table.

A network plays a mode when its output head is one of the mode's (GameMode.outputs) and it
reads the mode's inputs, with or without the board features after them.  A network of
another head may still sit at the table as another game (``game_for``: a DMP network
plays cubeless money maximising P(win); a cubeful money network plays a match by its money
rules).  A refusal says which warm start makes a network that fits.  An agent plays a
mode when it has what the mode's decisions need (``lacks``, ``check_agent``: cube decisions
for cubeful money, the match score for match play; ``refused``: the error a series gives).  Tables are keyed by the mode's class
(game.modes.for_mode).
"""

from __future__ import annotations

from tdbg.game.encoding import NUM_BOARD_FEATURES
from tdbg.game.modes import DMP, CubefulMoney, CubelessMoney, GameMode, MatchPlay, for_mode
from tdbg.infra.errors import InputError

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


# what an agent lacks to play the mode's games, from (cube_capable, match_capable); None: nothing
AGENT_NEEDS = {
    GameMode: lambda cube, match: None,
    CubefulMoney: lambda cube, match: (
        None if cube else "makes no cube decisions, so it cannot play cubeful money"
    ),
    MatchPlay: lambda cube, match: (
        None if match else "cannot play match play (it needs the match score)"
    ),
}
GNUBG_HINT = "; against gnubg use the real binary (gnubg-ext)"
# the refusal of a player that cannot sit at the mode's table, from its name and the reason
REFUSAL = {
    GameMode: lambda name, reason: reason + (GNUBG_HINT if name.startswith("gnubg-nn") else ""),
    MatchPlay: lambda name, reason: f"{name}: {reason}",
}


def lacks(mode: GameMode, cube_capable: bool, match_capable: bool) -> str | None:
    """What an agent that makes cube decisions (``cube_capable``) and reads the match score
    (``match_capable``), or not, lacks to play ``mode``'s games; None when it lacks nothing."""
    return for_mode(AGENT_NEEDS, mode)(cube_capable, match_capable)


def check_agent(mode: GameMode, agent) -> None:
    """ValueError when ``agent`` cannot play ``mode``'s games."""
    gap = lacks(mode, getattr(agent, "cube_capable", False), getattr(agent, "match_capable", False))
    if gap is not None:
        raise ValueError(f"{agent.name} {gap}")


def refused(mode: GameMode, name: str, reason: str) -> InputError:
    """The InputError for the player ``name`` that cannot play ``mode``'s games (``reason``:
    what ``check_agent`` says); a gnubg-nn player in games is pointed at the real binary."""
    return InputError(for_mode(REFUSAL, mode)(name, reason))
