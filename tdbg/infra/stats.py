"""Bootstrap confidence intervals for head-to-head results.

Duplicate games are not independent (a pair shares its dice), so the unit of
resampling is the pair: ``pair_means`` folds games 2k and 2k+1 together first.
"""
from __future__ import annotations

import numpy as np

CAP = 128.0  # cubeful results are also reported capped at +-128 points per game


def bootstrap_ci(values, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """(mean, low, high): percentile bootstrap CI of the mean of ``values``."""
    x = np.asarray(values, dtype=np.float64).ravel()
    if len(x) == 0:
        raise ValueError("no values to summarise")
    mean = float(x.mean())
    if len(x) == 1:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    # chunks keep memory small for millions of games
    chunk = max(1, 2_000_000 // len(x))
    for start in range(0, n_boot, chunk):
        k = min(chunk, n_boot - start)
        idx = rng.integers(0, len(x), (k, len(x)))
        means[start:start + k] = x[idx].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return mean, float(low), float(high)


def pair_means(game_indices, values) -> np.ndarray:
    """Mean of each duplicate pair (games 2k and 2k+1); a lone game stands as its own unit."""
    g = np.asarray(game_indices)
    v = np.asarray(values, dtype=np.float64)
    pairs = g // 2
    uniq, inv = np.unique(pairs, return_inverse=True)
    sums = np.bincount(inv, weights=v, minlength=len(uniq))
    counts = np.bincount(inv, minlength=len(uniq))
    return sums / counts
