"""Note and rest values in US and UK names: eighth = quaver, sixteenth = semiquaver, dotted half = dotted minim."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.text import drop_parentheses, fold, hedged, negated

_VALUES = {
    "hemidemisemiquaver": 64, "sixty-fourth": 64, "sixty fourth": 64, "64th": 64, "1/64": 64,
    "demisemiquaver": 32, "thirty-second": 32, "thirty second": 32, "32nd": 32, "1/32": 32,
    "semiquaver": 16, "semi-quaver": 16, "sixteenth": 16, "16th": 16, "1/16": 16,
    "quaver": 8, "eighth": 8, "8th": 8, "1/8": 8,
    "crotchet": 4, "quarter": 4, "1/4": 4,
    "minim": 2, "half": 2, "1/2": 2,
    "semibreve": 1, "whole": 1, "1/1": 1,
    "breve": 0.5, "double whole": 0.5, "double-whole": 0.5,
}
_NAMES = "|".join(sorted(map(re.escape, _VALUES), key=len, reverse=True))
DURATION = re.compile(rf"(?<![\w/-])(?:(double[\s-]dotted|dotted)\s+)?({_NAMES})s?(?:[\s-]+(note|rest)s?)?(?![\w/])",
                      re.IGNORECASE)


@dataclass(frozen=True)
class Duration:
    value: float
    dots: int
    kind: str | None        # 'note', 'rest' or unsaid

    @property
    def length(self) -> tuple[float, int]:
        return self.value, self.dots


def _duration(match: re.Match) -> Duration:
    dots = {None: 0, "dotted": 1}.get((match.group(1) or "").lower() or None, 2)
    value = _VALUES[re.sub(r"\s+", " ", match.group(2).lower())]
    return Duration(value, dots, match.group(3).lower() if match.group(3) else None)


def find_durations(text: str) -> list[Duration]:
    return [_duration(m) for m in DURATION.finditer(fold(text))]


class DurationRule(Rule):
    name = "duration"

    def claim(self, question: str, reference: str) -> Duration | None:
        match = DURATION.fullmatch(fold(reference).strip(" ."))
        return _duration(match) if match else None

    def decide(self, parsed: Duration, prediction: str, question: str) -> bool | None:
        text = drop_parentheses(prediction)
        if hedged(text) or negated(text) or re.search(r"triplet|tuplet|tied|\btie\b", text, re.IGNORECASE):
            return None
        found = find_durations(text)
        lengths = {d.length for d in found}
        if len(lengths) != 1:
            return None
        if lengths.pop() != parsed.length:
            return False
        kinds = {d.kind for d in found} - {None}
        if parsed.kind and kinds and kinds != {parsed.kind}:
            return None            # the right value named a note for a rest (or the reverse): the grader's call
        return True
