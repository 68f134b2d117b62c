"""MSU-Bench's answer formats: "F♯4", "G minor", "4/4 time", "Dotted eighth rest", "Treble clef", "Yes, F♯4".

Plain functions of plain values (step/alter/octave, type names) so the generator and the
independent check in the tests format the same way without sharing any music21 code path.
"""

from __future__ import annotations

ACCIDENTAL_SIGNS = {-2: "𝄫", -1: "♭", 0: "", 1: "♯", 2: "𝄪"}
NATURAL_SIGN = "♮"
# MusicXML <type> / music21 duration.type -> MSU's word
VALUE_NAMES = {"breve": "Breve", "whole": "Whole", "half": "Half", "quarter": "Quarter", "eighth": "Eighth",
               "16th": "Sixteenth", "32nd": "Thirty-second", "64th": "Sixty-fourth", "128th": "128th"}
DOTS = {0: "", 1: "Dotted ", 2: "Double-dotted "}
CLEF_NAMES = {("G", 2, 0): "Treble clef", ("G", 2, -1): "Treble 8vb clef", ("G", 2, 1): "Treble 8va clef",
              ("F", 4, 0): "Bass clef", ("F", 4, -1): "Bass 8vb clef", ("F", 3, 0): "Baritone clef",
              ("C", 3, 0): "Alto clef", ("C", 4, 0): "Tenor clef", ("C", 1, 0): "Soprano clef",
              ("C", 2, 0): "Mezzo-soprano clef", ("C", 5, 0): "Baritone clef", ("G", 1, 0): "French violin clef",
              ("percussion", None, 0): "Percussion clef", ("TAB", None, 0): "Tablature"}
DEFAULT_CLEF_LINE = {"G": 2, "F": 4, "C": 3}
SHARP_KEYS = ["C", "G", "D", "A", "E", "B", "F♯", "C♯"]
FLAT_KEYS = ["C", "F", "B♭", "E♭", "A♭", "D♭", "G♭", "C♭"]
MINOR_SHARP = ["A", "E", "B", "F♯", "C♯", "G♯", "D♯", "A♯"]
MINOR_FLAT = ["A", "D", "G", "C", "F", "B♭", "E♭", "A♭"]


def spn(step: str, alter: float, octave: int | None, natural: bool = False) -> str:
    """Scientific pitch notation with MSU's signs: ``("F", 1, 4)`` -> "F♯4"; ``natural`` writes "♮"."""
    sign = ACCIDENTAL_SIGNS.get(int(alter), f"{alter:+g}") if alter == int(alter) else f"({alter:+g})"
    if natural and not sign:
        sign = NATURAL_SIGN
    return f"{step.upper()}{sign}{'' if octave is None else octave}"


def key_from_fifths(fifths: int, mode: str) -> str:
    """``(-2, "minor")`` -> "G minor"; the key a signature of ``fifths`` sharps (+) or flats (-) has in ``mode``."""
    if not -7 <= fifths <= 7 or mode not in ("major", "minor"):
        raise ValueError(f"no key name for fifths={fifths}, mode={mode!r}")
    if mode == "major":
        return f"{(SHARP_KEYS if fifths >= 0 else FLAT_KEYS)[abs(fifths)]} major"
    return f"{(MINOR_SHARP if fifths >= 0 else MINOR_FLAT)[abs(fifths)]} minor"


def tonic_pitch_class(key_name: str) -> int:
    """``"F♯ minor"`` -> 6: the pitch class of a key name written by :func:`key_from_fifths`."""
    tonic = key_name.split()[0]
    alter = sum({"♯": 1, "♭": -1, "𝄪": 2, "𝄫": -2}[sign] for sign in tonic[1:])
    return ({"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}[tonic[0]] + alter) % 12


def signature_name(fifths: int) -> str:
    """A key signature without a mode: "3 flats", "1 sharp", "No sharps or flats"."""
    if fifths == 0:
        return "No sharps or flats"
    count, kind = abs(fifths), "sharp" if fifths > 0 else "flat"
    return f"{count} {kind}{'s' if count > 1 else ''}"


def time_name(numerator: str | int, denominator: str | int) -> str:
    return f"{numerator}/{denominator} time"


def value_name(type_name: str, dots: int, rest: bool) -> str:
    """``("eighth", 1, True)`` -> "Dotted eighth rest"."""
    if type_name not in VALUE_NAMES or dots not in DOTS:
        raise ValueError(f"no name for a {type_name!r} value with {dots} dot(s)")
    word = VALUE_NAMES[type_name]
    text = DOTS[dots] + (word.lower() if dots else word)
    return f"{text} {'rest' if rest else 'note'}"


def clef_name(sign: str, line: int | None, octave_change: int = 0) -> str:
    sign = sign.upper() if sign.upper() in ("G", "F", "C", "TAB") else sign.lower()
    line = line if line is not None else DEFAULT_CLEF_LINE.get(sign)
    name = CLEF_NAMES.get((sign, line, octave_change)) or CLEF_NAMES.get((sign, None, octave_change))
    if name is None:
        raise ValueError(f"no name for clef sign={sign!r} line={line} octave-change={octave_change}")
    return name


def yes_list(items: list[str]) -> str:
    """MSU's "Yes, F♯4; G♯3" / "No"."""
    return f"Yes, {'; '.join(items)}" if items else "No"


def measure_span(first: str, last: str) -> str:
    return f"measure {first}" if first == last else f"measures {first}–{last}"
