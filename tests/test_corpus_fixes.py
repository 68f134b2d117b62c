"""The classes of error an independent recomputation found (issue 13), on the pieces that showed them:
a default "C major" <mode> on a modal piece, a solo + chorus + piano song counted as a sextet, a lead
sheet called monophonic; and the pickup bar that the source MusicXML numbers 1."""

from __future__ import annotations

import random
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from music21 import converter, harmony

from scoreqa.corpus.build import build_piece
from scoreqa.corpus.catalog import CorpusPiece, pieces
from scoreqa.corpus.facts import ScoreFacts, read_facts
from scoreqa.corpus.level12 import level1
from scoreqa.corpus.level34 import level4, medium
from scoreqa.corpus.metadata import piece_metadata
from scoreqa.scores.mxl import document, normalise, parse
from scoreqa.scores.numbering import has_pickup


def _piece(piece_id: str) -> CorpusPiece:
    return next(p for p in pieces() if p.id == piece_id)


def _facts(piece_id: str, tmp_path: Path) -> tuple[CorpusPiece, ScoreFacts, ET.Element]:
    piece = _piece(piece_id)
    root = normalise(parse(piece.path))
    path = tmp_path / f"{piece_id}.musicxml"
    path.write_text(document(root), encoding="utf-8")
    return piece, read_facts(path), root


def _kinds(candidates) -> dict[str, str]:
    return {c.kind: c.answer for c in candidates}


def test_no_key_question_where_a_default_mode_disagrees_with_the_music(tmp_path: Path):
    """Trecento, no key signature, <mode>major</mode>: the file says C major, the music ends on D."""
    piece, facts, root = _facts("trecento-fava_dicant_nunc_iudei", tmp_path)
    key = root.find("part/measure/attributes/key")
    assert (key.findtext("fifths"), key.findtext("mode")) == ("0", "major")
    score = converter.parse(str(piece.path))
    final = score.parts[-1].recurse().notes.last()
    assert min(p.pitchClass for p in final.pitches) == 2             # the lowest part ends on D
    assert "initial_key" not in _kinds(level1(facts, piece_metadata(piece, root), has_pickup(root), None))


def test_key_question_kept_where_the_music_agrees(tmp_path: Path):
    """BWV 269: one sharp, music21's analysis says G major and the bass ends on G."""
    piece, facts, root = _facts("bach-bwv269", tmp_path)
    assert converter.parse(str(piece.path)).analyze("key").name == "G major"
    candidates = {c.kind: c for c in level1(facts, piece_metadata(piece, root), has_pickup(root), None)}
    assert candidates["initial_key"].answer == "G major"
    assert "checked: music21's key analysis" in candidates["initial_key"].method


def test_song_for_voice_chorus_and_piano_is_no_sextet(tmp_path: Path):
    piece, facts, _ = _facts("liliuokalani-aloha_oe", tmp_path)
    assert facts.part_names == ["Soprano", "Alto", "Tenor", "Bass", "Solo Voice", "Piano"]
    assert "medium" not in _kinds(level4(facts, random.Random(0)))


def test_medium_from_the_parts_that_play():
    quartet = ["Violin I", "Violin II", "Viola", "Violoncello"]
    assert medium(quartet, [5, 5, 5, 5]) == "String quartet"
    assert medium(["Soprano", "Alto", "Tenor", "Bass"], [9, 9, 9, 9]) == "SATB choir"
    assert medium(["Flute", "Oboe", "Piano"], [10, 0, 7]) == "Duo"           # the oboe never plays
    assert medium(["Piano"], [40]) == "Piano solo"
    assert medium(["Soprano", "Alto", "Tenor", "Bass", "Solo Voice", "Piano"], [1] * 6) is None
    assert medium(["Horn", "Soprano", "Alto", "Tenor", "Bass"], [1] * 5) is None   # chorale with a horn
    assert medium(["Violin", "Voice"], [3, 3]) is None
    assert medium(["MusicXML Part", "MusicXML Part"], [3, 3]) is None          # voices or instruments?


def test_lead_sheet_with_chord_symbols_is_not_monophonic(tmp_path: Path):
    piece, facts, _ = _facts("leadsheet-berlinalexandersragtime", tmp_path)
    symbols = converter.parse(str(piece.path)).recurse().getElementsByClass(harmony.ChordSymbol)
    assert facts.staff_count == 1 and len(symbols) == facts.chord_symbols == 19
    kinds = _kinds(level4(facts, random.Random(0)))
    assert "texture" not in kinds and "medium" not in kinds


@pytest.mark.slow
def test_pickup_numbered_1_in_the_source_is_recorded(tmp_path: Path):
    """dichterliebe no. 2 numbers its pickup 1; we say 0, and every bar question names the source's bar too."""
    piece = _piece("schumann_robert-dichterliebe_no2")
    raw = parse(piece.path)
    assert raw.find("part/measure").get("number") == "1"
    record = build_piece(piece, tmp_path / "piece", seed=0)
    assert record["score"]["source_bar_offset"] == 1
    ours = ET.parse(tmp_path / "piece" / "score.musicxml").getroot()
    asked = [q for q in record["questions"] if q["meta"].get("measures")]
    assert asked
    for question in asked:
        meta = question["meta"]
        assert meta["source_bar_offset"] == 1
        assert meta["source_measures"] == [str(int(m) + 1) for m in meta["measures"]]
        for mine, theirs in zip(meta["measures"], meta["source_measures"]):   # the same notes in both files
            notes = [[(n.findtext("pitch/step"), n.findtext("pitch/octave"), n.findtext("duration"))
                      for n in part.find(f"measure[@number='{number}']").iter("note")]
                     for part, number in ((ours.find("part"), mine), (raw.find("part"), theirs))]
            assert notes[0] == notes[1]


def test_catalog_ids_are_unique():
    """PMFC 13.01 ships as .mxl and .xml: one piece, asked once (the .mxl, first in sorted order)."""
    catalog = pieces()
    assert len({p.id for p in catalog}) == len(catalog)
    kyrie = [p for p in catalog if p.id == "trecento-pmfc_13_01-kyrie-summe-clementissime"]
    assert [p.path.suffix for p in kyrie] == [".mxl"]
