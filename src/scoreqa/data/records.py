"""Typed records shared by every benchmark, prompt builder, backend and metric."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


@dataclass(frozen=True)
class Score:
    """One piece of music and the files each modality reads from it."""

    id: str
    title: str
    composer: str | None = None
    abc: str | None = None
    pdf_path: Path | None = None
    page_images: tuple[Path, ...] = ()
    musicxml_path: Path | None = None  # the source, when known (the `analysis` prompt's fact sheet reads it)


@dataclass(frozen=True)
class Question:
    """One question about one score.

    ``reference`` is ``None`` when the release has no reference answer (39 MSU-Bench rows):
    such a question is still asked, but never judged and never counted in accuracy or LSR.
    ``choices`` holds the options of multiple-choice benchmarks; ``meta`` holds whatever else a
    benchmark's metrics need (category, subtask, target order ...).
    """

    id: str
    score_id: str
    level: int
    text: str
    reference: str | None
    choices: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def has_reference(self) -> bool:
        return self.reference is not None


@dataclass
class BenchmarkSplit:
    """The questions of one split with the scores they ask about, in a stable order."""

    name: str
    split: str
    scores: dict[str, Score]
    questions: list[Question]
    skipped: list[dict[str, str]] = field(default_factory=list)

    def questions_by_score(self) -> dict[str, list[Question]]:
        grouped: dict[str, list[Question]] = {}
        for question in self.questions:
            grouped.setdefault(question.score_id, []).append(question)
        return grouped

    def version(self) -> str:
        """A content hash of what the model is shown and judged against (part of the run key)."""
        digest = hashlib.sha256()
        for question in self.questions:
            digest.update(json.dumps([question.id, question.level, question.text, question.reference,
                                      list(question.choices)], ensure_ascii=False).encode())
        for score_id in sorted(self.scores):
            score = self.scores[score_id]
            digest.update(json.dumps([score.id, score.title, score.composer, score.abc,
                                      [_file_fingerprint(p) for p in
                                       (score.pdf_path, *score.page_images, score.musicxml_path) if p]],
                                     ensure_ascii=False).encode())
        return digest.hexdigest()[:16]


def _file_fingerprint(path: Path) -> str:
    """Name and size: cheap, and enough to tell a re-rendered page from the old one."""
    path = Path(path)
    return f"{path.name}:{path.stat().st_size if path.exists() else -1}"
