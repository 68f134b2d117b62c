"""How much the rule judge decides, how often it is right, and what that saves in LLM judge calls.

Rows are hand-labelled (question, reference, prediction, label, style), as in
``tests/fixtures/judge_dev/realistic.jsonl``. Coverage is decided / all; precision is right / decided.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from scoreqa.judge.base import Judge, JudgeItem

PAPER_JUDGES = 3          # MSU-Bench §4: three LLM judges, one call each per answer


@dataclass(frozen=True)
class StyleStats:
    style: str
    n: int
    decided: int
    right: int

    @property
    def coverage(self) -> float:
        return self.decided / self.n if self.n else 0.0

    @property
    def precision(self) -> float | None:
        return self.right / self.decided if self.decided else None


def read_rows(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for number, row in enumerate(rows, start=1):
        if row.get("label") not in (0, 1) or not all(isinstance(row.get(k), str) for k in
                                                     ("question", "reference", "prediction", "style")):
            raise ValueError(f"{path}:{number}: a dev row needs string question/reference/prediction/style and "
                             f"label 0 or 1")
    return rows


def style_stats(rows: Iterable[Mapping], judge: Judge) -> list[StyleStats]:
    """Per style (sorted), then 'all': rows, decided rows and right decisions."""
    rows = list(rows)
    verdicts = judge.judge([JudgeItem(str(r.get("id", i)), r["question"], r["reference"], r["prediction"])
                            for i, r in enumerate(rows)])
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row, verdict in zip(rows, verdicts):
        for style in (row["style"], "all"):
            counts[style][0] += 1
            if verdict.correct is not None:
                counts[style][1] += 1
                counts[style][2] += int(verdict.correct) == row["label"]
    ordered = sorted(s for s in counts if s != "all") + ["all"]
    return [StyleStats(style, *counts[style]) for style in ordered if style in counts]


def llm_calls(n_answers: int, coverage: float, n_judges: int = PAPER_JUDGES) -> tuple[int, int]:
    """(the paper's calls: every answer to every judge, the cascade's: only what the rules leave undecided)."""
    return n_judges * n_answers, round(n_judges * n_answers * (1 - coverage))
