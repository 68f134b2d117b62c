"""The papers' published numbers (``paper_results.yaml``) as typed records, and which of our runs each one describes.

Every value keeps its paper, table, row block, row and column; the table's ``key`` (plus its group's and row's)
says which runs reproduce it (benchmark, split, modality, prompt mode, adapter, and the model through the one
label -> config mapping ``model_names``). How the numbers are compared with runs is :mod:`scoreqa.report.compare`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

import yaml

ROWS, COLUMNS = "rows", "columns"


@dataclass(frozen=True)
class PaperCell:
    """One published number and where it stands."""

    table: str                      # table id, e.g. "msu/table2"
    source: str                     # "<paper title>, Table 2 (§5.2)"
    group: str                      # the row block ("Textual QA"), "" when the table has none
    row: str                        # the row label as printed
    column: str                     # the column (models_in: rows) or header label (models_in: columns)
    model_label: str                # the model as the paper names it
    measure: str                    # what is measured: the column for models_in rows, the row otherwise
    value: float | None             # None where the paper prints "-"
    ci95: tuple[float, float] | None = None
    delta: float | None = None      # a published difference to the row above (MSU Table 6, BoYaEval Table 5)
    model: str | None = None        # our config name (conf/model/<model>.yaml), None = no config of ours
    metric: str | None = None       # dotted path into our metrics.json, None = not compared
    key: Mapping[str, Any] | None = None  # our run settings this cell describes; None = never matched


@dataclass(frozen=True)
class PaperException:
    """Where the paper disagrees with itself: the consistency check a row fails and why."""

    check: str
    row: tuple[str, str]            # (group, row)
    reason: str


@dataclass(frozen=True)
class PaperTable:
    id: str
    paper: str
    source: str
    caption: str
    unit: str
    models_in: str
    columns: tuple[str, ...]
    headers: tuple[str, ...]
    rows: dict[tuple[str, str], tuple[PaperCell, ...]]   # (group, row label) -> cells in column order
    chance: dict[str, float] = field(default_factory=dict)
    chance_note: str = ""
    exceptions: tuple[PaperException, ...] = ()
    notes: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # table-specific cross-references (zero_shot_rows)

    @property
    def cells(self) -> list[PaperCell]:
        return [c for cells in self.rows.values() for c in cells]

    def row(self, group: str, label: str) -> dict[str, PaperCell]:
        """Column -> cell of one row."""
        return {c.column: c for c in self.rows[(group, label)]}

    def excepted(self, check: str, group: str, label: str) -> bool:
        return any(e.check == check and e.row == (group, label) for e in self.exceptions)


@dataclass(frozen=True)
class PaperFact:
    """A number stated only in prose, with the verbatim quote it comes from."""

    id: str
    paper: str
    source: str
    quote: str
    unit: str
    value: float | None = None
    low: float | None = None
    high: float | None = None
    ci95: tuple[float, float] | None = None


@dataclass(frozen=True)
class PaperResults:
    papers: dict[str, dict[str, str]]
    model_names: dict[str, str]
    tables: dict[str, PaperTable]
    facts: tuple[PaperFact, ...]
    missing_figures: tuple[str, ...]


def _cell_value(raw: Any) -> tuple[float | None, tuple[float, float] | None, float | None]:
    if isinstance(raw, Mapping):
        ci = tuple(float(x) for x in raw["ci95"]) if "ci95" in raw else None
        return float(raw["value"]), ci, (float(raw["delta"]) if "delta" in raw else None)
    return (None if raw is None else float(raw)), None, None


def _table(entry: dict[str, Any], papers: Mapping[str, Mapping[str, str]], model_names: Mapping[str, str]
           ) -> PaperTable:
    tid, columns = entry["id"], tuple(entry["columns"])
    models_in = entry.get("models_in", ROWS)
    source = f"{papers[entry['paper']]['title']}, {entry['source']}"
    row_keys = entry.get("row_keys", {})
    rows: dict[tuple[str, str], tuple[PaperCell, ...]] = {}
    for group in entry["groups"]:
        names = group.get("model_names", model_names)
        metrics = {**entry.get("metrics", {}), **group.get("metrics", {})}
        for label, values in group["rows"].items():
            if len(values) != len(columns):
                raise ValueError(f"paper_results.yaml {tid}, row {label!r}: {len(values)} values for "
                                 f"{len(columns)} columns")
            if (group["label"], label) in rows:
                raise ValueError(f"paper_results.yaml {tid}: row {label!r} twice in group {group['label']!r}")
            cells = []
            for column, raw in zip(columns, values):
                model_label, measure = (label, column) if models_in == ROWS else (column, label)
                key = None if label in row_keys and row_keys[label] is None else {
                    **entry.get("key", {}), **group.get("key", {}), **(row_keys.get(label) or {})}
                model = key.get("model", names.get(model_label)) if key is not None else None
                value, ci, delta = _cell_value(raw)
                cells.append(PaperCell(tid, source, group["label"], label, column, model_label, measure, value,
                                       ci, delta, model, metrics.get(measure),
                                       None if key is None else {**key, "model": model}))
            rows[(group["label"], label)] = tuple(cells)
    exceptions = tuple(PaperException(e["check"], tuple(e["row"]), e["reason"]) for e in entry.get("exceptions", []))
    known = {"id", "paper", "source", "caption", "unit", "models_in", "columns", "headers", "metrics", "key",
             "groups", "row_keys", "chance", "chance_note", "exceptions", "notes"}
    return PaperTable(tid, entry["paper"], source, entry["caption"], entry["unit"], models_in, columns,
                      tuple(entry["headers"]), rows, {k: float(v) for k, v in entry.get("chance", {}).items()},
                      entry.get("chance_note", ""), exceptions, tuple(entry.get("notes", [])),
                      {k: v for k, v in entry.items() if k not in known})


def _fact(entry: dict[str, Any]) -> PaperFact:
    number = {k: (None if entry.get(k) is None else float(entry[k])) for k in ("value", "low", "high")}
    ci = tuple(float(x) for x in entry["ci95"]) if "ci95" in entry else None
    return PaperFact(entry["id"], entry["paper"], entry["source"], entry["quote"], entry["unit"], ci95=ci, **number)


def parse_paper_results(data: Mapping[str, Any]) -> PaperResults:
    """Typed records from the parsed YAML (a table with an unknown paper, or a row of the wrong length, fails)."""
    papers, names = dict(data["papers"]), dict(data["model_names"])
    tables = {}
    for entry in data["tables"]:
        if entry["paper"] not in papers:
            raise KeyError(f"paper_results.yaml: table {entry['id']} cites unknown paper {entry['paper']!r}")
        if entry["id"] in tables:
            raise ValueError(f"paper_results.yaml: table id {entry['id']} twice")
        tables[entry["id"]] = _table(entry, papers, names)
    return PaperResults(papers, names, tables, tuple(_fact(f) for f in data.get("facts", [])),
                        tuple(data.get("missing_figures", [])))


@lru_cache(maxsize=1)
def load_paper_results() -> PaperResults:
    """The packaged ``paper_results.yaml``."""
    text = resources.files("scoreqa.report").joinpath("paper_results.yaml").read_text(encoding="utf-8")
    return parse_paper_results(yaml.safe_load(text))


__all__ = ["PaperCell", "PaperException", "PaperFact", "PaperResults", "PaperTable", "load_paper_results",
           "parse_paper_results"]
