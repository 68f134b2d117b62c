"""Assemble the report: Markdown (report.md), the same as HTML (report.html), figures beside them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from markdown_it import MarkdownIt

from scoreqa.loggers.wandb_logger import flatten
from scoreqa.report import plots
from scoreqa.report.paired import paired_comparison
from scoreqa.report.compare import Comparison, comparisons, paper_label
from scoreqa.report.paper import load_paper_results
from scoreqa.report.runs import LEVEL_KEYS, Run

COUNTS = ("n_questions", "n_judged", "n_unreferenced", "n_parse_failures", "n_undecided", "n_new_generations")


def _fmt(value: Any, digits: int = 2) -> str:
    if isinstance(value, float):
        return "–" if value != value else f"{value:.{digits}f}"
    return "–" if value is None else str(value)


def _ci(ci: Sequence[float] | None) -> str:
    return f"[{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "–"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    cells = [[str(h) for h in headers]] + [[_fmt(c).replace("|", "\\|") for c in row] for row in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in cells[1:]]
    return "\n".join(lines)


def pairs_differing_in(runs: Sequence[Run], setting: str, first: Any, second: Any) -> list[tuple[str, Run, Run]]:
    """(group label, run with ``first``, run with ``second``) for runs identical but for one setting."""
    value = {"prompt": lambda r: r.prompt, "adapter": lambda r: bool(r.adapter)}[setting]
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault(run.identity(without=(setting,)), []).append(run)
    pairs = []
    for members in groups.values():
        for a in (r for r in members if value(r) == first):
            for b in (r for r in members if value(r) == second):
                label = f"{a.model} · {a.benchmark}/{a.modality}"
                pairs.append((label if setting == "prompt" else f"{label} · {a.prompt}", a, b))
    return pairs


def _level_sections(runs: Sequence[Run], out: Path) -> list[str]:
    if not runs:
        return []
    plots.accuracy_by_level(runs, out / "accuracy_by_level.png")
    plots.lsr_curves(runs, out / "lsr.png")
    groups = (*LEVEL_KEYS, "overall")
    accuracy = table(["run", *[f"{g} %" for g in groups]],
                     [[r.label, *[f"{_fmt(r.metrics['accuracy'].get(g))} "
                                  f"{_ci(r.metrics.get('accuracy_ci95', {}).get(g))}" for g in groups]] for r in runs])
    lsr = table(["run", *[f"LSR ≤ L{i} %" for i in range(1, 5)]],
                [[r.label, *[f"{_fmt(r.metrics['lsr'].get(k))} {_ci(r.metrics.get('lsr_ci95', {}).get(k))} "
                             f"(n={r.metrics.get('remaining_scores', {}).get(k, '–')})" for k in LEVEL_KEYS]]
                 for r in runs])
    return ["## Accuracy by level", "Percent with 95% percentile-bootstrap intervals over questions.", accuracy,
            "![accuracy by level](accuracy_by_level.png)",
            "## Level-wise success rate", "Share of scores whose judged questions of levels 1..l are all correct "
            "(Wilson 95%); n = scores still standing.", lsr, "![LSR curves](lsr.png)"]


def _other_sections(runs: Sequence[Run]) -> list[str]:
    if not runs:
        return []
    flat = [{k: v for k, v in flatten(r.metrics).items()
             if not k.startswith(("inference/", "subtask_details/", "n_"))} for r in runs]
    keys = list(dict.fromkeys(k for f in flat for k in f))
    return ["## Benchmark metrics", table(["metric", *[r.label for r in runs]],
                                          [[k, *[f.get(k) for f in flat]] for k in keys])]


def _pair_section(pairs: list[tuple[str, Run, Run]], names: tuple[str, str], title: str, png: str, out: Path
                  ) -> list[str]:
    pairs = [p for p in pairs if p[1].has_levels and p[2].has_levels]
    if not pairs:
        return []
    plots.paired_bars(pairs, names, title, out / png)
    rows = [[label, f"{_fmt(a.metrics['accuracy']['overall'])} {_ci(a.metrics['accuracy_ci95']['overall'])}",
             f"{_fmt(b.metrics['accuracy']['overall'])} {_ci(b.metrics['accuracy_ci95']['overall'])}",
             _fmt(b.metrics["accuracy"]["overall"] - a.metrics["accuracy"]["overall"])] for label, a, b in pairs]
    return [f"## {title}", table(["setting", f"{names[0]} %", f"{names[1]} %", "Δ (pp)"], rows),
            f"![{title}]({png})"]


def _paper_cell(c: Comparison) -> str:
    return f"{_fmt(c.cell.value)} {_ci(c.cell.ci95)}" if c.cell.ci95 else _fmt(c.cell.value)


def _paper_section(runs: Sequence[Run], out: Path) -> list[str]:
    """Per published table: each matching run beside the paper's cell, the difference and the CI verdict."""
    found = comparisons(runs)
    tables = load_paper_results().tables
    section = ["## Published numbers beside ours",
               "Each run beside every published cell of the same benchmark, model, modality, prompt mode, split and "
               "adapter (`src/scoreqa/report/paper_results.yaml`; paper row labels map to our model configs in its "
               "`model_names`). A run whose model the paper has no row for is shown against the table's best "
               "published value and, where defined, chance, labelled as such. Δ = ours − paper."]
    for tid in dict.fromkeys(c.cell.table for c in found):
        measures = list(dict.fromkeys(c.cell.measure for c in found if c.cell.table == tid))
        rows = sorted((c for c in found if c.cell.table == tid),
                      key=lambda c: (runs.index(c.run), measures.index(c.cell.measure)))
        table_ = tables[tid]
        png = f"paper_{tid.replace('/', '_')}.png"
        plots.paper_bars(rows, f"{tid}: ours vs paper", out / png)
        section += [f"### {table_.source}", table(
            ["our run", "paper model", "compared with", "measure", "paper", "ours [95% CI]", "Δ", "intervals",
             "answers parsed"],
            [[c.run.label, paper_label(c.cell), c.reference, c.cell.measure, _paper_cell(c),
              f"{_fmt(c.ours)} {_ci(c.ours_ci)}", _fmt(c.difference), c.verdict,
              f"{c.parsed[0]}/{c.parsed[1]}" if c.parsed else "–"] for c in rows]), f"![{tid}]({png})"]
        if table_.chance_note and any(c.reference == "chance" for c in rows):
            section.append(f"Chance levels: {table_.chance_note}")
    unmatched = sorted({r.label for r in runs} - {c.run.label for c in found})
    if unmatched:
        section.append("No published cell matches: " + ", ".join(unmatched) + ".")
    return section


