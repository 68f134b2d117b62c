"""Reader for a local copy of the Hugging Face release ``Krinos/MSU-Bench``.

``flat`` has one row per question (song_id, abc_notation, level, question, answer); ``nested`` has
one row per score (song_id, abc_notation, pdf bytes, page images, questions{level, question, answer}).
Questions come from ``flat`` when present, otherwise from ``nested``; PDFs and page images only
exist in ``nested`` and are written once into a cache folder so every modality reads plain files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from scoreqa.data.columns import blank_to_none, find_column
from scoreqa.data.pages import sorted_pages
from scoreqa.data.records import Question, Score

_SHARD_SUFFIXES = (".parquet", ".jsonl", ".json")
SONG_ID = ["song_id", "score_id", "id"]
ABC = ["abc_notation", "abc", "score"]


def _read_config(root: Path, config: str) -> tuple[pd.DataFrame, Path] | None:
    folder = root / config
    shards = sorted(p for p in folder.glob("*") if p.suffix in _SHARD_SUFFIXES) if folder.is_dir() else []
    if not shards:
        return None
    frames = [pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_json(p, lines=p.suffix == ".jsonl")
              for p in shards]
    return pd.concat(frames, ignore_index=True), folder


def _header_field(abc: str | None, field: str) -> str | None:
    if not abc:
        return None
    match = re.search(rf"^{field}:\s*(.+)$", abc, flags=re.MULTILINE)
    return match.group(1).strip() if match else None


def _safe_name(song_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", song_id)[:120]


def _image_bytes(image: Any) -> bytes | None:
    """HF image cells are {'bytes': ..., 'path': ...} structs in parquet."""
    if isinstance(image, dict):
        return image.get("bytes")
    return image if isinstance(image, (bytes, bytearray)) else None


def _materialise(row: pd.Series, pdf_col: str | None, images_col: str | None, out_dir: Path
                 ) -> tuple[Path | None, tuple[Path, ...]]:
    out_dir.mkdir(parents=True, exist_ok=True)
    pdf_path = None
    if pdf_col is not None and isinstance(row[pdf_col], (bytes, bytearray)) and row[pdf_col]:
        pdf_path = out_dir / "score.pdf"
        if not pdf_path.exists():
            pdf_path.write_bytes(row[pdf_col])
    pages = sorted_pages(out_dir)
    if not pages and images_col is not None and row[images_col] is not None:
        for number, image in enumerate(list(row[images_col]), start=1):
            data = _image_bytes(image)
            if data:
                (out_dir / f"page-{number}.png").write_bytes(data)
        pages = sorted_pages(out_dir)
    return pdf_path, pages


def _questions_from_nested(frame: pd.DataFrame, id_col: str, source: Path) -> list[tuple[str, int, str, Any]]:
    questions_col = find_column(frame, ["questions"], source=source)
    rows = []
    for _, row in frame.iterrows():
        block = row[questions_col]
        for key in ("level", "question", "answer"):
            if key not in block:
                raise KeyError(f"{source}: the 'questions' struct of score {row[id_col]!r} has no {key!r} field")
        rows.extend(zip([row[id_col]] * len(block["level"]), block["level"], block["question"], block["answer"]))
    return rows


def read_hf_release(root: Path, cache_dir: Path) -> tuple[dict[str, Score], list[Question]]:
    """Scores and questions from ``root/flat`` and/or ``root/nested``."""
    from scoreqa.data.msu import number_questions  # one numbering rule for both releases

    root = Path(root)
    flat, nested = _read_config(root, "flat"), _read_config(root, "nested")
    if flat is None and nested is None:
        raise FileNotFoundError(f"{root}: no flat/ or nested/ shards (*.parquet, *.jsonl) of Krinos/MSU-Bench. "
                                "Download the dataset on a machine with access and point data.root at its folder.")
    scores: dict[str, Score] = {}
    if nested is not None:
        frame, source = nested
        id_col, abc_col = find_column(frame, SONG_ID, source=source), find_column(frame, ABC, source=source,
                                                                                   required=False)
        pdf_col = find_column(frame, ["pdf"], source=source, required=False)
        images_col = find_column(frame, ["images", "pages"], source=source, required=False)
        for _, row in frame.iterrows():
            song_id = str(row[id_col])
            abc = blank_to_none(row[abc_col]) if abc_col else None
            pdf_path, pages = _materialise(row, pdf_col, images_col, cache_dir / _safe_name(song_id))
            scores[song_id] = Score(id=song_id, title=_header_field(abc, "T") or song_id.replace("_", " "),
                                    composer=_header_field(abc, "C"), abc=abc, pdf_path=pdf_path, page_images=pages)
    if flat is not None:
        frame, source = flat
        id_col = find_column(frame, SONG_ID, source=source)
        abc_col = find_column(frame, ABC, source=source, required=False)
        level, text, answer = (find_column(frame, names, source=source) for names in
                               (["level"], ["question"], ["answer", "reference"]))
        rows = [(str(r[id_col]), r[level], r[text], r[answer]) for _, r in frame.iterrows()]
        for _, r in frame.drop_duplicates(id_col).iterrows():
            song_id = str(r[id_col])
            if song_id not in scores:
                abc = blank_to_none(r[abc_col]) if abc_col else None
                scores[song_id] = Score(id=song_id, title=_header_field(abc, "T") or song_id.replace("_", " "),
                                        composer=_header_field(abc, "C"), abc=abc)
    else:
        frame, source = nested
        rows = _questions_from_nested(frame, find_column(frame, SONG_ID, source=source), source)
    return scores, number_questions(rows)
