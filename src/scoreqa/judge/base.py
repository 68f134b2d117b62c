"""The judge interface: correct, incorrect or undecided per (question, reference, prediction)."""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class JudgeItem:
    id: str
    question: str
    reference: str
    prediction: str

    def fingerprint(self) -> str:
        """Identifies what is judged, so a cached verdict is reused only for the same texts."""
        payload = json.dumps([self.question, self.reference, self.prediction], ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Verdict:
    """``correct`` is True, False, or None when the judge could not decide; ``decided_by`` says who decided."""

    correct: bool | None
    decided_by: str

    @property
    def decided(self) -> bool:
        return self.correct is not None


class Judge(ABC):
    name: str = "judge"

    @abstractmethod
    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        """One verdict per item, in order."""

    def identity(self) -> dict[str, Any]:
        """What changes this judge's verdicts (its cache key)."""
        return {"judge": self.name}
