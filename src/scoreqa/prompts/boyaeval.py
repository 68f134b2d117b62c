"""BoYaEval's requests: the task template around the score image, Task 3's options as images, and
k worked examples (3-shot Task 2, 2-shot Task 3 in the paper's few-shot setting) before the question.

A template has the slots ``{image}`` (the score image), ``{question}`` and ``{options}`` (text lines
``A. ...``, or for Task 3 a label followed by each option image). Exemplars are the same template
with ``{answer}`` filled; they come from the task's exemplar pool, never the question itself,
preferring the same notation system, chosen per question with a seed (so a question's prompt does
not depend on the rest of the run).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping, Sequence

import numpy as np

from scoreqa.backends.base import ChatRequest
from scoreqa.data.records import BenchmarkSplit, Question
from scoreqa.prompts.templates import load_template

Part = dict[str, Any]
_SLOT = re.compile(r"(\{image\}|\{options\})")


def _text(text: str) -> Part:
    return {"type": "text", "text": text}


class BoYaEvalPromptBuilder:
    mode = "single"

    def __init__(self, templates: Mapping[str, str], fewshot: Mapping[int, int], pools: Mapping[int, Sequence[Question]],
                 seed: int = 0) -> None:
        self.templates = {task: load_template(templates[f"task{task}"]) for task in (1, 2, 3)
                          if templates.get(f"task{task}")}
        self.fewshot, self.pools, self.seed = dict(fewshot), pools, int(seed)

    def identity(self) -> dict[str, Any]:
        return {"mode": self.mode, "fewshot": {str(k): v for k, v in sorted(self.fewshot.items())},
                "fewshot_seed": self.seed, "templates": {t.id: t.sha for t in self.templates.values()}}

    def exemplars(self, question: Question) -> list[Question]:
        k = self.fewshot.get(question.level, 0)
        if not k:
            return []
        pool = [q for q in self.pools.get(question.level, []) if q.id != question.id]
        same = [q for q in pool if q.meta.get("notation") == question.meta.get("notation")]
        candidates = same if len(same) >= k else pool
        if len(candidates) < k:
            raise ValueError(f"{question.id}: {k}-shot needs {k} exemplars, the task's pool has {len(candidates)}")
        digest = hashlib.sha256(f"{self.seed}:{question.id}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        return [candidates[i] for i in sorted(rng.choice(len(candidates), size=k, replace=False))]

    def render(self, question: Question, split: BenchmarkSplit, answer: str | None) -> list[Part]:
        template = self.templates.get(question.level)
        if template is None:
            raise KeyError(f"data.templates has no task{question.level} template")
        text = template.text.replace("{question}", question.text)
        parts: list[Part] = []
        for piece in _SLOT.split(text):
            if piece == "{image}":
                parts.extend({"type": "image", "image": str(p)} for p in split.scores[question.score_id].page_images)
            elif piece == "{options}":
                for label, choice in zip(question.meta.get("option_labels", ""), question.choices):
                    if question.meta.get("option_images"):
                        parts += [_text(f"{label}."), {"type": "image", "image": choice}, _text("\n")]
                    else:
                        parts.append(_text(f"{label}. {choice}\n"))
            elif piece:
                parts.append(_text(piece))
        if answer is not None:
            parts.append(_text(f"\nAnswer: {answer}\n\n"))
        return parts

    def request_for(self, question: Question, split: BenchmarkSplit) -> ChatRequest:
        content: list[Part] = []
        for number, example in enumerate(self.exemplars(question), start=1):
            content.append(_text(f"Example {number}:\n"))
            content += self.render(example, split, example.reference)
        if content:
            content.append(_text("Now answer the following question.\n"))
        content += self.render(question, split, None)
        merged: list[Part] = []
        for part in content:  # adjacent text parts read as one
            if merged and part["type"] == "text" and merged[-1]["type"] == "text":
                merged[-1] = _text(merged[-1]["text"] + part["text"])
            else:
                merged.append(part)
        return ChatRequest(question.id, ({"role": "user", "content": merged},), (question.id,))

    def requests(self, split: BenchmarkSplit) -> list[ChatRequest]:
        return [self.request_for(q, split) for q in split.questions]
