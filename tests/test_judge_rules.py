"""The rule judge, case by case: each answer type's equivalences, its confusions, and the hedged or
contradictory answers it must leave undecided (None) rather than guess."""

from __future__ import annotations

import pytest

from scoreqa.judge.base import JudgeItem
from scoreqa.judge.rules import RuleJudge

KEY_Q, TIME_Q, BPM_Q = "What is the initial key?", "What is the initial time signature?", \
    "What is the tempo in beats per minute?"
HIGH_Q, LOW_Q = "In measure 1, what is the highest pitch?", "In measure 6, what is the lowest pitch?"
ACC_Q = "In measure 2, is there an accidental, and what is it?"
CAD_Q, ANA_Q = "In measures 177–179, is there a perfect cadence?", "Is there an anacrusis?"
MOTIF_Q = "In which measure does the melodic motif first appear?"
CLEF_Q, REST_Q = "What is the initial clef?", "In measure 19, what is the shortest rest value?"
DYN_Q = "In measure 12, what is the dynamic marking?"
PROG_Q = "In measures 110–111, what is the chord progression (I, II, III, IV, V, VI, VII)?"
DEG_Q = "In measure 27, what scale degree is the first chord? (use I, II, III, IV, V, VI, VII)"
ART_Q, ORN_Q = "In measure 1, what is the articulation marking?", "In measure 25, what is the ornament on note d2?"
REP_Q, OMIT_Q = "In measure 4, what are the repeated notes in the G♭ major chord?", \
    "In measure 3, what note is omitted from the C major chord?"
COMP_Q, TEMPO_Q = "Who is the composer?", "What is the initial tempo indication?"

