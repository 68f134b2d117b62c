"""Check an ABC conversion against its source: back through abctoolkit's abc2xml, bar by bar.

Two checks: every ABC voice has as many numbered bars as its MusicXML part has measures, and each
bar of the round-tripped MusicXML holds the same set of written pitches as the source bar (per
part when the round trip keeps the parts, else the union over parts). music21's ABC reader is not
used: it drops accidentals and voices, so it would hide exactly the errors this is meant to find.
Notes the source hides (``print-object="no"``) are left out of the source side, as xml2abc skips them.
"""

from __future__ import annotations

import contextlib
import io
import threading
from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

from abctoolkit import abc2xml as _a2x

from scoreqa.scores.to_abc import AbcScore

Pitch = tuple[str, float, int]
_LOCK = threading.Lock()


@dataclass
class Validation:
    """The outcome for one score; ``ok`` when both checks pass. ``reason`` says why not, briefly."""

    ok: bool
    reason: str = ""
    bar_counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # voice -> (ABC bars, source measures)
    bad_bars: list[dict] = field(default_factory=list)                     # first mismatching bars, for the log


def pitch_sets(part: ET.Element) -> list[set[Pitch]]:
    """Written pitches per measure of one ``<part>`` (rests, unpitched and hidden notes excluded)."""
    measures = []
    for measure in part.findall("measure"):
        pitches = set()
        for note in measure.iter("note"):
            pitch = note.find("pitch")
            if pitch is None or note.get("print-object") == "no":
                continue
            pitches.add((pitch.findtext("step", "").strip(), round(float(pitch.findtext("alter") or 0), 2),
                         int(pitch.findtext("octave", "0"))))
        measures.append(pitches)
    return measures


def roundtrip(abc_text: str) -> ET.Element:
    """The MusicXML abc2xml makes of ``abc_text``; raises ``ValueError`` with abc2xml's messages."""
    log = io.StringIO()
    with _LOCK, contextlib.redirect_stderr(log), contextlib.redirect_stdout(log):
        docs = _a2x.getXmlDocs(abc_text)
    if not docs:
        messages = [line.strip("- ") for line in log.getvalue().splitlines() if line.strip()]
        raise ValueError("abc2xml could not read the ABC: " + ("; ".join(messages[-3:]) or "no output"))
    return docs[0]


def validate(abc: AbcScore, source: ET.Element, max_reported: int = 5) -> Validation:
    """Compare ``abc`` (from :func:`scoreqa.scores.to_abc.convert_tree`) with the ``source`` tree it came from."""
    source_parts = source.findall("part")
    bar_counts = {voice: (len(labels), len(source_parts[abc.voice_part.get(voice, 0)].findall("measure")))
                  for voice, labels in abc.bars.items()}
    wrong_counts = {v: c for v, c in bar_counts.items() if c[0] != c[1]}
    if wrong_counts:
        return Validation(False, f"bar count differs (voice: ABC, source): {wrong_counts}", bar_counts)
    try:
        back = roundtrip(abc.text)
    except Exception as err:  # abc2xml raises anything from deep inside its parser
        return Validation(False, f"abc2xml failed: {err}", bar_counts)
    want = [pitch_sets(p) for p in source_parts]
    got = [pitch_sets(p) for p in back.findall("part")]
    used_parts = sorted(set(abc.voice_part.values()))
    want = [want[i] for i in used_parts] if used_parts else want
    if len(want) != len(got):  # abc2xml regrouped the staves: compare the whole score bar by bar
        want, got = [_union(want)], [_union(got)]
    bad: list[dict] = []
    for index, (source_bars, back_bars) in enumerate(zip(want, got)):
        if len(source_bars) != len(back_bars):
            return Validation(False, f"round trip has {len(back_bars)} bars in part {index + 1}, source "
                                     f"{len(source_bars)}", bar_counts)
        labels = [m.get("number", "") for m in source_parts[used_parts[index] if len(used_parts) == len(want)
                                                            else 0].findall("measure")]
        for position, (a, b) in enumerate(zip(source_bars, back_bars)):
            if a != b:
                bad.append({"part": index + 1, "measure": labels[position] if position < len(labels) else position,
                            "missing": sorted(_spn(p) for p in a - b), "extra": sorted(_spn(p) for p in b - a)})
    if bad:
        return Validation(False, f"{len(bad)} bar(s) with different pitches, first: {bad[0]}", bar_counts,
                          bad[:max_reported])
    return Validation(True, "", bar_counts)


def _union(parts: list[list[set[Pitch]]]) -> list[set[Pitch]]:
    length = max((len(p) for p in parts), default=0)
    return [set().union(*(p[i] for p in parts if i < len(p))) for i in range(length)]


def _spn(pitch: Pitch) -> str:
    step, alter, octave = pitch
    accidental = {-2: "bb", -1: "b", 0: "", 1: "#", 2: "##"}.get(int(alter), f"({alter:+g})") if alter == int(alter) \
        else f"({alter:+g})"
    return f"{step}{accidental}{octave}"
