"""The oracle answers every question with its reference: a run must then score 100 everywhere.

A lower score exposes a broken link between loader, prompt, answer parsing and metric.
"""

from __future__ import annotations

from scoreqa.baselines.backend import Answerer
from scoreqa.data.records import Question, Score


class OracleAnswerer(Answerer):
    name = "oracle"

    def answer(self, question: Question, score: Score) -> str:
        return question.reference or ""
