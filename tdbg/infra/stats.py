"""Bootstrap confidence intervals for head-to-head results.

Duplicate games are not independent (a pair shares its dice), so the unit of
resampling is the pair: ``pair_means`` folds games 2k and 2k+1 together first.
With an odd count the last game is a unit of one game: it weighs as one game, not as a
pair, so the mean is always the mean over games (2 wins in 3 games: 2/3).

With fewer than two independent units there is no interval: one unit resampled is that
unit every time, and a "CI" equal to the mean would claim a certainty the data do not
have.  ``bootstrap_ci`` then gives None for both ends; ``interval`` turns that into the
summaries' {"mean", "ci_low": null, "ci_high": null, "ci_reason": ...} and ``ci_text``
prints "no interval: 1 unit" in place of the bracket.
"""

from __future__ import annotations

import numpy as np

CAP = 128.0  # cubeful results are also reported capped at +-128 points per game


MIN_UNITS = 2  # a bootstrap CI needs at least this many independent units


def no_interval_reason(units: int) -> str:
    """Why a summary of ``units`` independent units has no CI (fewer than MIN_UNITS)."""
    return f"no interval: {units} unit{'' if units == 1 else 's'} (a CI needs at least {MIN_UNITS} independent units)"


def has_interval(units: int) -> bool:
    return units >= MIN_UNITS


def bootstrap_ci(
    values, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float | None, float | None]:
    """(mean, low, high): percentile bootstrap CI of the mean of ``values`` (one value per
    independent unit); low and high are None with fewer than MIN_UNITS units."""
    counts = getattr(values, "counts", None)  # pair_means: games per unit
    x = np.asarray(values, dtype=np.float64).ravel()
    if len(x) == 0:
        raise ValueError("no values to summarise")
    if counts is not None and len(set(counts.tolist())) > 1:
        return _weighted_bootstrap(x, counts.astype(np.float64), n_boot, level, seed)
    mean = float(x.mean())
    if not has_interval(len(x)):
        return mean, None, None
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    # chunks keep memory small for millions of games
    chunk = max(1, 2_000_000 // len(x))
    for start in range(0, n_boot, chunk):
        k = min(chunk, n_boot - start)
        idx = rng.integers(0, len(x), (k, len(x)))
        means[start : start + k] = x[idx].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return mean, float(low), float(high)


def _weighted_bootstrap(x, w, n_boot, level, seed) -> tuple[float, float | None, float | None]:
    """Units of unequal size: the mean over games, and the percentile CI of the
    resampled units' game mean (sum of unit sums over sum of unit sizes)."""
    sums = x * w
    mean = float(sums.sum() / w.sum())
    if not has_interval(len(x)):
        return mean, None, None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), (n_boot, len(x)))
    means = sums[idx].sum(axis=1) / w[idx].sum(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return mean, float(low), float(high)


def interval(
    mean: float, low: float | None, high: float | None, units: int, scale: float = 1.0
) -> dict:
    """A summary's {"mean", "ci_low", "ci_high"} (times ``scale``) from bootstrap_ci's triple
    over ``units`` independent units; where there is no interval its ends are None (null in
    JSON) and "ci_reason" says why."""
    out: dict[str, float | str | None] = {
        "mean": mean * scale,
        "ci_low": None if low is None else low * scale,
        "ci_high": None if high is None else high * scale,
    }
    if low is None or high is None:
        out["ci_reason"] = no_interval_reason(units)
    return out


def units_of(values) -> int:
    """How many independent units ``values`` (one per unit, e.g. pair_means) holds."""
    return len(np.asarray(values).ravel())


def summary_ci(values, n_boot: int = 2000, seed: int = 0, scale: float = 1.0) -> dict:
    """bootstrap_ci of ``values`` (one per independent unit) as a summary's dict (see interval)."""
    return interval(*bootstrap_ci(values, n_boot, seed=seed), units_of(values), scale)


def ci_text(
    d: dict,
    fmt: str = "{:.2f}",
    scale: float = 1.0,
    unit: str = "",
    template: str = "95% CI [{low}, {high}]",
) -> str:
    """A summary dict's interval as printed text, or "no interval: N units" where it has none."""
    if d.get("ci_low") is None or d.get("ci_high") is None:
        return d.get("ci_reason", "no interval").split(" (")[0]
    return template.format(
        low=fmt.format(d["ci_low"] * scale) + unit, high=fmt.format(d["ci_high"] * scale) + unit
    )


class PairMeans(np.ndarray):
    """The unit means of pair_means, with ``counts`` (games per unit): bootstrap_ci and
    ``mean()`` weigh each unit by its games."""

    counts: np.ndarray

    def mean(self, *args, **kwargs):
        counts = getattr(self, "counts", None)
        if args or kwargs or counts is None or self.ndim != 1 or len(counts) != len(self):
            return np.asarray(self).mean(*args, **kwargs)
        return np.float64((np.asarray(self) * counts).sum() / counts.sum())


def pair_means(game_indices, values) -> np.ndarray:
    """Mean of each duplicate pair (games 2k and 2k+1); a lone game stands as its own unit
    (weighted as one game by bootstrap_ci and ``.mean()``)."""
    g = np.asarray(game_indices)
    v = np.asarray(values, dtype=np.float64)
    pairs = g // 2
    uniq, inv = np.unique(pairs, return_inverse=True)
    sums = np.bincount(inv, weights=v, minlength=len(uniq))
    counts = np.bincount(inv, minlength=len(uniq))
    out = (sums / counts).view(PairMeans)
    out.counts = counts
    return out
