"""Generated questions: answers recomputed independently (ElementTree on the MusicXML, a regex read of
the .rntxt, music21's measures() API) for a random sample, formats, determinism, level coverage."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from scoreqa.corpus.analysis import msu_figure, phrase_ends
from scoreqa.corpus.build import build_piece
from scoreqa.corpus.catalog import pieces
from scoreqa.corpus.formats import clef_name, key_from_fifths, signature_name, spn, value_name
from scoreqa.corpus.level34 import register

SIGNS = {"sharp": 1, "flat": -1, "natural": 0, "double-sharp": 2, "sharp-sharp": 2, "flat-flat": -2}


def _midi(step: str, alter: float, octave: int) -> float:
    return 12 * (octave + 1) + {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}[step] + alter


class Oracle:
    """Answers from the MusicXML elements (ElementTree) or music21's own bar bookkeeping, never scoreqa.corpus.facts."""

    def __init__(self, musicxml: Path):
        self.path = musicxml
        self.root = ET.parse(musicxml).getroot()
        self.parts = self.root.findall("part")

    def bars(self, first: str, last: str | None = None) -> list[ET.Element]:
        """The <measure> elements of every part from ``first`` to ``last`` (by position)."""
        labels = [m.get("number") for m in self.parts[0].findall("measure")]
        lo, hi = labels.index(first), labels.index(last or first)
        return [m for p in self.parts for m in p.findall("measure")[lo: hi + 1]]

    def notes(self, label: str) -> list[ET.Element]:
        return [n for m in self.bars(label) for n in m.iter("note") if n.get("print-object") != "no"]

    def pitches(self, label: str) -> list[tuple[str, float, int]]:
        return [(n.findtext("pitch/step"), float(n.findtext("pitch/alter") or 0), int(n.findtext("pitch/octave")))
                for n in self.notes(label) if n.find("pitch") is not None]

    def answer(self, kind: str, measures: list[str]) -> str | None:
        label = measures[0] if measures else None
        if kind in ("highest_pitch", "lowest_pitch"):
            choose = max if kind == "highest_pitch" else min
            return spn(*choose(self.pitches(label), key=lambda p: _midi(*p)))
        if kind == "accidentals":
            printed = [n for n in self.notes(label) if n.find("accidental") is not None and n.find("pitch") is not None]
            shown = sorted({spn(n.findtext("pitch/step"), float(n.findtext("pitch/alter") or 0),
                                int(n.findtext("pitch/octave")), natural=True) for n in printed})
            return f"Yes, {'; '.join(shown)}" if shown else "No"
        if kind == "dynamics":
            marks = [d.tag for m in self.bars(label) for dyn in m.iter("dynamics") for d in dyn]
            return "; ".join(sorted(set(marks)))
        if kind.endswith("_value"):
            return self._value(label, rest="rest" in kind, longest="longest" in kind)
        if kind == "repeats":
            found = any(b.find("repeat") is not None for m in self.bars(*measures) for b in m.findall("barline"))
            return "Yes" if found else "No"
        if kind == "time_signature":
            time = self.root.find("part/measure/attributes/time")
            return f"{time.findtext('beats')}/{time.findtext('beat-type')} time"
        if kind == "time_change":
            time = next(t for m in self.bars(label) for t in m.iter("time"))
            return f"{time.findtext('beats')}/{time.findtext('beat-type')} time"
        if kind == "clefs":
            names = []
            for part in self.parts:
                seen = {}
                for c in part.iter("clef"):
                    seen.setdefault(c.get("number", "1"), clef_name(c.findtext("sign"), int(c.findtext("line") or 0)
                                                                  or None, int(c.findtext("clef-octave-change") or 0)))
                names += [seen[k] for k in sorted(seen)]
            return "; ".join(dict.fromkeys(names))
        if kind == "anacrusis":  # music21's own bar-duration bookkeeping, not scoreqa's MusicXML arithmetic
            first = self._music21().parts[0].getElementsByClass("Measure")[0]
            return "Yes" if first.duration.quarterLength < first.barDuration.quarterLength else "No"
        if kind == "instruments":
            return "; ".join(dict.fromkeys(p.partName for p in self._music21().parts))
        if kind == "tempo_bpm":
            number = self.parts[0].find("measure/direction/direction-type/metronome/per-minute")
            return f"{float(number.text):g} BPM"
        return None

    def _music21(self):
        from music21 import converter

        return converter.parse(str(self.path))

    def _value(self, label: str, rest: bool, longest: bool) -> str:
        """Compares <duration> / <divisions> (parts may count divisions differently)."""
        chosen = []
        labels = [m.get("number") for m in self.parts[0].findall("measure")]
        for part in self.parts:
            measures = part.findall("measure")[: labels.index(label) + 1]
            divisions = [int(d.text) for m in measures for d in m.iter("divisions")][-1]
            chosen += [(n, int(n.findtext("duration")) / divisions) for n in measures[-1].iter("note")
                       if (n.find("rest") is not None) == rest and n.find("grace") is None
                       and n.find("chord") is None and n.get("print-object") != "no"]
        if rest and longest and any(n.find("rest").get("measure") == "yes" for n, _ in chosen):
            return "Whole rest"
        chosen = [(n, length) for n, length in chosen if not (rest and n.find("rest").get("measure") == "yes")]
        edge = (max if longest else min)(length for _, length in chosen)
        names = {value_name(n.findtext("type"), len(n.findall("dot")), rest) for n, length in chosen if length == edge}
        assert len(names) == 1, names
        return names.pop()


