"""The papers' published numbers (``paper_results.yaml``) and the runs that reproduce them."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any, Sequence

import yaml

from scoreqa.report.runs import Run


@dataclass(frozen=True)
class PaperNumber:
    table: str
    metric: str
    value: float
    match: dict[str, Any]
    source: str


def load_paper_numbers() -> list[PaperNumber]:
    """Every stored number, each with its table and the source it was taken from."""
    data = yaml.safe_load(resources.files("scoreqa.report").joinpath("paper_results.yaml").read_text())
    sources = data["sources"]
    numbers = []
    for entry in data["results"]:
        if entry["source"] not in sources:
            raise KeyError(f"paper_results.yaml: result {entry} cites unknown source {entry['source']!r}")
        source = sources[entry["source"]]
        numbers.append(PaperNumber(table=entry["table"], metric=entry["metric"], value=float(entry["value"]),
                                   match=dict(entry["match"]), source=f"{source['cite']} — {source['url']}"))
    return numbers


def _lookup(metrics: dict[str, Any], dotted: str) -> Any:
    node: Any = metrics
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _matches(run: Run, match: dict[str, Any]) -> bool:
    actual = {"data": run.benchmark, "model": run.model, "modality": run.modality, "prompt": run.prompt,
              "adapter": bool(run.adapter)}
    return all(actual.get(key) == value for key, value in match.items())


def comparisons(runs: Sequence[Run], numbers: Sequence[PaperNumber] | None = None
                ) -> list[tuple[PaperNumber, Run, float, list[float] | None]]:
    """(paper number, run, our value, our 95% CI or None) for every run that reproduces a stored cell."""
    rows = []
    for number in load_paper_numbers() if numbers is None else numbers:
        for run in runs:
            if not _matches(run, number.match):
                continue
            ours = _lookup(run.metrics, number.metric)
            if not isinstance(ours, (int, float)):
                continue
            head, _, tail = number.metric.partition(".")
            ci = _lookup(run.metrics, f"{head}_ci95.{tail}") if tail else None
            rows.append((number, run, float(ours), list(ci) if isinstance(ci, (list, tuple)) else None))
    return rows
