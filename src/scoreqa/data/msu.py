"""MSU-Bench: 150 scores x 12 questions (3 per level), from either public release.

* ``root``: a local copy of the Hugging Face dataset ``Krinos/MSU-Bench`` (``flat/`` and/or
  ``nested/`` parquet shards), read by :mod:`scoreqa.data.msu_hf`;
* otherwise ``tables_dir``: the GitHub release tables ``msu-bench.xlsx`` (Link, Level, Question,
  Answer) and ``metadata.xlsx`` (Composer, Title, Link), joined with an optional ``score_dir`` of
  ``<id>.abc``, ``<id>.pdf`` and ``<id>/page-<n>.png`` files, ``<id>`` being the MuseScore score
  number from the link.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Callable, Collection, Iterable, Mapping, Sequence

import pandas as pd

from scoreqa.data.benchmark import Benchmark, check_limit, check_too_long
from scoreqa.data.columns import blank_to_none, find_column
from scoreqa.data.msu_excluded import resolve as resolve_exclusions
from scoreqa.data.msu_hf import read_hf_release
from scoreqa.data.pages import page_images_for
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.data.selection import select
from scoreqa.data.split import select_split

LEVELS = (1, 2, 3, 4)
_SCORE_NUMBER = re.compile(r"/scores/(\d+)")


def score_id_from_link(link: str) -> str:
    """The MuseScore score number, stable across URL variants (user path, query, trailing slash)."""
    match = _SCORE_NUMBER.search(str(link))
    if not match:
        raise ValueError(f"cannot derive a score id from MuseScore link {link!r}: expected '.../scores/<number>'")
    return match.group(1)


def question_id(score_id: str, level: int, index: int) -> str:
    """``<score>:L<level>.<k>``, k counting the score's questions of that level from 1 in release order."""
    return f"{score_id}:L{level}.{index}"


def number_questions(rows: Iterable[tuple[str, int, str, str | None]]) -> list[Question]:
    """Questions in release order, numbered within (score, level)."""
    counters: dict[tuple[str, int], int] = {}
    questions = []
    for score_id, level, text, answer in rows:
        level = int(level)
        if level not in LEVELS:
            raise ValueError(f"score {score_id!r}: level {level} is not one of {LEVELS}")
        counters[(score_id, level)] = counters.get((score_id, level), 0) + 1
        questions.append(Question(id=question_id(score_id, level, counters[(score_id, level)]), score_id=score_id,
                                  level=level, text=str(text).strip(), reference=blank_to_none(answer)))
    return questions


def read_table(path: Path) -> pd.DataFrame:
    """An xlsx table; a file that is not one is named (pandas' own error does not say which file)."""
    try:
        return pd.read_excel(path)
    except (zipfile.BadZipFile, ValueError, KeyError) as error:
        raise ValueError(f"{path} is not a readable .xlsx table ({type(error).__name__}: {error}); "
                         "download it again from the MSU-Bench release") from None


def read_abc(path: Path, score_id: str) -> str | None:
    """A score's ABC text, or None without the file; a file that is not UTF-8 is named with its score."""
    if not path.exists():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} (score {score_id}) is not UTF-8 text ({error.reason} at byte {error.start}); "
                         "re-export it as UTF-8 or remove it") from None


