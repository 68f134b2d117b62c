"""The one shape of a run's results, for every benchmark: what the summary, ``metrics.json``, W&B and the report read.

A benchmark turns its records into :class:`Scores` (a headline, named scores grouped by level, subtask or
category, and LSR where it applies); the runner adds :class:`Counters` and the failures of the run, and
``complete`` is false whenever a question was not really asked and answered (a request failed for good or
was too long, or nothing was evaluated), so a failure can never pass for a result.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping


def finite(value: float | None) -> float | None:
    """NaN and infinities become None, which JSON can hold (``metrics.json`` must stay valid JSON)."""
    return None if value is None or not math.isfinite(value) else value


@dataclass(frozen=True)
class Estimate:
    """One named score in percent, with its 95 % interval and sample size when known."""

    value: float | None
    ci95: tuple[float, float] | None = None
    n: int | None = None

    def as_dict(self) -> dict[str, Any]:
        ci = [finite(x) for x in self.ci95] if self.ci95 else None
        return {"value": finite(self.value), "ci95": ci, "n": self.n}


@dataclass(frozen=True)
class Scores:
    """What a benchmark computes from its records.

    ``groups`` maps a grouping ("level", "subtask", "category", "mode" ...) to its named scores; ``details``
    is the benchmark's own fields, written into ``metrics.json`` as they are (MSU's ``accuracy``/``lsr`` ...).
    """

    headline_name: str
    headline: float | None
    groups: Mapping[str, Mapping[str, Estimate]] = field(default_factory=dict)
    lsr: Mapping[str, Estimate] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Counters:
    """How many questions reached each outcome; generation failures and too-long prompts make a run incomplete."""

    n_questions: int = 0
    n_scores: int = 0
    n_judged: int = 0
    n_unreferenced: int = 0
    n_parse_failures: int = 0
    n_generation_failures: int = 0
    n_too_long: int = 0
    n_undecided: int = 0
    n_skipped_scores: int = 0
    n_new_generations: int = 0


@dataclass(frozen=True)
class Failure:
    """Why requests failed for good: the cause (secrets scrubbed), how many, and where they were sent."""

    cause: str
    count: int
    endpoint: str | None = None


@dataclass
class Metrics:
    benchmark: str
    scores: Scores
    counters: Counters
    failures: list[Failure] = field(default_factory=list)
    run_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # inference usage, judged_by ...

    @property
    def complete(self) -> bool:
        c = self.counters
        return c.n_questions > 0 and c.n_generation_failures == 0 and c.n_too_long == 0

    def incomplete_reasons(self) -> list[str]:
        c = self.counters
        reasons = [] if c.n_questions else ["no question was evaluated (every score skipped, or an empty split)"]
        if c.n_generation_failures:
            reasons.append(f"{c.n_generation_failures} question(s) whose request failed for good")
        if c.n_too_long:
            reasons.append(f"{c.n_too_long} question(s) whose prompt did not fit the context window")
        return reasons

    def __getitem__(self, key: str) -> Any:
        """Read like ``metrics.json`` (``metrics["n_questions"]``)."""
        return self.as_dict()[key]

    def as_dict(self) -> dict[str, Any]:
        """``metrics.json``: the benchmark's own fields, then the common shape (valid JSON: no NaN)."""
        s = self.scores
        common = {
            "benchmark": self.benchmark,
            "complete": self.complete,
            "incomplete_reasons": self.incomplete_reasons(),
            "headline": {"name": s.headline_name, "value": finite(s.headline)},
            "groups": {g: {k: v.as_dict() for k, v in named.items()} for g, named in s.groups.items()},
            **({"lsr_scores": {k: v.as_dict() for k, v in s.lsr.items()}} if s.lsr else {}),
            **asdict(self.counters),
            "failures": [asdict(f) for f in self.failures],
            "run_key": self.run_key,
            **self.extra,
        }
        return _json_safe({**dict(s.details), **common})


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return finite(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value
