"""Weights & Biases: metrics, a per-question predictions table, a bar chart per score group and the LSR curve.

Offline by default (``logger.mode=offline``; ``wandb sync <run dir>/wandb/offline-run-*`` uploads
later, e.g. after a SLURM job). ``WANDB_MODE`` in the environment wins over the config.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Sequence

from scoreqa.config import scrub
from scoreqa.loggers.base import RunLogger
from scoreqa.metrics.record import Metrics

TABLE_COLUMNS = ("question_id", "score_id", "level", "question", "reference", "prediction", "correct",
                 "decided_by")


def flatten(metrics: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """Numeric leaves of a nested dict as ``a/b/c`` keys (lists such as CIs become ``…/lo`` and ``…/hi``)."""
    flat: dict[str, float] = {}
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, f"{name}/"))
        elif isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
            flat[f"{name}/lo"], flat[f"{name}/hi"] = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[name] = value
    return flat


class WandbLogger(RunLogger):
    def __init__(self, project: str = "scoreqa", entity: str | None = None, mode: str = "offline",
                 group: str | None = None, tags: Sequence[str] = (), name: str | None = None,
                 resume_id: str | None = None) -> None:
        self.project, self.entity, self.mode, self.group = project, entity, mode, group
        self.tags, self.name, self.resume_id = list(tags), name, resume_id
        self.run = None

    def start(self, config: dict[str, Any], run_dir: Path, job_type: str) -> None:
        import wandb

        mode = os.environ.get("WANDB_MODE", self.mode)
        argv, sys.argv = sys.argv, [scrub(arg) for arg in sys.argv]  # W&B records the command line in its metadata
        try:
            self.run = wandb.init(project=self.project, entity=self.entity, mode=mode, group=self.group,
                                  tags=self.tags, name=self.name, job_type=job_type, config=config,
                                  dir=str(run_dir), id=self.resume_id, resume="allow" if self.resume_id else None)
        finally:
            sys.argv = argv

    def log_metrics(self, metrics: dict[str, Any], step: int | None = None) -> None:
        if self.run is not None:
            self.run.log(flatten(metrics), step=step)

    def log_evaluation(self, metrics: Metrics, records: Sequence[dict[str, Any]]) -> None:
        """Every benchmark alike: scalars, the predictions table, a bar chart per group, the LSR curve if any."""
        if self.run is None:
            return
        import wandb

        self.run.summary.update({**flatten(metrics.as_dict()), "complete": metrics.complete})
        if not metrics.complete:
            self.run.tags = (*self.run.tags, "incomplete")
        charts: dict[str, Any] = {}
        if records:
            charts["predictions"] = wandb.Table(columns=list(TABLE_COLUMNS),
                                                data=[[record.get(c) for c in TABLE_COLUMNS] for record in records])
        for group, named in metrics.scores.groups.items():
            table = wandb.Table(columns=[group, "score"], data=[[k, v.value] for k, v in named.items()])
            charts[f"score_by_{group}"] = wandb.plot.bar(table, group, "score", title=f"Score by {group} (%)")
        lsr = metrics.scores.lsr
        if lsr:
            levels = [[int(k.split("_")[1]), v.value] for k, v in lsr.items() if k.startswith("level_")]
            charts["lsr_curve"] = wandb.plot.line(wandb.Table(columns=["level", "lsr"], data=levels), "level", "lsr",
                                                  title="Level-wise success rate (%)")
        self.run.log(charts)

    def finish(self) -> None:
        if self.run is not None:
            self.run.finish()
            self.run = None
