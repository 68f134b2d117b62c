"""MusicXML/MXL -> bar-numbered ABC, validated through abc2xml (a few pieces; the full sweep is benchmarks/)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from scoreqa.corpus.catalog import corpus_root
from scoreqa.scores.__main__ import main as scores_cli
from scoreqa.scores.mxl import normalise, parse
from scoreqa.scores.numbering import measure_labels
from scoreqa.scores.to_abc import convert, convert_tree
from scoreqa.scores.validate import validate

BWV269 = corpus_root() / "bach" / "bwv269.mxl"          # pickup, split bars 7/7a and 14/14a, lyrics
JOPLIN = corpus_root() / "joplin" / "maple_leaf_rag.mxl"  # piano, two voices on one staff, voltas
BAR = re.compile(r"^(\[V:(\S+)\] )?(?P<music>.*) %(?P<label>\S+)$")

# A tiny score with a pickup numbered 1 (as some editors do), a junk part name, an empty <accidental/>
# and a lyric line named "chorus" (xml2abc crashes on the last two).
TINY = """<?xml version="1.0" encoding="UTF-8"?>
<score-partwise version="3.1">
  <part-list><score-part id="P1"><part-name>Flute\t\n  1</part-name></score-part></part-list>
  <part id="P1">
    <measure number="1">
      <attributes><divisions>1</divisions><key><fifths>1</fifths><mode>major</mode></key>
        <time><beats>3</beats><beat-type>4</beat-type></time><clef><sign>G</sign><line>2</line></clef></attributes>
      <note><pitch><step>D</step><octave>5</octave></pitch><duration>1</duration><type>quarter</type>
        <accidental/><lyric number="chorus"><syllabic>single</syllabic><text>la</text></lyric></note>
    </measure>
    <measure number="2">
      <note><pitch><step>G</step><octave>4</octave></pitch><duration>2</duration><type>half</type></note>
      <note><pitch><step>C</step><alter>1</alter><octave>5</octave></pitch><duration>1</duration><type>quarter</type>
        <accidental>sharp</accidental></note>
    </measure>
    <measure number="3">
      <note><pitch><step>D</step><octave>5</octave></pitch><duration>3</duration><type>half</type><dot/></note>
    </measure>
  </part>
