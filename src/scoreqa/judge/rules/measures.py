"""Measure numbers, ranges and lists: 'Measures 1–3' = 'bars 1 to 3' = '1, 2, 3'; 'Starting at measure 56'.

Equal sets are correct and disjoint ones incorrect; an overlap ('Measure 1' for 'Measures 1–2') is
left undecided, since whether it earns credit depends on what the question stresses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.text import drop_parentheses, fold, hedged, negated

_ORDINALS = {w: i for i, w in enumerate("zeroth first second third fourth fifth sixth seventh eighth ninth tenth "
                                        "eleventh twelfth".split())}
_CARDINALS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                         "thirteen fourteen fifteen sixteen".split())}
_START = re.compile(r"^(?:start\w*|strat\w*|begin\w*)\s+(?:at|from|in|with)\s+(?:measure|bar)s?\s*(\d+)$")
_SPAN = re.compile(r"^(?:measure|bar)\w*\s*(\d+)\s*(?:-|to|through)\s*(\d+)$")
_LIST = re.compile(r"^(?:measure|bar)\w*\s*(\d+(?:\s*(?:,|and)\s*\d+)*)$")
_RANGE = re.compile(r"(\d+)\s*(?:-|to|through|thru|until|till)\s*(?:(?:measure|bar)s?\s*|m\.\s*)?(\d+)")
_NOISE = re.compile(r"\d+\s*/\s*\d+|[a-g][♯♭#b]?\d\b|\bbeats?\s+\d+|\d+\s*(?:beats?|notes?|bpm|times|%|bars?\s+long|"
                    r"measures?\s+long)\b|\b(?:op|no|bwv|k|kv|hob|d|s)\.?\s*\d+")
_MAX_SPAN = 2000


@dataclass(frozen=True)
class Measures:
    numbers: frozenset[int]
    start_only: bool = False


def _span(a: int, b: int) -> set[int] | None:
    return set(range(a, b + 1)) if a <= b and b - a <= _MAX_SPAN else None


def parse_reference(text: str) -> Measures | None:
    text = fold(text).lower().strip(" .")
    if match := _START.match(text):
        return Measures(frozenset({int(match.group(1))}), start_only=True)
    if match := _SPAN.match(text):
        numbers = _span(int(match.group(1)), int(match.group(2)))
        return Measures(frozenset(numbers)) if numbers else None
    if match := _LIST.match(text):
        return Measures(frozenset(int(n) for n in re.findall(r"\d+", match.group(1))))
    return None


def find_measures(text: str) -> set[int] | None:
    """Measure numbers a prediction names; None when it names a range it cannot read."""
    text = re.sub(r"\bmm?\.\s*", "measure ", fold(drop_parentheses(text)).lower())
    text = re.sub(r"\b(\d+)(?:st|nd|rd|th)\s+(measure|bar)", r"\2 \1", text)
    text = re.sub(rf"\b(?:the\s+)?(?:first|opening)\s+(\d+|{'|'.join(_CARDINALS)})\s+(?:measures|bars)\b",
                  lambda m: f"measures 1-{m.group(1) if m.group(1).isdigit() else _CARDINALS[m.group(1)]}", text)
    text = re.sub(rf"\b({'|'.join(_ORDINALS)})\s+(?:measure|bar)\b", lambda m: f"measure {_ORDINALS[m.group(1)]}",
                  text)
    text = re.sub(r"\b(?:the\s+)?opening\s+(?:measure|bar)\b", "measure 1", text)
    text = _NOISE.sub(" ", text)
    numbers: set[int] = set()
    for match in _RANGE.finditer(text):
        span = _span(int(match.group(1)), int(match.group(2)))
        if span is None:
            return None
        numbers |= span
    numbers |= {int(n) for n in re.findall(r"(?<![\w.])\d+(?!\w|\.\d)", _RANGE.sub(" ", text))}
    return numbers


class MeasureRule(Rule):
    name = "measures"

    def claim(self, question: str, reference: str) -> Measures | None:
        return parse_reference(reference)

    def decide(self, parsed: Measures, prediction: str, question: str) -> bool | None:
        if hedged(prediction) or negated(prediction):
            return None
        numbers = find_measures(prediction)
        if not numbers:
            return None
        if parsed.start_only:
            return min(numbers) in parsed.numbers
        if numbers == parsed.numbers:
            return True
        return False if not numbers & parsed.numbers else None