@pytest.fixture(scope="module")
def chorale(small_corpus: Path) -> Path:
    """BWV 269 with its Riemenschneider analysis (the only source of level-3 questions), second in the catalog."""
    folder = small_corpus / "scores" / "bach-bwv269"
    assert (folder / "record.json").exists()
    return folder


def _questions(corpus: Path) -> list[dict]:
    return [json.loads(line) for line in (corpus / "questions.jsonl").read_text(encoding="utf-8").splitlines()]


def test_sampled_answers_match_an_independent_recomputation(small_corpus: Path):
    rows = _questions(small_corpus)
    sample = random.Random(1234).sample(rows, min(len(rows), 60))
    checked = {}
    for row in sample:
        oracle = Oracle(small_corpus / "scores" / row["score_id"] / "score.musicxml")
        expected = oracle.answer(row["meta"]["kind"], row["meta"].get("measures", []))
        if expected is None:
            continue
        got = row["reference"]
        if row["meta"]["kind"] in ("accidentals", "dynamics") and got != "No":  # order is not the oracle's concern
            prefix = "Yes, " if got.startswith("Yes, ") else ""
            got = prefix + "; ".join(sorted(got.removeprefix(prefix).split("; ")))
        assert got == expected, (row["id"], row["text"])
        checked[row["meta"]["kind"]] = checked.get(row["meta"]["kind"], 0) + 1
    assert sum(checked.values()) >= 25 and len(checked) >= 8, checked


def test_level3_comes_from_the_human_analysis(chorale: Path):
    record = json.loads((chorale / "record.json").read_text())
    assert record["score"]["analysis"] == "riemenschneider001.rntxt" and record["score"]["analysis_alignment"] > 0.9
    level3 = [q for q in record["questions"] if q["level"] == 3]
    assert len(level3) == 3
    text = (Path(pieces()[0].path).parents[0] / "choraleAnalyses" / "riemenschneider001.rntxt").read_text()
    lines = {m.group(1): m.group(2).split() for m in re.finditer(r"^m(\d+) (.*)$", text, re.MULTILINE)}
    for question in level3:
        kind, measures = question["meta"]["kind"], question["meta"]["measures"]
        tokens = [t for m in range(int(measures[0]), int(measures[-1]) + 1) for t in lines[str(m)]]
        figures = [msu_figure(t) for t in tokens if not re.fullmatch(r"b[\d.]+|\|\||[A-Ga-g][#b-]?:", t)]
        if kind == "first_chord":
            assert lines[measures[0]][0] not in ("b2", "b3") and question["reference"] == figures[0]
        elif kind == "progression":
            assert question["reference"] == "–".join(figures)
        elif kind == "perfect_cadence":
            assert question["reference"] in ("Yes", "No")
        assert "human Roman-numeral analysis" in question["meta"]["method"]
    assert (4, 1.0) in phrase_ends(text) and (7, 1.0) in phrase_ends(text)   # "m4 V || b3 I", "m7 I || b3 I"


