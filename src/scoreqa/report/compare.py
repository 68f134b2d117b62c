"""Our runs beside the published cells they reproduce, with the difference and whose interval holds whose value.

A run is compared with every cell whose key it meets (benchmark, split, modality, prompt mode, adapter, shots)
and whose model is the run's model. A run that meets no such cell although it meets a table's other settings
(a baseline such as ``symbolic`` or ``random``, or a model the paper did not test) is placed instead against
each such table's best published value per measure and, where the table defines one, its chance level; both
are labelled as such.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from scoreqa.report.paper import PaperCell, PaperResults, PaperTable, load_paper_results
from scoreqa.report.runs import Run

SAME_MODEL, PAPER_BEST, CHANCE = "same model", "paper's best", "chance"


# Small accessors for what the comparison reads from a run, so a change of the metrics.json or config shape
# is adapted here only.
def metric_value(metrics: Mapping[str, Any], path: str) -> float | None:
    """The number at a dotted path of metrics.json (``accuracy.overall``), None when absent or not a number."""
    node: Any = metrics
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return float(node) if isinstance(node, (int, float)) and not isinstance(node, bool) else None


def metric_ci(metrics: Mapping[str, Any], path: str) -> tuple[float, float] | None:
    """The 95% interval evaluate.py stores beside a metric (``accuracy_ci95.overall`` for ``accuracy.overall``)."""
    head, _, tail = path.partition(".")
    node: Any = metrics.get(f"{head}_ci95") if tail else None
    for part in tail.split(".") if tail else ():
        node = node.get(part) if isinstance(node, Mapping) else None
    if isinstance(node, (list, tuple)) and len(node) == 2 and all(isinstance(x, (int, float)) for x in node):
        return float(node[0]), float(node[1])
    return None


def answers_parsed(metrics: Mapping[str, Any], path: str) -> tuple[int, int] | None:
    """(answers parsed, answers) behind a metric: the closest block on its path that counts both (ABC-Eval keeps
    them per subtask in ``subtask_details``), else the run's totals; None when the run counts neither."""
    parts = path.split(".")
    blocks: list[Any] = [metrics]
    details = metrics.get("subtask_details", {})
    if parts[0] == "subtasks" and len(parts) == 2:
        blocks.append(details.get(parts[1]))
    elif parts[0] == "categories" and len(parts) == 2:
        members = [d for d in details.values() if d.get("category") == parts[1]]
        blocks.append({"n": sum(d["n"] for d in members), "n_unparseable": sum(d["n_unparseable"] for d in members)}
                      if members else None)
    else:
        node: Any = metrics
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, Mapping) else None
            blocks.append(node)
    for block in reversed(blocks):
        if isinstance(block, Mapping) and all(isinstance(block.get(k), int) for k in ("n", "n_unparseable")):
            return block["n"] - block["n_unparseable"], block["n"]
    if isinstance(metrics.get("n_questions"), int) and isinstance(metrics.get("n_parse_failures"), int):
        return metrics["n_questions"] - metrics["n_parse_failures"], metrics["n_questions"]
    return None


def run_complete(metrics: Mapping[str, Any]) -> bool:
    """False only when metrics.json flags the run incomplete (requests failed or did not fit); runs written
    before the flag existed count as complete."""
    return metrics.get("complete") is not False


def paper_label(cell: PaperCell) -> str:
    """The paper's model as printed, with its row block when the block is a setting (Textual QA / Visual QA)."""
    block = cell.group and cell.model_label == cell.row and cell.row != "chance"
    return f"{cell.group} · {cell.model_label}" if block else cell.model_label


def run_settings(run: Run) -> dict[str, Any]:
    """The run's values of every setting a published cell's key may constrain."""
    return {"data": run.benchmark, "split": run.setting("data.split"), "modality": run.modality,
            "prompt": run.prompt, "adapter": bool(run.adapter), "model": run.model,
            "fewshot_task2": run.setting("data.fewshot.task2"), "fewshot_task3": run.setting("data.fewshot.task3")}


