"""Time signatures ('4/4 time' = '4/4' = 'common time (4/4)') and metronome tempi ('150 BPM' = '♩ = 150')."""

from __future__ import annotations

import re

from scoreqa.judge.rules.base import Rule
from scoreqa.judge.rules.text import fold, hedged, negated

_NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                            "thirteen fourteen fifteen sixteen".split())}
_FRACTION = re.compile(r"(?<![\d/])(\d{1,2})\s*/\s*(\d{1,2})(?![\d/])")
_WORDS = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)})[\s-]+({'|'.join(_NUMBER_WORDS)})\s+(?:time|meter|metre)\b",
                    re.IGNORECASE)
_NAMED = {"common time": (4, 4), "cut time": (2, 2), "cut common time": (2, 2), "alla breve": (2, 2)}
_REFERENCE = re.compile(r"^(?:(\d{1,2})\s*/\s*(\d{1,2})(?:\s+time)?|(common time|cut time|alla breve))$",
                        re.IGNORECASE)


def find_meters(text: str) -> set[tuple[int, int]]:
    text = fold(text)
    meters = {(int(a), int(b)) for a, b in _FRACTION.findall(text)}
    meters |= {(_NUMBER_WORDS[a.lower()], _NUMBER_WORDS[b.lower()]) for a, b in _WORDS.findall(text)}
    meters |= {value for name, value in _NAMED.items() if re.search(rf"\b{name}\b", text, re.IGNORECASE)}
    if re.fullmatch(r"\s*C\s*", text):
        meters.add((4, 4))
    elif re.fullmatch(r"\s*(?:C\||¢)\s*", text):
        meters.add((2, 2))
    return meters


class MeterRule(Rule):
    name = "meter"

    def claim(self, question: str, reference: str) -> tuple[int, int] | None:
        match = _REFERENCE.match(fold(reference).strip(" ."))
        if not match:
            return None
        return (int(match.group(1)), int(match.group(2))) if match.group(1) else _NAMED[match.group(3).lower()]

    def decide(self, parsed: tuple[int, int], prediction: str, question: str) -> bool | None:
        if hedged(prediction) or negated(prediction):
            return None
        meters = find_meters(prediction)
        if len(meters) != 1:
            return None
        return meters.pop() == parsed


_BPM_REFERENCE = re.compile(r"^(?:about\s+|approximately\s+|ca\.?\s+|~\s*)?(\d{2,3})(?:\s*-\s*(\d{2,3}))?\s*"
                            r"(?:bpm|beats per minute)$", re.IGNORECASE)
_NOT_TEMPO = re.compile(r"(?:measures?|bars?|m\.|mm\.|beats?\s+per\s+(?:bar|measure))\s*\d+(?:\s*-\s*\d+)?|"
                        r"\d+\s*/\s*\d+|\b\d+(?:st|nd|rd|th)\b|[A-Ga-g][♯♭#b]?\d\b", re.IGNORECASE)


class TempoRule(Rule):
    """A metronome mark: one number, or a range the prediction must repeat exactly."""

    name = "tempo"

    def claim(self, question: str, reference: str) -> tuple[int, int] | None:
        match = _BPM_REFERENCE.match(fold(reference).strip(" ."))
        if not match:
            return None
        low = int(match.group(1))
        return low, int(match.group(2) or low)

    def decide(self, parsed: tuple[int, int], prediction: str, question: str) -> bool | None:
        text = fold(prediction)
        if negated(text) or re.search(r"\b(?:or|maybe|perhaps|probably|possibly|unclear|not sure)\b|\?", text,
                                      re.IGNORECASE):
            return None
        text = _NOT_TEMPO.sub(" ", text)
        ranges = [(int(a), int(b)) for a, b in re.findall(r"(?<!\d)(\d{2,3})\s*(?:-|to)\s*(\d{2,3})(?!\d)", text)]
        singles = [int(n) for n in re.findall(r"(?<![\d-])(\d{2,3})(?![\d-])", re.sub(
            r"(?<!\d)\d{2,3}\s*(?:-|to)\s*\d{2,3}(?!\d)", " ", text))]
        low, high = parsed
        if len(ranges) + len(set(singles)) != 1:
            return None
        if ranges:
            if ranges[0] == parsed:
                return True
            a, b = ranges[0]
            return False if b < low or a > high else None
        value = singles[0]
        if low == high:
            approximate = re.search(r"\b(?:about|approx\w*|around|roughly|circa|ca)\b|~", text, re.IGNORECASE)
            if value != low and approximate and abs(value - low) <= 0.05 * low:
                return None
            return value == low
        return None if low <= value <= high else False
