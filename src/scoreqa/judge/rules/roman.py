"""Roman-numeral chords and progressions: any dash/arrow/comma separator; case, figures and order count.

'I–V7' ≠ 'V7–I' ≠ 'I–V'; 'i | V | i' = 'i–V–i'; 'V2' = 'V42' = 'V4/2'; 'I46' = 'I64'. Differences two analysts could both
defend (vii vs vii°, K64 vs I64, V/V vs II, ♭VI vs VI) are left undecided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.text import drop_parentheses, fold, hedged, negated

_NUMERAL = r"VII|VI|IV|V|III|II|I|vii|vi|iv|v|iii|ii|i"
CHORD = re.compile(rf"(?P<acc>[♯♭#b]?)(?P<num>{_NUMERAL}|K|N|It|Fr|Ger)(?P<qual>ø|Ø|°|º|o|\+|dim|aug)?"
                   rf"(?P<fig>\d(?:/?\d){{0,2}})?(?:/(?P<sec>[♯♭#b]?(?:{_NUMERAL})))?")
_FIGURES = {"46": "64", "34": "43", "2": "42", "24": "42", "56": "65", "53": "", "5": "", "63": "6", "753": "7"}
_QUALITY = {"ø": "h", "Ø": "h", "°": "o", "º": "o", "o": "o", "dim": "o", "+": "+", "aug": "+"}
_SEPARATOR = re.compile(r"\s*(?:->|=>|→|⇒|-|,|;|\||\bto\b|\bthen\b|\band\b|\s)\s*")
_LEAD = re.compile(r"\b(?:in\s+)?(?:measures?|bars?|mm?\.)\s*\d+(?:\s*(?:-|to|and)\s*\d+)?|"
                   r"\bin\s+(?:the\s+key\s+of\s+)?[A-G][♯♭#b]?\s+(?:major|minor)\b|"
                   r"\b(?:the|a|an|chord|chords|progression|harmonic|harmony|is|are|it|it's|its|from|followed|by|"
                   r"moving|moves|goes|going|resolving|resolves|resolution|scale|degree|roman|numerals?|answer|"
                   r"analysis|first|second|last|final|here|sequence|which|this)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Chord:
    accidental: str
    numeral: str
    quality: str
    figure: str
    secondary: str


def parse_chord(token: str) -> Chord | None:
    match = CHORD.fullmatch(token)
    if match is None:
        return None
    figure = (match.group("fig") or "").replace("/", "")
    accidental = {"#": "♯", "b": "♭"}.get(match.group("acc"), match.group("acc"))
    return Chord(accidental, match.group("num"), _QUALITY.get(match.group("qual") or "", ""),
                 _FIGURES.get(figure, figure), (match.group("sec") or "").replace("#", "♯").replace("b", "♭"))


def parse_progression(text: str) -> list[Chord] | None:
    tokens = [t for t in _SEPARATOR.split(fold(text).strip(" .")) if t]
    chords = [parse_chord(t) for t in tokens]
    return chords if chords and all(chords) else None


def _soft_difference(a: Chord, b: Chord) -> bool:
    """Differences that do not make an analysis wrong for every grader."""
    if {a.numeral, b.numeral} & {"K", "N", "It", "Fr", "Ger"}:
        return a.figure == b.figure                          # K64 vs I64 / V64, N6 vs ♭II6
    if a.numeral == b.numeral and a.figure == b.figure:
        if a.quality != b.quality and "" in (a.quality, b.quality):
            return True                                      # vii vs vii°
        return a.accidental != b.accidental or a.secondary != b.secondary
    return bool(a.secondary or b.secondary) and a.figure == b.figure   # V/V vs II


class RomanNumeralRule(Rule):
    name = "roman"
    _CUE = re.compile(r"chord|degree|progression|harmon|numeral|\bI, II\b", re.IGNORECASE)

    def claim(self, question: str, reference: str) -> list[Chord] | None:
        if not self._CUE.search(question):
            return None
        return parse_progression(drop_parentheses(reference))

    def decide(self, parsed: list[Chord], prediction: str, question: str) -> bool | None:
        if hedged(prediction) or negated(prediction):
            return None
        text = _LEAD.sub(" ", drop_parentheses(prediction).replace(":", " "))
        # 'V7–I, forming a perfect cadence': drop a trailing clause that starts with an ordinary word
        head = re.split(r",\s+(?=(?!(?:i|ii|iii|iv|v|vi|vii)\b)[a-z]{2,})", text, maxsplit=1)[0]
        predicted = parse_progression(text) or parse_progression(head)
        if predicted is None:
            return None
        if predicted == parsed:
            return True
        if len(predicted) != len(parsed):
            return False
        differences = [(a, b) for a, b in zip(parsed, predicted) if a != b]
        return False if any(not _soft_difference(a, b) for a, b in differences) else None
