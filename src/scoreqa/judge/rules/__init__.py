"""The music-aware rule judge: decides closed-form answers exactly and leaves the rest undecided.

Rules are tried in order; the first that can read the reference (and whose question cue matches)
owns the item, and its name goes into ``decided_by`` ("rules:key"). What it cannot decide is
``Verdict(None, "rules:undecided")`` — for the LLM ensemble in a cascade.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Any, Sequence

from scoreqa.judge.base import Judge, JudgeItem, Verdict
from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.durations import DurationRule
from scoreqa.judge.rules.keys import KeyRule
from scoreqa.judge.rules.measures import MeasureRule
from scoreqa.judge.rules.meters import MeterRule, TempoRule
from scoreqa.judge.rules.names import ComposerRule, TitleRule
from scoreqa.judge.rules.pitches import PitchRule
from scoreqa.judge.rules.roman import RomanNumeralRule
from scoreqa.judge.rules.tempo_terms import DYNAMICS, TEMPO_TERMS
from scoreqa.judge.rules.text import clean_prediction, fold, key
from scoreqa.judge.rules.texture_terms import FORM, MOTIF, TEXTURE
from scoreqa.judge.rules.vocabularies import (ARTICULATION, CHORD_MEMBERS, CLEF, INSTRUMENTS, REGISTER, SPACING,
                                              VOICE_PART)
from scoreqa.judge.rules.yesno import YesNoRule

RULES_VERSION = 1
UNDECIDED = "rules:undecided"
_EDGE = " .。,;:!\"'"

DEFAULT_RULES: tuple[Rule, ...] = (
    YesNoRule(), MeasureRule(), MeterRule(), TempoRule(), KeyRule(), RomanNumeralRule(), DurationRule(),
    PitchRule(), ARTICULATION, CHORD_MEMBERS, SPACING, REGISTER, INSTRUMENTS, VOICE_PART, CLEF, TEMPO_TERMS,
    DYNAMICS, TEXTURE, MOTIF, FORM, ComposerRule(), TitleRule(),
)


def _source_sha() -> str:
    """A hash of this package's code: any edit to a rule gives new cache keys, so no stale verdict survives."""
    digest = hashlib.sha256()
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".py"):
            digest.update(entry.name.encode())
            digest.update(entry.read_bytes())
    return digest.hexdigest()[:12]


class RuleJudge(Judge):
    """Correct / incorrect when a rule is sure, undecided otherwise; never calls a model."""

    name = "rules"

    def __init__(self, rules: Sequence[Rule] | None = None) -> None:
        self.rules = tuple(rules) if rules is not None else DEFAULT_RULES

    def verdict(self, question: str, reference: str, prediction: str) -> Verdict:
        answer = clean_prediction(prediction)
        if not answer:
            return Verdict(False, "rules:empty")
        if fold(answer).strip(_EDGE) == fold(reference).strip(_EDGE):
            return Verdict(True, "rules:exact")
        owner = next((rule for rule in self.rules if rule.claim(question, reference) is not None), None)
        if owner is not None:
            outcome = owner.decide(owner.claim(question, reference), answer, question)
            if outcome is not None:
                return Verdict(outcome, f"rules:{owner.name}")
        if key(answer) == key(reference) and not isinstance(owner, RomanNumeralRule):
            return Verdict(True, "rules:exact")        # case-blind, except where case is meaning (I vs i)
        return Verdict(None, UNDECIDED)

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        return [self.verdict(item.question, item.reference, item.prediction) for item in items]

    def identity(self) -> dict[str, Any]:
        return {"judge": self.name, "version": RULES_VERSION, "source": _source_sha(),
                "rules": [rule.name for rule in self.rules]}
