"""Level 1 (information extraction) and level 2 (notation/localisation) candidates, MSU-Bench's wording."""

from __future__ import annotations

import random

from scoreqa.corpus.candidates import Candidate, pick, window
from scoreqa.corpus.facts import BarFacts, ScoreFacts, initial_key_name, opening_time_name
from scoreqa.corpus.formats import (key_from_fifths, measure_span, signature_name, spn, time_name, tonic_pitch_class,
                                    value_name, yes_list)
from scoreqa.corpus.metadata import GENERIC_PART_NAME, PieceMetadata

MAX_LISTED = 4  # longer lists of accidentals make brittle reference answers


def level1(facts: ScoreFacts, meta: PieceMetadata, pickup: bool, home_key: str | None) -> list[Candidate]:
    out = []
    if meta.composer:
        out.append(Candidate(1, "composer", "Who is the composer?", meta.composer, f"{meta.composer_source}"))
    if meta.title_source:
        out.append(Candidate(1, "title", "What is the title of the piece?", meta.title, meta.title_source))
    key_name, key_method = _initial_key(facts, home_key, meta.tonal)
    if key_name:
        out.append(Candidate(1, "initial_key", "What is the initial key?", key_name, key_method))
    if opening_time_name(facts):
        out.append(Candidate(1, "time_signature", "What is the initial time signature?", opening_time_name(facts),
                             "music21: first TimeSignature of the score"))
    if facts.initial_clefs:
        out.append(Candidate(1, "clefs", "What is the initial clef?", "; ".join(facts.initial_clefs),
                             "music21: first clef of every staff, top to bottom, repeats dropped"))
    names = list(dict.fromkeys(facts.part_names))
    if names and not any(GENERIC_PART_NAME.match(n) for n in names):
        out.append(Candidate(1, "instruments", "What instruments are used?", "; ".join(names),
                             "MusicXML part names, in score order"))
    if facts.tempo_bpm:
        out.append(Candidate(1, "tempo_bpm", "What is the tempo in beats per minute?", f"{facts.tempo_bpm:g} BPM",
                             "music21: printed MetronomeMark number at the start of bar 1"))
    if facts.tempo_text:
        out.append(Candidate(1, "tempo_text", "What is the initial tempo indication?", facts.tempo_text,
                             "music21: printed tempo text at the start of bar 1"))
    out.append(Candidate(1, "anacrusis", "Is there an anacrusis (upbeat measure)?", "Yes" if pickup else "No",
                         "first bar marked implicit or shorter than the opening time signature "
                         "(scoreqa.scores.numbering.has_pickup)"))
    return out


def _initial_key(facts: ScoreFacts, home_key: str | None, tonal: bool) -> tuple[str | None, str]:
    """The opening key, asked only where the declared key agrees with the music (see :func:`_agrees`).

    Declared by the file's mode, else a human analysis, else (tonal music only) signature + bass.
    A MusicXML ``<mode>`` is often an editor's default ("major" on a modal piece without signature),
    so no source is trusted alone.
    """
    named, method = initial_key_name(facts), "MusicXML <key><mode> of the opening key signature"
    if not named and home_key:
        named, method = home_key, "first key of the human Roman-numeral analysis (.rntxt)"
    if not named and tonal and facts.initial_fifths is not None and facts.bars:
        named, method = _key_from_bass(facts)
    if not named or not _agrees(facts, named):
        return None, ""
    return named, f"{method}; checked: music21's key analysis finds {named} and the final bass note is its tonic"


def _key_from_bass(facts: ScoreFacts) -> tuple[str | None, str]:
    first, last = _outer_bass(facts.bars[0], first_onset=True), _outer_bass(facts.bars[-1], first_onset=False)
    for mode in ("major", "minor"):
        name = key_from_fifths(facts.initial_fifths, mode)
        if first is not None and last is not None and first % 12 == last % 12 == tonic_pitch_class(name):
            return name, ("key signature + mode from the bass: the first and the last bass notes are both the "
                          f"tonic of {name}")
    return None, ""


def _agrees(facts: ScoreFacts, declared: str) -> bool:
    """music21's key estimate is ``declared`` and the last bass note is its tonic (a modal piece ending on D
    with a default "C major" <mode> fails both)."""
    last = _outer_bass(facts.bars[-1], first_onset=False) if facts.bars else None
    return facts.analysed_key == declared and last is not None and last % 12 == tonic_pitch_class(declared)


def _outer_bass(bar: BarFacts, first_onset: bool) -> int | None:
    pitched = bar.pitched()
    if not pitched:
        return None
    edge = min(s.offset for s in pitched) if first_onset else max(s.offset for s in pitched)
    return int(round(min(s.ps for s in pitched if s.offset == edge)))


