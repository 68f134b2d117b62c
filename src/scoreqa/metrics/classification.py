"""ABC-Eval's Error Detection score: macro-F1 over bar numbers.

Each answer and target is a set of bar numbers (digits concatenated: ``"257"``; the data writes
an error in the header/metadata as bar ``0`` and tune bars from 1). Every bar number seen in any
target or answer is a class; per class, F1 is computed across all questions (a question is a
positive for the class when its set holds the number), and the classes are averaged unweighted.
An answer that is not a digit string predicts no bars (and is counted as unparseable).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.metrics import f1_score
from sklearn.preprocessing import MultiLabelBinarizer

from scoreqa.metrics.choices import digit_answer


def parse_bar_set(output: str | None) -> set[int] | None:
    """Bar numbers of a concatenated digit answer; ``None`` when the answer is anything else."""
    digits = digit_answer(output)
    return None if digits is None else set(digits)


def bar_set(target: str) -> set[int]:
    return {int(c) for c in str(target).strip() if c.isdigit()}


def macro_f1_over_bars(predicted: Sequence[set[int]], truth: Sequence[set[int]]) -> float:
    """Macro-F1 in [0, 1] over the bar numbers present in ``truth`` or ``predicted`` (sklearn)."""
    if len(predicted) != len(truth):
        raise ValueError(f"{len(predicted)} predictions for {len(truth)} targets")
    classes = sorted(set().union(*truth, *predicted))
    if not classes:
        return float("nan")
    binarizer = MultiLabelBinarizer(classes=classes)
    y_true = binarizer.fit_transform(truth)
    y_pred = binarizer.transform(predicted)
    return float(f1_score(np.asarray(y_true), np.asarray(y_pred), average="macro", zero_division=0))
