"""Rule-judge coverage and precision per answer style: ``python benchmarks/judge_coverage.py [--dev PATH]``.

On the hand-labelled realistic dev set (``tests/fixtures/judge_dev/realistic.jsonl``, labelling rules in its
``LABELLING.md``): coverage (decided / all) and precision (right / decided) per style and overall, the real
SmolLM2-135M answers (style ``smollm2_real``) on their own line. Then the LLM judge calls one model run on
MSU-Bench (1,800 answers) costs: the paper's protocol asks 3 judges about every answer; ``judge=cascade``
asks them only about what the rules leave undecided (at the coverage measured here).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from scoreqa.judge.coverage import StyleStats, llm_calls, read_rows, style_stats
from scoreqa.judge.rules import RuleJudge

REPO = Path(__file__).resolve().parents[1]
MSU_ANSWERS = 1800        # MSU-Bench: 1,800 questions (paper §3)
REAL = "smollm2_real"


def _line(stats: StyleStats) -> str:
    precision = "—" if stats.precision is None else f"{stats.precision:7.1%}"
    return f"{stats.style:<18}{stats.n:>6}{stats.decided:>9}{stats.coverage:>10.1%}{precision:>11}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev", type=Path, default=REPO / "tests/fixtures/judge_dev/realistic.jsonl")
    args = parser.parse_args()
    rows = read_rows(args.dev)
    judge = RuleJudge()
    written = style_stats([r for r in rows if r["style"] != REAL], judge)
    real = style_stats([r for r in rows if r["style"] == REAL], judge)
    print(f"{'style':<18}{'rows':>6}{'decided':>9}{'coverage':>10}{'precision':>11}")
    for stats in written:
        print(_line(stats) if stats.style != "all" else _line(StyleStats("all written", stats.n, stats.decided,
                                                                        stats.right)))
    if real:
        print(_line(StyleStats("SmolLM2 real", real[-1].n, real[-1].decided, real[-1].right)))
    print()
    print(f"LLM judge calls per model run on MSU-Bench ({MSU_ANSWERS} answers, 3 judges):")
    print(f"{'coverage from':<28}{'paper (3 x answers)':>20}{'cascade (3 x undecided)':>25}")
    for name, stats in (("written dev set", written[-1]), ("SmolLM2 real answers", real[-1] if real else None)):
        if stats is not None:
            paper, cascade = llm_calls(MSU_ANSWERS, stats.coverage)
            print(f"{name:<28}{paper:>20}{cascade:>25}")


if __name__ == "__main__":
    main()
