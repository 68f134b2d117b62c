"""``python evaluate.py data=mmlu model=… [model.adapter=…] [data.base_run=…]``: MMLU accuracy per category.

The model is loaded as every evaluation loads it (``scoreqa.models.loading``, adapter included) and
scored by lm-eval's log-likelihood multiple choice over the local task definition of
:mod:`scoreqa.mmlu.tasks`. ``metrics.json`` holds percentages per category, overall and per subject;
with ``data.base_run`` (the folder of the same evaluation without the adapter) it adds the change in
percentage points, the paper's forgetting check.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any, Sequence

from omegaconf import DictConfig

from scoreqa.data.benchmark import Benchmark, check_too_long
from scoreqa.metrics.record import Estimate, Scores
from scoreqa.mmlu.layout import require_files
from scoreqa.mmlu.subjects import CATEGORIES, SUBJECTS
from scoreqa.mmlu.tasks import OVERALL, category_group, subject_task, write_tasks
from scoreqa.models.loading import load_model, load_text_processor, resolve_device
from scoreqa.models.spec import ModelSpec

log = logging.getLogger(__name__)


def _pct(value: float) -> float:
    return round(100 * float(value), 2)


class MMLUBenchmark(Benchmark):
    """MMLU as configured in ``conf/data/mmlu.yaml``; evaluates by itself through ``run``."""

    evaluates_itself = True

    def __init__(self, name: str = "mmlu", root: str | None = None, subjects: Sequence[str] | None = None,
                 num_fewshot: int = 5, limit: int | None = None, batch_size: int = 8, device: str = "auto",
                 apply_chat_template: bool = False, base_run: str | None = None, too_long: str = "fail") -> None:
        self.too_long = check_too_long(too_long)
        unknown = sorted(set(subjects or ()) - set(SUBJECTS))
        if unknown:
            raise ValueError(f"data.subjects: unknown MMLU subject(s) {unknown}; see scoreqa.mmlu.subjects.SUBJECTS")
        if root is None:
            raise ValueError("data.root must point to a local copy of the Hugging Face dataset cais/mmlu")
        self.name, self.root = name, Path(root)
        self.subjects = list(subjects) if subjects else list(SUBJECTS)
        self.num_fewshot, self.limit, self.batch_size = int(num_fewshot), limit, batch_size
        self.device, self.apply_chat_template = device, bool(apply_chat_template)
        self.base_run = Path(base_run) if base_run else None

    def load(self, needs: Any) -> Any:
        raise NotImplementedError("MMLU is evaluated by lm-eval through run(); it has no question split to load")

    def run(self, cfg: DictConfig, run_dir: Path) -> tuple[Scores, int]:
        import lm_eval
        from lm_eval.models.huggingface import HFLM
        from lm_eval.tasks import TaskManager

        run_dir = Path(run_dir)
        files = require_files(self.root, self.subjects, ["test", "dev"])  # lm-eval's template names both
        base = self.load_base_run()  # before any model call: a mismatch must not cost an evaluation
        spec = ModelSpec.from_config(cfg.model)
        if cfg.model.get("api") or spec.kind not in ("causal_lm", "vision_language"):
            raise ValueError(f"MMLU compares the log-likelihoods of the four answers, which model={spec.name} does "
                             "not expose: use a local Hugging Face model (hub id or folder)")
        tokenizer = getattr(processor := load_text_processor(spec), "tokenizer", processor)
        model = load_model(spec, resolve_device(self.device))
        lm = HFLM(pretrained=model, tokenizer=tokenizer, backend="causal", batch_size=self.batch_size,
                  enable_thinking=spec.enable_thinking)
        identity = json.dumps([spec.identity(), self.num_fewshot, self.apply_chat_template], sort_keys=True)
        cache = run_dir / f"lm_eval_cache-{hashlib.sha256(identity.encode()).hexdigest()[:12]}"
        group = write_tasks(run_dir / "lm_eval_tasks", files)
        results = lm_eval.simple_evaluate(
            model=lm, tasks=[group], num_fewshot=self.num_fewshot, limit=self.limit, log_samples=False,
            task_manager=TaskManager(include_path=str(run_dir / "lm_eval_tasks"), include_defaults=False),
            use_cache=str(cache), apply_chat_template=self.apply_chat_template,
            fewshot_as_multiturn=self.apply_chat_template)
        (run_dir / "lm_eval_results.json").write_text(json.dumps(results, indent=1, default=str))
        metrics = self.metrics_from(results, spec)
        if base is not None:
            metrics["delta"] = self.delta(metrics, base)
            metrics["base_run"] = str(self.base_run)
        print(summary_table(metrics))  # with the delta to the base run, when given
        categories = {k: Estimate(v, n=None) for k, v in metrics["accuracy"].items() if k != "overall"}
        subjects = {s: Estimate(v["accuracy"], n=v["n"]) for s, v in metrics["subjects"].items()}
        return (Scores("accuracy", metrics["accuracy"]["overall"], {"category": categories, "subject": subjects},
                       details=metrics), metrics["n_questions"])

    def metrics_from(self, results: dict[str, Any], spec: ModelSpec) -> dict[str, Any]:
        scores, n_samples = results["results"], results["n-samples"]
        present = [c for c in CATEGORIES if any(SUBJECTS[s] == c for s in self.subjects)]
        keys = {"overall": OVERALL, **{c: category_group(c) for c in present}}
        return {
            "benchmark": "mmlu",
            "accuracy": {k: _pct(scores[task]["acc,none"]) for k, task in keys.items()},
            "accuracy_stderr": {k: _pct(scores[task]["acc_stderr,none"]) for k, task in keys.items()},
            "subjects": {s: {"category": SUBJECTS[s], "accuracy": _pct(scores[subject_task(s)]["acc,none"]),
                             "n": n_samples[subject_task(s)]["effective"]} for s in self.subjects},
            "n_questions": sum(n_samples[subject_task(s)]["effective"] for s in self.subjects),
            "num_fewshot": self.num_fewshot,
            "apply_chat_template": self.apply_chat_template,
            "model": spec.identity(),
        }

    def load_base_run(self) -> dict[str, Any] | None:
        """The base run's metrics, checked to be the same MMLU setting as this run."""
        if self.base_run is None:
            return None
        path = self.base_run / "metrics.json"
        if not path.exists():
            raise FileNotFoundError(f"data.base_run={self.base_run} has no metrics.json: run the base model first "
                                    f"(python evaluate.py data=mmlu model=… hydra.run.dir={self.base_run})")
        base = json.loads(path.read_text())
        if base.get("benchmark") != "mmlu":
            raise ValueError(f"data.base_run={self.base_run} is not an MMLU run")
        mine = {"num_fewshot": self.num_fewshot, "apply_chat_template": self.apply_chat_template,
                "subjects": sorted(self.subjects)}
        theirs = {**base, "subjects": sorted(base.get("subjects", {}))}
        for key, value in mine.items():
            if theirs.get(key) != value:
                raise ValueError(f"data.base_run={self.base_run} differs in {key} ({theirs.get(key)} there, {value} "
                                 "here): compare like with like")
        return base

    @staticmethod
    def delta(metrics: dict[str, Any], base: dict[str, Any]) -> dict[str, float]:
        """This run's accuracy minus the base run's, in percentage points, per category and overall."""
        if {s: v["n"] for s, v in metrics["subjects"].items()} != {s: v["n"] for s, v in base["subjects"].items()}:
            raise ValueError("the base run evaluated another number of questions per subject (data.limit?)")
        return {k: round(v - base["accuracy"][k], 2) for k, v in metrics["accuracy"].items()}


def summary_table(metrics: dict[str, Any]) -> str:
    lines = [f"{'MMLU':16} {'accuracy %':>10} {'± stderr':>9}" + (f" {'Δ pp':>7}" if "delta" in metrics else "")]
    for key, value in metrics["accuracy"].items():
        row = f"{key:16} {value:10.2f} {metrics['accuracy_stderr'][key]:9.2f}"
        if "delta" in metrics:
            row += f" {metrics['delta'][key]:+7.2f}"
        lines.append(row)
    lines.append(f"{metrics['n_questions']} questions, {len(metrics['subjects'])} subjects, "
                 f"{metrics['num_fewshot']}-shot")
    return "\n".join(lines)