@dataclass(frozen=True)
class Comparison:
    cell: PaperCell
    run: Run
    ours: float
    ours_ci: tuple[float, float] | None
    reference: str                  # SAME_MODEL, PAPER_BEST or CHANCE
    parsed: tuple[int, int] | None  # (answers parsed, answers) behind our value
    complete: bool                  # False: some questions were never really asked; not a reproduction

    @property
    def difference(self) -> float:
        """Ours minus the paper's, in the table's unit (percentage points for percentages)."""
        return self.ours - self.cell.value

    @property
    def ours_outside_paper_ci(self) -> bool | None:
        ci = self.cell.ci95
        return None if ci is None else not ci[0] <= self.ours <= ci[1]

    @property
    def paper_outside_our_ci(self) -> bool | None:
        ci = self.ours_ci
        return None if ci is None else not ci[0] <= self.cell.value <= ci[1]

    @property
    def verdict(self) -> str:
        """Which interval misses which value; "no interval" when neither side has one; an incomplete run first."""
        flags = [] if self.complete else ["INCOMPLETE run"]
        flags += [text for flag, text in ((self.ours_outside_paper_ci, "ours outside paper CI"),
                                         (self.paper_outside_our_ci, "paper outside our CI")) if flag]
        if flags:
            return "; ".join(flags)
        return "no interval" if self.cell.ci95 is None and self.ours_ci is None else "within"


def _meets(key: Mapping[str, Any] | None, settings: Mapping[str, Any]) -> bool:
    """The run's settings meet the cell's key on everything but the model (None there = unconstrained)."""
    if key is None:
        return False
    return all(settings.get(k) == v for k, v in key.items() if v is not None and k != "model")


def _comparable(cell: PaperCell) -> bool:
    return cell.metric is not None and cell.value is not None and cell.key is not None


def _compare(cell: PaperCell, run: Run, reference: str) -> Comparison | None:
    ours = metric_value(run.metrics, cell.metric)
    return None if ours is None else Comparison(cell, run, ours, metric_ci(run.metrics, cell.metric), reference,
                                                answers_parsed(run.metrics, cell.metric), run_complete(run.metrics))


def _references(table: PaperTable, settings: Mapping[str, Any]) -> list[tuple[PaperCell, str]]:
    """Per measure: the best published cell the run's settings meet, and the chance level if the table has one."""
    candidates: dict[str, list[PaperCell]] = {}
    for cell in table.cells:
        if _comparable(cell) and _meets(cell.key, settings):
            candidates.setdefault(cell.measure, []).append(cell)
    best = {}
    for measure, cells in candidates.items():
        top = max(c.value for c in cells)
        tied = [c for c in cells if c.value == top]
        best[measure] = replace(tied[0], model_label=" = ".join(paper_label(c) for c in tied), group="")
    out = [(cell, PAPER_BEST) for cell in best.values()]
    out += [(replace(cell, row="chance", model_label="chance", value=table.chance[m], ci95=None, delta=None,
                     model=None), CHANCE) for m, cell in best.items() if m in table.chance]
    return out


def comparisons(runs: Sequence[Run], results: PaperResults | None = None) -> list[Comparison]:
    """Every (published cell, run) pair the run reproduces, or its best-and-chance references (see module doc)."""
    results = results or load_paper_results()
    rows: list[Comparison] = []
    for run in runs:
        settings = run_settings(run)
        pairs = [(c, SAME_MODEL) for t in results.tables.values() for c in t.cells
                 if _comparable(c) and c.model == run.model and _meets(c.key, settings)]
        if not pairs:
            pairs = [p for t in results.tables.values() for p in _references(t, settings)]
        rows += [c for c in (_compare(cell, run, ref) for cell, ref in pairs) if c is not None]
    return rows


__all__ = ["CHANCE", "Comparison", "PAPER_BEST", "SAME_MODEL", "answers_parsed", "comparisons", "metric_ci",
           "metric_value", "paper_label", "run_complete", "run_settings"]
