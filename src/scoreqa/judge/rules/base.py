"""What a rule is, and the one way set-valued answers are compared.

A rule *claims* a (question, reference) pair when it can read the reference, then *decides* a
prediction against it: True (correct), False (incorrect) or None (undecided — left to the LLM judges).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable, Collection, Hashable


class Rule(ABC):
    name: str = "rule"

    @abstractmethod
    def claim(self, question: str, reference: str) -> Any | None:
        """The parsed reference when this rule understands it (and the question is of its kind), else None."""

    @abstractmethod
    def decide(self, parsed: Any, prediction: str, question: str) -> bool | None:
        """Correct, incorrect or undecided for a cleaned prediction."""


def compare_sets(reference: Collection[Hashable], prediction: Collection[Hashable], *,
                 near: Callable[[Hashable, Collection[Hashable]], bool] | None = None,
                 missing_is_wrong: bool = True) -> bool | None:
    """Set-valued answers: equal -> correct; a reference item missing (with nothing close to it in the
    prediction) -> incorrect; extra items, or only near misses -> undecided (extras may be context).

    With ``missing_is_wrong=False`` only disjoint sets are incorrect (graded scales like registers,
    open-ended lists like motif features, where a partial answer may earn credit).
    """
    ref, pred = set(reference), set(prediction)
    if not pred or not ref:
        return None
    if ref == pred:
        return True
    missing = [r for r in ref - pred if not (near and near(r, pred))]
    if not (ref & pred) and missing and len(missing) == len(ref):
        return False
    if missing and missing_is_wrong:
        return False
    return None


def near_by_groups(groups: Collection[Collection[str]]) -> Callable[[Hashable, Collection[Hashable]], bool]:
    """A ``near`` for :func:`compare_sets`: items in one group are close enough to stay undecided."""
    partner: dict[str, set[str]] = {}
    for group in groups:
        for item in group:
            partner.setdefault(item, set()).update(set(group) - {item})

    def near(item: Hashable, others: Collection[Hashable]) -> bool:
        return bool(partner.get(str(item), set()) & set(map(str, others)))

    return near
