"""Rules that answer ABC-Eval's syntax subtasks from the ABC text alone.

* Bar Count Estimation: the number of non-empty segments between barlines.
* Metadata QA: the option equal to the ``K:`` field (key signature; else the one option with the
  same signature and mode), or equal as a fraction to ``M:`` (time signature) or ``L:`` (unit length).
* Error Detection: bars (numbered from 1; the header is bar 0, as the data writes it) holding
  - invalid metadata: a ``K:`` that is no key, an ``L:`` that is not 1/2^n, an ``M:`` that is no meter
    or that almost no bar fills;
  - invalid tokens: letters that are neither notes, rests nor decorations, ``#`` or ``b`` written as text;
  - durations that do not fill the meter (a short first or last bar is an anacrusis, not an error);
  - melodic leaps of a tenth or more (nine diatonic steps) between consecutive notes;
  - accidentals outside the key (a pitch class the key's scale does not hold).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from scoreqa.baselines.symbolic.abc_text import Tune, parse_fraction, parse_tune

_MODES = {"": "major", "maj": "major", "major": "major", "ion": "major", "ionian": "major",
          "m": "minor", "min": "minor", "minor": "minor", "aeo": "minor", "aeolian": "minor",
          "dor": "dorian", "dorian": "dorian", "phr": "phrygian", "phrygian": "phrygian",
          "lyd": "lydian", "lydian": "lydian", "mix": "mixolydian", "mixolydian": "mixolydian",
          "loc": "locrian", "locrian": "locrian"}
_KEY = re.compile(r"^\s*([A-Ga-g])([#b♯♭]?)\s*([A-Za-z]*)")
TENTH_STEPS = 9  # a tenth spans nine diatonic steps
_SHORT_BAR_SHARE = 0.5  # when fewer bars than this fill M:, the meter itself is wrong


def parse_key(text: str | None) -> tuple[str, str] | None:
    """(tonic like ``Bb``, music21 mode) of a ``K:`` value, or ``None`` when it is not a key."""
    if text is None:
        return None
    value = text.strip().split()[0] if text.strip() else ""
    if value.lower() == "none":
        return ("C", "major")
    match = _KEY.match(value)
    if not match or value[match.end():].strip():
        return None
    mode = _MODES.get(match.group(3).lower())
    if mode is None:
        return None
    accidental = {"#": "#", "♯": "#", "b": "b", "♭": "b"}.get(match.group(2), "")
    return match.group(1).upper() + accidental, mode


@lru_cache(maxsize=None)
def key_facts(tonic: str, mode: str) -> tuple[int, frozenset[int], dict[str, int]]:
    """(sharps, scale pitch classes, alteration per letter) of a key, from music21."""
    import music21

    key = music21.key.Key(tonic.replace("b", "-"), mode)
    altered = {p.step: int(p.alter) for p in music21.key.KeySignature(key.sharps).alteredPitches}
    return key.sharps, frozenset(p.pitchClass for p in key.getScale().getPitches()), altered


def count_bars(abc: str) -> str:
    return str(len(parse_tune(abc).bars))


def _normal_key_name(key: tuple[str, str]) -> str:
    return key[0] + ("m" if key[1] == "minor" else "" if key[1] == "major" else key[1][:3])


def key_option(abc: str, options: list[str]) -> int | None:
    """Index of the option naming the tune's key (exact name first, then same signature and mode)."""
    key = parse_key(parse_tune(abc).field("K"))
    if key is None:
        return None
    parsed = [parse_key(option) for option in options]
    exact = [i for i, option in enumerate(parsed) if option and _normal_key_name(option) == _normal_key_name(key)]
    if len(exact) == 1:
        return exact[0]
    same = [i for i, option in enumerate(parsed)
            if option and key_facts(*option)[0] == key_facts(*key)[0] and option[1] == key[1]]
    return same[0] if len(same) == 1 else None


def metadata_option(abc: str, task: str, options: list[str]) -> int | None:
    """Index of the option matching the header field the task asks about (key, meter or unit length)."""
    task = task.lower()
    if "key" in task:
        return key_option(abc, options)
    letter = "M" if "time signature" in task or "meter" in task else "L" if "length" in task else None
    if letter is None:
        return None
    value = parse_fraction(parse_tune(abc).field(letter))
    if value is None:
        return None
    matches = [i for i, option in enumerate(options) if (parse_fraction(option), option.strip()) ==
               (value, parse_tune(abc).field(letter).strip())]
    return matches[0] if len(matches) == 1 else None


def _header_errors(tune: Tune) -> tuple[bool, Fraction | None, Fraction | None]:
    """(metadata is wrong, unit length, meter) — lengths are None when unusable."""
    unit_text, meter_text = tune.field("L"), tune.field("M")
    unit = parse_fraction(unit_text) if unit_text is not None else Fraction(1, 8)
    wrong = False
    if unit is None or unit.numerator != 1 or unit.denominator & (unit.denominator - 1):
        wrong, unit = True, None
    meter = parse_fraction(meter_text) if meter_text not in (None, "none") else None
    if meter_text not in (None, "none") and meter is None:
        wrong = True
    if tune.field("K") is not None and parse_key(tune.field("K")) is None:
        wrong = True
    return wrong, unit, meter


def error_bars(abc: str) -> list[int]:
    """Sorted numbers of the bars breaking a rule (0 = the header)."""
    tune = parse_tune(abc)
    header_wrong, unit, meter = _header_errors(tune)
    flagged: set[int] = {0} if header_wrong else set()
    key = parse_key(tune.field("K")) or ("C", "major")
    _, scale, key_alter = key_facts(*key)
    bars = tune.bars
    for bar in bars:
        if bar.invalid or any(n.text_accidental for n in bar.notes):
            flagged.add(bar.number)
        for note in bar.notes:
            if not note.is_rest and note.alter is not None and note.pitch_class(key_alter) not in scale:
                flagged.add(bar.number)
    if unit is not None and meter is not None and bars:
        expected = meter / unit
        wrong_length = [b for b in bars if b.length() != expected
                        and not (b.length() < expected and b in (bars[0], bars[-1]))]
        if len(wrong_length) > _SHORT_BAR_SHARE * len(bars):
            flagged.add(0)
        else:
            flagged.update(b.number for b in wrong_length)
    previous = None
    for bar in bars:
        for note in bar.notes:
            if note.is_rest:
                continue
            if previous is not None and abs(note.diatonic - previous.diatonic) >= TENTH_STEPS:
                flagged.add(bar.number)
            previous = note
    return sorted(flagged)


def detect_errors(abc: str) -> str:
    """The Error Detection answer: flagged bar numbers concatenated (``"257"``), or ``""`` when none."""
    return "".join(str(n) for n in error_bars(abc))
