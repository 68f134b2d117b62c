"""What ``data=X`` must provide: read this once to add a benchmark.

A benchmark is the object ``conf/data/X.yaml`` instantiates. It must

* ``load(needs)``: return the :class:`BenchmarkSplit` of the configured split, with the score inputs the
  modality ``needs`` ("abc", "pages", "title");
* have ``name`` and ``templates`` (prompt template names; see ``conf/data/msu.yaml``);
* take ``too_long`` (``data.too_long``: ``fail`` | ``skip``), what the run does with a request over the model's
  context window (``scoreqa.evaluation.context_check``).

It may override, each with a working default:

* ``prompt_builder(modality, mode)``: its own request builder (BoYaEval's few-shot prompts);
* ``metrics(records, bootstrap_resamples)``: its own :class:`Scores` (the default is MSU's per-level
  accuracy with bootstrap CIs and LSR);
* ``all_score_ids()``: every score id before splitting, when the split is a seeded partition (``split.json``);
* ``evaluates_itself = True`` with ``run(cfg, run_dir)``: a benchmark that runs its own harness (MMLU
  through lm-eval) and returns its :class:`Scores` and question count.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from scoreqa.data.records import BenchmarkSplit
from scoreqa.metrics.record import Scores


class Benchmark(ABC):
    name: str = "benchmark"
    templates: Mapping[str, str] = {}
    evaluates_itself: bool = False
    too_long: str = "fail"

    @abstractmethod
    def load(self, needs: Iterable[str]) -> BenchmarkSplit:
        """The questions of the configured split and the scores they ask about."""

    def prompt_builder(self, modality: Any, mode: str) -> Any:
        from scoreqa.prompts.builder import PromptBuilder

        return PromptBuilder(self.templates, modality, mode)

    def metrics(self, records: Sequence[Any], bootstrap_resamples: int = 10_000) -> Scores:
        from scoreqa.evaluation.report import level_scores

        return level_scores(records, bootstrap_resamples)

    def all_score_ids(self) -> list[str] | None:
        return None

    def run(self, cfg: Any, run_dir: Path) -> tuple[Scores, int]:
        raise NotImplementedError(f"{type(self).__name__} is evaluated by the runner (evaluates_itself is False)")


def check_too_long(policy: str) -> str:
    if policy not in ("fail", "skip"):
        raise ValueError(f"data.too_long must be fail or skip; got {policy!r}")
    return policy


def check_limit(limit: int | None, name: str = "data.limit") -> int | None:
    """A limit keeps the first N; 0 or a negative N would silently evaluate nothing or drop the last items."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"{name} must be an integer >= 1, or null for no limit; got {limit!r}")
    return limit