CASES = [
    # keys
    (KEY_Q, "G minor", "g minor", True), (KEY_Q, "G minor", "Gm", True), (KEY_Q, "A♭ major", "A-flat major", True),
    (KEY_Q, "A♭ major", "Ab major", True), (KEY_Q, "F♯ minor", "f# minor", True), (KEY_Q, "B♭ minor", "Bbm", True),
    (KEY_Q, "F major", "The key signature has one flat, so F major.", True),
    (KEY_Q, "G minor", "B♭ major", False), (KEY_Q, "B♭ minor", "B minor", False), (KEY_Q, "G major", "G minor", False),
    (KEY_Q, "A♭ major", "G# major", None), (KEY_Q, "E minor", "E", None), (KEY_Q, "A minor", "It is in a minor key.", None),
    (KEY_Q, "G minor", "B♭ major / G minor", None), (KEY_Q, "G minor", "Either G minor or B♭ major", False),
    (KEY_Q, "G minor", "Not G minor but B♭ major", False), (KEY_Q, "B♭ major", "Not G minor but B♭ major", True),
    # time signatures and metronome marks
    (TIME_Q, "4/4 time", "4/4", True), (TIME_Q, "4/4 time", "common time (4/4)", True),
    (TIME_Q, "3/4 time", "Three-four time", True), (TIME_Q, "4/4 time", "2/2", False),
    (TIME_Q, "2/2 time", "C (common time)", False), (TIME_Q, "4/4 time", "4/4, changing to 3/4 in bar 9", None),
    (BPM_Q, "150 BPM", "♩ = 150", True), (BPM_Q, "150 BPM", "150", True), (BPM_Q, "80 BPM", "Andante, about 80 BPM", True),
    (BPM_Q, "150 BPM", "120", False), (BPM_Q, "80 BPM", "♩ = 76–84", None), (BPM_Q, "48–54 BPM", "around 50 BPM", None),
    (BPM_Q, "48–54 BPM", "48-54 bpm", True), (BPM_Q, "48–54 BPM", "100 BPM", False),
    # pitches
    (HIGH_Q, "C♯5", "C#5", True), (HIGH_Q, "C♯5", "C sharp 5", True), (HIGH_Q, "C4", "middle C", True),
    (HIGH_Q, "F♯6", "F#6 (in the right hand, beat 2)", True), (HIGH_Q, "C♯5", "C5", False),
    (HIGH_Q, "E5", "E♭5", False), (LOW_Q, "G2", "G3", False), (HIGH_Q, "C♯5", "D♭5", None),
    (LOW_Q, "D4", "D", None), (LOW_Q, "D4", "The lowest note is D4 and the highest is A5", None),
    (HIGH_Q, "E5", "E natural 5", None),
    # yes / no, and yes with the notes
    (CAD_Q, "No", "No, it ends on a half cadence.", True), (CAD_Q, "No", "There is no perfect cadence here", True),
    (CAD_Q, "No", "Not a perfect cadence, but an imperfect one.", True), (CAD_Q, "No", "Nope.", True),
    (CAD_Q, "No", "Yes", False), (CAD_Q, "Yes", "No perfect cadence; it's a half cadence.", False),
    (CAD_Q, "No", "No doubt there is one.", None), (CAD_Q, "Yes", "A perfect authentic cadence occurs (V7–I).", None),
    (CAD_Q, "No", "I don't think so", None), (CAD_Q, "No", "Yes and no", None), (CAD_Q, "Yes", "Yes?", None),
    (ANA_Q, "No", "The piece does not start with an anacrusis.", True), (ANA_Q, "Yes", "Yes, a one-beat pickup.", True),
    (ACC_Q, "Yes, B♯3; F𝄪4", "Yes, B#3 and F double-sharp 4", True), (ACC_Q, "Yes, F♯4; A♮4", "Yes: A natural 4, F#4", True),
    (ACC_Q, "Yes, F♯", "Yes, F#4", True), (ACC_Q, "Yes, B♯3; F𝄪4", "Yes, B#3", False), (ACC_Q, "Yes, B♯3; F𝄪4", "No", False),
    (ACC_Q, "Yes, C♯", "No accidentals", False), (ACC_Q, "Yes, C♯", "Yes, there is a C♯ and a G♯", None),
    (ACC_Q, "Yes, B♭3", "Yes, B flat", None), (ACC_Q, "Yes, F♯4; A♮4", "Yes, F♯4 but not A♮4", None),
    (ACC_Q, "Yes, F♯4; A♮4", "Yes, F♯4 and A4", None),
    ("In measure 1, is there a D7 chord?", "No, it’s B7 chord.", "No.", True),
    # measures
    (MOTIF_Q, "Measures 1–3", "bars 1 to 3", True), (MOTIF_Q, "Measures 1–3", "1, 2, 3", True),
    (MOTIF_Q, "Measures 3, 4", "mm. 3–4", True), (MOTIF_Q, "Measures 1–2", "the first two measures", True),
    (MOTIF_Q, "Measure 1", "The motif first appears in measure 1, in the right hand.", True),
    ("Where is the recapitulation located?", "Starting at measure 194", "Measures 194-250", True),
    (MOTIF_Q, "Measures 1–3", "Measure 5", False),
    ("Where is the recapitulation located?", "Starting at measure 56", "Measure 57", False),
    (MOTIF_Q, "Measures 1–2", "Measure 1", None), (MOTIF_Q, "Measure 10", "measure 10 and again in measure 26", None),
    (MOTIF_Q, "Measure 1", "Measure one", None),
    # clefs, durations, dynamics
    (CLEF_Q, "Treble clef; Bass clef", "bass and treble clefs", True), (CLEF_Q, "Treble clef; Bass clef",
                                                                          "G clef and F clef", True),
    (CLEF_Q, "Treble clef; Bass clef", "Grand staff", True), (CLEF_Q, "Treble clef", "Treble clef in both hands", True),
    (CLEF_Q, "Treble clef; Bass clef", "Treble clef", False), ("In measure 8, what is the new clef?", "Tenor clef",
                                                               "C clef", None),
    ("In measure 34, what is the new clef?", "Bass clef", "It changes from treble to bass clef", None),
    (REST_Q, "Eighth rest", "quaver rest", True), (REST_Q, "Eighth rest", "An eighth rest (quaver rest)", True),
    ("In measure 18, what is the shortest note value?", "Thirty-second note", "32nd notes", True),
    (REST_Q, "Sixteenth rest", "1/16 rest", True), ("In measure 5, what is the rhythm?", "Dotted minim",
                                                    "dotted half note", True),
    (REST_Q, "Eighth rest", "sixteenth rest", False), (REST_Q, "Dotted eighth rest", "eighth rest", False),
    (REST_Q, "Eighth rest", "eighth note", None), (REST_Q, "Quarter rest", "A quarter rest and an eighth rest", None),
    (DYN_Q, "f (forte)", "forte", True), (DYN_Q, "p with crescendo", "piano, then crescendo", True),
    (DYN_Q, "Pianissimo (very soft)", "pp", True), (DYN_Q, "mf", "mezzo-forte", True),
    (DYN_Q, "f (forte)", "mf", False), (DYN_Q, "pp", "ppp", False), (DYN_Q, "p with crescendo", "p", False),
    (DYN_Q, "Crescendo", "crescendo to forte", None), (DYN_Q, "poco cresc.", "crescendo", None),
    # Roman numerals: case, figures and order count
    (PROG_Q, "V7–I", "V7 → I", True), (PROG_Q, "V7–I", "V7-I (perfect authentic cadence)", True),
    (PROG_Q, "I-♯ivø65–K64–V7", "I - #ivø6/5 - K6/4 - V7", True), (PROG_Q, "I–V34", "I–V4/3", True),
    (DEG_Q, "V2", "V4/2", True), (DEG_Q, "I", "I (tonic)", True), (PROG_Q, "V7–I46", "V7–I64", True),
    (PROG_Q, "V7–I", "I–V7", False), (PROG_Q, "V7–I", "V–I", False), (PROG_Q, "vi7–ii", "VI7–II", False),
    (DEG_Q, "IV7", "IV", False), (DEG_Q, "I", "i", False), (PROG_Q, "i–V7", "i → V7 → i", False),
    (DEG_Q, "I", "Tonic", None), (PROG_Q, "I–K64–V7", "I–I64–V7", None), (PROG_Q, "V7–I", "I think V7–I", True),
    # articulation, ornaments, chord members, voicing, register, instruments
    (ART_Q, "With Staccato; Accent", "staccato and accents", True), (ART_Q, "With Staccato", "Staccato dots", True),
    (ART_Q, "With Slur; Staccato", "Slurred staccato", True), (ORN_Q, "With Trill", "tr", True),
    (ART_Q, "With Staccato; Accent", "Slur", False), (ART_Q, "With Staccato; Accent", "Staccato", False),
    (ART_Q, "With Slur", "Legato slur", None), (ART_Q, "With Accent", "Marcato", None),
    (ORN_Q, "With Appoggiatura", "Acciaccatura", None), (ORN_Q, "With Upper mordent", "Mordent", None),
    (REP_Q, "Root, third, fifth", "the root, third and fifth", True), (REP_Q, "Root", "The root (D) is doubled", True),
    (OMIT_Q, "No omitted notes", "None, the chord is complete", True), (OMIT_Q, "Fifth", "The fifth is omitted", True),
    (OMIT_Q, "Fifth", "The third", False),
    ("In measure 4, what is the voicing of the G♭ major chord?", "Close position", "closed spacing", True),
    ("In measure 4, what is the voicing of the G♭ major chord?", "Close position", "Open position", False),
    ("In which register is the melody in measure 13?", "Upper–middle register", "middle-upper register", True),
    ("In which register is the melody in measure 13?", "Upper–middle register", "Middle register", None),
    ("In which register is the melody in measure 13?", "Middle register", "Low register", False),
    ("What instruments are used?", "Piano", "Solo piano", True), ("What instruments are used?", "Piano", "Violin", False),
    ("What instruments are used?", "Piano", "Piano and orchestra", None),
    ("What is the performance medium of the piece?", "Orchestra", "Strings, woodwinds and brass", None),
    ("In which voice does the thematic melody first appear?", "Right-hand treble", "Right hand", True),
    ("In which voice does the thematic melody first appear?", "Right-hand treble", "Left hand (bass)", False),
    # composers, tempo and expression terms, textures, titles
    (COMP_Q, "Edvard Grieg", "Grieg", True), (COMP_Q, "Johann Sebastian Bach", "J.S. Bach", True),
    (COMP_Q, "Edvard Grieg", "This piece was composed by Edvard Grieg.", True),
    (COMP_Q, "Claude Denussy", "Claude Debussy", True), (COMP_Q, "Johann Strauss II", "Johann Strauss", None),
    (COMP_Q, "Edvard Grieg", "Johannes Brahms", False), (COMP_Q, "Johann Strauss II", "Johann Strauss I", None),
    (COMP_Q, "Johann Strauss II", "Richard Strauss", None), (COMP_Q, "Felix Mendelssohn Bartholdy",
                                                             "Fanny Mendelssohn", None),
    (COMP_Q, "Модест Мусоргский", "Mussorgsky", None), (COMP_Q, "Johann Sebastian Bach", "C.P.E. Bach", None),
    (TEMPO_Q, "Allegro", "Allegro (fast)", True), (TEMPO_Q, "Allegro", "Tempo: Allegro", True),
    (TEMPO_Q, "Allegro", "Andante", False), (TEMPO_Q, "Lento", "Largo", False), (TEMPO_Q, "Allegro", "Allegro moderato", None),
    (TEMPO_Q, "Allegro non troppo", "Allegro", None), (TEMPO_Q, "Leidenschaftlich", "Appassionato", None),
    ("What is the initial expression marking?", "espress.", "espressivo", True),
    ("What is the most frequently used texture in the piece?", "Homophonic texture", "Homophony", True),
    ("What is the most frequently used texture in the piece?", "Homophonic texture", "Polyphonic", False),
    ("What is the most frequently used accompaniment texture?", "Gentle arpeggio texture", "Arpeggios", None),
    ("What is the most frequently used type of accompaniment in the piece?", "Block chord", "Broken chords", False),
    ("What is the most frequently used type of accompaniment in the piece?", "Broken chord", "Alberti bass", None),
    ("What are the main structural features of the motif?", "Stepwise motion; Leaps", "conjunct motion with skips",
     True),
    ("What are the main structural features of the motif?", "Stepwise motion; Leaps", "Stepwise motion", None),
    ("What are the main structural features of the motif?", "Stepwise motion; Leaps", "Dotted rhythm", False),
    ("What is the title of the work?", "La Campanella", "La campanella (The Little Bell)", True),
    ("What is the title of the work?", "Gnomus", "Gnome", None),
    # anything else: exact text only, case-blind
    ("What is the genre of the piece?", "Sonata", "sonata", True), ("What is the genre of the piece?", "Sonata",
                                                                    "A rondo", None),
]


