"""``data=reconstruction``: write ABC for a rendered page whose MusicXML is known (WildScore's
Diagnostic 2 made a measured task).

Scores come from the built public-domain corpus (:class:`scoreqa.corpus.bench.CorpusBench`: ABC,
rendered page PNGs and the source MusicXML of each score). Only scores whose rendering fits on
``max_pages`` pages are asked (default 1: the page shows the whole score, so every source bar is
on it). The question's reference is the corpus's validated ABC, which the oracle returns.
Scoring (:mod:`scoreqa.metrics.reconstruction`): ABC validity through abctoolkit's abc2xml,
bar-count match, and per-bar pitch-set F1 against the source MusicXML.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from scoreqa.corpus.bench import CorpusBench
from scoreqa.data.benchmark import Benchmark, check_too_long
from scoreqa.metrics.record import Estimate, Scores
from scoreqa.data.records import BenchmarkSplit, Question, Score

INSTRUCTION = "Transcribe this page of sheet music into ABC notation."


class ReconstructionBench(Benchmark):
    """As configured in ``conf/data/reconstruction.yaml``."""

    def __init__(self, name: str = "reconstruction", root: str = ".cache/corpus", build_limit: int | None = 30,
                 build_seed: int = 0, auto_build: bool = True, max_pages: int = 1, limit: int | None = None,
                 split: str = "all", templates: Mapping[str, str] | None = None, split_seed: int = 0,
                 too_long: str = "fail") -> None:
        self.too_long = check_too_long(too_long)
        if split not in ("all", "test"):
            raise ValueError(f"the reconstruction diagnostic has no train/val part: data.split must be 'all', "
                             f"got {split!r}")
        self.name, self.split, self.max_pages, self.limit = name, split, int(max_pages), limit
        self.corpus = CorpusBench(root=root, build_limit=build_limit, build_seed=build_seed, auto_build=auto_build)
        self.templates = dict(templates or {})
        self._questions: dict[str, Question] = {}

    def load(self, needs: Iterable[str]) -> BenchmarkSplit:
        needs = list(needs)
        if needs != ["pages"]:
            raise ValueError(f"the reconstruction diagnostic shows the rendered page (modality=pdf); got {needs}")
        scores, _ = self.corpus.read_all()
        chosen: dict[str, Score] = {}
        skipped: list[dict[str, str]] = []
        for score_id, score in scores.items():
            problem = ("no page image" if not score.page_images else "no MusicXML" if score.musicxml_path is None
                       else "no ABC" if not score.abc else
                       f"{len(score.page_images)} pages" if len(score.page_images) > self.max_pages else None)
            if problem:
                skipped.append({"score_id": score_id, "title": score.title, "missing": problem})
            else:
                chosen[score_id] = score
        if self.limit is not None:
            chosen = dict(list(chosen.items())[: int(self.limit)])
        if not chosen:
            raise ValueError(f"no corpus score in {self.corpus.root} fits on {self.max_pages} page(s) with its "
                             "MusicXML and ABC; raise data.max_pages or data.build_limit")
        questions = [Question(f"{sid}:reconstruct", sid, 0, INSTRUCTION, score.abc, (),
                              {"musicxml": str(score.musicxml_path)}) for sid, score in chosen.items()]
        self._questions = {q.id: q for q in questions}
        return BenchmarkSplit(self.name, self.split, chosen, questions, skipped)

    def metrics(self, records: Sequence[Any], bootstrap_resamples: int = 0) -> Scores:
        from scoreqa.metrics.reconstruction import reconstruction_metrics

        d = reconstruction_metrics(records, self._questions)
        n = len(d["per_score"])
        return Scores("pitch_f1", d["pitch_f1"],
                      {"measure": {k: Estimate(d[k], n=n) for k in ("valid", "bar_count_match", "pitch_f1")}}, details=d)