def level2(facts: ScoreFacts, rng: random.Random) -> list[Candidate]:
    bars = facts.by_label()
    labels = facts.unique_labels()
    out: list[Candidate] = []

    def extreme(kind: str, word: str, choose) -> None:
        fitting = [label for label in labels if _unambiguous(bars[label], choose)]
        label = pick(rng, fitting)
        if label is not None:
            sound = choose(bars[label])
            out.append(Candidate(2, kind, f"In measure {label}, what is the {word} pitch?", spn(*sound.pitch),
                                 f"music21: {word} written pitch (by MIDI number) over all parts, grace notes "
                                 "included", (label,)))

    extreme("highest_pitch", "highest", BarFacts.highest)
    extreme("lowest_pitch", "lowest", BarFacts.lowest)
    fitting = [label for label in labels if len(bars[label].accidentals()) <= MAX_LISTED]
    label = pick(rng, fitting)
    if label is not None:
        out.append(Candidate(2, "accidentals", f"In measure {label}, is there an accidental? Which note does it "
                             "affect?", yes_list(bars[label].accidentals()),
                             "music21: notes whose accidental is printed in the bar (naturals included), in time "
                             "order, repeats dropped", (label,)))
    label = pick(rng, [label for label in labels if bars[label].dynamics])
    if label is not None:
        out.append(Candidate(2, "dynamics", f"In measure {label}, what is the dynamic marking?",
                             "; ".join(bars[label].dynamics), "music21: Dynamic marks in the bar, in order",
                             (label,)))
    for rest in (False, True):
        for longest in (False, True):
            _value_question(out, rng, labels, bars, rest, longest)
    _change_questions(out, rng, facts)
    span = window(rng, labels, (4, 5, 6, 8))
    if span is not None:
        first, last = labels[span[0]], labels[span[1]]
        inside = _bars_between(facts, first, last)
        answer = "Yes" if any(b.repeat for b in inside) else "No"
        out.append(Candidate(2, "repeats", f"In {measure_span(first, last)}, is there a repeat sign?", answer,
                             "music21: a bar.Repeat as left or right barline of any bar in the range",
                             (first, last)))
    return out


def _unambiguous(bar: BarFacts, choose) -> bool:
    """The extreme note exists and has one spelling (no F♯5/G♭5 tie)."""
    sound = choose(bar)
    if sound is None:
        return False
    return len({s.pitch for s in bar.pitched() if s.ps == sound.ps}) == 1


def _value_question(out, rng, labels, bars, rest: bool, longest: bool) -> None:
    word = ("longest" if longest else "shortest") + (" rest" if rest else " note")
    kind = word.replace(" ", "_") + "_value"

    def answer(bar: BarFacts) -> str | None:
        sounds = [s for s in bar.sounds if (s.pitch is None) == rest and s.quarter_length > 0]
        if not sounds:
            return None
        if rest and any(s.full_bar_rest for s in sounds) and longest:
            return "Whole rest"  # a whole-bar rest is printed as a whole rest in any metre
        sounds = [s for s in sounds if not s.full_bar_rest]
        if not sounds or any(s.value is None for s in sounds):
            return None
        target = (max if longest else min)(s.quarter_length for s in sounds)
        values = {s.value for s in sounds if s.quarter_length == target}
        return value_name(*values.pop(), rest=rest) if len(values) == 1 else None

    label = pick(rng, [label for label in labels if answer(bars[label])])
    if label is not None:
        out.append(Candidate(2, kind, f"In measure {label}, what is the {word} value?", answer(bars[label]),
                             f"music21: {word.split()[0]} duration among the bar's {word.split()[1]}s (grace notes "
                             "left out; a whole-bar rest counts as a whole rest)", (label,)))


def _change_questions(out, rng, facts: ScoreFacts) -> None:
    labels = set(facts.unique_labels())
    changes = [b for b in facts.bars if b.label in labels]
    bar = pick(rng, [b for b in changes if b.clef_changes])
    if bar is not None:
        out.append(Candidate(2, "clef_change", f"In measure {bar.label}, what does the clef change to?",
                             "; ".join(bar.clef_changes), "music21: clefs that differ from the one in force, "
                             "in any staff", (bar.label,)))
    bar = pick(rng, [b for b in changes if b.key_change is not None])
    if bar is not None:
        if bar.key_change_mode in ("major", "minor"):
            answer, how = key_from_fifths(bar.key_change, bar.key_change_mode), "with the file's <mode>"
        else:
            answer, how = signature_name(bar.key_change), "counted as sharps/flats (the file gives no mode)"
        out.append(Candidate(2, "key_change", f"In measure {bar.label}, what does the key signature change to?",
                             answer, f"music21: new KeySignature of the lowest staff, {how}", (bar.label,)))
    bar = pick(rng, [b for b in changes if b.time_change])
    if bar is not None:
        out.append(Candidate(2, "time_change", f"In measure {bar.label}, what does the time signature change to?",
                             time_name(*bar.time_change.split("/")), "music21: new TimeSignature", (bar.label,)))


def _bars_between(facts: ScoreFacts, first: str, last: str) -> list[BarFacts]:
    order = [b.label for b in facts.bars]
    return facts.bars[order.index(first): order.index(last) + 1]
