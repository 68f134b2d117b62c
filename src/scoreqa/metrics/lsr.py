"""Level-wise Success Rate: how many scores a model gets entirely right, level by level."""

from __future__ import annotations

from typing import Any, Iterable

from scoreqa.metrics.intervals import wilson_ci
from scoreqa.metrics.records import field_of, judged


def level_wise_success_rate(records: Iterable[Any], max_level: int = 4, confidence: float = 0.95
                            ) -> dict[str, dict[str, Any]]:
    """LSR(l) for l = 1..max_level.

    LSR(l) = |{scores whose judged questions at levels 1..l are all correct}| / |scores|, with a
    Wilson CI and the count of scores still standing at each level. A score with no judged question
    at some level is not stopped by that level (there is nothing to get wrong).
    """
    rows = judged(list(records))
    failed_at: dict[str, int] = {}
    for r in rows:
        score_id, level = str(field_of(r, "score_id")), int(field_of(r, "level"))
        failed_at.setdefault(score_id, max_level + 1)
        if not field_of(r, "correct"):
            failed_at[score_id] = min(failed_at[score_id], level)
    n_scores = len(failed_at)
    lsr, ci, remaining = {}, {}, {}
    for level in range(1, max_level + 1):
        standing = sum(first_failure > level for first_failure in failed_at.values())
        key = f"level_{level}"
        remaining[key] = standing
        lsr[key] = standing / n_scores if n_scores else float("nan")
        ci[key] = list(wilson_ci(standing, n_scores, confidence))
    return {"lsr": lsr, "ci95": ci, "remaining_scores": remaining, "n_scores": n_scores}
