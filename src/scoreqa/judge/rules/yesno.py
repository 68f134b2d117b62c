"""Yes/no answers with trailing explanations ('No, it starts on the downbeat'), and the MSU form
'Yes, F♯4; A♮4' where the notes after 'Yes' must match too.

Polarity is read from the start of the prediction only: an explicit yes/no word, or a plainly negative
first clause ('There is no perfect cadence'). 'There is a half cadence' is not read as 'yes'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.pitches import decide_pitches, parse_pitch_list
from scoreqa.judge.rules.text import HEDGE, first_sentence, fold, hedged, negated
from scoreqa.judge.rules.vocabularies import ARTICULATION

_YES, _NO = "yes|yeah|yep|present|affirmative", "no|nope|none|absent"
_REFERENCE = re.compile(rf"^({_YES}|{_NO})\b[\s,.;:!-]*(.*)$", re.IGNORECASE | re.DOTALL)
_YESNO_QUESTION = re.compile(r"(?:^|[,;]\s*)(?:is|are|does|do|did|was|were|has|have|can)\b", re.IGNORECASE)
_NEGATIVE_CLAUSE = re.compile(r"^(?:there\s+(?:is|are|was|were)\s+no\b|there\s+(?:is|are|was|were)\s*n[o']t\b|"
                              r"there's\s+no\b|no\s+\w+|none\b|(?:it|the\s+\w+(?:\s+\w+)?|this)\s+(?:does|is|did|"
                              r"was|has)\s*(?:not|n't)\b|not\b)", re.IGNORECASE)


@dataclass(frozen=True)
class YesNo:
    answer: bool
    payload: Any = None                                        # parsed detail after 'Yes,' (pitches, terms)
    compare: Callable[[Any, str], bool | None] | None = None
    detail_unread: bool = False                                # a detail no rule can read
    detail_only: bool = False                                  # 'Yes, A♭3' answering a what-question


def polarity(prediction: str, question: str = "") -> bool | None:
    """True for yes, False for no, None when the start of the answer is not a plain yes or no."""
    sentence = first_sentence(fold(prediction)).strip()
    clause = re.split(r"[,;:(]|\s-\s|\bbut\b|\bhowever\b|\balthough\b", sentence, maxsplit=1)[0].strip().lower()
    if re.search(r"\bor\b", question, re.IGNORECASE):        # 'a suspension or anticipation' echoed back
        sentence = re.sub(r"\bor\b", " ", sentence, flags=re.IGNORECASE)
    if HEDGE.search(sentence) or re.search(r"\b(?:except|apart\s+from|other\s+than|besides)\b", sentence, re.I):
        return None                            # 'No accidentals except a natural on F4' is not a plain no
    words = set(re.findall(r"[a-z']+", clause))
    starts_yes = re.match(rf"^(?:{_YES})\b", clause)
    starts_no = re.match(rf"^(?:{_NO})\b", clause) or _NEGATIVE_CLAUSE.match(clause)
    if starts_yes and not starts_no and not words & {"no", "not", "none", "never"}:
        return True
    if starts_no and not starts_yes and "yes" not in words:
        return False
    return None


def _payload(text: str) -> tuple[Any, Callable[[Any, str], bool | None]] | None:
    """The detail after 'Yes,' when a rule can read it: pitches here, terms via the articulation rule."""
    pitches = parse_pitch_list(text)
    if pitches:
        return pitches, lambda parsed, rest: None if negated(rest) or hedged(rest) else decide_pitches(parsed, rest)
    terms = ARTICULATION.vocabulary.parse(text)
    if terms.concepts and not terms.unknown:
        return terms, lambda parsed, rest: ARTICULATION.decide(parsed, rest, "") if rest.strip() else None
    return None


class YesNoRule(Rule):
    name = "yes_no"

    def claim(self, question: str, reference: str) -> YesNo | None:
        match = _REFERENCE.match(fold(reference).strip())
        if not match:
            return None
        answer = match.group(1).lower() in _YES.split("|")
        detail = match.group(2).strip(" .")
        if not detail:
            return YesNo(answer)
        if not _YESNO_QUESTION.search(question):
            payload = _payload(detail) if answer else None
            # 'No omitted notes' answers a what-question; 'Yes, A♭3' to 'which note?' is its notes
            return YesNo(True, *payload, detail_only=True) if payload else None
        if not answer:
            return YesNo(False, detail_unread=True)   # 'No, it's a B7 chord.': a bare 'No' is right
        payload = _payload(detail)
        return YesNo(True, *payload) if payload else YesNo(True, detail_unread=True)

    def decide(self, parsed: YesNo, prediction: str, question: str) -> bool | None:
        if parsed.detail_only:
            return parsed.compare(parsed.payload, prediction)
        said = polarity(prediction, question)
        if said is None:
            return None
        if said != parsed.answer:
            return False
        if parsed.detail_unread:
            # right polarity, but a detail of the prediction's own cannot be checked against the reference's
            return True if not parsed.answer and re.fullmatch(rf"\W*(?:{_NO})\W*", prediction, re.I) else None
        if parsed.compare is None:
            return True
        rest = re.sub(rf"^\W*(?:{_YES})\b\W*", "", fold(prediction), flags=re.IGNORECASE)
        return parsed.compare(parsed.payload, rest)
