"""How a game mode's results are stated: the headline number of a summary and of a results
file, points turned into that number, a value written as the mode states values, and the
units of an analysed position's values, and the label of a plot of quick evaluations.

Points are from a game's result (game.modes: DMP +-1, money 1/2/3 times the cube).  DMP
states a win rate, whose image points are (P(win) = (1 + points) / 2); the money modes
points per game; match play the match-win rate.  Tables are keyed by the mode's class
(game.modes.for_mode).
"""

from __future__ import annotations

from tdbg.game.modes import DMP, CubefulMoney, GameMode, MatchPlay, for_mode
from tdbg.infra.stats import CAP

HEADLINE = {
    GameMode: "points_per_game",
    DMP: "win_rate",
    MatchPlay: "match_win_rate",
}  # a summary's
RESULTS_FILE_METRIC = {
    GameMode: "points",
    DMP: "win",
    MatchPlay: "win",
}  # a match file's entries are matches
STATES_P_WIN = {GameMode: False, DMP: True, MatchPlay: True}  # values written as P(win), not equity
VALUE_UNITS = {
    GameMode: "equity normalised to the cube",
    MatchPlay: "MWC",
}  # an analysed position's values
OF_POINTS = {GameMode: lambda points: points, DMP: lambda points: (1.0 + points) / 2.0}


def headline(mode) -> str:
    """The key of ``mode``'s headline number in a head-to-head summary."""
    return for_mode(HEADLINE, mode)


def results_file_metric(mode) -> str:
    """The metric a results file of ``mode``'s games compares by default."""
    return for_mode(RESULTS_FILE_METRIC, mode)


def value_units(mode) -> str:
    return for_mode(VALUE_UNITS, mode)


def metric_of_points(mode, points):
    """Points per game (an array or a number) in the headline's metric: DMP's win rate, else
    points themselves."""
    return for_mode(OF_POINTS, mode)(points)


def metric_per_point(mode) -> float:
    """How far one point moves the metric (DMP: a point is 1/2 of P(win))."""
    return float(metric_of_points(mode, 1.0) - metric_of_points(mode, 0.0))


def value_text(mode, value: float, se: float) -> str:
    """A mean value in points (with its standard error) as ``mode`` states values."""
    if not for_mode(STATES_P_WIN, mode):
        return f"Eq. {value:+.4f} +- {se:.4f}"
    return f"P(win) {metric_of_points(mode, value):.4f} +- {se * metric_per_point(mode):.4f}"


def win_probability(mode, points: float) -> float | None:
    """P(win) equal to a mean of ``points`` where ``mode`` states values as P(win), else None."""
    return float(metric_of_points(mode, points)) if for_mode(STATES_P_WIN, mode) else None


def _points_label(opponent: str, cube_opponent: bool) -> tuple[str, float]:
    return f"points/game vs {opponent} (cube centred)", 0.0


def _cubeful_label(opponent: str, cube_opponent: bool) -> tuple[str, float]:
    if cube_opponent:  # the game is the mode's own, and the result capped (evaluation.EVAL_RESULT)
        return f"points/game vs {opponent} (cubeful money, capped at +-{CAP:g})", 0.0
    return _points_label(opponent, cube_opponent)


EVAL_LABEL = {
    GameMode: _points_label,
    DMP: lambda opponent, cube_opponent: (f"win rate vs {opponent}", 0.5),
    CubefulMoney: _cubeful_label,
}


def eval_label(mode, opponent: str, cube_opponent: bool = False) -> tuple[str, float]:
    """(axis label, even result) for plots of a ``mode`` model's quick evaluations against
    ``opponent`` (evaluation.EVAL_GAME's game: ``cube_opponent`` when it makes cube decisions)."""
    return for_mode(EVAL_LABEL, mode)(opponent, cube_opponent)