def _significance_section(pairs: Sequence[tuple[Run, Run]], n_resamples: int, seed: int) -> list[str]:
    rows, skipped = [], []
    for a, b in pairs:
        ca, cb = a.correctness(), b.correctness()
        if not ca or not cb:
            missing = a if not ca else b
            skipped.append(f"{a.label} vs {b.label}: {missing.label} has no per-question records; " + (
                f"re-run evaluate.py into {missing.path} to write records.jsonl (every answer is cached: no model "
                f"call)" if missing.metrics.get("run_key") else "its benchmark evaluates by itself (e.g. MMLU)"))
            continue
        if not set(ca) & set(cb):
            skipped.append(f"{a.label} vs {b.label}: no question in common")
            continue
        c = paired_comparison(ca, cb, n_resamples=n_resamples, seed=seed)
        rows.append([a.label, b.label, c.n, _fmt(100 * c.accuracy_a), _fmt(100 * c.accuracy_b),
                     f"{_fmt(100 * c.difference)} [{_fmt(100 * c.difference_ci[0])}, {_fmt(100 * c.difference_ci[1])}]",
                     f"{c.only_a} / {c.only_b}", f"{c.mcnemar_p:.4f}" + (" (exact)" if c.mcnemar_exact else ""),
                     "yes" if c.significant else "no"])
    if not rows and not skipped:
        return []
    section = ["## Paired significance", "Same questions in both runs. McNemar on per-question correctness (exact "
               "binomial under 25 discordant pairs); paired bootstrap 95% interval of the accuracy difference B − A "
               f"({n_resamples:,} resamples of questions). Significant = p < 0.05 and the interval excludes 0."]
    if rows:
        section.append(table(["A", "B", "questions", "A %", "B %", "B − A (pp) [95% CI]", "only A / only B right",
                              "McNemar p", "significant"], rows))
    section += [f"- skipped: {s}" for s in skipped]
    return section


def build_report(runs: Sequence[Run], out: Path, *, baseline: int = 0, n_resamples: int = 10_000, seed: int = 0
                 ) -> Path:
    """Write ``report.md``, ``report.html`` and the PNGs into ``out``; returns the Markdown path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    level_runs = [r for r in runs if r.has_levels]
    batched = pairs_differing_in(runs, "prompt", "single", "batched")
    lora = pairs_differing_in(runs, "adapter", False, True)
    tested = [(runs[baseline], r) for i, r in enumerate(runs) if i != baseline]
    tested += [(a, b) for _, a, b in (*batched, *lora) if (a, b) not in tested and (b, a) not in tested]
    overview = table(["run", "benchmark", "model", "adapter", "modality", "prompt", "sampling", *COUNTS, "run key",
                      "folder"],
                     [[r.label, r.benchmark, r.model, r.adapter or "–", r.modality, r.prompt,
                       r.setting("sampling.name"), *[r.metrics.get(k) for k in COUNTS], r.metrics.get("run_key"),
                       str(r.path)] for r in runs])
    parts = ["# scoreqa results report", f"{len(runs)} run(s); baseline for the paired tests: "
             f"**{runs[baseline].label}**.", "## Runs", overview,
             *_level_sections(level_runs, out),
             *_other_sections([r for r in runs if not r.has_levels]),
             *_pair_section(batched, ("single", "batched"), "Single vs batched prompting", "single_vs_batched.png",
                            out),
             *_pair_section(lora, ("zero-shot", "LoRA"), "Zero-shot vs LoRA", "zero_shot_vs_lora.png", out),
             *_paper_section(runs, out),
             *_significance_section(tested, n_resamples, seed)]
    markdown = "\n\n".join(parts) + "\n"
    (out / "report.md").write_text(markdown, encoding="utf-8")
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    (out / "report.html").write_text(
        "<!doctype html>\n<html><head><meta charset='utf-8'><title>scoreqa report</title><style>"
        "body{font-family:sans-serif;max-width:1200px;margin:2em auto}table{border-collapse:collapse;font-size:13px}"
        "td,th{border:1px solid #ccc;padding:3px 6px}img{max-width:100%}</style></head><body>\n"
        f"{body}</body></html>\n", encoding="utf-8")
    return out / "report.md"


__all__ = ["build_report", "pairs_differing_in", "table"]
