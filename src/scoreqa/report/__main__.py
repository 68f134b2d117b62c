"""``python -m scoreqa.report RUN_DIR… -o OUT [--baseline N]``: compare runs in report.md / report.html."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from scoreqa.report.render import build_report
from scoreqa.report.runs import find_run_dirs, load_run, unique_labels


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoreqa.report", description=__doc__)
    parser.add_argument("runs", nargs="+", type=Path,
                        help="run dirs, or folders holding run dirs (a multirun sweep dir, an array job's root)")
    parser.add_argument("-o", "--out", type=Path, required=True, help="folder for report.md, report.html, *.png")
    parser.add_argument("--baseline", type=int, default=0,
                        help="index of the run the others are tested against (default: the first)")
    parser.add_argument("--resamples", type=int, default=10_000, help="paired bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    runs = [load_run(path) for path in find_run_dirs(args.runs)]
    if not 0 <= args.baseline < len(runs):
        parser.error(f"--baseline {args.baseline}: there are {len(runs)} run(s)")
    unique_labels(runs)
    path = build_report(runs, args.out, baseline=args.baseline, n_resamples=args.resamples, seed=args.seed)
    print(f"report: {path} (and {path.with_suffix('.html')}); {len(runs)} run(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
