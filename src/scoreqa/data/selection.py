"""From all of a benchmark's scores and questions to the split a run asks: split, limit, modality check."""

from __future__ import annotations

from typing import Iterable, Sequence

from scoreqa.data.benchmark import check_limit
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.data.split import select_split

# What each input a modality may need is called, and how to tell whether a score has it.
_HAS = {
    "abc": lambda score: bool(score.abc and score.abc.strip()),
    "pages": lambda score: bool(score.page_images),
    "title": lambda score: bool(score.title),
}
_EXPECTED_FILE = {"abc": "{id}.abc", "pages": "{id}/page-1.png (or {id}.pdf)", "title": "a title in the metadata"}


class MissingScoreInput(FileNotFoundError):
    """A score lacks the file its modality needs."""


def select(name: str, scores: dict[str, Score], questions: Sequence[Question], *, split: str, seed: int,
           limit: int | None, needs: Iterable[str], skip_missing: bool, source: str) -> BenchmarkSplit:
    """Keep the questions of ``split``, the first ``limit`` scores of it, and those whose inputs exist.

    ``source`` names where score files were looked for, so the error says where to put them.
    """
    order = list(dict.fromkeys(q.score_id for q in questions))
    kept = select_split(order, split, seed)
    if limit is not None:
        kept = kept[: check_limit(limit)]
    needs = list(needs)
    unknown = [need for need in needs if need not in _HAS]
    if unknown:
        raise ValueError(f"unknown modality input(s) {unknown}; known: {sorted(_HAS)}")
    skipped: list[dict[str, str]] = []
    usable: list[str] = []
    for score_id in kept:
        score = scores.get(score_id)
        if score is None:
            raise KeyError(f"{name}: questions refer to score {score_id!r}, which the metadata does not list")
        missing = [need for need in needs if not _HAS[need](score)]
        if not missing:
            usable.append(score_id)
            continue
        expected = ", ".join(_EXPECTED_FILE[m].format(id=score_id) for m in missing)
        if not skip_missing:
            raise MissingScoreInput(
                f"{name}: score {score_id!r} ({score.title!r}) has no {' / '.join(missing)} input; expected {expected} "
                f"under {source}. Add the file, choose another modality, or pass data.skip_missing=true "
                f"to skip such scores (they are counted in the report).")
        skipped.append({"score_id": score_id, "title": score.title, "missing": ",".join(missing)})
    wanted = set(usable)
    rank = {score_id: i for i, score_id in enumerate(usable)}
    chosen = sorted((q for q in questions if q.score_id in wanted), key=lambda q: rank[q.score_id])
    return BenchmarkSplit(name=name, split=split, scores={s: scores[s] for s in usable}, questions=chosen,
                          skipped=skipped)
