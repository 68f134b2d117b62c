"""The logger interface the entry points call; ``NullLogger`` is ``logger=none``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from scoreqa.metrics.record import Metrics


class RunLogger:
    def start(self, config: dict[str, Any], run_dir: Path, job_type: str) -> None:
        """Open a run; ``config`` is already redacted."""

    def log_metrics(self, metrics: dict[str, Any], step: int | None = None) -> None:
        """Scalars (nested dicts are flattened with '/')."""

    def log_evaluation(self, metrics: Metrics, records: Sequence[dict[str, Any]]) -> None:
        """Metrics, per-question table and plots of an evaluation."""

    def finish(self) -> None:
        """Close the run."""


class NullLogger(RunLogger):
    """Logs nothing (``logger=none``)."""
