"""Summaries of head-to-head games with bootstrap CIs, and the quick evaluation
training runs use (our model at 0-ply against a reference agent, pubeval by default).
What differs between game modes here (a summary's entries, the game a quick evaluation
plays and the number it logs) is in tables keyed by the mode's class."""

from __future__ import annotations

import numpy as np

from tdbg.game.modes import DMP, CubefulMoney, CubelessMoney, GameMode, MatchPlay, for_mode
from tdbg.infra.errors import InputError
from tdbg.infra.stats import CAP, bootstrap_ci, interval, pair_means, summary_ci
from tdbg.play import opponents
from tdbg.play.match import play_games
from tdbg.play.metrics import headline
from tdbg.play.model_fit import check_agent
from tdbg.play.players import Player
from tdbg.play.seating import evaluator


def money_fields(
    idx: np.ndarray, pts: np.ndarray, res: np.ndarray, records, seed: int, n_boot: int
) -> dict:
    """Points per game (and in mEq) with a CI from ``n_boot`` bootstrap resamples of the
    duplicate pairs, and the rates of gammons and backgammons."""
    units = pair_means(idx, pts)
    ci = bootstrap_ci(units, n_boot, seed=seed)
    out: dict = {
        "points_per_game": interval(*ci, len(units)),
        "meq_per_game": interval(*ci, len(units), scale=1000),
    }
    out["gammon_rate"] = float((res == 2).mean())
    out["backgammon_rate"] = float((res == 3).mean())
    return out


def cubeful_fields(
    idx: np.ndarray, pts: np.ndarray, res: np.ndarray, records, seed: int, n_boot: int
) -> dict:
    """money_fields, points capped at +-CAP, and each side's doubles, takes and drops per game."""
    out = money_fields(idx, pts, res, records, seed, n_boot)
    capped = np.clip(pts, -CAP, CAP)
    out["capped_meq_per_game"] = summary_ci(pair_means(idx, capped), n_boot, seed, scale=1000)
    for key in ("doubles", "takes", "drops"):
        counts = np.array([getattr(r, key) for r in records])
        out[f"{key}_per_game"] = {"a": float(counts[:, 0].mean()), "b": float(counts[:, 1].mean())}
    return out


# a summary's entries besides games, win rate and abandoned games (DMP: the win rate is its result)
MODE_FIELDS = {GameMode: money_fields, DMP: lambda *args: {}, CubefulMoney: cubeful_fields}


def summarize(
    records, mode: GameMode, seed: int = 0, n_boot: int = 2000, paired: bool = True
) -> dict:
    """Table numbers from agent A's side; CIs resample ``n_boot`` times the independent unit:
    duplicate pairs (games 2k, 2k+1), or single games (``paired`` False: an opponent that rolls
    its own dice, gnubg-ext)."""
    idx = np.array([r.index for r in records])
    if not paired:
        idx = 2 * idx  # game i alone in pair i: pair_means' units are then the games
    pts = np.array([r.points for r in records], dtype=np.float64)
    res = np.array([r.result for r in records])
    out = {"games": len(records), "game_mode": mode.name}
    wins = (pts > 0).astype(np.float64)
    out["win_rate"] = summary_ci(pair_means(idx, wins), n_boot, seed)
    out.update(
        for_mode(MODE_FIELDS, mode)(idx, pts, res, records, seed, n_boot)
    )  # points, gammons, cube actions
    out["abandoned"] = int((res == -1).sum())
    return out


# the game a quick evaluation plays (mode, against an opponent with a cube): the mode's own
# where the opponent makes cube decisions and the mode has a cube, else the game with the cube
# left centred.  Cubeful money without a cube opponent: cubeless money, chequer play by an
# objective the net was not trained on (every gammon counts; under Jacoby a centred-cube
# gammon counts once).  Match play without one: the game at 1-away each (DMP), whose match
# state is 0, checker play only.
EVAL_GAME = {
    GameMode: lambda mode, cube_opponent: mode,
    CubefulMoney: lambda mode, cube_opponent: mode if cube_opponent else CubelessMoney(),
    MatchPlay: lambda mode, cube_opponent: mode if cube_opponent else DMP(),
}


def headline_result(summary: dict, mode) -> tuple:
    """(mean, ci_low, ci_high) of the summary's headline number."""
    m = summary[headline(mode)]
    return m["mean"], m["ci_low"], m["ci_high"]


def capped_result(summary: dict, mode) -> tuple:
    """Points per game capped at +-CAP, as the cubeful summaries also report them: an early net
    that doubles every turn against an opponent that takes sends the cube past 1,000, and one
    such game would swamp a 1,000-game mean."""
    m = summary["capped_meq_per_game"]
    return tuple(None if m[k] is None else m[k] / 1000 for k in ("mean", "ci_low", "ci_high"))


EVAL_RESULT = {
    GameMode: headline_result,
    CubefulMoney: capped_result,
}  # what a quick evaluation logs


def quick_eval_game(mode: GameMode, opponent: str, seed: int = 0):
    """(game mode, agent) of a quick evaluation of a ``mode`` model against the reference agent
    ``opponent``: cubeful money against gnubg-nn-cubeful, the only one with a cube; otherwise
    the game with the cube left centred (EVAL_GAME).  ValueError when the agent
    cannot play that game (gnubg-nn-cubeful in DMP), so a stage can refuse it before it starts."""
    play_mode = for_mode(EVAL_GAME, mode)(mode, opponent in opponents.CUBE_NAMES)
    if opponents.get(opponent) is None:
        raise ValueError(
            f"unknown opponent {opponent!r}; choose a checkpoint path or one of "
            f"{', '.join(opponents.NAMES)}"
        )
    try:
        agent = evaluator(Player(opponent, seed=seed), play_mode)
    except (
        InputError
    ) as exc:  # the stage turns it into its own error line (training_loop.default_evaluate)
        raise ValueError(str(exc)) from None
    check_agent(play_mode, agent)
    return play_mode, agent


def quick_eval(model, mode: GameMode, games: int, seed: int, opponent: str = "pubeval"):
    """(opponent, result, ci_low, ci_high) of our model at 0-ply against a reference agent
    in quick_eval_game's game: DMP win rate, otherwise points per game (capped in cubeful money:
    EVAL_RESULT)."""
    play_mode, reference = quick_eval_game(mode, opponent, seed)
    agent = evaluator(Player("model"), mode, model=model)
    check_agent(play_mode, agent)
    records = play_games(agent, reference, range(games), play_mode, seed)
    return (
        opponent,
        *for_mode(EVAL_RESULT, play_mode)(summarize(records, play_mode, seed), play_mode),
    )
