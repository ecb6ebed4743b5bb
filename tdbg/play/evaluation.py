"""Summaries of head-to-head games with bootstrap CIs, and the quick evaluation
training runs use (our model at 0-ply against pubeval)."""
from __future__ import annotations

import numpy as np

from tdbg.game.modes.base import GameMode
from tdbg.infra.stats import pair_means, summary_ci
from tdbg.play.match import play_games
from tdbg.play.players import checkpoint_agent, make_reference_agent


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


def quick_eval(model, mode: GameMode, games: int, seed: int, opponent: str = "pubeval"):
    """(opponent, result, ci_low, ci_high) of our model at 0-ply against a reference agent:
    DMP win rate, otherwise points per game.  A cubeful model plays cubeless money here
    (cube centred): the reference agents have no cube."""
    agent = checkpoint_agent(model, mode, name="model")
    play_mode = mode.without_cube()
    records = play_games(agent, make_reference_agent(opponent, play_mode, seed), range(games), play_mode, seed)
    s = summarize(records, play_mode, seed)
    return opponent, s[play_mode.metric]["mean"], s[play_mode.metric]["ci_low"], s[play_mode.metric]["ci_high"]
