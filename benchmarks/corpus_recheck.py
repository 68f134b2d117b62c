"""Independent re-check of built corpus answers: a stratified random sample, recomputed with music21 alone.

Every question kind gets up to ``--per-kind`` randomly chosen questions of the folder's finished
scores (``scores/*/record.json``, so a build still running can be checked). Each is recomputed from
music21's *own* corpus file (the record's ``source``, not the normalised copy) with music21 and code
written here (no ``scoreqa.corpus`` import), then compared with the stored reference. Bar numbers
are mapped to the source's through the record's ``source_bar_offset``. Level-3 kinds are re-read
from the Riemenschneider analysis with music21's romantext parser.

    python benchmarks/corpus_recheck.py --corpus .cache/corpus_large --per-kind 3 [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

import music21
from music21 import bar, clef, converter, dynamics, harmony, key, meter, roman, tempo, text

SIGNS = {"": "", "#": "♯", "-": "♭", "##": "𝄪", "--": "𝄫"}
VALUES = {"breve": "Breve", "whole": "Whole", "half": "Half", "quarter": "Quarter", "eighth": "Eighth",
          "16th": "Sixteenth", "32nd": "Thirty-second", "64th": "Sixty-fourth"}
CLEFS = {("G", 2, 0): "Treble clef", ("G", 2, -1): "Treble 8vb clef", ("G", 2, 1): "Treble 8va clef",
         ("F", 4, 0): "Bass clef", ("F", 4, -1): "Bass 8vb clef", ("F", 3, 0): "Baritone clef",
         ("C", 3, 0): "Alto clef", ("C", 4, 0): "Tenor clef", ("C", 1, 0): "Soprano clef",
         ("C", 2, 0): "Mezzo-soprano clef", ("C", 5, 0): "Baritone clef", ("G", 1, 0): "French violin clef"}
ENSEMBLES = ["", "Solo", "Duo", "Trio", "Quartet", "Quintet", "Sextet", "Septet", "Octet"]


def pitch_text(p, natural: bool = False) -> str:
    sign = SIGNS[p.accidental.modifier if p.accidental and p.accidental.name != "natural" else ""]
    if natural and p.accidental is not None and p.accidental.name == "natural":
        sign = "♮"
    return f"{p.step}{sign}{p.octave}"


def key_text(k: key.Key) -> str:
    return f"{k.tonic.step}{SIGNS[k.tonic.accidental.modifier if k.tonic.accidental else '']} {k.mode}"


def value_text(d, rest: bool) -> str:
    word = VALUES[d.type]
    return f"{['', 'Dotted ', 'Double-dotted '][d.dots]}{word.lower() if d.dots else word} {'rest' if rest else 'note'}"


class Source:
    """One source score as music21 reads it, bars addressed by *our* numbers (source number - offset)."""

    def __init__(self, path: Path, offset: int):
        self.score = converter.parse(str(path))
        self.offset = offset
        self.parts = list(self.score.parts)

    def bars(self, label: str) -> list:
        number = int(label) + self.offset
        return [m for p in self.parts for m in p.getElementsByClass("Measure") if m.number == number
                and not m.numberSuffix]

    def notes(self, label: str) -> list:
        return [n for m in self.bars(label) for n in m.recurse().notesAndRests if not n.style.hideObjectOnPrint]

    def pitches(self, label: str) -> list:
        return [p for n in self.notes(label) if not n.isRest for p in n.pitches]


def answer(kind: str, question: dict, record: dict, source: Source, corpus_root: Path) -> str | None:
    """The answer recomputed here, or ``None`` where this script has no independent way to compute it."""
    measures = question["meta"].get("measures", [])
    label = measures[0] if measures else None
    score = source.score
    if kind in ("highest_pitch", "lowest_pitch"):
        pick = max if kind == "highest_pitch" else min
        return pitch_text(pick(source.pitches(label), key=lambda p: p.ps))
    if kind == "accidentals":
        shown = {pitch_text(p, natural=True) for p in source.pitches(label)
                 if p.accidental is not None and p.accidental.displayStatus}
        return f"Yes, {'; '.join(sorted(shown))}" if shown else "No"
    if kind == "dynamics":
        return "; ".join(sorted({d.value for m in source.bars(label) for d in m.recurse().getElementsByClass(
            dynamics.Dynamic)}))
    if kind.endswith("_value"):
        rest, longest = "rest" in kind, "longest" in kind
        chosen = [n for n in source.notes(label) if n.isRest == rest and not n.duration.isGrace]
        if rest and longest and any(n.fullMeasure is True or n.quarterLength == n.getContextByClass(
                "Measure").barDuration.quarterLength for n in chosen):
            return "Whole rest"
        chosen = [n for n in chosen if not (rest and (n.fullMeasure is True or n.quarterLength == n.getContextByClass(
            "Measure").barDuration.quarterLength))]
        edge = (max if longest else min)(n.quarterLength for n in chosen)
        names = {value_text(n.duration, rest) for n in chosen if n.quarterLength == edge}
        return names.pop() if len(names) == 1 else f"ambiguous {sorted(names)}"
    if kind == "repeats":
        first, last = int(measures[0]) + source.offset, int(measures[-1]) + source.offset
        found = any(isinstance(b, bar.Repeat) for p in source.parts for m in p.getElementsByClass("Measure")
                    if first <= m.number <= last for b in (m.leftBarline, m.rightBarline))
        return "Yes" if found else "No"
    if kind in ("time_signature", "time_change"):
        where = score.recurse() if kind == "time_signature" else [e for m in source.bars(label) for e in m.recurse()]
        ts = next(e for e in where if isinstance(e, meter.TimeSignature))
        return f"{ts.numerator}/{ts.denominator} time"
    if kind == "key_change":
        ks = source.bars(label)[-1].recurse().getElementsByClass(key.KeySignature).first()
        if isinstance(ks, key.Key) and ks.mode in ("major", "minor"):
            return key_text(ks)
        n = abs(ks.sharps)
        return "No sharps or flats" if n == 0 else f"{n} {'sharp' if ks.sharps > 0 else 'flat'}{'s' if n > 1 else ''}"
    if kind == "clef_change":  # a clef printed after the last note of the bar before belongs to this bar
        inside = [c for m in source.bars(label) for c in m.recurse().getElementsByClass(clef.Clef)
                  if c.offset < m.barDuration.quarterLength]
        before = [c for m in source.bars(str(int(label) - 1)) for c in m.recurse().getElementsByClass(clef.Clef)
                  if c.offset >= m.barDuration.quarterLength]
        return "; ".join(dict.fromkeys(CLEFS.get((c.sign, c.line, c.octaveChange), c.name) for c in before + inside))
    if kind == "clefs":
        names = [CLEFS.get((c.sign, c.line, c.octaveChange), c.name) for p in source.parts
                 if (c := p.recurse().getElementsByClass(clef.Clef).first()) is not None]
        return "; ".join(dict.fromkeys(names))
    if kind == "instruments":
        return "; ".join(dict.fromkeys((p.partName or "").strip() for p in source.parts))
    if kind == "tempo_bpm":
        mark = score.recurse().getElementsByClass(tempo.MetronomeMark).first()
        return f"{mark.number:g} BPM" if mark is not None else None
    if kind == "tempo_text":
        mark = score.recurse().getElementsByClass(tempo.TempoIndication).first()
        return str(mark.text).strip() if mark is not None else None
    if kind == "anacrusis":
        first = source.parts[0].getElementsByClass("Measure").first()
        return "Yes" if first.duration.quarterLength < first.barDuration.quarterLength else "No"
    if kind == "initial_key":
        # the answer's signature is the opening one, music21's estimate agrees and the last bass note is its tonic
        stated = key.Key(question["reference"].split()[0].replace("♯", "#").replace("♭", "-"),
                         question["reference"].split()[1])
        opening = score.recurse().getElementsByClass(key.KeySignature).first()
        final = [(n.getOffsetInHierarchy(m), p) for part in source.parts
                 if (m := part.getElementsByClass("Measure").last()) is not None
                 for n in m.recurse().notes for p in n.pitches]
        end = max(at for at, _ in final)
        last = min((p for at, p in final if at == end), key=lambda p: p.ps)  # lowest note of the last onset
        ok = opening.sharps == stated.sharps and key_text(score.analyze("key")) == question["reference"] \
            and last.pitchClass == stated.tonic.pitchClass
        return question["reference"] if ok else f"not confirmed (signature {opening.sharps}, ends on {last.name})"
    if kind == "composer":  # the surname, letters only ("Liliʻuokalani" = "Liliuokalani"), in the file or folder
        letters = lambda text: re.sub(r"[^a-z]", "", text.lower())  # noqa: E731
        found = (score.metadata.composer or "") + " " + record["score"]["source"].split("/")[0]
        surname = letters(question["reference"].split()[-1])
        return question["reference"] if surname in letters(found) else f"not found in {found!r}"
    if kind == "title":
        names = [score.metadata.title, score.metadata.movementName,
                 *(box.content for box in score.recurse().getElementsByClass(text.TextBox))]
        if record["score"].get("analysis"):
            analysis = corpus_root / "bach" / "choraleAnalyses" / record["score"]["analysis"]
            names += re.findall(r"^Title:\s*(.+)$", analysis.read_text(encoding="utf-8"), re.MULTILINE)
        return question["reference"] if question["reference"] in [" ".join((n or "").split()) for n in names] \
            else str(names)  # a credit's line breaks are spaces in a title
    if kind in ("first_chord", "progression", "begins_on_tonic", "perfect_cadence"):
        return harmony_answer(kind, measures, corpus_root / "bach" / "choraleAnalyses" / record["score"]["analysis"])
    if kind == "medium":  # one player per MusicXML part: a piano's staves ("P1-Staff1", "P1-Staff2") are one
        players: dict[str, str] = {}
        for p in source.parts:
            if p.recurse().notes:
                players.setdefault(str(p.id).split("-Staff")[0], (p.partName or "").lower())
        playing = list(players.values())
        if len(playing) == 1 and "piano" in playing[0]:
            return "Piano solo"
        if [n[:1] for n in playing] == list("satb"):
            return "SATB choir"
        if len(playing) == 4 and all(re.search("viol|cello", n) for n in playing):
            return "String quartet"
        return ENSEMBLES[len(playing)] if len(playing) < len(ENSEMBLES) else None
    if kind == "melody_register":
        first, last = int(measures[0]) + source.offset, int(measures[-1]) + source.offset
        part = source.parts[question["meta"]["melody_staff"]]
        top: dict = {}
        for n in part.measures(first, last).recurse().notes:
            if not n.duration.isGrace:
                m = n.getContextByClass("Measure")
                at = (m.number, m.numberSuffix, float(n.offset))
                top[at] = max(top.get(at, 0.0), max(p.ps for p in n.pitches))
        mean = sum(top.values()) / len(top)
        bands = ((48, "Low register"), (60, "Middle–lower register"), (72, "Middle register"),
                 (84, "Upper–middle register"), (999, "High register"))
        return next(word for bound, word in bands if mean < bound)
    if kind == "texture":
        if len(source.parts) == 1:
            chords = any(len(n.pitches) > 1 for n in score.recurse().notes)
            symbols = score.recurse().getElementsByClass(harmony.ChordSymbol)
            canon = re.search(r"\b(canon|round)\b", f"{score.metadata.title} {score.metadata.movementName}", re.I)
            return None if chords or symbols or canon else "Monophonic texture"
        return "Homophonic texture" if homophonic(source) else "not homophonic"
    return None


def homophonic(source: Source) -> bool:
    """>= 80% of the integer beats with an attack see >= 3 of the four SATB parts attack together."""
    satb = [p for p in source.parts if (p.partName or "").lower()[:1] in "satb" and re.match(
        r"(soprano|alto|tenor|bass)", (p.partName or "").lower())]
    attacks = defaultdict(lambda: defaultdict(set))
    for index, part in enumerate(satb):
        for n in part.recurse().notes:
            if n.quarterLength > 0 and float(n.offset).is_integer():
                m = n.getContextByClass("Measure")
                attacks[(m.number, m.numberSuffix)][float(n.offset)].add(index)
    beats = [len(parts) for bar_attacks in attacks.values() for parts in bar_attacks.values()]
    return bool(beats) and sum(n >= 3 for n in beats) / len(beats) >= 0.8


def harmony_answer(kind: str, measures: list[str], analysis: Path) -> str:
    chords = list(converter.parse(str(analysis), format="romantext").recurse().getElementsByClass(roman.RomanNumeral))

    def figure(rn) -> str:
        spelled = rn.figure.replace("/o", "ø")
        spelled = re.sub(r"(?<=\d)/(?=\d)", "", spelled)
        return re.sub(r"(?<=[iv])o", "°", spelled)

    inside = [c for c in chords if int(measures[0]) <= c.measureNumber <= int(measures[-1])]
    if kind == "first_chord":
        return figure(inside[0])
    if kind == "progression":
        return "–".join(figure(c) for c in inside)
    if kind == "begins_on_tonic":
        return "Yes" if inside[0].key == chords[0].key and figure(inside[0]) in ("I", "i", "I6", "i6", "I64", "i64") \
            else "No"
    lines = analysis.read_text(encoding="utf-8").splitlines()
    ends = set()
    for line in lines:  # "||" after a chord closes a phrase
        match = re.match(r"^m(\d+)\s+(.*)$", line.strip())
        if match:
            beat, last = 1.0, None
            for token in match.group(2).split():
                if token == "||" and last:
                    ends.add(last)
                elif re.fullmatch(r"b[\d.]+", token):
                    beat = float(token[1:])
                elif not token.endswith(":"):
                    last = (int(match.group(1)), beat)
    for before, chord in zip(chords, chords[1:]):
        if any(chord is c for c in inside) and (chord.measureNumber, float(chord.beat)) in ends and chord.figure in ("I", "i") \
                and before.figure in ("V", "V7") and before.key == chord.key:
            return "Yes"
    return "No"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="a built corpus folder (manifest.json)")
    parser.add_argument("--per-kind", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    corpus_root = Path(music21.__file__).parent / "corpus"
    records = {}
    questions = defaultdict(list)
    for path in sorted((args.corpus / "scores").glob("*/record.json")):  # finished scores, also of a running build
        record = json.loads(path.read_text(encoding="utf-8"))
        records[record["score"]["id"]] = record
        for question in record["questions"]:
            questions[question["meta"]["kind"]].append(question)
    rng = random.Random(args.seed)
    rows, sources = [], {}
    for kind in sorted(questions):
        for question in rng.sample(questions[kind], min(args.per_kind, len(questions[kind]))):
            record = records[question["score_id"]]
            if question["score_id"] not in sources:
                sources[question["score_id"]] = Source(corpus_root / record["score"]["source"],
                                                       record["score"].get("source_bar_offset") or 0)
            got = answer(kind, question, record, sources[question["score_id"]], corpus_root)
            reference = question["reference"]
            if got is not None and kind in ("accidentals", "dynamics") and reference.startswith("Yes, "):
                reference = "Yes, " + "; ".join(sorted(reference[5:].split("; ")))
            elif got is not None and kind == "dynamics":
                reference = "; ".join(sorted(reference.split("; ")))
            rows.append({"id": question["id"], "kind": kind, "reference": question["reference"], "recomputed": got,
                         "agrees": None if got is None else got == reference})
    checked = [r for r in rows if r["agrees"] is not None]
    by_kind = {kind: f"{sum(r['agrees'] for r in checked if r['kind'] == kind)}/"
                     f"{sum(r['kind'] == kind for r in checked)}" for kind in sorted(questions)}
    summary = {"corpus": str(args.corpus), "scores": len(records), "kinds": len(questions), "sampled": len(rows), "checked": len(checked),
               "agree": sum(r["agrees"] for r in checked), "not_recomputable": [r["id"] for r in rows
                                                                                if r["agrees"] is None],
               "by_kind": by_kind, "disagreements": [r for r in checked if not r["agrees"]]}
    if args.out:
        args.out.write_text(json.dumps({**summary, "rows": rows}, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(summary, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
