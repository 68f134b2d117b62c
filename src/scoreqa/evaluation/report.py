"""MSU's per-level scores (percentages) and the summary printed at the end of every run."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any, Sequence

from scoreqa.evaluation.scoring import GENERATION_FAILED, NO_REFERENCE, PARSE_FAILURE, TOO_LONG, QuestionRecord
from scoreqa.metrics import accuracy_by_level, bootstrap_ci, level_wise_success_rate
from scoreqa.metrics.record import Counters, Failure, Metrics, Estimate, Scores

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
        "accuracy_n": {k: len(g) for k, g in groups.items()},
        "lsr": {k: _pct(v) for k, v in lsr["lsr"].items()},
        "lsr_ci95": {k: [_pct(x) for x in v] for k, v in lsr["ci95"].items()},
        "remaining_scores": lsr["remaining_scores"],
    }


def level_scores(records: Sequence[QuestionRecord], bootstrap_resamples: int = 10_000) -> Scores:
    """MSU's scores: overall accuracy as the headline, accuracy per level, LSR per level."""
    d = level_metrics(records, bootstrap_resamples)
    levels = {k: Estimate(d["accuracy"][k], tuple(d["accuracy_ci95"][k]), d["accuracy_n"][k])
              for k in d["accuracy"] if k != "overall"}
    lsr = {k: Estimate(v, tuple(d["lsr_ci95"][k]), d["remaining_scores"][k]) for k, v in d["lsr"].items()}
    return Scores("accuracy", d["accuracy"]["overall"], {"level": levels}, lsr, d)


def count_outcomes(records: Sequence[QuestionRecord], *, n_new_generations: int, n_skipped_scores: int) -> Counters:
    decided_by = Counter(r.decided_by for r in records)
    return Counters(n_questions=len(records), n_scores=len({r.score_id for r in records}),
                    n_judged=sum(r.correct is not None and r.decided_by not in (GENERATION_FAILED, TOO_LONG)
                                 for r in records),
                    n_unreferenced=decided_by[NO_REFERENCE], n_parse_failures=decided_by[PARSE_FAILURE],
                    n_generation_failures=decided_by[GENERATION_FAILED], n_too_long=decided_by[TOO_LONG],
                    n_undecided=sum(r.undecided for r in records), n_skipped_scores=n_skipped_scores,
                    n_new_generations=n_new_generations)


def failure_causes(errors: Sequence[str], endpoint: str | None) -> list[Failure]:
    """Distinct failure causes, most frequent first."""
    return [Failure(cause, n, endpoint) for cause, n in Counter(errors).most_common()]


def judged_by(records: Sequence[QuestionRecord]) -> dict[str, int]:
    counts = Counter(r.decided_by for r in records)
    return dict(sorted((k, v) for k, v in counts.items() if k))


def _fmt(value: float | None) -> str:
    return "    n/a" if value is None or value != value else f"{value:7.2f}"


def _score_row(name: str, score: Estimate, lsr: Estimate | None = None) -> str:
    ci = f"[{_fmt(score.ci95[0])}, {_fmt(score.ci95[1])}]" if score.ci95 else " " * 18
    row = f"{name:28} {_fmt(score.value)} {ci} {score.n if score.n is not None else '':>6}"
    if lsr is not None:
        row += f"   LSR {_fmt(lsr.value)} [{_fmt(lsr.ci95[0])}, {_fmt(lsr.ci95[1])}] {lsr.n:>5}" if lsr.ci95 else ""
    return row


def summary_table(metrics: Metrics, note: str | None = None) -> str:
    """Failures first (cause and endpoint), then every group's scores, the headline, the counters, how undecided
    verdicts were counted, and ``note``: what the numbers mean for this model (``model.note``)."""
    lines: list[str] = []
    if not metrics.complete:
        lines.append("INCOMPLETE RUN: " + "; ".join(metrics.incomplete_reasons()))
        for failure in metrics.failures:
            where = f" at {failure.endpoint}" if failure.endpoint else ""
            lines.append(f"  {failure.count} x {failure.cause}{where}")
    s = metrics.scores
    lines.append(f"{metrics.benchmark + ' (%)':28} {'score':>7} {'95% CI':^18} {'n':>6}")
    for group, named in s.groups.items():
        lines.append(f"-- by {group}")
        for name, score in named.items():
            lines.append(_score_row(name, score, (s.lsr or {}).get(name)))
    overall_lsr = (s.lsr or {}).get("overall")
    lines.append(f"{s.headline_name + ' (headline)':28} {_fmt(s.headline)}"
                 + (f"{'':26}   LSR {_fmt(overall_lsr.value)}" if overall_lsr else ""))
    c = metrics.counters
    lines.append(", ".join(f"{k.removeprefix('n_').replace('_', ' ')} {v}" for k, v in asdict(c).items())
                 + f", run key {metrics.run_key}" + ("" if metrics.complete else "  [INCOMPLETE]"))
    if c.n_undecided:
        lines.append(f"{c.n_undecided} answer(s) the judge could not decide were counted as wrong")
    if note:
        lines.append(f"What the numbers mean: {note}")
    return "\n".join(lines)
