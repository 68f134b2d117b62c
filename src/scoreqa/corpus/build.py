"""Build the public-domain MSU-style corpus from music21's bundled scores, deterministically.

    DIR/scores/<id>/score.musicxml   normalised source (what everything below was computed from)
    DIR/scores/<id>/score.abc        bar-numbered ABC, validated through abc2xml
    DIR/scores/<id>/score.pdf        + page-<n>.png, verovio engraving, every bar numbered
    DIR/scores/<id>/record.json      the score's record and questions (written last: marks it done)
    DIR/scores.jsonl, DIR/questions.jsonl, DIR/manifest.json   the corpus, in catalog order

Pieces are tried in catalog order until ``limit`` have built; a piece whose ABC fails validation
(or that cannot be converted/rendered) is skipped and listed with its reason in the manifest, and
one whose ABC is longer than ``max_abc_chars`` is left out (listed under ``too_long``).
Finished pieces are reused on the next call (a larger ``limit`` only adds pieces), so an
interrupted build loses at most the piece it was working on.
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from scoreqa.corpus import BUILD_VERSION, DEFAULT_LIMIT
from scoreqa.corpus.analysis import MIN_ALIGNMENT, alignment, read_analysis
from scoreqa.corpus.catalog import CorpusPiece, corpus_root, pieces
from scoreqa.corpus.facts import read_facts
from scoreqa.corpus.metadata import piece_metadata
from scoreqa.corpus.questions import generate
from scoreqa.data.records import Question
from scoreqa.scores.mxl import document, normalise, parse
from scoreqa.scores.numbering import has_pickup, measure_labels
from scoreqa.scores.render import render_tree
from scoreqa.scores.to_abc import convert_tree
from scoreqa.scores.validate import validate

log = logging.getLogger(__name__)


class PieceFailed(RuntimeError):
    """A piece that cannot go into the corpus; the message is the reason listed in the manifest."""


class TooLong(PieceFailed):
    """A piece whose ABC exceeds the build's ``max_abc_chars`` (left out of this build, not a failure)."""


def build_piece(piece: CorpusPiece, out_dir: Path, seed: int, max_abc_chars: int | None = None) -> dict[str, Any]:
    """Convert, validate, render and question one piece into ``out_dir``; returns its record.

    Raises :class:`TooLong` right after the conversion (before the slow steps) when the ABC has
    more than ``max_abc_chars`` characters.
    """
    raw = parse(piece.path)
    source_labels = measure_labels(raw)
    root = normalise(raw)
    offset = bar_offset(source_labels, measure_labels(root))
    musicxml = out_dir / "score.musicxml"
    out_dir.mkdir(parents=True, exist_ok=True)
    musicxml.write_text(document(root), encoding="utf-8")
    meta = piece_metadata(piece, root)
    abc = convert_tree(root, source=str(piece.path), title=meta.title, composer=meta.composer or "")
    if max_abc_chars is not None and len(abc.text) > max_abc_chars:
        raise TooLong(f"ABC has {len(abc.text)} characters > max_abc_chars={max_abc_chars}")
    check = validate(abc, root)
    if not check.ok:
        raise PieceFailed(f"ABC round trip: {check.reason}")
    (out_dir / "score.abc").write_text(abc.text, encoding="utf-8")
    rendering = render_tree(root, out_dir, source=str(piece.path), font_dir=out_dir.parent.parent / "fonts")
    facts = read_facts(musicxml)
    chords, aligned = None, None
    if piece.analysis is not None:
        chords = read_analysis(piece.analysis)
        aligned = alignment(chords, facts)
        if aligned < MIN_ALIGNMENT:
            log.info("%s: analysis agrees with the score on %.0f%% of chord basses; no level-3 questions",
                     piece.id, 100 * aligned)
            chords = None
    questions = generate(piece.id, facts, meta, pickup=has_pickup(root), chords=chords, seed=seed)
    if offset:
        questions = [_with_source_numbers(q, offset) for q in questions]
    record = {
        "score": {"id": piece.id, "title": meta.title, "composer": meta.composer,
                  "collection": piece.collection, "source": str(piece.path.relative_to(corpus_root())),
                  "analysis": piece.analysis.name if piece.analysis else None, "analysis_alignment": aligned,
                  "pages": len(rendering.pages), "bars": len(facts.bars), "voices": len(abc.bars),
                  "abc_chars": len(abc.text), "source_bar_offset": offset},
        "questions": [dict(asdict(q), meta=dict(q.meta), choices=list(q.choices)) for q in questions],
        "version": BUILD_VERSION, "seed": seed,
    }
    _write_json(out_dir / "record.json", record)
    return record


def bar_offset(source: list[str], numbered: list[str]) -> int:
    """How much the source's bar numbers exceed ours: 1 when the file numbers its pickup bar 1 (we say 0)."""
    for before, after in zip(source, numbered):
        if before.isdigit() and after.isdigit():
            return int(before) - int(after)
    return 0


