"""ABC-Eval's metrics from run records: per subtask, per category (Table 3 grouping) and overall.

* multiple-choice subtasks and Bar Count Estimation: accuracy (exact match of the parsed answer);
* Bar Sequencing: mean of the mapped, completeness-penalised Kendall's tau (:mod:`ranking`);
* Error Detection: macro-F1 over bar numbers (:mod:`classification`).
Scores are percentages. A category's score is the mean of its subtasks present in the run;
``overall`` is the mean over all subtasks present (each subtask weighs the same, as in the paper's
averages). Unparseable answers are scored wrong and counted per subtask.
"""

from __future__ import annotations

import re
from statistics import mean
from typing import Any, Mapping, Sequence

from scoreqa.data.records import Question
from scoreqa.metrics.choices import extract_choice
from scoreqa.metrics.classification import bar_set, macro_f1_over_bars, parse_bar_set
from scoreqa.metrics.ranking import sequencing_score
from scoreqa.prompts.answers import strip_thinking

METRIC_NAMES = {"choice": "accuracy", "count": "accuracy", "order": "kendall_tau_mapped", "bars": "macro_f1"}


def parse_count(output: str | None) -> int | None:
    """The answer's integer when it holds exactly one (``8``, ``8 bars``); else ``None``."""
    numbers = re.findall(r"(?<![\d.])\d+(?![\d.])", strip_thinking(output or ""))
    return int(numbers[0]) if len(numbers) == 1 else None


def score_subtask(kind: str, outputs: Sequence[str | None], questions: Sequence[Question]) -> tuple[float, int]:
    """(score in percent, number of unparseable answers) of one subtask."""
    if kind == "choice":
        picks = [extract_choice(o, q.meta["option_labels"], q.choices) for o, q in zip(outputs, questions)]
        correct = [p == q.reference for p, q in zip(picks, questions)]
        return 100 * mean(correct), sum(p is None for p in picks)
    if kind == "count":
        counts = [parse_count(o) for o in outputs]
        correct = [c is not None and c == int(q.reference) for c, q in zip(counts, questions)]
        return 100 * mean(correct), sum(c is None for c in counts)
    if kind == "order":
        scored = [sequencing_score(o, q.reference, len(q.choices)) for o, q in zip(outputs, questions)]
        return 100 * mean(s.score for s in scored), sum(s.violation is not None and s.tau is None for s in scored)
    if kind == "bars":
        parsed = [parse_bar_set(o) for o in outputs]
        predicted = [p if p is not None else set() for p in parsed]
        return 100 * macro_f1_over_bars(predicted, [bar_set(q.reference) for q in questions]), \
            sum(p is None for p in parsed)
    raise ValueError(f"unknown ABC-Eval subtask kind {kind!r}")


def abc_eval_metrics(records: Sequence[Any], questions: Mapping[str, Question],
                     categories: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    by_subtask: dict[str, list[tuple[str | None, Question]]] = {}
    for record in records:
        question = questions[record.question_id]
        by_subtask.setdefault(question.meta["subtask"], []).append((record.raw_output, question))
    subtasks: dict[str, float] = {}
    details: dict[str, dict[str, Any]] = {}
    for name, pairs in by_subtask.items():
        kind = pairs[0][1].meta["kind"]
        score, unparseable = score_subtask(kind, [o for o, _ in pairs], [q for _, q in pairs])
        subtasks[name] = round(float(score), 2)
        details[name] = {"metric": METRIC_NAMES[kind], "n": len(pairs), "n_unparseable": unparseable,
                         "category": pairs[0][1].meta.get("category")}
    category_scores = {cat: round(float(mean(subtasks[s] for s in members if s in subtasks)), 2)
                       for cat, members in categories.items() if any(s in subtasks for s in members)}
    return {"subtasks": subtasks, "categories": category_scores,
            "overall": round(float(mean(subtasks.values())), 2) if subtasks else float("nan"),
            "subtask_details": details}
