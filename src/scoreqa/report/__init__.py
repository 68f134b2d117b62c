"""Compare evaluation runs: ``python -m scoreqa.report RUN_DIR… -o OUT`` writes report.md, report.html and PNGs.

Per-level accuracy with CIs, LSR curves, single-vs-batched and zero-shot-vs-LoRA plots, the paper's
published numbers beside ours (``paper_results.yaml``), and paired significance tests (McNemar,
paired bootstrap) between runs on the same questions.
"""

from scoreqa.report.paired import PairedComparison, paired_comparison
from scoreqa.report.runs import Run, find_run_dirs, load_run

__all__ = ["PairedComparison", "Run", "find_run_dirs", "load_run", "paired_comparison"]
