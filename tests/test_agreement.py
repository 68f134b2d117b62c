"""Agreement statistics against the libraries' own values and against numbers worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from scoreqa.metrics import (agreement_ci, agreement_report, bootstrap_ci, cohen_kappa, fleiss, mcnemar_test, pearson,
                             raw_agreement, spearman)

JUDGE = [1, 1, 0, 0, 1, 0, 1, 1]
HUMAN = [1, 0, 0, 0, 1, 1, 1, 1]


def test_two_rater_statistics_match_hand_computation() -> None:
    assert raw_agreement(JUDGE, HUMAN) == 0.75                        # 6 of 8 equal
    # p_o = 0.75; both raters say 1 five times in eight: p_e = (5/8)^2 + (3/8)^2 = 34/64
    assert cohen_kappa(JUDGE, HUMAN) == pytest.approx((0.75 - 34 / 64) / (1 - 34 / 64))
    # phi = (n11 n00 - n10 n01) / sqrt(row and column totals) = (4*2 - 1*1) / sqrt(5*3*5*3) = 7/15
    assert pearson(JUDGE, HUMAN)[0] == pytest.approx(7 / 15)
    # one discordant pair each way: exact binomial p = P(X <= 1 | n=2, 1/2) * 2 = 1
    statistic, p_value = mcnemar_test(JUDGE, HUMAN)
    assert (statistic, p_value) == (1.0, 1.0)


def test_two_rater_statistics_equal_the_library_values_on_a_larger_vector() -> None:
    rng = np.random.default_rng(7)
    human = rng.integers(0, 2, 200)
    judge = np.where(rng.random(200) < 0.8, human, 1 - human)
    assert raw_agreement(judge, human) == pytest.approx(np.mean(judge == human))
    assert pearson(judge, human) == pytest.approx(tuple(stats.pearsonr(judge, human)))
    assert spearman(judge, human) == pytest.approx(tuple(stats.spearmanr(judge, human)))
    assert cohen_kappa(judge, human) == pytest.approx(cohen_kappa_score(judge, human))
    table = [[np.sum((judge == 1) & (human == 1)), np.sum((judge == 1) & (human == 0))],
             [np.sum((judge == 0) & (human == 1)), np.sum((judge == 0) & (human == 0))]]
    reference = mcnemar(table, exact=True)
    assert mcnemar_test(judge, human) == pytest.approx((reference.statistic, reference.pvalue))
    chi2 = mcnemar(table, exact=False, correction=True)
    assert mcnemar_test(judge, human, exact=False) == pytest.approx((chi2.statistic, chi2.pvalue))
    assert agreement_ci(judge, human, n_resamples=2000) == bootstrap_ci((judge == human).astype(float),
                                                                        n_resamples=2000)
    low, high = agreement_ci(judge, human, n_resamples=2000)
    assert low < raw_agreement(judge, human) < high


def test_fleiss_kappa_matches_statsmodels_and_a_hand_computed_table() -> None:
    # 4 items x 3 raters; categories 0/1
    ratings = [[1, 1, 1], [1, 1, 0], [0, 0, 0], [0, 1, 0]]
    table, _ = aggregate_raters(np.asarray(ratings))
    assert fleiss(ratings) == pytest.approx(fleiss_kappa(table, method="fleiss"))
    # P_i = (sum n_ij^2 - 3) / 6: 1, 1/3, 1, 1/3 -> P_bar = 2/3; six 1s of 12 -> p_1 = p_0 = 1/2 -> P_e = 1/2
    p_bar, p_e = 2 / 3, 0.5
    assert fleiss(ratings) == pytest.approx((p_bar - p_e) / (1 - p_e))
    with pytest.raises(ValueError, match="raters"):
        fleiss([1, 0, 1])


def test_degenerate_inputs_give_nan_or_a_clear_error() -> None:
    assert math.isnan(pearson([1, 1, 1], [1, 0, 1])[0]) and math.isnan(cohen_kappa([1, 1], [1, 1]))
    with pytest.raises(ValueError, match="equal-length"):
        raw_agreement([1, 0], [1])


def test_report_holds_every_statistic() -> None:
    report = agreement_report(JUDGE, HUMAN, n_resamples=500)
    assert report["n"] == 8 and report["agreement"] == 0.75 and report["mcnemar_p"] == 1.0
    assert report["pearson_r"] == pytest.approx(7 / 15) and len(report["agreement_ci95"]) == 2
    assert {"spearman_rho", "spearman_p", "cohen_kappa", "pearson_p", "mcnemar_statistic"} <= set(report)
