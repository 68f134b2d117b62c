"""Yes/no answers with trailing explanations ('No, it starts on the downbeat'), and the MSU form
'Yes, F♯4; A♮4' where the notes after 'Yes' must match too.

Polarity is read from the start of the prediction only: an explicit yes/no word, or a plainly negative
first clause ('There is no perfect cadence'). 'There is a half cadence' is not read as 'yes'. A negative
clause counts as 'no' only when it negates what the question asks about: every content word after the
negation must occur in the question ('It is not a minor chord: …' does not answer 'Is there an A major chord?').
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


_STOP = {"a", "an", "the", "any", "there", "is", "are", "was", "were", "it", "this", "does", "do", "did", "has",
         "have", "not", "no", "n't", "in", "of", "on", "at", "to", "be", "been", "that", "one", "present", "here",
         "piece", "music", "score", "measure", "bar", "and", "these", "those", "passage", "section", "any", "at", "all"}


_GENERIC = {"start", "begin", "with", "contain", "have", "use", "appear", "occur", "feature", "include", "show",
            "any", "by", "from", "for", "end", "close"}


def _words(text: str) -> set[str]:
    return {w.rstrip("s") if len(w) > 3 else w for w in re.findall(r"[\w♯♭#]+", text.lower())} - _STOP


def negates_the_question(clause: str, question: str) -> bool:
    """'There is no D7 chord' negates 'Is there a D7 chord?'; 'It is not a fermata' does not negate 'Is there
    a staccato?'. Without a question every negative clause counts (the reference side)."""
    if not question:
        return True
    rest = re.split(r"\b(?:no|not|none|never)\b|n't\b", clause, maxsplit=1, flags=re.IGNORECASE)[-1]
    words = _words(rest)
    return bool(words & _words(question)) and words <= _words(question) | _GENERIC


def asks_about(phrase: str, question: str) -> bool:
    """Every content word of an affirmed 'there is …' phrase (numbers aside) is in the question."""
    words = {w for w in _words(phrase) if not w.isdigit()}
    return bool(question) and bool(words & _words(question)) and words <= _words(question) | _GENERIC


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
    starts_no = re.match(rf"^(?:{_NO})\b", clause) or (_NEGATIVE_CLAUSE.match(clause)
                                                        and negates_the_question(clause, question))
    affirms = re.match(r"^there\s+(?:is|are|was|were)\s+(?!no\b|not\b|n't\b)(.+)$", clause)
    if affirms and not starts_no and not words & {"no", "not", "none", "never"} and \
            asks_about(affirms.group(1), question):
        return True                    # 'There are repeat signs at measures 8 and 16' to 'Is there a repeat sign?'
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
