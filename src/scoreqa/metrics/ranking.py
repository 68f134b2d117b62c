"""ABC-Eval's Bar Sequencing score: Kendall's tau mapped to [0, 1], times a completeness penalty.

The model answers with the 0-based indices of the shuffled bars, concatenated (``"1302"``).
* a well-formed answer naming every bar once scores ``(tau + 1) / 2``;
* a well-formed but too-short answer (a subset of the bars, each once) scores the mapped tau over
  the bars it names times ``len(answer) / n`` (the completeness penalty); fewer than two bars
  leave no pair to rank and score 0;
* an over-long answer, a repeated or out-of-range index, or any other character (the task asks
  for digits only) breaks the instruction and scores 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from scipy.stats import kendalltau

from scoreqa.metrics.choices import digit_answer


@dataclass(frozen=True)
class OrderScore:
    score: float  # in [0, 1]
    tau: float | None  # Kendall's tau over the bars named (None when not computable)
    completeness: float
    violation: str | None  # why the answer scored 0 by rule, if it did


def parse_order(output: str | None) -> list[int] | None:
    """Digits of a concatenated index answer, or ``None`` when it contains anything else."""
    return digit_answer(output)


def mapped_kendall_tau(predicted: list[int], truth: list[int]) -> float:
    """Kendall's tau between the predicted order of the named items and their true order, in [0, 1]."""
    true_rank = {item: rank for rank, item in enumerate(truth)}
    tau = kendalltau([true_rank[item] for item in predicted], list(range(len(predicted)))).statistic
    return (float(tau) + 1.0) / 2.0


def sequencing_score(output: str | None, truth: str, n_items: int | None = None) -> OrderScore:
    """Score one Bar Sequencing answer against the target index string."""
    true_order = [int(c) for c in str(truth).strip()]
    n = n_items or len(true_order)
    predicted = parse_order(output)
    if predicted is None:
        return OrderScore(0.0, None, 0.0, "not a concatenated index string")
    if len(predicted) > n:
        return OrderScore(0.0, None, 1.0, "over-long")
    if len(set(predicted)) != len(predicted):
        return OrderScore(0.0, None, len(predicted) / n, "repeated index")
    if any(item not in true_order for item in predicted):
        return OrderScore(0.0, None, len(predicted) / n, "index out of range")
    completeness = len(predicted) / n
    if len(predicted) < 2:
        return OrderScore(0.0, None, completeness, "fewer than two bars")
    mapped = mapped_kendall_tau(predicted, true_order)
    tau = 2 * mapped - 1
    return OrderScore(mapped * completeness, tau, completeness, None)
