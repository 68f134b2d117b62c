"""Level 3 (harmony, from human analyses only) and level 4 (what can be grounded) candidates.

Not generated, because no reliable ground truth can be computed from the files: motifs (where,
structure, rhythm, ornamentation), formal sections (exposition, recapitulation, transitions),
accompaniment patterns, genre, chord voicing/doubling/omission, suspensions and anticipations.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

from scoreqa.corpus.analysis import Chord, home_key
from scoreqa.corpus.candidates import Candidate, pick, window
from scoreqa.corpus.facts import ScoreFacts
from scoreqa.corpus.formats import measure_span
from scoreqa.corpus.metadata import GENERIC_PART_NAME

DEGREE_HINT = "(Use I, II, III, IV, V, VI, VII)"
# Mean MIDI number of the melody -> MSU-Bench's register words (C4 = 60).
REGISTERS = ((48, "Low register"), (60, "Middle–lower register"), (72, "Middle register"),
             (84, "Upper–middle register"), (999, "High register"))
HOMOPHONIC_AT = 0.8  # share of (quarter-note) beats on which >= 3 of the 4 voices attack together
MELODY_NAMES = re.compile(r"^(soprano|solo voice|voice|voce|melody|cantus|canto|superius)\b", re.IGNORECASE)
VOICE_NAMES = re.compile(r"^(soprano|mezzo|alto|contralto|tenor|baritone|bass|basso|bassus|voice|voce|vox|solo "
                         r"voice|chorus|choir|coro|canto|cantus|superius|altus|quinto|quintus|sesto|sextus|"
                         r"contratenor|tenore|triplum|motetus|[satb]\.?)(?![a-z])", re.IGNORECASE)
ENSEMBLES = {1: "Solo", 2: "Duo", 3: "Trio", 4: "Quartet", 5: "Quintet", 6: "Sextet", 7: "Septet", 8: "Octet"}
ANALYSIS = "human Roman-numeral analysis (Riemenschneider .rntxt via music21)"


def level3(chords: list[Chord], facts: ScoreFacts, rng: random.Random) -> list[Candidate]:
    """Questions on bars in the home key only (a numeral means nothing without its key)."""
    home = home_key(chords)
    labels = facts.unique_labels()
    by_bar: dict[str, list[Chord]] = defaultdict(list)
    for chord in chords:
        by_bar[chord.measure].append(chord)
    bars = facts.by_label()
    # a bar split by a repeat ("4" + "4a") is one measure in the analysis: its chords overrun the score's bar
    fits = {label for label in labels if all(c.offset < _length(bars[label]) for c in by_bar.get(label, []))}
    labels = [label for label in labels if label in fits]
    in_home = [label for label in labels if by_bar.get(label) and all(c.key == home for c in by_bar[label])]
    out: list[Candidate] = []
    starts = [label for label in in_home if by_bar[label][0].beat == 1.0]
    label = pick(rng, starts)
    if label is not None:
        out.append(Candidate(3, "first_chord", f"In measure {label}, what scale degree is the first chord? "
                             f"{DEGREE_HINT}", by_bar[label][0].figure, f"{ANALYSIS}: chord on beat 1, in {home}",
                             (label,)))
    pairs = [(a, b) for a, b in zip(in_home, in_home[1:]) if int(b) == int(a) + 1
             and len(by_bar[a]) + len(by_bar[b]) <= 6]
    pair = pick(rng, pairs)
    if pair is not None:
        figures = [c.figure for c in by_bar[pair[0]] + by_bar[pair[1]]]
        out.append(Candidate(3, "progression", f"In {measure_span(*pair)}, what is the chord progression? "
                             f"{DEGREE_HINT}", "–".join(figures), f"{ANALYSIS}: every labelled chord, in {home}",
                             pair))
    span = window(rng, labels, (2, 3))
    if span is not None and int(labels[span[1]]) - int(labels[span[0]]) == span[1] - span[0]:
        first, last = labels[span[0]], labels[span[1]]
        inside = set(labels[span[0]: span[1] + 1])
        cadence = any(c.phrase_end and c.root_position_tonic and c.measure in inside and i > 0
                      and chords[i - 1].root_position_dominant and chords[i - 1].key == c.key
                      for i, c in enumerate(chords))
        out.append(Candidate(3, "perfect_cadence", f"In {measure_span(first, last)}, is there a perfect cadence?",
                             "Yes" if cadence else "No", f"{ANALYSIS}: a phrase ending (||) on root-position I/i "
                             "right after root-position V or V7 of the same key", (first, last)))
    if "1" in labels and by_bar.get("1") and by_bar["1"][0].beat == 1.0:
        first = by_bar["1"][0]
        answer = "Yes" if first.key == home and first.figure in ("I", "i", "I6", "i6", "I64", "i64") else "No"
        out.append(Candidate(3, "begins_on_tonic", "In measure 1, does the music begin on the tonic "
                             "chord of the home key?", answer, f"{ANALYSIS}: first chord of the bar is I/i (any "
                             f"inversion) in {home}", ("1",)))
    return out


def _length(bar) -> float:
    return max((s.offset + s.quarter_length for s in bar.sounds), default=0.0)


def level4(facts: ScoreFacts, rng: random.Random) -> list[Candidate]:
    out = []
    # a lead sheet (or figured bass) leaves the accompanying instruments open
    ensemble = None if facts.chord_symbols else medium(facts.part_names, facts.part_notes)
    if ensemble:
        out.append(Candidate(4, "medium", "What is the performance medium of the piece?", ensemble,
                             "MusicXML parts that play (piano solo, string quartet, SATB choir by name; other "
                             "instrumental ensembles by count; vocal parts beside others: not asked)"))
    labels = facts.unique_labels()
    staff = melody_staff(facts)
    melody = melody_by_bar(facts, staff)
    span = window(rng, [label for label in labels if melody.get(label)], (2, 3, 4))
    if span is not None:
        usable = [label for label in labels if melody.get(label)]
        first, last = usable[span[0]], usable[span[1]]
        order = [bar.label for bar in facts.bars]  # every bar in between, split bars ("7a") included
        pitches = [p for label in order[order.index(first): order.index(last) + 1] for p in melody[label]]
        mean = sum(pitches) / len(pitches)
        out.append(Candidate(4, "melody_register", f"In {measure_span(first, last)}, in which register is the "
                             "melody played?", register(mean), "mean MIDI number of the melody staff's highest note "
                             "per onset (a staff named soprano/voice/melody/cantus, else the top staff); bands <48 "
                             "low, <60 middle–lower, <72 middle, <84 upper–middle, else high", (first, last),
                             {"mean_midi": round(mean, 2), "melody_staff": staff}))
    texture, share = texture_type(facts)
    if texture:
        out.append(Candidate(4, "texture", "What is the most frequently used texture type in the piece?", texture,
                             "one line without chords or chord symbols, not a canon = monophonic; SATB staves with >= 3 voices attacking "
                             f"together on >= {HOMOPHONIC_AT} of the beats = homophonic; otherwise not asked",
                             details={"shared_beats": round(share, 3)}))
    return out


def medium(names: list[str], notes: list[int]) -> str | None:
    """The ensemble the playing parts make, ``None`` when the part list does not tell it.

    Parts that never play are left out. A part per player holds for instruments only: a Soprano or
    Chorus part may be a whole section, so vocal parts name a medium only as a four-part SATB choir
    (a song for solo voice, SATB chorus and piano is six parts but no sextet).
    """
    playing = [name.lower() for name, count in zip(names, notes) if count > 0]
    if not playing or any(GENERIC_PART_NAME.match(n) for n in playing):
        return None  # "MusicXML Part" could be a voice or an instrument
    if [n[:1] for n in playing] == ["s", "a", "t", "b"] and all(VOICE_NAMES.match(n) for n in playing):
        return "SATB choir"
    if any(VOICE_NAMES.match(n) for n in playing):
        return None
    if len(playing) == 1 and re.search(r"piano|pianoforte", playing[0]):
        return "Piano solo"
    if len(playing) == 4 and all(re.search(r"viol|cello", n) for n in playing):
        return "String quartet"
    return ENSEMBLES.get(len(playing))


def register(mean_midi: float) -> str:
    return next(word for bound, word in REGISTERS if mean_midi < bound)


def melody_staff(facts: ScoreFacts) -> int:
    """The staff carrying the melody by convention: a soprano/solo-voice line if named so, else the top staff."""
    return next((i for i, name in enumerate(facts.staff_names) if MELODY_NAMES.match(name)), 0)


def melody_by_bar(facts: ScoreFacts, staff: int = 0) -> dict[str, list[float]]:
    """The highest pitch at each onset of ``staff``, per bar."""
    melody = {}
    for bar in facts.bars:
        onsets: dict[float, float] = {}
        for sound in bar.pitched():
            if sound.part == staff and sound.quarter_length > 0:
                onsets[sound.offset] = max(onsets.get(sound.offset, 0.0), sound.ps)
        melody[bar.label] = [onsets[o] for o in sorted(onsets)]
    return melody


def texture_type(facts: ScoreFacts) -> tuple[str | None, float]:
    """("Monophonic texture" | "Homophonic texture" | None, share of beats the voices attack together).

    Grounded cases only: a single line with no chords, chord symbols or figures (and not a canon) is monophonic; a four-part vocal score (staves
    Soprano, Alto, Tenor, Bass) in which at least three voices attack together on ``HOMOPHONIC_AT``
    of the beats is homophonic (chorale/hymn style). Rhythmic independence does not prove polyphony (a
    melody over an accompaniment is homophonic), so anything else is not asked.
    """
    if facts.chord_symbols or facts.canon:
        return None, 0.0  # a melody with chord symbols implies an accompaniment; a canon's line is sung in parts
    if facts.staff_count == 1:
        chords = any(len({s.ps for s in bar.pitched() if s.offset == sound.offset and s.quarter_length > 0}) > 1
                     for bar in facts.bars for sound in bar.pitched())
        return (None, 0.0) if chords else ("Monophonic texture", 1.0)
    voices = [next((i for i, n in enumerate(facts.staff_names) if n.lower().startswith(v)), None)
              for v in ("soprano", "alto", "tenor", "bass")]
    if None in voices:
        return None, 0.0
    shared = total = 0
    for bar in facts.bars:
        onsets: dict[int, set[float]] = defaultdict(set)
        for sound in bar.pitched():
            if sound.part in voices and sound.quarter_length > 0:
                onsets[sound.part].add(sound.offset)
        beats = {o for attacks in onsets.values() for o in attacks if float(o).is_integer()}
        total += len(beats)
        shared += sum(sum(b in attacks for attacks in onsets.values()) >= 3 for b in beats)
    share = shared / total if total else 0.0
    return ("Homophonic texture", share) if share >= HOMOPHONIC_AT else (None, share)
