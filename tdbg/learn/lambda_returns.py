"""TD(lambda) targets for batch self-play: lambda-returns over each game's samples.

Self-play (selfplay.py) records every decision of a game as a sample with a one-step
target T_t: the value of the move played (sampled TD(0)), its 1-ply mean, or a cube
node's value under the cube rule.  With ``lam`` > 0 each sample learns instead from
the lambda-return, computed backwards over its game:

    G_t = (1 - lam) T_t + lam * scale_t * view_t(G_{t+1}),      G_last = T_last,

where view_t turns the next sample's value to sample t's side (``flip``, e.g. 1 - v,
when the next sample is the other player's; a cube node and the move after it are the
same player's) and scale_t carries a cube that was doubled and taken between the two
(values normalised to the cube, as in cubeful money, double; match-winning chances
do not).  lam = 0 gives the one-step targets back; lam = 1 the game's own outcome
(Monte Carlo).  Why: a value that shows only many plies later, such as what owning
the cube is worth, reaches the samples in one pass instead of one ply per training
generation.

A sample whose action was exploratory (not the greedy one its target assumes) cuts
the trace there (``cut``: G_t = T_t), so the returns stay those of greedy play, as
the one-step targets are (Watkins' Q(lambda)).
"""

from __future__ import annotations

import numpy as np


def lambda_returns(targets, game, side, cut, scale, lam: float, flip) -> np.ndarray:
    """lambda-returns for samples in time order (any interleaving of games).

    targets: (n,) or (n, w) one-step targets; game: (n,) game ids; side: (n,) which
    player the sample is (e.g. the ply's parity); cut[t]: stop the trace at t; scale[t]:
    factor on the next sample's value; flip(v): a value (rows) for the other side."""
    targets = np.asarray(targets, dtype=np.float64)
    out = targets.copy()
    if lam <= 0 or len(targets) == 0:
        return out
    game = np.asarray(game)
    n = len(targets)
    order = np.argsort(game, kind="stable")  # each game's samples, in time order
    g = game[order]
    change = g[1:] != g[:-1]
    last = np.append(change, True)  # the final sample of each game
    nxt = np.minimum(np.arange(n) + 1, n - 1)  # the next sample (read only where not last)
    # steps to the end of the game: computed back from the final samples
    start = np.flatnonzero(np.append(True, change))
    lengths = np.diff(np.append(start, n))
    rank = np.repeat(start + lengths - 1, lengths) - np.arange(n)
    t_sorted = targets[order]
    sides = np.asarray(side)[order]
    same = sides == sides[nxt]
    stop = np.asarray(cut, dtype=bool)[order] | last  # G = T there
    fac = np.asarray(scale, dtype=np.float64)[order]
    if t_sorted.ndim == 2:
        fac = fac[:, None]
    ret = t_sorted.copy()
    longest = int(rank.max())
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(longest + 2))
    for k in range(1, longest + 1):  # one step back from every game's end at a time
        idx = by_rank[bounds[k] : bounds[k + 1]]
        idx = idx[~stop[idx]]
        if not len(idx):
            continue
        follow = ret[nxt[idx]]
        flipped = flip(follow)
        view = np.where(same[idx].reshape((-1,) + (1,) * (ret.ndim - 1)), follow, flipped)
        ret[idx] = (1.0 - lam) * t_sorted[idx] + lam * fac[idx] * view
    out[order] = ret
    return out
