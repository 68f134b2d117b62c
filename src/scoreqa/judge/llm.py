"""One LLM judge: the binary grading prompt at temperature 0, one output token read as 1 or 0.

Reasoning models (GPT-5, Gemini 2.5 Pro) cannot answer in one output token: they get a completion budget
(``budget=True``, the budget is the chat model's ``max_tokens`` and sits in the cache key) and the first
standalone 0 or 1 of the visible answer is the verdict. Without a budget, anything but a bare "1" or "0" —
an explanation, an empty reply, an HTTP error the client's retries could not get past, a timeout — (with a
budget: a reply without a 0 or 1) is a judge failure: the call is repeated up to ``attempts`` times, then
the item is recorded as undecided (``llm:<name>:failed``) with the reason kept in :attr:`failures`.
A verdict is never guessed from a malformed reply.

``judge/msu_binary.v2`` (the default) is the paper's Appendix H.3 prompt verbatim; ``judge/msu_binary.v1``
is our earlier reconstruction, still selectable. Leading ``#`` lines of a template are its header (source,
message split) and are never sent to the model.
"""

from __future__ import annotations

import logging
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, Sequence

from scoreqa.judge.base import Judge, JudgeItem, Verdict
from scoreqa.judge.chat_models import ChatCallError, Messages
from scoreqa.prompts.answers import strip_thinking
from scoreqa.prompts.templates import load_template

log = logging.getLogger(__name__)
DEFAULT_TEMPLATE = "judge/msu_binary.v2"


class ChatModel(Protocol):
    def complete(self, messages: Messages) -> str: ...

    def identity(self) -> dict[str, Any]: ...


def parse_binary(text: str) -> bool | None:
    """'1' -> True, '0' -> False (surrounding whitespace allowed); anything else -> None."""
    match = re.fullmatch(r"\s*([01])\s*", text or "")
    return match.group(1) == "1" if match else None


def parse_first_digit(text: str) -> bool | None:
    """The first standalone 0 or 1 of a budgeted reply, after any reasoning block ('Decision: 1' -> True)."""
    match = re.search(r"(?<![\w.])([01])(?![\w.])", strip_thinking(text or ""))
    return match.group(1) == "1" if match else None


def prompt_text(template_text: str) -> str:
    """A template without its header: the leading lines starting with '#'."""
    lines = template_text.split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    return "\n".join(lines)


class LLMJudge(Judge):
    def __init__(self, model: ChatModel, name: str, template: str = DEFAULT_TEMPLATE, attempts: int = 3,
                 max_workers: int = 4, budget: bool = False) -> None:
        if attempts < 1:
            raise ValueError(f"judge {name}: attempts must be >= 1, got {attempts}")
        self.model, self.name, self.attempts, self.max_workers = model, name, attempts, max_workers
        self.template = load_template(template)
        self.prompt = prompt_text(self.template.text)
        self.budget = budget
        self.parse = parse_first_digit if budget else parse_binary
        self.failures: list[dict[str, str]] = []     # {"id", "reason"} of items left undecided
        self._lock = threading.Lock()

    def messages(self, item: JudgeItem) -> list[dict[str, str]]:
        text = self.prompt.format_map({"question": item.question, "reference": item.reference,
                                              "prediction": item.prediction})
        return [{"role": "user", "content": text}]

    def ask(self, item: JudgeItem) -> Verdict:
        reasons = []
        for _ in range(self.attempts):
            try:
                reply = self.model.complete(self.messages(item))
            except ChatCallError as error:
                reasons.append(str(error))
                continue
            verdict = self.parse(reply)
            if verdict is not None:
                return Verdict(verdict, f"llm:{self.name}")
            reasons.append(f"malformed output {reply[:80]!r}")
        reason = "; ".join(reasons)
        log.warning("judge %s left item %s undecided after %d attempt(s): %s", self.name, item.id, self.attempts,
                    reason)
        with self._lock:
            self.failures.append({"id": item.id, "judge": self.name, "reason": reason})
        return Verdict(None, f"llm:{self.name}:failed")

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        if self.max_workers <= 1 or len(items) <= 1:
            return [self.ask(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.max_workers) as pool:
            return list(pool.map(self.ask, items))

    def identity(self) -> dict[str, Any]:
        return {"judge": "llm", "name": self.name, "model": self.model.identity(), "template": self.template.id,
                "template_sha": self.template.sha, "reading": "first_digit" if self.budget else "single_token"}
