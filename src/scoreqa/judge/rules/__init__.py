"""The music-aware rule judge: decides closed-form answers exactly and leaves the rest undecided.

The prediction first goes through :func:`scoreqa.judge.extraction.extract`: "Unknown" is wrong
(``rules:unknown``), an unsure answer stays undecided, several candidates are each decided and are wrong
together only when the rule is sure one of them is wrong (``X or Y``: a hedge between values is wrong).
Rules are tried in order; the first that can read the reference (and whose question cue matches)
owns the item, and its name goes into ``decided_by`` ("rules:key"). What it cannot decide is
``Verdict(None, "rules:undecided")`` — for the LLM ensemble in a cascade.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from typing import Any, Sequence

from scoreqa.judge.base import Judge, JudgeItem, Verdict
from scoreqa.judge import extraction  # module import: extraction reads rules.notations
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

RULES_VERSION = 2
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
        found = extraction.extract(prediction, question)
        if found.status == "unknown":
            return Verdict(key(reference) in {"unknown", ""}, "rules:unknown")
        if not found.text:
            return Verdict(False, "rules:empty")
        if found.status == "unsure":
            return Verdict(None, UNDECIDED)
        if found.status == "several":
            verdicts = [self.decide(question, reference, candidate) for candidate in found.candidates]
            if any(v.correct is None for v in verdicts):
                return Verdict(None, UNDECIDED)
            if all(v.correct for v in verdicts):              # 'quaver or eighth note': one value, two names
                return verdicts[0]
            return Verdict(False, f"{verdicts[0].decided_by}:several")   # a hedge between different values
        final = self.decide(question, reference, found.text)
        if isinstance(self.owner(question, reference), YesNoRule) and found.text != found.full:
            # a leading 'Yes'/'No' and a closing 'so …' clause must agree; either alone is enough
            lead = self.decide(question, reference, found.context or found.full)
            if final.correct is None or lead.correct is None or final.correct == lead.correct:
                return final if final.correct is not None else lead
            return Verdict(None, UNDECIDED)
        if found.context and final.correct is False and self._states_reference(question, reference, found.context):
            return Verdict(None, UNDECIDED)   # 'The key is G minor, so the relative major is B♭ major'
        return final

    def _states_reference(self, question: str, reference: str, context: str) -> bool:
        """Whether the context, or any sentence of it, reads as the reference answer."""
        sentences = [context, *re.split(r"(?<=[.!;])\s+", context)]
        return any(self.decide(question, reference, sentence).correct for sentence in sentences if sentence.strip())

    def owner(self, question: str, reference: str) -> Rule | None:
        return next((rule for rule in self.rules if rule.claim(question, reference) is not None), None)

    def decide(self, question: str, reference: str, prediction: str) -> Verdict:
        """One extracted answer against the reference: exact match, the owning rule, else undecided."""
        answer = clean_prediction(prediction)
        if not answer:
            return Verdict(False, "rules:empty")
        if fold(answer).strip(_EDGE) == fold(reference).strip(_EDGE):
            return Verdict(True, "rules:exact")
        owner = self.owner(question, reference)
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