def _with_source_numbers(question: Question, offset: int) -> Question:
    """Record, on a question naming bars, the source MusicXML's numbers for them (see :func:`bar_offset`)."""
    if "measures" not in question.meta:
        return question
    source = [str(int(m) + offset) for m in question.meta["measures"]]  # questions name plain-numbered bars
    note = (f"the pickup bar is 0 here and in the ABC and pages, {offset} in the source MusicXML: "
            f"source bar = bar + {offset}")
    return replace(question, meta={**question.meta, "source_bar_offset": offset, "source_measures": source,
                                   "numbering": note})


def _write_json(path: Path, data: Any) -> None:
    """Write via a temporary file, so a killed build never leaves a half-written record."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)


def _reusable(record_path: Path, seed: int) -> dict[str, Any] | None:
    if not record_path.exists():
        return None
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    return record if record.get("version") == BUILD_VERSION and record.get("seed") == seed else None


def build_corpus(out: Path, limit: int | None = DEFAULT_LIMIT, seed: int = 0, progress: bool = True,
                 max_abc_chars: int | None = None) -> dict[str, Any]:
    """Build (or extend) the corpus in ``out``; returns the manifest.

    ``limit`` scores (``None``: every usable piece) among the pieces whose ABC has at most
    ``max_abc_chars`` characters (``None``: any length). Both are recorded in the manifest, so a
    later reader (``data.build_limit=null``) uses the very same build.
    """
    out = Path(out)
    (out / "scores").mkdir(parents=True, exist_ok=True)
    failures = _previous_failures(out, seed)
    records: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    too_long: list[str] = []
    catalog = pieces()
    target = len(catalog) if limit is None else min(int(limit), len(catalog))
    bar = tqdm(total=target, desc="corpus", unit="score", disable=not progress)
    for piece in catalog:
        if len(records) >= target:
            break
        piece_dir = out / "scores" / piece.id
        record = _reusable(piece_dir / "record.json", seed)
        if record is None and piece.id in failures:
            skipped.append(failures[piece.id])
            continue
        if record is not None and max_abc_chars is not None and record["score"]["abc_chars"] > max_abc_chars:
            too_long.append(piece.id)
            continue
        if record is None:
            bar.set_postfix_str(piece.id[:40])
            try:
                record = build_piece(piece, piece_dir, seed, max_abc_chars)
            except TooLong:
                shutil.rmtree(piece_dir, ignore_errors=True)
                too_long.append(piece.id)
                continue
            except Exception as err:  # one bad piece must not stop the build; it is listed instead
                shutil.rmtree(piece_dir, ignore_errors=True)
                reason = str(err) if isinstance(err, PieceFailed) else f"{type(err).__name__}: {err}"
                skipped.append({"id": piece.id, "source": str(piece.path.relative_to(corpus_root())),
                                "reason": reason.splitlines()[0][:500]})
                continue
        records.append(record)
        bar.update(1)
    bar.close()
    return _write_outputs(out, records, skipped, too_long, limit, seed, max_abc_chars)


def _previous_failures(out: Path, seed: int) -> dict[str, dict[str, str]]:
    """Pieces an earlier build of this version already found unusable (not retried)."""
    path = out / "manifest.json"
    if not path.exists():
        return {}
    manifest = json.loads(path.read_text(encoding="utf-8"))
    if manifest.get("version") != BUILD_VERSION or manifest.get("seed") != seed:
        return {}
    return {s["id"]: s for s in manifest.get("skipped", [])}


def _write_outputs(out: Path, records: list[dict], skipped: list[dict], too_long: list[str], limit: int | None,
                   seed: int, max_abc_chars: int | None) -> dict:
    import music21

    with (out / "scores.jsonl.tmp").open("w", encoding="utf-8") as scores, \
            (out / "questions.jsonl.tmp").open("w", encoding="utf-8") as questions:
        for record in records:
            scores.write(json.dumps(record["score"], ensure_ascii=False) + "\n")
            for question in record["questions"]:
                questions.write(json.dumps(question, ensure_ascii=False) + "\n")
    (out / "scores.jsonl.tmp").replace(out / "scores.jsonl")
    (out / "questions.jsonl.tmp").replace(out / "questions.jsonl")
    levels: dict[str, int] = {}
    for record in records:
        for question in record["questions"]:
            levels[str(question["level"])] = levels.get(str(question["level"]), 0) + 1
    manifest = {"version": BUILD_VERSION, "seed": seed, "limit": limit, "max_abc_chars": max_abc_chars,
                "music21": music21.__version__, "scores": len(records), "questions": sum(levels.values()),
                "questions_per_level": levels, "score_ids": [r["score"]["id"] for r in records],
                "too_long": too_long, "skipped": skipped}
    _write_json(out / "manifest.json", manifest)
    return manifest