</score-partwise>
"""


def _bars(text: str) -> dict[str, list[str]]:
    """voice -> bar labels, read back from the ABC text (voice blocks or [V:n] lines)."""
    voices: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if re.fullmatch(r"V:\S+", line):
            current = line[2:]
            continue
        match = BAR.match(line)
        if match and current is not None or (match and match.group(2)):
            voices.setdefault(match.group(2) or current, []).append(match.group("label"))
    return voices


def test_bwv269_bars_carry_musicxml_numbers_and_validate():
    abc = convert(BWV269, title="Aus meines Herzens Grunde", composer="Johann Sebastian Bach")
    labels = measure_labels(normalise(parse(BWV269)))
    assert labels[:9] == ["0", "1", "2", "3", "4", "5", "6", "7", "7a"]
    lines = abc.text.splitlines()
    header = [line[0] for line in lines[: lines.index("V:1")] if line[1:2] == ":"]
    assert header == ["X", "T", "C", "M", "L", "K", "V", "V", "V", "V"]   # no Q: the chorale has no tempo
    assert lines[1:5] == ["T:Aus meines Herzens Grunde", "C:Johann Sebastian Bach", "M:3/4", "L:1/8"]
    assert _bars(abc.text) == {voice: labels for voice in "1234"}
    assert abc.bars == {voice: labels for voice in "1234"}
    assert any(line.startswith("w:") for line in lines)                  # lyrics kept, never counted as bars
    assert "G2 | %0" in lines and "!fermata!G4 :| %7" in lines and "B2 | %7a" in lines
    assert validate(abc, normalise(parse(BWV269))).ok


@pytest.mark.parametrize("path", [JOPLIN, corpus_root() / "mozart" / "k545" / "movement1_exposition.mxl"])
@pytest.mark.parametrize("interleaved", [False, True])
def test_round_trip_bar_counts_and_pitches(path: Path, interleaved: bool):
    root = normalise(parse(path))
    abc = convert_tree(root, source=str(path), interleaved=interleaved)
    check = validate(abc, root)
    assert check.ok, check.reason
    measures = len(root.find("part").findall("measure"))
    assert set(check.bar_counts.values()) == {(measures, measures)}
    assert {v: len(b) for v, b in _bars(abc.text).items()} == {v: measures for v in abc.bars}
    if interleaved:
        assert re.search(r"^\[V:1\] .* %1\n(w:.*\n)*\[V:2\] .* %1$", abc.text, re.MULTILINE)


def test_validation_catches_a_wrong_pitch_and_a_lost_bar():
    root = normalise(parse(BWV269))
    abc = convert_tree(root, source="bwv269")
    wrong = abc.text.replace("d4 c2 | %5", "e4 c2 | %5")   # soprano bar 5: D5 -> E5
    assert wrong != abc.text
    check = validate(type(abc)(wrong, abc.voice_part, abc.bars), root)
    assert not check.ok and check.bad_bars[0]["measure"] == "5"
    assert check.bad_bars[0]["missing"] == ["D5"] and check.bad_bars[0]["extra"] == ["E5"]
    fewer = dict(abc.bars, **{"2": abc.bars["2"][:-1]})
    check = validate(type(abc)(abc.text, abc.voice_part, fewer), root)
    assert not check.ok and "bar count differs" in check.reason and "'2': (23, 24)" in check.reason


def _write_mxl(path: Path, xml_bytes: bytes, inner: str) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.recordare.musicxml")
        archive.writestr("META-INF/container.xml",
                         f'<container><rootfiles><rootfile full-path="{inner}"/></rootfiles></container>')
        archive.writestr(inner, xml_bytes)
    return path


def test_mxl_with_utf16_musicxml_inside_and_junk_part_name(tmp_path: Path):
    utf16 = TINY.replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16")
    mxl = _write_mxl(tmp_path / "tiny.mxl", utf16, "score/tiny.musicxml")
    abc = convert(mxl)
    assert 'V:1 treble nm="Flute 1"' in abc.text.splitlines()
    assert abc.bars == {"1": ["0", "1", "2"]}        # the pickup numbered 1 in the file becomes 0
    assert "d2 | %0" in abc.text and "G4 ^c2 | %1" in abc.text and "d6 | %2" in abc.text
    assert "w: la|" in abc.text
    assert validate(abc, normalise(parse(mxl))).ok


def test_cli_to_abc_writes_and_validates(tmp_path: Path, capsys):
    plain = tmp_path / "tiny.musicxml"
    plain.write_text(TINY, encoding="utf-8")
    assert scores_cli(["to-abc", str(plain), "-o", str(tmp_path / "out.abc")]) == 0
    assert "validated" in capsys.readouterr().out
    text = (tmp_path / "out.abc").read_text(encoding="utf-8")
    assert text.startswith("X:1\n") and "K:G" in text
    assert scores_cli(["to-abc", str(tmp_path / "missing.xml"), "-o", str(tmp_path / "x.abc")]) == 1
    bad = tmp_path / "bad.xml"
    bad.write_text("<score-timewise/>")
    assert scores_cli(["to-abc", str(bad), "-o", str(tmp_path / "x.abc")]) == 1
    assert "timewise" in capsys.readouterr().err


def test_normalised_numbers_are_what_music21_reads(tmp_path: Path):
    """The corpus computes answers with music21 from the normalised file: its measure numbers must agree."""
    from music21 import converter

    root = normalise(parse(BWV269))
    path = tmp_path / "bwv269.musicxml"
    path.write_text(ET.tostring(root, encoding="unicode"), encoding="utf-8")
    measures = converter.parse(str(path)).parts[0].getElementsByClass("Measure")
    assert [f"{m.number}{m.numberSuffix or ''}" for m in measures] == measure_labels(root)
