"""``metrics.json`` for an MSU-style run (percentages) and the summary table printed at the end."""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Sequence

from scoreqa.evaluation.scoring import GENERATION_FAILED, NO_REFERENCE, PARSE_FAILURE, QuestionRecord
from scoreqa.metrics import accuracy_by_level, bootstrap_ci, level_wise_success_rate

LEVELS = (1, 2, 3, 4)


def _pct(value: float) -> float:
    return round(100 * value, 2) if value == value else value


def level_metrics(records: Sequence[QuestionRecord], bootstrap_resamples: int = 10_000, seed: int = 0
                  ) -> dict[str, Any]:
    """Accuracy with bootstrap CIs and LSR with Wilson CIs, in percent, over judged questions."""
    rows = [r for r in records if r.correct is not None]
    accuracy = accuracy_by_level(rows)
    groups = {"overall": rows, **{f"level_{l}": [r for r in rows if r.level == l] for l in LEVELS}}
    lsr = level_wise_success_rate(rows, max_level=len(LEVELS))
    return {
        "accuracy": {k: _pct(accuracy.get(k, float("nan"))) for k in groups},
        "accuracy_ci95": {k: [_pct(x) for x in bootstrap_ci([float(r.correct) for r in g],
                                                            n_resamples=bootstrap_resamples, seed=seed)]
                          for k, g in groups.items()},
        "lsr": {k: _pct(v) for k, v in lsr["lsr"].items()},
        "lsr_ci95": {k: [_pct(x) for x in v] for k, v in lsr["ci95"].items()},
        "remaining_scores": lsr["remaining_scores"],
    }


def run_metrics(records: Sequence[QuestionRecord], *, run_key: str, n_new_generations: int,
                n_skipped_scores: int, usage: dict[str, Any], bootstrap_resamples: int = 10_000,
                benchmark_metrics: Callable[[Sequence[QuestionRecord]], dict[str, Any]] | None = None
                ) -> dict[str, Any]:
    """The run's metrics: the benchmark's own when it defines them, else MSU's per-level ones, plus counts."""
    decided_by = Counter(r.decided_by for r in records)
    scores = benchmark_metrics(records) if benchmark_metrics else level_metrics(records, bootstrap_resamples)
    return {
        **scores,
        "n_questions": len(records),
        "n_scores": len({r.score_id for r in records}),
        "n_judged": sum(r.correct is not None for r in records),
        "n_unreferenced": decided_by[NO_REFERENCE],
        "n_parse_failures": decided_by[PARSE_FAILURE],
        "n_generation_failures": decided_by[GENERATION_FAILED],
        "n_undecided": sum(r.undecided for r in records),
        "n_skipped_scores": n_skipped_scores,
        "n_new_generations": n_new_generations,
        "judged_by": dict(sorted((k, v) for k, v in decided_by.items() if k)),
        "inference": usage,
        "run_key": run_key,
    }


def summary_table(metrics: dict[str, Any]) -> str:
    """A plain-text table: accuracy and LSR per level with their intervals (MSU-style metrics only)."""
    if "lsr" not in metrics:
        return "\n".join(f"{k}: {v}" for k, v in metrics.items() if not isinstance(v, dict))
    lines = [f"{'':10} {'accuracy %':>11} {'95% CI':>17}   {'LSR %':>7} {'95% CI':>17} {'scores':>6}"]
    for key in ("level_1", "level_2", "level_3", "level_4", "overall"):
        acc, (lo, hi) = metrics["accuracy"][key], metrics["accuracy_ci95"][key]
        row = f"{key:10} {acc:11.2f} [{lo:6.2f}, {hi:6.2f}]"
        if key in metrics["lsr"]:
            l_lo, l_hi = metrics["lsr_ci95"][key]
            row += f"   {metrics['lsr'][key]:7.2f} [{l_lo:6.2f}, {l_hi:6.2f}] {metrics['remaining_scores'][key]:6d}"
        lines.append(row)
    lines.append(f"questions {metrics['n_questions']} (judged {metrics['n_judged']}, no reference "
                 f"{metrics['n_unreferenced']}), scores {metrics['n_scores']}, parse failures "
                 f"{metrics['n_parse_failures']}, undecided {metrics['n_undecided']} (counted as wrong), new generations "
                 f"{metrics['n_new_generations']}, run key {metrics['run_key']}")
    return "\n".join(lines)
