"""Normalised exact match: the deterministic first judge that lets the pipeline run end to end."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Sequence

from scoreqa.judge.base import Judge, JudgeItem, Verdict

_ANSWER_PREFIX = re.compile(r"^(?:the\s+)?(?:final\s+)?answer\s*(?:is)?\s*[:：]\s*", re.IGNORECASE)
_EDGE_PUNCT = " \t\n.。,，;；:：!?\"'`*()[]"


def normalise(text: str) -> str:
    """Unicode-fold, lowercase, drop an 'Answer:' prefix, trailing punctuation and repeated spaces."""
    text = unicodedata.normalize("NFKC", text).strip()
    text = _ANSWER_PREFIX.sub("", text)
    text = re.sub(r"\s+", " ", text).strip(_EDGE_PUNCT).lower()
    return text


class ExactMatchJudge(Judge):
    """Correct iff the normalised prediction equals the normalised reference; never undecided."""

    name = "exact"

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        return [Verdict(normalise(item.prediction) == normalise(item.reference), self.name) for item in items]

    def identity(self) -> dict[str, Any]:
        return {"judge": self.name, "version": 1}
