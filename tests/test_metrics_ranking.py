"""Bar Sequencing: Kendall's tau (scipy) mapped to [0, 1], completeness penalty, rule violations."""

from __future__ import annotations

import pytest
from scipy.stats import kendalltau

from scoreqa.metrics.ranking import mapped_kendall_tau, parse_order, sequencing_score


def test_full_answer_is_scipys_tau_mapped_to_unit_interval():
    # truth 3102 vs answer 3012: one discordant pair of 6 -> tau = (5 - 1) / 6 = 2/3, mapped 5/6
    result = sequencing_score("3012", "3102")
    assert result.tau == pytest.approx(2 / 3)
    assert result.score == pytest.approx(5 / 6)
    true_rank = {item: rank for rank, item in enumerate([3, 1, 0, 2])}
    scipy_tau = kendalltau([true_rank[i] for i in [3, 0, 1, 2]], [0, 1, 2, 3]).statistic
    assert result.score == pytest.approx((scipy_tau + 1) / 2)


def test_exact_and_reversed_orders_are_the_extremes():
    assert sequencing_score("3102", "3102").score == 1.0
    assert sequencing_score("2013", "3102").score == 0.0


def test_too_short_answer_is_penalised_by_completeness():
    # 3 of 4 bars, in the right relative order: mapped tau 1, times 3/4
    result = sequencing_score("310", "3102")
    assert result.completeness == 0.75 and result.score == pytest.approx(0.75)
    # 3 of 4 bars with one swapped pair out of 3: tau = 1/3, mapped 2/3, times 3/4
    assert sequencing_score("130", "3102").score == pytest.approx(2 / 3 * 3 / 4)


@pytest.mark.parametrize("answer, why", [("31020", "over-long"), ("3312", "repeated index"),
                                         ("3104", "index out of range"), ("3, 1, 0, 2", "not a concatenated"),
                                         ("The order is 3102", "not a concatenated"), ("3", "fewer than two")])
def test_rule_violations_score_zero(answer, why):
    result = sequencing_score(answer, "3102")
    assert result.score == 0.0 and why in result.violation


def test_parse_tolerates_only_wrapping():
    assert parse_order("`3102`.") == [3, 1, 0, 2]
    assert parse_order("<think>1302?</think>\n3102") == [3, 1, 0, 2]
    assert parse_order("3102 because") is None


def test_mapped_tau_of_a_subset_uses_true_positions():
    assert mapped_kendall_tau([0, 2], [3, 1, 0, 2]) == 1.0
    assert mapped_kendall_tau([2, 0], [3, 1, 0, 2]) == 0.0
