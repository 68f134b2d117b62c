"""Score reconstruction: validity via abc2xml, bar-count match, per-bar pitch-set F1 (hand-checked)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from scoreqa.metrics.reconstruction import bar_pitches, extract_abc, score_transcription

SOURCE = """<score-partwise version="4.0"><part-list><score-part id="P1"><part-name>Flute</part-name></score-part>
</part-list><part id="P1">
<measure number="1"><attributes><divisions>1</divisions><key><fifths>0</fifths></key><time><beats>2</beats>
<beat-type>4</beat-type></time><clef><sign>G</sign><line>2</line></clef></attributes>
<note><pitch><step>C</step><octave>5</octave></pitch><duration>1</duration><type>quarter</type></note>
<note><pitch><step>E</step><octave>5</octave></pitch><duration>1</duration><type>quarter</type></note></measure>
<measure number="2"><note><pitch><step>F</step><alter>1</alter><octave>5</octave></pitch><duration>2</duration>
<type>half</type></note></measure></part></score-partwise>"""


@pytest.fixture(scope="module")
def source() -> ET.Element:
    return ET.fromstring(SOURCE)


def test_source_pitch_sets(source):
    assert bar_pitches(source) == [{("C", 0.0, 5), ("E", 0.0, 5)}, {("F", 1.0, 5)}]


def test_exact_transcription_scores_one(source):
    result = score_transcription("X:1\nM:2/4\nL:1/4\nK:C\nc e | ^f2 |]", source)
    assert result == {"valid": True, "bar_count_match": True, "pitch_f1": 1.0, "bars": (2, 2)}


def test_wrong_pitch_and_missing_bar_by_hand(source):
    # bar 1 {C5, G5} vs {C5, E5}: TP 1, FP 1, FN 1; bar 2 missing: FN 1 -> F1 = 2 / (2 + 1 + 2)
    result = score_transcription("```abc\nM:2/4\nL:1/4\nK:C\nc g |]\n```", source)
    assert result["valid"] and not result["bar_count_match"]
    assert result["pitch_f1"] == pytest.approx(2 / 5)
    # F natural instead of F sharp in bar 2: TP 2, FP 1, FN 1 -> 4 / 6
    assert score_transcription("M:2/4\nL:1/4\nK:C\nc e | f2 |]", source)["pitch_f1"] == pytest.approx(4 / 6)


def test_unreadable_or_empty_answers_score_zero(source):
    assert score_transcription("", source)["valid"] is False
    assert score_transcription(None, source)["pitch_f1"] == 0.0


def test_abc_extraction():
    assert extract_abc("<think>hm</think>Here:\n```abc\nX:2\nK:C\nC|\n```") == "X:2\nK:C\nC|"
    assert extract_abc("K:C\nC|") == "X:1\nK:C\nC|"
    assert extract_abc("   ") is None