@pytest.mark.parametrize("question, reference, prediction, expected", CASES)
def test_rule_verdicts(question: str, reference: str, prediction: str, expected: bool | None) -> None:
    verdict = RuleJudge().verdict(question, reference, prediction)
    assert verdict.correct is expected, verdict
    assert verdict.decided_by.startswith("rules:")
    assert (verdict.decided_by == "rules:undecided") == (expected is None)


def test_judge_returns_one_verdict_per_item_in_order_and_names_the_rule() -> None:
    items = [JudgeItem("a", KEY_Q, "G minor", "Gm"), JudgeItem("b", TIME_Q, "4/4 time", "3/4"),
             JudgeItem("c", "What is the genre?", "Sonata", "A rondo"), JudgeItem("d", KEY_Q, "G minor", "  ")]
    verdicts = RuleJudge().judge(items)
    assert [(v.correct, v.decided_by) for v in verdicts] == [
        (True, "rules:key"), (False, "rules:meter"), (None, "rules:undecided"), (False, "rules:empty")]


def test_identity_changes_with_the_rule_set() -> None:
    full, keys_only = RuleJudge().identity(), RuleJudge(rules=[RuleJudge().rules[4]]).identity()
    assert full["judge"] == "rules" and len(full["source"]) == 12
    assert full != keys_only and keys_only["rules"] == ["key"]
