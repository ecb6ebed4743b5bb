"""A game mode's rules as gnubg's commands set them, keyed by the mode's class
(game.modes.for_mode): which modes the binary plays (money sessions and matches; it has no
DMP session), the rules of a session or match against it, and what its analysis of the
mode's games needs first."""

from __future__ import annotations

from tdbg.game.modes import DMP, CubefulMoney, GameMode, MatchPlay, for_mode

PLAYS = {GameMode: True, DMP: False}
SESSION_RULES = {
    GameMode: lambda mode: [
        "set jacoby off",
        "set beavers 0",
        "set automatic game off",
        "set cube use off",
    ],
    CubefulMoney: lambda mode: [
        f"set jacoby {'on' if mode.jacoby else 'off'}",
        "set beavers 0",
        "set automatic game off",
    ],
    # a match plays on game after game to its end (a money session would never stop)
    MatchPlay: lambda mode: ["set jacoby off", "set beavers 0", "set automatic game on"],
}
# games played without a cube are analysed with it off: with it on, every right double would
# count as a missed one against a player that could not double
ANALYSIS_RULES = {GameMode: ("set cube use off", "set analysis cube off"), CubefulMoney: ()}


def gnubg_plays(mode) -> bool:
    """Whether the gnubg binary plays ``mode``'s games."""
    return for_mode(PLAYS, mode)


def session_rules(mode) -> list[str]:
    """The gnubg commands that set ``mode``'s rules for a session or match against the binary."""
    return for_mode(SESSION_RULES, mode)(mode)


def analysis_rules(mode) -> list[str]:
    """The gnubg commands its analysis of ``mode``'s games needs first."""
    return list(for_mode(ANALYSIS_RULES, mode))
