"""What a series counts, and everything about it that differs between its two kinds of unit:
single games, or whole matches (``series_unit``: match play counts matches, every other
mode games).
Each ``Unit`` says how a worker plays a batch of them, how large a batch is, how their records
are summarized and printed, and which of the records played against the gnubg binary are the
units.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from tdbg.game.modes import GameMode, MatchPlay, for_mode
from tdbg.infra import threads
from tdbg.infra.stats import ci_text
from tdbg.play.evaluation import summarize
from tdbg.play.luck import add_luck, format_luck, luck_summary
from tdbg.play.match import play_games
from tdbg.play.matches import dice_text, format_matches, play_matches, summarize_matches


SERIES_UNIT = {GameMode: "game", MatchPlay: "match"}  # keyed by the mode's class (for_mode)


def series_unit(mode) -> str:
    """What a series of ``mode`` (a game mode or its class) counts: a key of UNITS."""
    return for_mode(SERIES_UNIT, mode)


@dataclass(frozen=True)
class Unit:
    play: Callable  # (player_a, player_b, indices, mode, series) -> records, in a worker
    chunk: tuple[int, int]  # the fewest and most units a job plays
    summarize: Callable  # (records, mode, series, paired) -> the summary's fields
    lines: Callable  # (fields, name1, name2, paired) -> the printed summary
    of_gnubg: Callable  # (games, matches) against the gnubg binary -> the units


def _play_games(a, b, indices, mode, series):
    records = play_games(
        a, b, indices, mode, series.seed, record=series.record or bool(series.luck)
    )
    if series.luck:  # judged here, in the worker, a whole chunk of games at once
        add_luck(records, series.luck, mode, keep_turns=series.record, data=series.luck_data)
    return records


def _play_matches(a, b, indices, mode, series):
    return play_matches(a, b, indices, mode, series.seed, record=series.record)


def summarize_games(records, mode, series, paired: bool = True) -> dict:
    """evaluation.summarize, recording the resamples and their unit (``paired``: duplicate
    pairs; else single games, against an opponent that rolls its own dice), and with
    ``series.luck`` the luck-adjusted result of the games whose luck was judged."""
    out = summarize(records, mode, series.seed, series.n_bootstrap, paired)
    out.update(
        seed=series.seed,
        n_bootstrap=series.n_bootstrap,
        resample_unit="duplicate pairs (games 2k and 2k+1 share their dice)"
        if paired
        else "single games (each game rolls its own dice)",
    )
    judged = [
        r for r in records if hasattr(r, "luck")
    ]  # against gnubg a failed worker's games have no record
    if series.luck and judged:
        out["luck_adjusted"] = luck_summary(
            judged, mode, series.luck, series.seed, series.luck_data
        )
        if not paired:
            out["luck_adjusted"]["games"] = len(judged)
    return out


def player_label(spec: str) -> str:
    """A short, whole name for a player: the checkpoint's file name, or the opponent's name."""
    return os.path.splitext(os.path.basename(spec))[0] if os.path.isfile(spec) else spec


def format_games(s: dict, name1: str, name2: str, paired: bool = True) -> str:
    a, b = player_label(name1), player_label(name2)
    lines = [
        f"{name1}  vs  {name2}",
        f"mode {s['game_mode']}, {s['games']} games {dice_text(paired)}, seed {s['seed']}{threads.text(s)}",
    ]

    def ci(
        d, scale=1.0, fmt="{:+.1f}", unit=""
    ):  # "no interval: 1 unit" where the summary has none
        return f"{fmt.format(d['mean'] * scale)}{unit}  {ci_text(d, fmt, scale, unit)}"

    lines.append(f"  win rate ({a}): {ci(s['win_rate'], 100, '{:.2f}', '%')}")
    if "points_per_game" in s:
        lines.append(f"  mEq/game ({a}): {ci(s['points_per_game'], 1000)}")
        lines.append(
            f"  gammons / backgammons: {100 * s['gammon_rate']:.2f}% / "
            f"{100 * s['backgammon_rate']:.2f}% of games"
        )
    if "capped_meq_per_game" in s:
        lines.append(f"  capped +-128 mEq/game ({a}): {ci(s['capped_meq_per_game'])}")
        for key in ("doubles", "takes", "drops"):
            d = s[f"{key}_per_game"]
            lines.append(f"  {key} per game: {a} {d['a']:.3f}, {b} {d['b']:.3f}")
    if s.get("abandoned"):
        lines.append(f"  abandoned games (over the ply limit): {s['abandoned']}")
    if "luck_adjusted" in s:
        luck = s["luck_adjusted"]
        lines.append(
            format_luck(luck)
            + (
                ""
                if paired
                else f" ({luck['games']} games judged; games are not paired: "
                "each unit is two consecutive games)"
            )
        )
    return "\n".join(lines)


UNITS = {
    # many games advance together (one forward pass per step for all of them), so bigger jobs
    # are faster; four jobs per worker keep the progress bar moving
    "game": Unit(
        _play_games,
        (50, 1000),
        summarize_games,
        format_games,
        lambda games, matches: games,
    ),
    "match": Unit(
        _play_matches,
        (10, 200),
        lambda records, mode, series, paired: summarize_matches(
            records, series.seed, series.n_bootstrap, paired
        ),
        format_matches,
        lambda games, matches: matches,
    ),
}
