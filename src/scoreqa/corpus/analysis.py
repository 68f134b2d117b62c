"""Level-3 ground truth from the human Roman-numeral analyses music21 ships (Riemenschneider chorales).

Only human analyses: automatic chord labelling agrees with them 52-66% of the time, far too little
for a reference answer. music21 parses the ``.rntxt`` (chords, keys, beats); the phrase endings
(``||``) it drops are read from the text here. Before any question is asked, the analysis is
checked against the score: the bass of each labelled chord must be the lowest note sounding in
the score at that bar and beat, for at least ``MIN_ALIGNMENT`` of the chords (catches an analysis
numbered against another edition).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from music21 import converter, roman

from scoreqa.corpus.facts import ScoreFacts

MIN_ALIGNMENT = 0.8
_MEASURE_LINE = re.compile(r"^m(\d+)\s+(.*)$")


@dataclass(frozen=True)
class Chord:
    measure: str          # bar label ("7")
    beat: float
    offset: float         # quarter notes from the start of the bar
    figure: str           # MSU style: "V65", "vii°6", "iiø7", "V7/IV"
    key: str              # "G major"
    root_position_tonic: bool
    root_position_dominant: bool
    bass_pitch_class: int
    phrase_end: bool


def msu_figure(figure: str) -> str:
    """rntxt figure -> MSU-Bench's spelling: ``ii/o6/5`` -> ``iiø65``, ``viio6`` -> ``vii°6``."""
    figure = figure.replace("/o", "ø")
    figure = re.sub(r"(?<=\d)/(?=\d)", "", figure)
    return re.sub(r"(?<=[iv])o", "°", figure)


def phrase_ends(text: str) -> set[tuple[int, float]]:
    """(measure, beat) of every chord an analysis marks with ``||`` (the end of a phrase)."""
    ends: set[tuple[int, float]] = set()
    for line in text.splitlines():
        match = _MEASURE_LINE.match(line.strip())
        if not match:
            continue  # variants (m11var1), metadata, notes
        measure, beat, last = int(match.group(1)), 1.0, None
        for token in match.group(2).split():
            if token == "||":
                if last is not None:
                    ends.add(last)
            elif re.fullmatch(r"b\d+(\.\d+)?", token):
                beat = float(token[1:])
            elif token.endswith(":"):
                continue  # a key
            else:
                last = (measure, beat)
    return ends


def _key_name(k) -> str:
    return f"{k.tonic.name.replace('-', '♭').replace('#', '♯')} {k.mode}"


def read_analysis(path: Path) -> list[Chord]:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    ends = phrase_ends(text)
    chords = []
    for rn in converter.parse(str(path), format="romantext").recurse().getElementsByClass(roman.RomanNumeral):
        measure, beat = int(rn.measureNumber), float(rn.beat)
        numeral = rn.romanNumeral
        root_position = rn.inversion() == 0 and rn.secondaryRomanNumeral is None
        chords.append(Chord(
            measure=str(measure), beat=beat, offset=float(rn.offset), figure=msu_figure(rn.figure),
            key=_key_name(rn.key), root_position_tonic=root_position and numeral in ("I", "i")
            and rn.figure in ("I", "i"),
            root_position_dominant=root_position and numeral == "V" and rn.figure in ("V", "V7"),
            bass_pitch_class=rn.bass().pitchClass, phrase_end=(measure, beat) in ends))
    return chords


def alignment(chords: list[Chord], facts: ScoreFacts) -> float:
    """Share of chords (pickup bar left out) whose bass is the score's lowest sounding note then."""
    bars = facts.by_label()
    checked = agreed = 0
    for chord in chords:
        if chord.measure == "0" or chord.measure not in bars:
            continue
        sounding = [s for s in bars[chord.measure].pitched()
                    if s.offset <= chord.offset + 1e-6 < s.offset + max(s.quarter_length, 1e-6)]
        if not sounding:
            continue
        checked += 1
        agreed += int(round(min(s.ps for s in sounding))) % 12 == chord.bass_pitch_class
    return agreed / checked if checked else 0.0


def home_key(chords: list[Chord]) -> str | None:
    return chords[0].key if chords else None
