"""Error Detection macro-F1 over bar numbers equals torchmetrics' multilabel macro F1 and a hand count."""

from __future__ import annotations

import pytest
import torch
from torchmetrics.classification import MultilabelF1Score

from scoreqa.metrics.classification import bar_set, macro_f1_over_bars, parse_bar_set

TRUTH = [{2, 5, 7}, {1, 3, 6, 7, 8}, {0}, {1, 4}]
PREDICTED = [{2, 5}, {1, 3, 4}, set(), {1, 4, 9}]


def test_macro_f1_matches_torchmetrics():
    classes = sorted(set().union(*TRUTH, *PREDICTED))
    onehot = lambda sets: torch.tensor([[int(c in s) for c in classes] for s in sets])  # noqa: E731
    reference = MultilabelF1Score(num_labels=len(classes), average="macro", zero_division=0)(
        onehot(PREDICTED), onehot(TRUTH)).item()
    assert macro_f1_over_bars(PREDICTED, TRUTH) == pytest.approx(reference)


def test_macro_f1_by_hand():
    # classes 1 and 2: F1 1 each; class 3: TP1 -> 1; class 4: TP1 FP1 -> 2/3; class 5: 1;
    # classes 0, 6, 7, 8: FN only -> 0; class 9: FP only -> 0 -> (1+1+1+2/3+1) / 10
    assert macro_f1_over_bars(PREDICTED, TRUTH) == pytest.approx((4 + 2 / 3) / 10)


def test_perfect_answers_score_one():
    assert macro_f1_over_bars(TRUTH, TRUTH) == 1.0


def test_parsing_never_guesses():
    assert parse_bar_set("257") == {2, 5, 7}
    assert parse_bar_set(" 257. ") == {2, 5, 7}
    assert parse_bar_set("bars 2, 5 and 7") is None
    assert parse_bar_set("") is None
    assert bar_set("13678") == {1, 3, 6, 7, 8}


@pytest.mark.parametrize("text,expected", [
    ("610", {6, 10}), ("467810", {4, 6, 7, 8, 10}), ("01", {0, 1}),  # "10" is bar ten; "01" is bars 0 and 1
    ("6, 10", {6, 10}), ("6 10", {6, 10}), ("`6；10`", {6, 10}), ("0,1", {0, 1}),
    ("6, 10 and 12", None), ("6-10", None),
])
def test_bar_ten_is_one_bar_concatenated_or_separated(text, expected):
    assert parse_bar_set(text) == expected


def test_a_target_that_is_not_bar_numbers_fails():
    with pytest.raises(ValueError, match="not a list of bar numbers"):
        bar_set("bar 6")