def test_register_of_the_melody_via_music21_measures(small_corpus: Path):
    from music21 import converter

    rows = [q for q in _questions(small_corpus) if q["meta"]["kind"] == "melody_register"]
    assert rows
    for row in rows:
        first, last = row["meta"]["measures"]
        score = converter.parse(str(small_corpus / "scores" / row["score_id"] / "score.musicxml"))
        top = score.parts[row["meta"]["melody_staff"]]
        highest: dict[tuple, float] = {}
        for n in top.measures(int(first), int(last)).recurse().notes:
            if n.duration.isGrace:
                continue
            bar = n.getContextByClass("Measure")
            at = (bar.number, bar.numberSuffix, float(n.offset))       # bar 7a is not bar 7
            highest[at] = max(highest.get(at, 0.0), max(p.ps for p in n.pitches))
        assert row["meta"]["mean_midi"] == pytest.approx(sum(highest.values()) / len(highest), abs=0.01)
        assert row["reference"] == register(row["meta"]["mean_midi"])
        if row["score_id"] == "bach-bwv1.6":          # horn above the choir: the melody is the soprano's
            assert top.partName == "Soprano"


def test_every_question_says_how_it_was_computed_and_levels_are_full(small_corpus: Path):
    rows = _questions(small_corpus)
    by_score: dict[str, list[dict]] = {}
    for row in rows:
        assert row["meta"]["method"] and row["meta"]["kind"] and row["reference"]
        by_score.setdefault(row["score_id"], []).append(row)
    assert len(by_score) == 5
    for score_rows in by_score.values():
        assert len(score_rows) <= 12
        for level in (1, 2):
            assert sum(r["level"] == level for r in score_rows) == 3
        assert len({r["meta"]["kind"] for r in score_rows}) == len(score_rows)   # no kind twice


def test_build_is_deterministic(small_corpus: Path, tmp_path: Path):
    piece = next(p for p in pieces() if p.id == "ciconia-quod_jactatur")
    again = build_piece(piece, tmp_path / "again", seed=0)["questions"]
    assert again == [q for q in _questions(small_corpus) if q["score_id"] == piece.id]
    other_seed = build_piece(piece, tmp_path / "seed1", seed=1)["questions"]
    assert [q["text"] for q in other_seed] != [q["text"] for q in again]


def test_answer_formats():
    assert spn("F", 1, 4) == "F♯4" and spn("E", -1, 5) == "E♭5" and spn("F", 2, 4) == "F𝄪4"
    assert spn("E", 0, 4, natural=True) == "E♮4" and spn("B", -2, 3) == "B𝄫3"
    assert key_from_fifths(-2, "minor") == "G minor" and key_from_fifths(3, "major") == "A major"
    assert key_from_fifths(-6, "major") == "G♭ major" and key_from_fifths(5, "minor") == "G♯ minor"
    assert signature_name(-3) == "3 flats" and signature_name(1) == "1 sharp"
    assert value_name("eighth", 1, rest=True) == "Dotted eighth rest"
    assert value_name("16th", 0, rest=False) == "Sixteenth note"
    assert clef_name("C", 3) == "Alto clef" and clef_name("G", 2, -1) == "Treble 8vb clef"
    assert msu_figure("ii/o6/5") == "iiø65" and msu_figure("viio6") == "vii°6" and msu_figure("V6/5/V") == "V65/V"


def test_texture_only_where_grounded(small_corpus: Path):
    from scoreqa.corpus.facts import read_facts
    from scoreqa.corpus.level34 import texture_type

    def texture(score_id: str):
        return texture_type(read_facts(small_corpus / "scores" / score_id / "score.musicxml"))

    assert texture("bach-bwv269")[0] == "Homophonic texture"            # a four-part chorale harmonisation
    assert texture("ciconia-quod_jactatur") == (None, 0.0)  # "canon ... melody only": one line, sung in parts
    assert texture("corelli-opus3no1-1grave")[0] is None                 # trio sonata: not decidable, not asked
