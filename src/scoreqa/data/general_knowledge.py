"""A general-knowledge forgetting probe: 105 short questions with unambiguous public answers (capitals, chemical
symbols, arithmetic, dates), written for this repository (``fixtures/general_knowledge.jsonl``).

A proxy for the paper's MMLU check (Table 6), not MMLU: it runs here without a dataset download. MMLU through
lm-eval (``data=mmlu``) stays the real path. The prompt asks for the answer alone, but a chat model often answers
in a sentence ("The capital of France is Paris."), and an exact-match judge would then measure the answer's
form, not the knowledge a fine-tune may have lost (the base SmolLM2 scored 0/105 exactly, its adapters 37-39%
only because they learnt to answer tersely). So the rule reads the first line: the expected answer must appear
in it as a whole word or phrase after light normalisation (case, accents, punctuation); chemical symbols keep
their case; for a numeric answer the line's last number must be it ("12 × 12 = 120" is wrong for 144).
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


def _words(text: str) -> str:
    """Normalised text with every run of non-alphanumerics as one space, padded: whole-word search by ``in``."""
    return " " + re.sub(r"[^a-z0-9]+", " ", normalise(text)).strip() + " "


def is_correct(prediction: str, answer: str) -> bool:
    """The answer in the first line: its last number for numbers, a case-kept whole word for chemical symbols
    (``Co`` is not ``CO``), else a whole normalised word or phrase."""
    first_line = prediction.strip().splitlines()[0] if prediction.strip() else ""
    if re.fullmatch(r"\d+", answer):
        numbers = re.findall(r"\d+", first_line.replace(",", ""))
        return bool(numbers) and numbers[-1] == answer
    if re.fullmatch(r"[A-Z][a-z]?", answer):
        return re.search(rf"(?<![A-Za-z]){answer}(?![a-z])", first_line) is not None
    return _words(answer) in _words(first_line)


def messages(question: ProbeQuestion) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question.question}]


def probe_accuracy(predictions: Sequence[str], questions: Sequence[ProbeQuestion]) -> list[bool]:
    """Per-question correctness, in the order of ``questions``."""
    if len(predictions) != len(questions):
        raise ValueError(f"{len(predictions)} predictions for {len(questions)} questions")
    return [is_correct(p, q.answer) for p, q in zip(predictions, questions)]
