"""``data=corpus``: the built public-domain corpus as a benchmark with MSU-Bench's interface.

Same schema and prompts as :class:`scoreqa.data.msu.MSUBench` (scores with ABC, PDF, page PNGs;
12 questions at most, levels 1-4), plus each score's MusicXML for the ``analysis`` prompt mode.
The corpus is built into ``root`` on first use when missing (``build_limit`` scores).
"""

from __future__ import annotations

import fcntl
import json
import logging
from pathlib import Path
from typing import Any, Iterable, Mapping

from scoreqa.corpus import BUILD_VERSION, DEFAULT_LIMIT
from scoreqa.data.benchmark import Benchmark, check_too_long
from scoreqa.data.pages import sorted_pages
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.data.selection import select

log = logging.getLogger(__name__)
# what a (possibly interrupted) build leaves in its folder
LOCK = ".build.lock"
CORPUS_ENTRIES = frozenset({"scores", "fonts", "scores.jsonl", "questions.jsonl", "manifest.json", LOCK})


class CorpusBench(Benchmark):
    """The corpus in ``root`` (``${paths.cache_dir}/corpus`` by default), built there if missing."""

    def __init__(self, name: str = "corpus", root: str = ".cache/corpus", build_limit: int | None = DEFAULT_LIMIT,
                 build_seed: int = 0, auto_build: bool = True, split: str = "test", split_seed: int = 0,
                 limit: int | None = None, skip_missing: bool = False, max_abc_chars: int | None = None,
                 templates: Mapping[str, str] | None = None, too_long: str = "fail") -> None:
        self.too_long = check_too_long(too_long)
        """``build_limit``: scores to build; ``0`` = every usable piece; ``None`` = the build already in
        ``root`` (its manifest's limit, so evaluate reads what train built), else ``DEFAULT_LIMIT``.
        ``max_abc_chars``: leave out longer pieces (``None`` = any length; ``data=corpus`` sets 8,000)."""
        self.name, self.root = name, Path(root)
        self.build_limit, self.build_seed, self.auto_build = build_limit, build_seed, auto_build
        self.max_abc_chars = max_abc_chars
        self.split, self.split_seed, self.limit, self.skip_missing = split, split_seed, limit, skip_missing
        self.templates = dict(templates or {})

    def _limit(self) -> int | None:
        """The build's number of scores (``None`` = all), as the manifest records it."""
        if self.build_limit is None:
            return DEFAULT_LIMIT
        return int(self.build_limit) or None

    def _matching_manifest(self) -> dict[str, Any] | None:
        path = self.root / "manifest.json"
        manifest = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        if not manifest or manifest.get("version") != BUILD_VERSION or manifest.get("seed") != self.build_seed \
                or manifest.get("max_abc_chars") != self.max_abc_chars:
            return None
        if self.build_limit is None:
            log.info("data=corpus: using the build in %s (build_limit=%s, as recorded in its manifest)", self.root,
                     manifest.get("limit"))
            return manifest
        return manifest if manifest.get("limit") == self._limit() else None

    def ensure_built(self) -> dict[str, Any]:
        """The manifest of a build matching this configuration, building (or extending) it if needed.

        Builds hold a file lock, so several processes (training ranks, parallel evaluations) sharing
        a cache build once and the others wait, then read.
        """
        manifest = self._matching_manifest()
        if manifest is not None:
            return manifest
        if not self.auto_build:
            raise FileNotFoundError(
                f"no corpus built with limit={self._limit()}, seed={self.build_seed}, max_abc_chars="
                f"{self.max_abc_chars} in {self.root}: run python -m scoreqa.corpus --out {self.root} --limit "
                f"{self._limit() or 0} --seed {self.build_seed}" + (
                    f" --max-abc-chars {self.max_abc_chars}" if self.max_abc_chars is not None else "")
                + " or set data.auto_build=true")
        foreign = [p.name for p in self.root.iterdir() if p.name not in CORPUS_ENTRIES
                   and not p.name.endswith(".tmp")] if self.root.is_dir() else []
        if not (self.root / "manifest.json").exists() and foreign:
            raise FileExistsError(
                f"data.root={self.root} holds files but no corpus manifest.json: refusing to build the corpus "
                "there. Point data.root at an empty or corpus folder, or pick the benchmark you meant (data=msu)")
        try:
            from scoreqa.corpus.build import build_corpus
        except ImportError as err:
            raise ImportError(f"building the corpus needs the `scores` extra ({err.name} is missing): "
                              "pip install -c constraints.txt -e '.[scores]'") from err
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / LOCK).open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            manifest = self._matching_manifest()  # another process may have built it while we waited
            if manifest is None:
                log.info("building the corpus into %s (%s scores, ABC <= %s characters; finished scores are "
                         "reused)", self.root, self._limit() or "all", self.max_abc_chars or "any")
                manifest = build_corpus(self.root, limit=self._limit(), seed=self.build_seed,
                                        max_abc_chars=self.max_abc_chars)
        return manifest

    def read_all(self) -> tuple[dict[str, Score], list[Question]]:
        self.ensure_built()
        scores: dict[str, Score] = {}
        for line in (self.root / "scores.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            folder = self.root / "scores" / record["id"]
            scores[record["id"]] = Score(
                id=record["id"], title=record["title"], composer=record.get("composer"),
                abc=(folder / "score.abc").read_text(encoding="utf-8") if (folder / "score.abc").exists() else None,
                pdf_path=folder / "score.pdf" if (folder / "score.pdf").exists() else None,
                page_images=sorted_pages(folder),
                musicxml_path=folder / "score.musicxml" if (folder / "score.musicxml").exists() else None)
        questions = []
        for line in (self.root / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            questions.append(Question(id=row["id"], score_id=row["score_id"], level=int(row["level"]),
                                      text=row["text"], reference=row["reference"],
                                      choices=tuple(row.get("choices") or ()), meta=row.get("meta") or {}))
        return scores, questions

    def load(self, needs: Iterable[str]) -> BenchmarkSplit:
        scores, questions = self.read_all()
        return select(self.name, scores, questions, split=self.split, seed=self.split_seed, limit=self.limit,
                      needs=needs, skip_missing=self.skip_missing, source=str(self.root / "scores"))

    def all_score_ids(self) -> list[str]:
        _, questions = self.read_all()
        return list(dict.fromkeys(q.score_id for q in questions))
