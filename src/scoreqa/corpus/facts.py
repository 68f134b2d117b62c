"""What music21 reads off a (normalised) MusicXML score, bar by bar: the ground truth of the questions.

Conventions (recorded in each question's ``meta["method"]``):
* pitches are *written* pitches of every printed note, grace notes included, over all parts;
* an accidental is one printed in the bar (MusicXML ``<accidental>``), naturals included;
* a bar is known by its MusicXML number (pickup = 0, see :mod:`scoreqa.scores.numbering`);
  bars whose number repeats (a bar split by a repeat) are never asked about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from music21 import bar, clef, converter, dynamics, key, meter, note, stream, tempo
from music21.analysis.discrete import DiscreteAnalysisException

from scoreqa.corpus.formats import clef_name, key_from_fifths, spn, time_name


@dataclass
class Sound:
    """One note or rest as the page shows it."""

    offset: float            # quarter notes from the start of the bar
    part: int
    pitch: tuple[str, float, int] | None   # (step, alter, octave); None for a rest
    ps: float | None
    accidental: str | None   # printed accidental as SPN ("F♯4", "E♮4"), else None
    value: tuple[str, int] | None          # (type, dots); None for grace notes / unnamed values
    quarter_length: float
    full_bar_rest: bool = False


@dataclass
class BarFacts:
    label: str
    time: str | None = None                 # "3/4" in effect
    fifths: int | None = None               # key signature in effect
    sounds: list[Sound] = field(default_factory=list)
    dynamics: list[str] = field(default_factory=list)
    clef_changes: list[str] = field(default_factory=list)
    key_change: int | None = None           # new signature (fifths) starting in this bar
    key_change_mode: str | None = None
    time_change: str | None = None          # new time signature starting in this bar
    repeat: bool = False

    def pitched(self) -> list[Sound]:
        return [s for s in self.sounds if s.pitch is not None]

    def highest(self) -> Sound | None:
        return max(self.pitched(), key=lambda s: s.ps, default=None)

    def lowest(self) -> Sound | None:
        return min(self.pitched(), key=lambda s: s.ps, default=None)

    def accidentals(self) -> list[str]:
        ordered = sorted((s for s in self.sounds if s.accidental), key=lambda s: (s.offset, s.part))
        return list(dict.fromkeys(s.accidental for s in ordered))


@dataclass
class ScoreFacts:
    bars: list[BarFacts]
    part_names: list[str]                     # one per MusicXML part, possibly repeated or empty
    initial_clefs: list[str]
    initial_time: str | None
    initial_fifths: int | None
    initial_mode: str | None                # from the file's <mode>, when it has one
    tempo_bpm: float | None
    tempo_text: str | None
    staff_names: list[str]                    # music21 parts, top to bottom: a piano's two staves are two
    part_notes: list[int] = field(default_factory=list)  # printed pitched notes per MusicXML part (0 = silent)
    chord_symbols: int = 0                  # MusicXML <harmony> (lead-sheet chords) and <figured-bass> marks
    analysed_key: str | None = None         # music21's Krumhansl-Schmuckler estimate over the whole score
    canon: bool = False                     # titled a canon/round: one written line, several sung

    @property
    def staff_count(self) -> int:
        return len(self.staff_names)

    def bar(self, label: str) -> BarFacts:
        return self.by_label()[label]

    def by_label(self) -> dict[str, BarFacts]:
        return {b.label: b for b in self.bars}

    def unique_labels(self) -> list[str]:
        """Bars with a plain number that occurs once, pickup excluded: the ones a question may name."""
        counts: dict[str, int] = {}
        for b in self.bars:
            counts[b.label] = counts.get(b.label, 0) + 1
        return [b.label for b in self.bars if b.label.isdigit() and b.label != "0" and counts[b.label] == 1]


def _label(measure: stream.Measure) -> str:
    return f"{measure.number}{measure.numberSuffix or ''}"


def _sound(element: note.GeneralNote, part: int, bar_length: float) -> list[Sound]:
    if element.style.hideObjectOnPrint:
        return []
    value = None
    grace = element.duration.isGrace
    if not grace and element.duration.type in ("breve", "whole", "half", "quarter", "eighth", "16th", "32nd",
                                                "64th", "128th") and not element.duration.tuplets:
        value = (element.duration.type, element.duration.dots)
    if isinstance(element, note.Rest):
        full = bool(element.fullMeasure is True or (element.quarterLength == bar_length and bar_length > 0))
        return [Sound(float(element.offset), part, None, None, None, value, float(element.quarterLength), full)]
    sounds = []
    for pitch in element.pitches:
        shown = pitch.accidental is not None and pitch.accidental.displayStatus
        printed = spn(pitch.step, pitch.accidental.alter if pitch.accidental else 0, pitch.octave,
                      natural=True) if shown else None
        sounds.append(Sound(float(element.offset), part, (pitch.step, pitch.alter, pitch.octave), pitch.ps,
                            printed, value, 0.0 if grace else float(element.quarterLength)))
    return sounds


def _clef(c: clef.Clef) -> str | None:
    try:
        return clef_name(c.sign or "", c.line, c.octaveChange or 0)
    except ValueError:
        return None


def read_facts(musicxml: Path) -> ScoreFacts:
    """Parse ``musicxml`` with music21 and collect every fact the questions and fact sheet use."""
    score = converter.parse(str(musicxml), format="musicxml")
    parts = list(score.parts)
    measures_by_part = [list(p.getElementsByClass(stream.Measure)) for p in parts]
    labels = [_label(m) for m in measures_by_part[0]]
    bars = [BarFacts(label=label) for label in labels]
    reference = len(parts) - 1  # key signatures are read from the lowest part: never a transposing one here
    current_time: str | None = None
    fifths_now: dict[int, int] = {}
    clefs_now: dict[int, str | None] = {}
    initial_mode = None
    for index, fact in enumerate(bars):
        for part_index, measures in enumerate(measures_by_part):
            if index >= len(measures):
                continue
            measure = measures[index]
            for ts in measure.getElementsByClass(meter.TimeSignature):
                if index > 0 and ts.ratioString != current_time:
                    fact.time_change = ts.ratioString
                current_time = ts.ratioString
            for ks in measure.getElementsByClass(key.KeySignature):
                mode = ks.mode if isinstance(ks, key.Key) else None
                if part_index == reference:
                    if index == 0:
                        initial_mode = mode
                    elif ks.sharps != fifths_now.get(part_index):
                        fact.key_change, fact.key_change_mode = ks.sharps, mode
                fifths_now[part_index] = ks.sharps
            bar_length = float(measure.barDuration.quarterLength)
            for c in sorted(measure.getElementsByClass(clef.Clef), key=lambda c: c.offset):
                name = _clef(c)
                # a clef printed after the bar's last note announces the next bar's clef
                target = bars[index + 1] if c.offset >= bar_length and index + 1 < len(bars) else fact
                if (index > 0 or c.offset > 0) and name and name != clefs_now.get(part_index) \
                        and name not in target.clef_changes:
                    target.clef_changes.append(name)
                clefs_now[part_index] = name
            for element in measure.recurse().notesAndRests:
                fact.sounds.extend(_sound(element, part_index, bar_length))
            for mark in measure.recurse().getElementsByClass(dynamics.Dynamic):
                if mark.value not in fact.dynamics:
                    fact.dynamics.append(mark.value)
            if any(isinstance(line, bar.Repeat) for line in (measure.leftBarline, measure.rightBarline)):
                fact.repeat = True
        fact.time, fact.fifths = current_time, fifths_now.get(reference)
    opening = _opening_tempo(measures_by_part)
    return ScoreFacts(
        bars=bars,
        part_names=part_names(Path(musicxml)),
        part_notes=part_note_counts(Path(musicxml)),
        chord_symbols=chord_symbol_count(Path(musicxml)),
        analysed_key=_analysed_key(score),
        canon=titled_canon(Path(musicxml)),
        initial_clefs=list(dict.fromkeys(n for p in parts if (n := _first_clef(p)))),
        initial_time=bars[0].time if bars else None,
        initial_fifths=bars[0].fifths if bars else None,
        initial_mode=initial_mode,
        tempo_bpm=opening[0],
        tempo_text=opening[1],
        staff_names=[(p.partName or "").strip() for p in parts],
    )


def _first_clef(part: stream.Part) -> str | None:
    first = part.recurse().getElementsByClass(clef.Clef).first()
    return _clef(first) if first is not None else None


def part_names(musicxml: Path) -> list[str]:
    """The MusicXML parts' names in score order (one per part: a piano's two staves are one part)."""
    root = ET.parse(musicxml).getroot()
    return [(p.findtext("part-name") or "").strip() for p in root.findall("part-list/score-part")]


def part_note_counts(musicxml: Path) -> list[int]:
    """Printed pitched notes of each MusicXML part (score order): a part with none never plays."""
    root = ET.parse(musicxml).getroot()
    return [sum(n.find("pitch") is not None and n.get("print-object") != "no" for n in part.iter("note"))
            for part in root.findall("part")]


def chord_symbol_count(musicxml: Path) -> int:
    """Chord symbols and figured-bass marks: harmony the page implies without writing it as notes."""
    root = ET.parse(musicxml).getroot()
    return sum(1 for _ in root.iter("harmony")) + sum(1 for _ in root.iter("figured-bass"))


def titled_canon(musicxml: Path) -> bool:
    """The title or a credit calls the piece a canon or round (a single written line sung polyphonically)."""
    root = ET.parse(musicxml).getroot()
    texts = [root.findtext("work/work-title"), root.findtext("movement-title"),
             *(c.text for c in root.iter("credit-words"))]
    return any(re.search(r"\b(canon|round)\b", text or "", re.IGNORECASE) for text in texts)


def _analysed_key(score: stream.Score) -> str | None:
    """music21's key estimate (``analyze('key')``) in the answers' spelling ("B♭ major"), if it finds one."""
    try:
        found = score.analyze("key")
    except DiscreteAnalysisException:  # a score without pitches: no estimate, so no key question
        return None
    if found is None or found.mode not in ("major", "minor"):
        return None
    tonic = found.tonic
    return f"{spn(tonic.step, tonic.alter, None)} {found.mode}"


def _opening_tempo(measures_by_part: list[list[stream.Measure]]) -> tuple[float | None, str | None]:
    """The printed metronome number and tempo word at the very start (first bar, offset 0)."""
    bpm, text = None, None
    for measures in measures_by_part:
        if not measures:
            continue
        for mark in measures[0].recurse().getElementsByClass(tempo.TempoIndication):
            if mark.offset != 0:
                continue
            if isinstance(mark, tempo.MetronomeMark):
                if mark.number is not None and not mark.numberImplicit and bpm is None:
                    bpm = float(mark.number)
                if mark.text and not mark.textImplicit and text is None:
                    text = str(mark.text).strip()
            elif isinstance(mark, tempo.TempoText) and text is None:
                text = str(mark.text).strip()
    return bpm, text


def initial_key_name(facts: ScoreFacts) -> str | None:
    """The opening key when the file states its mode; else ``None`` (see the generator for other sources)."""
    if facts.initial_fifths is None or facts.initial_mode not in ("major", "minor"):
        return None
    return key_from_fifths(facts.initial_fifths, facts.initial_mode)


def opening_time_name(facts: ScoreFacts) -> str | None:
    if not facts.initial_time:
        return None
    numerator, denominator = facts.initial_time.split("/")
    return time_name(numerator, denominator)
