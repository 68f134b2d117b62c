"""The report's figures as PNG (matplotlib's object API: no pyplot state, no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
from matplotlib.figure import Figure

from scoreqa.report.compare import CHANCE, SAME_MODEL, Comparison, paper_label
from scoreqa.report.runs import LEVEL_KEYS, Run

GROUPS = (*LEVEL_KEYS, "overall")
GROUP_NAMES = ("L1", "L2", "L3", "L4", "Overall")


def _number(value: float | None) -> float:
    """``metrics.json`` writes null for a level without questions (no accuracy, no interval): NaN here."""
    return float("nan") if value is None else float(value)


def _errors(values: Sequence[float | None], cis: Sequence[Sequence[float | None] | None]) -> np.ndarray:
    """Asymmetric error bars (below, above) from intervals; missing or NaN values and intervals draw no bar."""
    bounds = [(_number(ci[0]), _number(ci[1])) if ci else (float("nan"), float("nan")) for ci in cis]
    spans = [(_number(v) - lo, hi - _number(v)) for v, (lo, hi) in zip(values, bounds)]
    return np.clip(np.nan_to_num(np.array(spans, dtype=float).T.reshape(2, len(values)), nan=0.0), 0.0, None)


def _legend_below(ax, n_entries: int) -> None:
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=min(3, max(1, n_entries)),
              frameon=False)


def _save(figure: Figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=130)
    return path


def accuracy_by_level(runs: Sequence[Run], path: Path) -> Path:
    """Grouped bars: accuracy per level and overall for each run, with their 95% bootstrap CIs."""
    figure = Figure(figsize=(max(7.0, 1.0 + 0.3 * len(GROUPS) * len(runs)), 4.8))
    ax = figure.subplots()
    width = 0.8 / max(1, len(runs))
    x = np.arange(len(GROUPS))
    for i, run in enumerate(runs):
        values = [_number(run.metrics["accuracy"].get(g)) for g in GROUPS]
        cis = [run.metrics.get("accuracy_ci95", {}).get(g) for g in GROUPS]
        ax.bar(x + (i - (len(runs) - 1) / 2) * width, values, width, yerr=_errors(values, cis), capsize=3,
               label=run.label)
    ax.set_xticks(x, GROUP_NAMES)
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Accuracy by level (95% bootstrap CI)")
    _legend_below(ax, len(runs))
    return _save(figure, path)


def lsr_curves(runs: Sequence[Run], path: Path) -> Path:
    """LSR(l) for l = 1..4 per run with its Wilson 95% band."""
    figure = Figure(figsize=(7.0, 4.8))
    ax = figure.subplots()
    levels = np.arange(1, len(LEVEL_KEYS) + 1)
    for run in runs:
        values = np.array([run.metrics["lsr"].get(k, float("nan")) for k in LEVEL_KEYS], dtype=float)
        cis = [run.metrics.get("lsr_ci95", {}).get(k, [float("nan")] * 2) for k in LEVEL_KEYS]
        (line,) = ax.plot(levels, values, marker="o", label=run.label)
        ax.fill_between(levels, [c[0] for c in cis], [c[1] for c in cis], color=line.get_color(), alpha=0.1)
    ax.set_xticks(levels, [f"≤ L{l}" for l in levels])
    ax.set_ylabel("level-wise success rate (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Level-wise success rate (Wilson 95% band)")
    _legend_below(ax, len(runs))
    return _save(figure, path)


def paired_bars(pairs: Sequence[tuple[str, Run, Run]], names: tuple[str, str], title: str, path: Path) -> Path:
    """For each group (label, A, B): overall accuracy of condition A beside condition B, with CIs."""
    figure = Figure(figsize=(max(5.5, 1.6 * len(pairs) + 2), 4.2))
    ax = figure.subplots()
    x = np.arange(len(pairs))
    for offset, name, index in ((-0.2, names[0], 1), (0.2, names[1], 2)):
        values = [pair[index].metrics["accuracy"]["overall"] for pair in pairs]
        cis = [pair[index].metrics.get("accuracy_ci95", {}).get("overall") for pair in pairs]
        bars = ax.bar(x + offset, values, 0.4, yerr=_errors(values, cis), capsize=3, label=name)
        ax.bar_label(bars, fmt="%.1f", fontsize=8, padding=2)
    ax.set_xticks(x, [pair[0] for pair in pairs], rotation=20, ha="right", fontsize=8)
    ax.set_xlim(-0.8, len(pairs) - 0.2)
    ax.set_ylabel("overall accuracy (%)")
    ax.set_ylim(0, 110)
    ax.set_title(title)
    ax.legend()
    return _save(figure, path)


def paper_bars(rows: Sequence[Comparison], title: str, path: Path) -> Path:
    """One group of horizontal bars per measure: each published reference (the same model's row, the paper's
    best, chance) and each of our runs, with whichever 95% intervals exist."""
    measures = list(dict.fromkeys(r.cell.measure for r in rows))
    # series name -> measure -> (value, interval, text written at the bar's end)
    series: dict[str, dict[str, tuple[float, tuple[float, float] | None, str]]] = {}
    for r in rows:
        if r.reference == SAME_MODEL:
            name, note = f"paper: {paper_label(r.cell)}", ""
        else:
            name, note = r.reference, "" if r.reference == CHANCE else r.cell.model_label
        series.setdefault(name, {})[r.cell.measure] = (r.cell.value, r.cell.ci95, note)
    for r in rows:
        series.setdefault(f"ours: {r.run.label}", {})[r.cell.measure] = (r.ours, r.ours_ci, "")
    figure = Figure(figsize=(8.5, max(3.0, 0.3 * len(measures) * len(series) + 2.0)))
    ax = figure.subplots()
    y = np.arange(len(measures))
    height = 0.8 / len(series)
    for i, (name, cells) in enumerate(series.items()):
        got = [cells.get(m, (float("nan"), None, "")) for m in measures]
        values = [g[0] for g in got]
        bars = ax.barh(y + (i - (len(series) - 1) / 2) * height, values, height,
                       xerr=_errors(values, [g[1] for g in got]), capsize=2, label=name,
                       hatch=None if name.startswith("ours") else "//")
        if any(g[2] for g in got):
            ax.bar_label(bars, labels=[g[2] for g in got], fontsize=6, padding=3)
    ax.set_yticks(y, measures, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("value (the table's unit)")
    ax.set_title(title, fontsize=9)
    _legend_below(ax, len(series))
    return _save(figure, path)
