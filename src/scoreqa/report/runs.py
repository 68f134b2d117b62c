"""A finished run dir as the report reads it: its config, ``metrics.json`` and per-question ``records.jsonl``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

LEVEL_KEYS = ("level_1", "level_2", "level_3", "level_4")


@dataclass
class Run:
    path: Path
    config: dict[str, Any]
    metrics: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    label: str = ""

    def setting(self, key: str) -> Any:
        """A dotted config value (``model.name``), None when absent."""
        node: Any = self.config
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    @property
    def benchmark(self) -> str:
        return str(self.setting("data.name") or "?")

    @property
    def model(self) -> str:
        return str(self.setting("model.name") or "?")

    @property
    def adapter(self) -> str | None:
        return self.setting("model.adapter")

    @property
    def modality(self) -> str:
        return str(self.setting("modality.name") or "?")

    @property
    def prompt(self) -> str:
        return str(self.setting("prompt.name") or "?")

    @property
    def complete(self) -> bool:
        """False when a question was not really asked (failed or too-long requests, nothing evaluated)."""
        return self.metrics.get("complete", True) is not False

    @property
    def has_levels(self) -> bool:
        """MSU-style metrics (per-level accuracy and LSR) rather than a benchmark's own."""
        return "lsr" in self.metrics and isinstance(self.metrics.get("accuracy"), dict)

    def identity(self, *, without: Iterable[str] = ()) -> tuple:
        """What the run evaluates, minus the named settings (to pair runs that differ in one of them)."""
        parts = {"data": self.benchmark, "split": self.setting("data.split"), "limit": self.setting("data.limit"),
                 "model": self.model, "adapter": bool(self.adapter), "modality": self.modality,
                 "prompt": self.prompt, "sampling": self.setting("sampling.name"),
                 "judge": self.setting("judge._target_")}
        return tuple((k, v) for k, v in parts.items() if k not in set(without))

    def correctness(self) -> dict[str, bool]:
        """Question id -> judged correct, for the questions that were judged (a reference exists)."""
        return {r["question_id"]: bool(r["correct"]) for r in self.records if r.get("correct") is not None}


def default_label(run: Run) -> str:
    lora = "+LoRA" if run.adapter else ""
    label = f"{run.model}{lora} · {run.benchmark}/{run.modality} · {run.prompt}"
    if not run.complete:  # never an ordinary row: the reasons travel with the label into every table and plot
        label += f" [INCOMPLETE: {'; '.join(run.metrics.get('incomplete_reasons') or ['see metrics.json'])}]"
    return label


def load_run(path: Path) -> Run:
    """Read a run dir; a dir without ``metrics.json`` is refused with what to do."""
    path = Path(path)
    metrics_path = path / "metrics.json"
    if not metrics_path.exists():
        raise FileNotFoundError(f"{path} is not a finished run dir (no metrics.json): pass the folder an "
                                f"evaluate.py run wrote (its hydra.run.dir)")
    config_path = path / "config.yaml"
    config = yaml.safe_load(config_path.read_text()) if config_path.exists() else {}
    records_path = path / "records.jsonl"
    records = [json.loads(line) for line in records_path.read_text(encoding="utf-8").splitlines() if line.strip()] \
        if records_path.exists() else []
    run = Run(path=path, config=config or {}, metrics=json.loads(metrics_path.read_text()), records=records)
    run.label = default_label(run)
    return run


def find_run_dirs(paths: Iterable[Path]) -> list[Path]:
    """Run dirs among ``paths``: a run dir itself, or every run dir below a sweep folder (shards and
    hidden folders such as ``.submitit`` skipped: a sharded run is reported through its merged dir)."""
    found: list[Path] = []
    for path in map(Path, paths):
        if (path / "metrics.json").exists():
            found.append(path)
            continue
        below = sorted(p.parent for p in path.rglob("metrics.json")
                       if not any(part.startswith((".", "shard-")) for part in p.relative_to(path).parts[:-1]))
        if not below:
            raise FileNotFoundError(f"no run dir (a folder with metrics.json) at or below {path}")
        found.extend(below)
    return list(dict.fromkeys(found))


def unique_labels(runs: list[Run]) -> None:
    """Make labels unique (two runs of the same setting get their folder name appended)."""
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.label] = seen.get(run.label, 0) + 1
    for run in runs:
        if seen[run.label] > 1:
            run.label = f"{run.label} ({run.path.name})"
