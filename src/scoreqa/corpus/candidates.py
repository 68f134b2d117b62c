"""A question the generator could ask, with its answer and how the answer was computed."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence


@dataclass(frozen=True)
class Candidate:
    level: int
    kind: str                 # e.g. "highest_pitch"; at most one question per kind and score
    text: str
    answer: str
    method: str               # how the answer was computed, in words (goes into Question.meta)
    measures: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        meta = {"kind": self.kind, "method": self.method, "generator": "scoreqa.corpus"}
        if self.measures:
            meta["measures"] = list(self.measures)
        meta.update(self.details)
        return meta


def pick(rng: random.Random, items: Sequence):
    """One item, or ``None`` from an empty sequence (seeded, so builds are reproducible)."""
    return rng.choice(list(items)) if items else None


def window(rng: random.Random, labels: Sequence[str], lengths: Sequence[int]) -> tuple[int, int] | None:
    """A random run of consecutive bars (positions ``first..last`` into ``labels``), ``None`` if too short."""
    fitting = [n for n in lengths if n <= len(labels)]
    if not fitting:
        return None
    length = rng.choice(fitting)
    first = rng.randrange(0, len(labels) - length + 1)
    return first, first + length - 1
