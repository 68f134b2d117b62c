"""WildScore's metrics: accuracy per mode (with image, text only), per category (5) and subcategory
(12), per difficulty tier, and the with-vs-without-image delta, in percent.

An answer counts as correct only when :func:`extract_choice` finds exactly one option letter equal
to the reference; unparseable answers are wrong and counted per mode.
"""

from __future__ import annotations

from statistics import mean
from typing import Any, Mapping, Sequence

from scoreqa.data.records import Question
from scoreqa.metrics.choices import extract_choice


def _pct(values: Sequence[bool]) -> float:
    return round(100 * mean(values), 2) if values else float("nan")


def _grouped(rows: Sequence[tuple[Question, bool]], key: str) -> dict[str, float]:
    groups: dict[str, list[bool]] = {}
    for question, correct in rows:
        if question.meta.get(key):
            groups.setdefault(str(question.meta[key]), []).append(correct)
    return {name: _pct(values) for name, values in sorted(groups.items())}


def wildscore_metrics(records: Sequence[Any], questions: Mapping[str, Question]) -> dict[str, Any]:
    by_mode: dict[str, list[tuple[Question, bool]]] = {}
    unparseable: dict[str, int] = {}
    for record in records:
        question = questions[record.question_id]
        choice = extract_choice(record.raw_output, question.meta["option_labels"], question.choices)
        mode = question.meta["mode"]
        by_mode.setdefault(mode, []).append((question, choice == question.reference))
        unparseable[mode] = unparseable.get(mode, 0) + (choice is None)
    result: dict[str, Any] = {"modes": {}}
    for mode, rows in by_mode.items():
        result["modes"][mode] = {
            "accuracy": _pct([c for _, c in rows]), "n": len(rows), "n_unparseable": unparseable[mode],
            "categories": _grouped(rows, "category"), "subcategories": _grouped(rows, "subcategory"),
            "difficulty": _grouped(rows, "difficulty"),
        }
    if {"image", "text"} <= set(by_mode):
        image, text = result["modes"]["image"], result["modes"]["text"]
        result["image_minus_text"] = {
            "overall": round(image["accuracy"] - text["accuracy"], 2),
            "categories": {c: round(v - text["categories"][c], 2) for c, v in image["categories"].items()
                           if c in text["categories"]},
        }
    main = by_mode.get("image") or by_mode.get("text") or []
    result["overall"] = _pct([c for _, c in main])
    return result
