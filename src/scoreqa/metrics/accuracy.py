"""Per-level and overall accuracy."""

from __future__ import annotations

from typing import Any, Iterable

from scoreqa.metrics.records import field_of, judged


def accuracy_by_level(records: Iterable[Any]) -> dict[str, float]:
    """``{"overall": a, "level_1": a1, ...}`` over records with a decided ``correct``.

    Overall accuracy is over questions (not a mean of level means). Levels with no judged
    record are absent; an empty input gives ``{"overall": nan}``.
    """
    rows = judged(list(records))
    result = {"overall": sum(bool(field_of(r, "correct")) for r in rows) / len(rows) if rows else float("nan")}
    for level in sorted({int(field_of(r, "level")) for r in rows}):
        at_level = [bool(field_of(r, "correct")) for r in rows if int(field_of(r, "level")) == level]
        result[f"level_{level}"] = sum(at_level) / len(at_level)
    return result
