"""How well automatic verdicts agree with human labels (the paper validates its LLM judges this way).

Binary vectors (1 = correct) for two raters; all statistics come from scipy / statsmodels / sklearn:
raw agreement with a percentile-bootstrap CI, Pearson and Spearman correlation, McNemar's test of
whether the two raters mark different shares correct, Cohen's κ; Fleiss' κ for n raters.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from scoreqa.metrics.intervals import bootstrap_ci


def _pair(a: Sequence[Any], b: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"two raters need equal-length 1-D label vectors; got shapes {x.shape} and {y.shape}")
    return x, y


def raw_agreement(a: Sequence[Any], b: Sequence[Any]) -> float:
    x, y = _pair(a, b)
    return float(np.mean(x == y)) if x.size else float("nan")


def agreement_ci(a: Sequence[Any], b: Sequence[Any], n_resamples: int = 10_000, confidence: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of the raw agreement (items resampled with replacement)."""
    x, y = _pair(a, b)
    return bootstrap_ci((x == y).astype(float), n_resamples=n_resamples, confidence=confidence, seed=seed)


def _correlation(function: Any, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan"), float("nan")      # undefined for a constant rater
    result = function(x, y)
    return float(result.statistic), float(result.pvalue)


def pearson(a: Sequence[Any], b: Sequence[Any]) -> tuple[float, float]:
    """(r, p-value); for 0/1 labels this is the phi coefficient."""
    return _correlation(stats.pearsonr, *_pair(a, b))


def spearman(a: Sequence[Any], b: Sequence[Any]) -> tuple[float, float]:
    """(rho, p-value)."""
    return _correlation(stats.spearmanr, *_pair(a, b))


def mcnemar_test(a: Sequence[Any], b: Sequence[Any], exact: bool = True) -> tuple[float, float]:
    """(statistic, p-value) on the 2x2 table of binary labels; exact binomial test by default."""
    x, y = _pair(a, b)
    x, y = x.astype(bool), y.astype(bool)
    table = [[int(np.sum(x & y)), int(np.sum(x & ~y))], [int(np.sum(~x & y)), int(np.sum(~x & ~y))]]
    result = mcnemar(table, exact=exact, correction=True)
    return float(result.statistic), float(result.pvalue)


def cohen_kappa(a: Sequence[Any], b: Sequence[Any]) -> float:
    x, y = _pair(a, b)
    if np.all(x == y) and np.all(x == x[0]):
        return float("nan")                    # one category only: chance agreement is 1, κ undefined
    return float(cohen_kappa_score(x.astype(int), y.astype(int)))


def fleiss(ratings: Sequence[Sequence[Any]]) -> float:
    """Fleiss' κ of an items x raters matrix of category labels (every item rated by every rater)."""
    matrix = np.asarray(ratings)
    if matrix.ndim != 2 or matrix.shape[1] < 2:
        raise ValueError(f"Fleiss' kappa needs an items x raters matrix with >= 2 raters; got shape {matrix.shape}")
    table, _ = aggregate_raters(matrix)
    return float(fleiss_kappa(table, method="fleiss"))


def agreement_report(automatic: Sequence[Any], human: Sequence[Any], n_resamples: int = 10_000,
                     seed: int = 0) -> dict[str, Any]:
    """Every two-rater statistic at once, as plain numbers for a JSON report."""
    r, r_p = pearson(automatic, human)
    rho, rho_p = spearman(automatic, human)
    chi, mcnemar_p = mcnemar_test(automatic, human)
    return {"n": len(automatic), "agreement": raw_agreement(automatic, human),
            "agreement_ci95": list(agreement_ci(automatic, human, n_resamples=n_resamples, seed=seed)),
            "pearson_r": r, "pearson_p": r_p, "spearman_rho": rho, "spearman_p": rho_p,
            "mcnemar_statistic": chi, "mcnemar_p": mcnemar_p, "cohen_kappa": cohen_kappa(automatic, human)}
