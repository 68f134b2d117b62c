"""Chance: a uniformly random option (multiple choice) or a uniformly random bar order (sequencing).

Each question gets its own generator seeded from (seed, question id), so an answer does not depend
on which other questions are in the run or in what order they come. Questions with neither
options nor an order to guess (free text, counts, bar sets) get no answer and score as wrong.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from scoreqa.baselines.backend import Answerer
from scoreqa.data.records import Question, Score

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def question_rng(seed: int, question_id: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}:{question_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


class RandomAnswerer(Answerer):
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)

    def identity(self) -> dict[str, Any]:
        return {**super().identity(), "seed": self.seed}

    def answer(self, question: Question, score: Score) -> str:
        if not question.choices:
            return ""
        rng = question_rng(self.seed, question.id)
        labels = question.meta.get("option_labels") or LETTERS
        if question.meta.get("kind") == "order":
            return "".join(labels[i] for i in rng.permutation(len(question.choices)))
        return labels[int(rng.integers(len(question.choices)))]
