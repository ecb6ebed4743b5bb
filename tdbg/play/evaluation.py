"""Summaries of head-to-head games with bootstrap CIs, and the quick evaluation
training runs use (our model at 0-ply against a reference agent, pubeval by default)."""
from __future__ import annotations

import numpy as np

from tdbg.game.modes.base import GameMode
from tdbg.infra.errors import InputError
from tdbg.infra.stats import pair_means, summary_ci
from tdbg.play import opponents
from tdbg.play.match import play_games
from tdbg.play.players import Player, evaluator


def summarize(records, mode: GameMode, seed: int = 0, n_boot: int = 2000, paired: bool = True) -> dict:
    """Table numbers from agent A's side; CIs resample ``n_boot`` times the independent unit:
    duplicate pairs (games 2k, 2k+1), or single games (``paired`` False: an opponent that rolls
    its own dice, gnubg-ext)."""
    idx = np.array([r.index for r in records])
    if not paired:
        idx = 2 * idx   # game i alone in pair i: pair_means' units are then the games
    pts = np.array([r.points for r in records], dtype=np.float64)
    res = np.array([r.result for r in records])
    out = {"games": len(records), "game_mode": mode.name}
    wins = (pts > 0).astype(np.float64)
    out["win_rate"] = summary_ci(pair_means(idx, wins), n_boot, seed)
    out.update(mode.summarize(idx, pts, res, records, seed, n_boot))  # points, gammons, cube actions: per mode
    out["abandoned"] = int((res == -1).sum())
    return out


def quick_eval_game(mode: GameMode, opponent: str, seed: int = 0):
    """(game mode, agent) of a quick evaluation of a ``mode`` model against the reference agent
    ``opponent``: cubeful money against gnubg-nn-cubeful, the only one with a cube; otherwise
    the game with the cube left centred (GameMode.eval_mode).  ValueError when the agent
    cannot play that game (gnubg-nn-cubeful in DMP), so a stage can refuse it before it starts."""
    play_mode = mode.eval_mode(opponent in opponents.CUBE_NAMES)
    if opponents.get(opponent) is None:
        raise ValueError(f"unknown opponent {opponent!r}; choose a checkpoint path or one of "
                         f"{', '.join(opponents.NAMES)}")
    try:
        agent = evaluator(Player(opponent, seed=seed), play_mode)
    except InputError as exc:   # the stage turns it into its own error line (training_loop.default_evaluate)
        raise ValueError(str(exc)) from None
    play_mode.check_agent(agent)
    return play_mode, agent


def quick_eval(model, mode: GameMode, games: int, seed: int, opponent: str = "pubeval"):
    """(opponent, result, ci_low, ci_high) of our model at 0-ply against a reference agent
    in quick_eval_game's game: DMP win rate, otherwise points per game (capped in cubeful money:
    GameMode.eval_result)."""
    play_mode, reference = quick_eval_game(mode, opponent, seed)
    agent = evaluator(Player("model"), mode, model=model)
    records = play_games(agent, reference, range(games), play_mode, seed)
    return (opponent, *play_mode.eval_result(summarize(records, play_mode, seed)))
