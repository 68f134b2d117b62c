"""What ``python evaluate.py`` does with its composed config."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from scoreqa.backends.base import Backend
from scoreqa.config import redact, scrub
from scoreqa.data.benchmark import Benchmark, check_limit
from scoreqa.data.shards import shard_split
from scoreqa.data.split import write_split
from scoreqa.evaluation.report import count_outcomes, failure_causes, judged_by, summary_table
from scoreqa.evaluation.run_lock import run_folder_lock
from scoreqa.evaluation.runner import run_evaluation
from scoreqa.metrics.record import Counters, Metrics, Scores
from scoreqa.prompts.builder import ModalitySpec

log = logging.getLogger(__name__)
# exit code of a run that finished but could not ask every question (documented in README and evaluate.py)
EXIT_INCOMPLETE = 3


def check_sampling(sampling: Any) -> None:
    """Refuse impossible decoding settings before any model loads."""
    temperature = sampling.get("temperature", 1.0)
    if not isinstance(temperature, (int, float)) or temperature < 0 or (sampling.get("do_sample") and temperature == 0):
        raise ValueError(f"sampling.temperature must be a number > 0 when sampling (>= 0 with do_sample=false); "
                         f"got {temperature!r}")


def scrub_hydra_dir(hydra_dir: Path) -> None:
    """Hydra's own copies of the config and overrides get the same redaction as ``config.yaml``."""
    for path in sorted(Path(hydra_dir).glob("*.yaml")):
        tree = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
        if isinstance(tree, list):
            tree = [scrub(str(item)) for item in tree]
        path.write_text(OmegaConf.to_yaml(OmegaConf.create(redact(tree))))


def _instantiate_benchmark(cfg: DictConfig) -> Benchmark:
    check_limit(cfg.data.get("limit"))
    benchmark = instantiate(cfg.data, _convert_="all")
    if not isinstance(benchmark, Benchmark):
        raise TypeError(f"data={cfg.data.get('name')}: {type(benchmark).__name__} is not a "
                        "scoreqa.data.benchmark.Benchmark (see that module for what a benchmark provides)")
    return benchmark


def evaluate(cfg: DictConfig, run_dir: Path) -> Metrics:
    """Evaluate ``cfg.model`` on ``cfg.data`` into ``run_dir`` (``metrics.json``, ``config.yaml``, ``records.jsonl``).

    One process per run folder (a second one is refused); the returned :class:`Metrics` says whether the
    run is complete.
    """
    started = time.perf_counter()
    run_dir = Path(run_dir)
    check_sampling(cfg.sampling)
    benchmark = _instantiate_benchmark(cfg)
    with run_folder_lock(run_dir):
        plain = redact(OmegaConf.to_container(cfg, resolve=True))
        (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(plain)))
        scrub_hydra_dir(run_dir / ".hydra")
        if benchmark.evaluates_itself:
            scores, n_questions = benchmark.run(cfg, run_dir)
            metrics = Metrics(benchmark.name, scores, Counters(n_questions=n_questions))
            records: list[dict[str, Any]] = []
        else:
            metrics, records = _evaluate_split(cfg, benchmark, run_dir, started)
        (run_dir / "metrics.json").write_text(json.dumps(metrics.as_dict(), indent=2, allow_nan=False))
        print(summary_table(metrics, cfg.model.get("note")))
        logger = instantiate(cfg.logger, _convert_="all")
        logger.start(plain, run_dir, job_type="evaluate")
        logger.log_evaluation(metrics, records)
        logger.finish()
    return metrics


def _evaluate_split(cfg: DictConfig, benchmark: Benchmark, run_dir: Path, started: float
                    ) -> tuple[Metrics, list[dict[str, Any]]]:
    modality = ModalitySpec.from_config(cfg.modality)
    split = benchmark.load(needs=modality.inputs)
    split = shard_split(split, **(cfg.get("shard") or {}))  # array jobs: scoreqa.data.shards
    score_ids = benchmark.all_score_ids()
    if score_ids is not None:
        write_split(run_dir / "split.json", score_ids, cfg.data.split_seed)
    if split.skipped:
        log.warning("skipped %d score(s) lacking %s input: %s", len(split.skipped), modality.name,
                    ", ".join(s["score_id"] for s in split.skipped))
    builder = benchmark.prompt_builder(modality, cfg.prompt.mode)
    backend: Backend = instantiate(cfg.backend, _convert_="all")
    backend.bind_split(split)
    judge = instantiate(cfg.judge, _convert_="all")

    outcome = run_evaluation(split, builder, backend, judge, run_dir, too_long=benchmark.too_long)
    outcome.usage["invocation_seconds"] = round(time.perf_counter() - started, 3)  # loading + generation + judging
    records = outcome.records
    scores = benchmark.metrics(records, cfg.bootstrap_resamples) if records else Scores("none", None)
    metrics = Metrics(benchmark.name, scores,
                      count_outcomes(records, n_new_generations=outcome.n_new_generations,
                                     n_skipped_scores=len(split.skipped)),
                      failure_causes(outcome.errors, backend.endpoint()), outcome.run_key,
                      {"judged_by": judged_by(records), "inference": outcome.usage})
    rows = [r.as_dict() for r in records]
    # per-question records (what the report's paired tests compare); rewritten whole on every run
    (run_dir / "records.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                           encoding="utf-8")
    return metrics, rows
