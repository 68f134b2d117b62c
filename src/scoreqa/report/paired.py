"""Is a gain real? Paired tests between two runs on the same questions.

McNemar's test (statsmodels) on the 2x2 table of per-question correctness — exact binomial when
fewer than 25 questions are discordant, chi-square with continuity correction otherwise — and a
paired percentile bootstrap (scipy) of the accuracy difference, resampling questions jointly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

EXACT_BELOW = 25  # discordant pairs under which McNemar's exact binomial test is used


@dataclass(frozen=True)
class PairedComparison:
    """Run B against run A on the questions both judged (accuracies and difference as proportions)."""

    n: int
    accuracy_a: float
    accuracy_b: float
    both_correct: int
    only_a: int
    only_b: int
    both_wrong: int
    mcnemar_statistic: float
    mcnemar_p: float
    mcnemar_exact: bool
    difference: float          # accuracy_b - accuracy_a
    difference_ci: tuple[float, float]

    @property
    def significant(self) -> bool:
        """McNemar p < 0.05 and a bootstrap interval that excludes zero."""
        low, high = self.difference_ci
        return self.mcnemar_p < 0.05 and not low <= 0.0 <= high


def _paired_bootstrap(a: np.ndarray, b: np.ndarray, n_resamples: int, confidence: float, seed: int
                      ) -> tuple[float, float]:
    diff = b - a
    if np.all(diff == diff[0]):
        return float(diff[0]), float(diff[0])
    result = stats.bootstrap((a, b), lambda x, y, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis),
                             paired=True, vectorized=True, n_resamples=n_resamples, confidence_level=confidence,
                             method="percentile", rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def paired_comparison(a: Mapping[str, bool], b: Mapping[str, bool], n_resamples: int = 10_000,
                      confidence: float = 0.95, seed: int = 0) -> PairedComparison:
    """Compare per-question correctness ``b`` with ``a`` over the question ids both contain."""
    shared = sorted(set(a) & set(b))
    if not shared:
        raise ValueError("the two runs share no judged question: a paired test needs the same questions "
                         "(same benchmark, split and limit)")
    x = np.array([bool(a[q]) for q in shared], dtype=float)
    y = np.array([bool(b[q]) for q in shared], dtype=float)
    both = int(np.sum((x == 1) & (y == 1)))
    only_a = int(np.sum((x == 1) & (y == 0)))
    only_b = int(np.sum((x == 0) & (y == 1)))
    neither = int(np.sum((x == 0) & (y == 0)))
    exact = only_a + only_b < EXACT_BELOW
    test = mcnemar(np.array([[both, only_a], [only_b, neither]]), exact=exact, correction=True)
    p_value = float(test.pvalue) if np.isfinite(test.pvalue) else 1.0  # no discordant pair: no evidence
    return PairedComparison(n=len(shared), accuracy_a=float(x.mean()), accuracy_b=float(y.mean()),
                            both_correct=both, only_a=only_a, only_b=only_b, both_wrong=neither,
                            mcnemar_statistic=float(test.statistic), mcnemar_p=min(p_value, 1.0),
                            mcnemar_exact=exact, difference=float(y.mean() - x.mean()),
                            difference_ci=_paired_bootstrap(x, y, n_resamples, confidence, seed))
