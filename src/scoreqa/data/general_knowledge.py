"""A general-knowledge forgetting probe: 105 short questions with unambiguous public answers (capitals, chemical
symbols, arithmetic, dates), written for this repository (``fixtures/general_knowledge.jsonl``).

A proxy for the paper's MMLU check (Table 6), not MMLU: it runs here without a dataset download. MMLU through
lm-eval (``data=mmlu``) stays the real path. Answers are judged exactly after light normalisation (case,
surrounding punctuation and whitespace, a leading "The"); the prompt asks for the answer alone.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

FIXTURE = Path(__file__).with_name("fixtures") / "general_knowledge.jsonl"
SYSTEM = "Answer with the answer alone: a name, a symbol or a number. No sentence, no explanation."


@dataclass(frozen=True)
class ProbeQuestion:
    id: str
    category: str
    question: str
    answer: str


def load_probe(path: Path = FIXTURE) -> list[ProbeQuestion]:
    return [ProbeQuestion(**json.loads(line)) for line in Path(path).read_text().splitlines() if line.strip()]


def normalise(text: str) -> str:
    """Lower case, accents folded, a leading article and surrounding punctuation/whitespace removed."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().strip().lower()
    text = re.sub(r"^the\s+", "", text)
    return text.strip(" \t\n.,;:!?\"'*")


def is_correct(prediction: str, answer: str) -> bool:
    """Exact match of the normalised first line; chemical symbols keep their case (``Co`` is not ``CO``)."""
    first_line = prediction.strip().splitlines()[0] if prediction.strip() else ""
    if re.fullmatch(r"[A-Z][a-z]?", answer):
        return first_line.strip(" \t.,;:!?\"'*") == answer
    return normalise(first_line) == normalise(answer)


def messages(question: ProbeQuestion) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question.question}]


def probe_accuracy(predictions: Sequence[str], questions: Sequence[ProbeQuestion]) -> list[bool]:
    """Per-question correctness, in the order of ``questions``."""
    if len(predictions) != len(questions):
        raise ValueError(f"{len(predictions)} predictions for {len(questions)} questions")
    return [is_correct(p, q.answer) for p, q in zip(predictions, questions)]
