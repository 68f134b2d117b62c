"""Confidence intervals: percentile bootstrap (scipy) and Wilson score (statsmodels)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint


def bootstrap_ci(values: Sequence[float], n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
                 ) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of ``values`` (resampling items with replacement).

    A constant vector has the degenerate interval ``(v, v)``; an empty one ``(nan, nan)``.
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return float("nan"), float("nan")
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    result = stats.bootstrap((data,), np.mean, n_resamples=n_resamples, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed), vectorized=True)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def wilson_ci(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n``; ``(nan, nan)`` when ``n == 0``."""
    if n == 0:
        return float("nan"), float("nan")
    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    return float(low), float(high)
