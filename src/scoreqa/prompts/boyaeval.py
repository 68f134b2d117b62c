"""BoYaEval's requests: the task template around the score image, Task 3's options as images, and
k worked examples (3-shot Task 2, 2-shot Task 3 in the paper's few-shot setting) before the question.

A template has the slots ``{image}`` (the score image), ``{question}``, ``{options}`` (text lines
``A. ...``, or for Task 3 a label followed by each option image), ``{notation}`` (the paper's
spelling of the item's notation, Appendix E's [notation type]) and ``{target_notation}`` (Task 3's
[notation type 2]). ``task<N>.<notation key>`` templates (``task2.jianzipu``) take precedence over
``task<N>``, so Task 2 can use Appendix E.2's two templates. An exemplar is its template followed by
its answer in the format that template asks for (``Reason: ...`` / ``Answer: ...`` with the
exemplar's worked reasoning; ``Interpretation: ...``; ``Notation: ...``; else ``Answer: ...``).
Exemplars come from the task's exemplar pool (outside the test items), preferring the same notation
system, chosen per question with a seed (so a question's prompt does not depend on the rest of the run).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping, Sequence

import numpy as np

from scoreqa.backends.base import ChatRequest
from scoreqa.data.records import BenchmarkSplit, Question
from scoreqa.data.boyaeval import NOTATION_NAMES
from scoreqa.prompts.templates import Template, load_template

Part = dict[str, Any]
_SLOT = re.compile(r"(\{image\}|\{options\})")
_TEMPLATE_KEY = re.compile(r"task(\d)(?:\.(\w+))?")


def _text(text: str) -> Part:
    return {"type": "text", "text": text}


class BoYaEvalPromptBuilder:
    mode = "single"

    def __init__(self, templates: Mapping[str, str], fewshot: Mapping[int, int], pools: Mapping[int, Sequence[Question]],
                 seed: int = 0) -> None:
        self.templates: dict[tuple[int, str | None], Template] = {}
        for name, template_id in templates.items():
            match = _TEMPLATE_KEY.fullmatch(name)
            if match is None:
                raise KeyError(f"data.templates key {name!r}: expected task<N> or task<N>.<notation key>")
            if template_id:
                self.templates[(int(match.group(1)), match.group(2))] = load_template(template_id)
        self.fewshot, self.pools, self.seed = dict(fewshot), pools, int(seed)

    def identity(self) -> dict[str, Any]:
        return {"mode": self.mode, "fewshot": {str(k): v for k, v in sorted(self.fewshot.items())},
                "fewshot_seed": self.seed, "templates": {t.id: t.sha for t in self.templates.values()}}

    def exemplars(self, question: Question) -> list[Question]:
        k = self.fewshot.get(question.level, 0)
        if not k:
            return []
        pool = [q for q in self.pools.get(question.level, []) if q.id != question.id]
        same = [q for q in pool if q.meta.get("notation_key") == question.meta.get("notation_key")]
        candidates = same if len(same) >= k else pool
        if len(candidates) < k:
            raise ValueError(f"{question.id}: {k}-shot needs {k} exemplars, the task's pool has {len(candidates)}")
        digest = hashlib.sha256(f"{self.seed}:{question.id}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        return [candidates[i] for i in sorted(rng.choice(len(candidates), size=k, replace=False))]

    def template_for(self, question: Question) -> Template:
        template = (self.templates.get((question.level, question.meta.get("notation_key")))
                    or self.templates.get((question.level, None)))
        if template is None:
            raise KeyError(f"data.templates has no task{question.level} template (nor "
                           f"task{question.level}.{question.meta.get('notation_key')})")
        return template

    @staticmethod
    def answer_block(template: Template, question: Question) -> str:
        """An exemplar's answer in the output format its template asks for."""
        if "Reason: <" in template.text:
            if not question.meta.get("reason"):
                raise ValueError(f"exemplar {question.id} has no worked reasoning (a 'reason' field), and its template "
                                 f"{template.id} asks for Reason/Answer (the paper's few-shot exemplars are worked)")
            return f"Reason: {question.meta['reason']}\nAnswer: {question.reference}"
        for label in ("Interpretation", "Notation"):
            if f"{label}: <" in template.text:
                return f"{label}: {question.reference}"
        return f"Answer: {question.reference}"

    @staticmethod
    def slots(question: Question, template: Template) -> dict[str, str]:
        key = question.meta.get("notation_key")
        values = {"question": question.text,
                  "notation": NOTATION_NAMES.get(key or "", question.meta.get("notation") or ""),
                  "target_notation": question.meta.get("target_notation") or ""}
        for name, value in values.items():
            if "{" + name + "}" in template.text and not value:
                raise ValueError(f"{question.id}: template {template.id} needs {{{name}}}, and the item gives none")
        return values

    def render(self, question: Question, split: BenchmarkSplit, exemplar: bool) -> list[Part]:
        template = self.template_for(question)
        text = template.text
        for name, value in self.slots(question, template).items():
            text = text.replace("{" + name + "}", value)
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
        if exemplar:
            parts.append(_text(f"\n{self.answer_block(template, question)}\n\n"))
        return [part for part in parts if part["type"] != "text" or part["text"]]

    def request_for(self, question: Question, split: BenchmarkSplit) -> ChatRequest:
        content: list[Part] = []
        for number, example in enumerate(self.exemplars(question), start=1):
            content.append(_text(f"Example {number}:\n"))
            content += self.render(example, split, exemplar=True)
        if content:
            content.append(_text("Now answer the following question.\n"))
        content += self.render(question, split, exemplar=False)
        merged: list[Part] = []
        for part in content:  # adjacent text parts read as one
            if merged and part["type"] == "text" and merged[-1]["type"] == "text":
                merged[-1] = _text(merged[-1]["text"] + part["text"])
            else:
                merged.append(part)
        return ChatRequest(question.id, ({"role": "user", "content": merged},), (question.id,))

    def requests(self, split: BenchmarkSplit) -> list[ChatRequest]:
        return [self.request_for(q, split) for q in split.questions]
