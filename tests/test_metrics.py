"""scoreqa.metrics against hand-computed values and independent implementations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from scoreqa.metrics import accuracy_by_level, bootstrap_ci, level_wise_success_rate, wilson_ci


def _rec(score_id, level, correct):
    return {"score_id": score_id, "level": level, "correct": correct}


def test_accuracy_by_level_hand_computed():
    records = [_rec("a", 1, True), _rec("a", 1, False), _rec("a", 2, True), _rec("b", 1, True),
               _rec("b", 2, False), _rec("b", 2, False), _rec("b", 3, None)]  # None: no reference, ignored
    acc = accuracy_by_level(records)
    assert acc["overall"] == pytest.approx(3 / 6)
    assert acc["level_1"] == pytest.approx(2 / 3)
    assert acc["level_2"] == pytest.approx(1 / 3)
    assert "level_3" not in acc


def test_bootstrap_ci_reproduces_paper_interval():
    """767 correct of 1,800: the paper's Table 3 reports [40.34, 44.91]."""
    values = np.array([1] * 767 + [0] * 1033)
    low, high = bootstrap_ci(values)
    assert abs(100 * low - 40.34) <= 0.2
    assert abs(100 * high - 44.91) <= 0.2


def test_bootstrap_ci_matches_a_plain_numpy_percentile_bootstrap():
    rng = np.random.default_rng(7)
    values = rng.integers(0, 2, size=300)
    means = np.array([values[rng.integers(0, 300, 300)].mean() for _ in range(20_000)])
    expected = np.percentile(means, [2.5, 97.5])
    low, high = bootstrap_ci(values, n_resamples=20_000, seed=3)
    assert low == pytest.approx(expected[0], abs=0.01)
    assert high == pytest.approx(expected[1], abs=0.01)


def test_bootstrap_ci_is_seeded_and_handles_degenerate_input():
    values = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1]
    assert bootstrap_ci(values, seed=1) == bootstrap_ci(values, seed=1)
    assert bootstrap_ci([1, 1, 1]) == (1.0, 1.0)
    assert all(math.isnan(x) for x in bootstrap_ci([]))


@pytest.mark.parametrize("successes,n", [(0, 10), (3, 10), (45, 150), (150, 150)])
def test_wilson_ci_matches_the_closed_form(successes, n):
    z = stats.norm.ppf(0.975)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = wilson_ci(successes, n)
    assert low == pytest.approx(max(0.0, centre - half), abs=1e-12)
    assert high == pytest.approx(min(1.0, centre + half), abs=1e-12)


def test_level_wise_success_rate_hand_computed():
    records = []
    # s1: all correct; s2: fails at level 3; s3: fails at level 1; s4: level-2 question unreferenced, rest correct
    for level in (1, 2, 3, 4):
        records += [_rec("s1", level, True)] * 3
        records += [_rec("s2", level, level != 3)] * 3
        records += [_rec("s3", level, level != 1)] * 3
        records += [_rec("s4", level, True), _rec("s4", level, None if level == 2 else True)]
    result = level_wise_success_rate(records)
    assert result["n_scores"] == 4
    assert result["remaining_scores"] == {"level_1": 3, "level_2": 3, "level_3": 2, "level_4": 2}
    assert result["lsr"] == {"level_1": 0.75, "level_2": 0.75, "level_3": 0.5, "level_4": 0.5}
    assert result["ci95"]["level_3"] == pytest.approx(list(wilson_ci(2, 4)))


def test_level_wise_success_rate_is_monotone_on_random_data():
    rng = np.random.default_rng(0)
    records = [_rec(f"s{s}", level, bool(rng.random() < 0.8)) for s in range(50) for level in (1, 2, 3, 4)
               for _ in range(3)]
    lsr = level_wise_success_rate(records)["lsr"]
    values = [lsr[f"level_{l}"] for l in (1, 2, 3, 4)]
    assert values == sorted(values, reverse=True)
