"""ABC-Eval's Error Detection score: macro-F1 over bar numbers.

Each answer and target is a set of bar numbers (digits concatenated: ``"257"``, with ``"10"`` read
as bar 10, see :func:`scoreqa.metrics.choices.bar_numbers`; the data writes an error in the
header/metadata as bar ``0`` and tune bars from 1). Every bar number seen in any
target or answer is a class; per class, F1 is computed across all questions (a question is a
positive for the class when its set holds the number), and the classes are averaged unweighted.
An answer that is neither a digit string nor separated numbers predicts no bars (and is counted as
unparseable).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.metrics import f1_score
from sklearn.preprocessing import MultiLabelBinarizer

from scoreqa.metrics.choices import bar_numbers


def parse_bar_set(output: str | None) -> set[int] | None:
    """Bar numbers of an answer; ``None`` when the answer is anything else."""
    bars = bar_numbers(output)
    return None if bars is None else set(bars)


def bar_set(target: str) -> set[int]:
    """Bar numbers of a target (``"610"`` -> {6, 10})."""
    bars = bar_numbers(str(target))
    if bars is None:
        raise ValueError(f"Error Detection target {target!r} is not a list of bar numbers")
    return set(bars)


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
