"""What ``python evaluate.py`` does with its composed config."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from scoreqa.config import redact
from scoreqa.data.shards import shard_split
from scoreqa.data.split import write_split
from scoreqa.evaluation.report import run_metrics, summary_table
from scoreqa.evaluation.runner import run_evaluation
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder

log = logging.getLogger(__name__)


def headline(metrics: dict[str, Any]) -> float | None:
    """The one number of a run: overall accuracy (MSU-style) or the benchmark's ``overall``."""
    accuracy = metrics.get("accuracy")
    value = accuracy.get("overall") if isinstance(accuracy, dict) else metrics.get("overall")
    return value if isinstance(value, (int, float)) else None


def evaluate(cfg: DictConfig, run_dir: Path) -> dict[str, Any]:
    """Evaluate ``cfg.model`` on ``cfg.data``; writes ``metrics.json``, ``config.yaml`` and ``split.json`` to ``run_dir``.

    A benchmark object provides ``load(needs) -> BenchmarkSplit`` and ``templates``; optionally
    ``metrics(records) -> dict`` (its own metrics instead of MSU's per-level ones) or
    ``run(cfg, run_dir) -> dict`` (a benchmark that evaluates by itself, e.g. MMLU through lm-eval), or
    ``prompt_builder(modality, mode)`` (its own request builder, e.g. few-shot prompts with images).
    A backend may offer ``bind_split(split)`` (baselines that answer from the data itself).
    """
    started = time.perf_counter()
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    plain = redact(OmegaConf.to_container(cfg, resolve=True))
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(plain)))

    too_long = str(cfg.data.get("too_long", "fail"))  # the run's policy, not the benchmark's: not passed to it
    data = OmegaConf.to_container(cfg.data, resolve=True)
    data.pop("too_long", None)
    benchmark = instantiate(data, _convert_="all")
    if hasattr(benchmark, "run"):
        metrics = benchmark.run(cfg, run_dir)
        (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))
        return metrics
    modality = ModalitySpec.from_config(cfg.modality)
    split = benchmark.load(needs=modality.inputs)
    split = shard_split(split, **(cfg.get("shard") or {}))  # array jobs: scoreqa.data.shards
    if hasattr(benchmark, "all_score_ids"):
        write_split(run_dir / "split.json", benchmark.all_score_ids(), cfg.data.split_seed)
    if split.skipped:
        log.warning("skipped %d score(s) lacking %s input: %s", len(split.skipped), modality.name,
                    ", ".join(s["score_id"] for s in split.skipped))
    builder = (benchmark.prompt_builder(modality, cfg.prompt.mode) if hasattr(benchmark, "prompt_builder")
               else PromptBuilder(benchmark.templates, modality, cfg.prompt.mode))
    backend = instantiate(cfg.backend, _convert_="all")
    if hasattr(backend, "bind_split"):
        backend.bind_split(split)
    judge = instantiate(cfg.judge, _convert_="all")
    logger = instantiate(cfg.logger, _convert_="all")

    outcome = run_evaluation(split, builder, backend, judge, run_dir, too_long=too_long)
    outcome.usage["invocation_seconds"] = round(time.perf_counter() - started, 3)  # loading + generation + judging
    metrics = run_metrics(outcome.records, run_key=outcome.run_key, n_new_generations=outcome.n_new_generations,
                          n_skipped_scores=len(split.skipped), usage=outcome.usage,
                          bootstrap_resamples=cfg.bootstrap_resamples,
                          benchmark_metrics=getattr(benchmark, "metrics", None))
    (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=2))
    # per-question records (what the report's paired tests compare); rewritten whole on every run
    (run_dir / "records.jsonl").write_text("".join(json.dumps(r.as_dict(), ensure_ascii=False) + "\n"
                                                 for r in outcome.records), encoding="utf-8")
    print(summary_table(metrics))
    logger.start(plain, run_dir, job_type="evaluate")
    logger.log_evaluation(metrics, [r.as_dict() for r in outcome.records])
    logger.finish()
    return metrics