def read_github_tables(tables_dir: Path, score_dir: Path | None, page_cache: Path,
                       keep: Callable[[list[str]], Collection[str]] | None = None
                       ) -> tuple[dict[str, Score], list[Question]]:
    """Scores and questions from ``msu-bench.xlsx`` + ``metadata.xlsx`` (+ score files).

    ``keep`` picks, from the score ids in question order, those whose files are read (the run's split): a
    broken file of a score outside the split never stops a run, and no PDF outside it is rasterised.
    """
    tables_dir = Path(tables_dir)
    question_path, metadata_path = tables_dir / "msu-bench.xlsx", tables_dir / "metadata.xlsx"
    for path in (question_path, metadata_path):
        if not path.exists():
            raise FileNotFoundError(f"MSU-Bench table {path} not found: set data.tables_dir (or paths.data_root) "
                                    "to the folder holding msu-bench.xlsx and metadata.xlsx, or data.root to a "
                                    "local copy of the Hugging Face release Krinos/MSU-Bench")
    table = read_table(question_path)
    link, level, text, answer = (find_column(table, names, source=question_path) for names in
                                 (["Link", "url"], ["Level"], ["Question"], ["Answer", "reference"]))
    questions = number_questions((score_id_from_link(r[link]), r[level], r[text], r[answer])
                                 for _, r in table.iterrows())
    meta = read_table(metadata_path)
    m_link, m_title, m_composer = (find_column(meta, names, source=metadata_path) for names in
                                   (["Link", "url"], ["Title"], ["Composer"]))
    wanted = set(keep(list(dict.fromkeys(q.score_id for q in questions)))) if keep else None
    scores: dict[str, Score] = {}
    for _, row in meta.iterrows():
        score_id = score_id_from_link(row[m_link])
        files = score_dir is not None and (wanted is None or score_id in wanted)
        abc_path = Path(score_dir) / f"{score_id}.abc" if files else None
        pdf_path = Path(score_dir) / f"{score_id}.pdf" if score_dir else None
        scores[score_id] = Score(
            id=score_id,
            title=blank_to_none(row[m_title]) or score_id,
            composer=blank_to_none(row[m_composer]),
            abc=read_abc(abc_path, score_id) if abc_path else None,
            pdf_path=pdf_path if files and pdf_path and pdf_path.exists() else None,
            page_images=page_images_for(Path(score_dir) / score_id, pdf_path, page_cache / score_id)
            if files else (),
        )
    return scores, questions


class MSUBench(Benchmark):
    """The MSU-Bench benchmark as configured in ``conf/data/msu.yaml``."""

    def __init__(self, name: str = "msu", root: str | None = None, tables_dir: str | None = None,
                 score_dir: str | None = None, cache_dir: str = ".cache/msu", split: str = "test",
                 split_seed: int = 0, limit: int | None = None, skip_missing: bool = False,
                 templates: Mapping[str, str] | None = None, exclude_scores: str | Sequence[str] | None = None,
                 too_long: str = "fail") -> None:
        self.too_long = check_too_long(too_long)
        self.name, self.split, self.split_seed = name, split, split_seed
        self.templates = dict(templates or {})
        self.root = Path(root) if root else None
        self.tables_dir = Path(tables_dir) if tables_dir else None
        self.score_dir = Path(score_dir) if score_dir else None
        self.cache_dir = Path(cache_dir)
        self.limit, self.skip_missing = limit, skip_missing
        self.exclude_scores = exclude_scores

    def read_all(self, keep: Callable[[list[str]], Collection[str]] | None = None
                 ) -> tuple[dict[str, Score], list[Question]]:
        """Every question of the release, before any split; score files only of the ids ``keep`` picks."""
        if self.root is not None:
            return read_hf_release(self.root, self.cache_dir / "hf")
        if self.tables_dir is None:
            raise ValueError("MSU-Bench needs data.root (Hugging Face release) or data.tables_dir (GitHub tables)")
        return read_github_tables(self.tables_dir, self.score_dir, self.cache_dir / "pages", keep)

    def load(self, needs: Iterable[str]) -> BenchmarkSplit:
        limit = check_limit(self.limit)
        scores, questions = self.read_all(keep=lambda order: select_split(order, self.split, self.split_seed)[:limit])
        source = str(self.root or self.score_dir or f"{self.tables_dir} (no data.score_dir set)")
        chosen = select(self.name, scores, questions, split=self.split, seed=self.split_seed, limit=self.limit,
                        needs=needs, skip_missing=self.skip_missing, source=source)
        return self.without_excluded(chosen, scores)

    def without_excluded(self, chosen: BenchmarkSplit, release: Mapping[str, Score]) -> BenchmarkSplit:
        """Drop ``exclude_scores`` from the train and val splits (listed in ``skipped``); test is never reduced."""
        if self.exclude_scores is None or self.split not in ("train", "val"):
            return chosen
        excluded = set(resolve_exclusions(self.exclude_scores, release)) & set(chosen.scores)
        skipped = [{"score_id": i, "title": chosen.scores[i].title, "missing": "excluded: data.exclude_scores"}
                   for i in chosen.scores if i in excluded]
        return BenchmarkSplit(chosen.name, chosen.split, {k: v for k, v in chosen.scores.items() if k not in excluded},
                              [q for q in chosen.questions if q.score_id not in excluded], chosen.skipped + skipped)

    def all_score_ids(self) -> list[str]:
        _, questions = self.read_all(keep=lambda order: ())  # ids only: no score file is read
        return list(dict.fromkeys(q.score_id for q in questions))
