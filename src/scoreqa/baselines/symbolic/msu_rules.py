"""MSU-Bench style Level 1-2 questions answered from a score's ABC, in the release's answer style.

Header questions read the ABC fields (``M:`` time signature, ``K:`` key, ``Q:`` tempo, ``C:``
composer, ``T:`` title, ``clef=`` in ``V:``/``K:``); measure questions (anacrusis, highest/lowest
pitch, accidentals, repeat signs) read the bars of every voice (:mod:`.abc_text`), numbered as
notation software does: a short first bar is the pickup, measure 0. A question no rule matches
gets ``None`` (an abstention).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Callable

from scoreqa.baselines.symbolic.abc_rules import key_facts, parse_key
from scoreqa.baselines.symbolic.abc_text import SEMITONE, Bar, Note, parse_fraction, parse_tune, parse_voices

_MEASURE = re.compile(r"\bmeasures?\s+(\d+)(?:\s*[-–]\s*(\d+))?", re.IGNORECASE)


def _field(abc: str, letter: str) -> str | None:
    return parse_tune(abc).field(letter)


def time_signature(abc: str) -> str | None:
    meter = _field(abc, "M")
    meter = {"C": "4/4", "C|": "2/2"}.get(meter or "", meter)
    return f"{meter} time" if meter and re.fullmatch(r"\d+/\d+", meter) else None


def key_name(abc: str) -> str | None:
    key = parse_key(_field(abc, "K"))
    if key is None:
        return None
    tonic = key[0][0] + key[0][1:].replace("#", "♯").replace("b", "♭")
    return f"{tonic} {key[1]}"


def tempo_bpm(abc: str) -> str | None:
    match = re.search(r"(?:\d+/\d+\s*=\s*)?(\d+)\s*$", _field(abc, "Q") or "")
    return f"{match.group(1)} BPM" if match else None


_CLEFS = {"treble": "Treble clef", "bass": "Bass clef", "alto": "Alto clef", "tenor": "Tenor clef"}


def clefs(abc: str) -> str | None:
    """Clefs named in ``V:``/``K:`` definitions (``clef=bass`` or a bare ``bass``), in order; treble by default.

    Octave-transposing clefs (``treble-8``) abstain: their name in the release's style is not known.
    """
    found = []
    for line in re.findall(r"^[VK]:.*$", abc, re.MULTILINE):
        line = re.sub(r'"[^"]*"', "", line)  # part names such as nm="Alto I" are not clefs
        words = re.findall(r"(?:clef\s*=\s*)?\b(treble|bass|alto|tenor)([+-]8)?\b", line, re.IGNORECASE)
        if any(octave for _, octave in words):
            return None
        found += [_CLEFS[name.lower()] for name, _ in words]
    return "; ".join(dict.fromkeys(found)) or "Treble clef"


_SIGN = {-2: "𝄫", -1: "♭", 0: "", 1: "♯", 2: "𝄪"}


def _numbered_bars(abc: str) -> dict[int, list[tuple[Bar, dict[str, int]]]]:
    """Bars of every voice by measure number (a short first bar is the pickup, measure 0), with the key."""
    voices = parse_voices(abc)
    fields = next(iter(voices.values())).fields if voices else []
    key = parse_key(next((v for k, v in fields if k == "K"), None)) or ("C", "major")
    key_alter = key_facts(*key)[2]
    unit = parse_fraction(next((v for k, v in fields if k == "L"), None) or "1/8") or Fraction(1, 8)
    meter = parse_fraction(next((v for k, v in fields if k == "M"), None) or "")
    by_number: dict[int, list[tuple[Bar, dict[str, int]]]] = {}
    for tune in voices.values():
        pickup = bool(tune.bars) and meter is not None and tune.bars[0].length() * unit < meter
        for index, bar in enumerate(tune.bars):
            if tune.labelled and not bar.label.isdigit():
                continue  # "7a", the rest of a split measure 7, is not what "measure 7" names
            number = bar.number if tune.labelled else index if pickup else index + 1
            by_number.setdefault(number, []).append((bar, key_alter))
    return by_number


def _sounding(bar: Bar, key_alter: dict[str, int]) -> list[tuple[Note, int]]:
    """Each note with its sounding alteration (an accidental holds to the end of the bar)."""
    held: dict[tuple[str, int], int] = {}
    result = []
    for note in bar.notes:
        if note.is_rest:
            continue
        if note.alter is not None:
            held[(note.letter, note.octave)] = note.alter
        result.append((note, held.get((note.letter, note.octave), key_alter.get(note.letter, 0))))
    return result


def _name(note: Note, alter: int, natural: bool = False) -> str:
    sign = "♮" if natural and alter == 0 else _SIGN.get(alter, "")
    return f"{note.letter}{sign}{note.octave}"


def _extreme(abc: str, number: int, pick: Callable) -> str | None:
    notes = [(n, a) for bar, key in _numbered_bars(abc).get(number, []) for n, a in _sounding(bar, key)]
    if not notes:
        return None
    note, alter = pick(notes, key=lambda item: 12 * item[0].octave + SEMITONE[item[0].letter] + item[1])
    return _name(note, alter)


def highest(abc: str, number: int) -> str | None:
    return _extreme(abc, number, max)


def lowest(abc: str, number: int) -> str | None:
    return _extreme(abc, number, min)


def accidentals(abc: str, number: int, detail: bool) -> str | None:
    bars = _numbered_bars(abc).get(number)
    if not bars:
        return None
    named = list(dict.fromkeys(_name(n, n.alter, natural=True) for bar, _ in bars for n in bar.notes
                               if not n.is_rest and n.alter is not None))
    if not named:
        return "No"
    return f"Yes, {'; '.join(named)}" if detail else "Yes"


def repeat_sign(abc: str, first: int, last: int) -> str | None:
    numbered = _numbered_bars(abc)
    bars = [bar for number in range(first, last + 1) for bar, _ in numbered.get(number, [])]
    if not bars:
        return None
    return "Yes" if any(":" in bar.left or ":" in bar.right for bar in bars) else "No"


def instruments(abc: str) -> str | None:
    names = list(dict.fromkeys(re.findall(r'^V:\S+.*?\bnm="([^"]+)"', abc, re.MULTILINE)))
    return "; ".join(names) or None


def anacrusis(abc: str) -> str | None:
    numbered = _numbered_bars(abc)
    return ("Yes" if 0 in numbered else "No") if numbered else None


def _measure_rule(text: str) -> tuple[int, int] | None:
    match = _MEASURE.search(text)
    if not match:
        return None
    first = int(match.group(1))
    return first, int(match.group(2) or first)


_HEADER_RULES: list[tuple[str, Callable[[str], str | None]]] = [
    (r"time signature", time_signature),
    (r"\bkey\b", key_name),
    (r"beats per minute|metronome", tempo_bpm),
    (r"\bcomposers?\b", lambda abc: _field(abc, "C")),
    (r"\btitle\b", lambda abc: _field(abc, "T")),
    (r"\bclef\b", clefs),
    (r"\binstruments?\b", instruments),
    (r"anacrusis|upbeat", anacrusis),
]


def answer_msu(question: str, abc: str) -> str | None:
    """The answer to a Level 1-2 question the score text determines, else ``None``."""
    text = question.lower()
    span = _measure_rule(text)
    try:
        if span is not None:
            first, last = span
            if "highest pitch" in text:
                return highest(abc, first)
            if "lowest pitch" in text:
                return lowest(abc, first)
            if "accidental" in text:
                return accidentals(abc, first, detail=any(w in text for w in ("what", "which")))
            if "repeat sign" in text:
                return repeat_sign(abc, first, last)
            return None
        for pattern, rule in _HEADER_RULES:
            if re.search(pattern, text):
                return rule(abc)
    except (ValueError, KeyError, ZeroDivisionError):  # unreadable field values: abstain rather than guess
        return None
    return None
