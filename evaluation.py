"""Summaries of head-to-head games with bootstrap CIs, and the quick evaluation
training runs use (our model at 0-ply against pubeval)."""
from __future__ import annotations

import numpy as np

from agents import make_reference_agent
from match import play_games
from modes import GameMode, game_mode
from stats import CAP, bootstrap_ci, pair_means



def summarize(records, mode: GameMode, seed: int = 0) -> dict:
    """Table numbers from agent A's side; CIs resample duplicate pairs."""
    idx = np.array([r.index for r in records])
    pts = np.array([r.points for r in records], dtype=np.float64)
    res = np.array([r.result for r in records])
    out = {"games": len(records), "game_mode": mode.name}
    wins = (pts > 0).astype(np.float64)
    m, lo, hi = bootstrap_ci(pair_means(idx, wins), seed=seed)
    out["win_rate"] = {"mean": m, "ci_low": lo, "ci_high": hi}
    if mode.name != "dmp":
        m, lo, hi = bootstrap_ci(pair_means(idx, pts), seed=seed)
        out["points_per_game"] = {"mean": m, "ci_low": lo, "ci_high": hi}
        out["meq_per_game"] = {k: 1000 * v for k, v in out["points_per_game"].items()}
        out["gammon_rate"] = float((res == 2).mean())
        out["backgammon_rate"] = float((res == 3).mean())
    if mode.cubeful:
        capped = np.clip(pts, -CAP, CAP)
        m, lo, hi = bootstrap_ci(pair_means(idx, capped), seed=seed)
        out["capped_meq_per_game"] = {"mean": 1000 * m, "ci_low": 1000 * lo, "ci_high": 1000 * hi}
        for key, k in (("doubles", 0), ("takes", 1), ("drops", 2)):
            counts = np.array([getattr(r, key) for r in records])
            out[f"{key}_per_game"] = {"a": float(counts[:, 0].mean()), "b": float(counts[:, 1].mean())}
    out["abandoned"] = int((res == -1).sum())
    return out


def quick_eval(model, mode: GameMode, games: int, seed: int, opponent: str = "pubeval"):
    """(opponent, result, ci_low, ci_high) of our model at 0-ply against a reference agent:
    DMP win rate, otherwise points per game.  A cubeful model plays cubeless money here
    (cube centred): the reference agents have no cube."""
    from td_agent import TDAgent
    agent = TDAgent(model, mode, name="model")
    play_mode = mode if not mode.cubeful else game_mode("cubeless-money")
    records = play_games(agent, make_reference_agent(opponent, play_mode, seed), range(games), play_mode, seed)
    s = summarize(records, play_mode, seed)
    key = "win_rate" if play_mode.name == "dmp" else "points_per_game"
    return opponent, s[key]["mean"], s[key]["ci_low"], s[key]["ci_high"]
