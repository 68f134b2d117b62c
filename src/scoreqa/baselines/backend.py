"""The backend every baseline runs behind: it answers each request from the question and its score."""

from __future__ import annotations

import hashlib
import inspect
import sys
import time
from abc import ABC, abstractmethod
from typing import Any, Iterator, Sequence

from scoreqa.backends.base import Backend, ChatRequest, Completion
from scoreqa.data.records import BenchmarkSplit, Question, Score


def source_digest(*module_names: str) -> str:
    """Hash of the modules' source: a rule change must not reuse answers cached under the old rules."""
    digest = hashlib.sha256()
    for name in module_names:
        digest.update(inspect.getsource(sys.modules[name]).encode())
    return digest.hexdigest()[:12]


class Answerer(ABC):
    """Answers one question of a bound split; an empty string means 'no answer' (scored wrong)."""

    name: str = "answerer"
    modules: tuple[str, ...] = ()  # modules whose source decides the answers (part of the identity)

    @abstractmethod
    def answer(self, question: Question, score: Score) -> str:
        """The answer text, in the format the benchmark's prompt asks for."""

    def identity(self) -> dict[str, Any]:
        return {"answerer": self.name, "source": source_digest(type(self).__module__, *self.modules)}


class BaselineBackend(Backend):
    """Looks up the questions of each request in the split it was bound to (``bind_split``)."""

    name = "baseline"

    def __init__(self, answerer: Answerer | None, batch_size: int = 64) -> None:
        if answerer is None:
            raise ValueError("backend=baseline answers through model=oracle, model=random or model=symbolic (their "
                             "model config names the answerer); the chosen model has no `answerer`")
        self.answerer = answerer
        self.batch_size = int(batch_size)
        self._questions: dict[str, Question] = {}
        self._scores: dict[str, Score] = {}
        self._usage = {"requests": 0, "seconds": 0.0}

    def bind_split(self, split: BenchmarkSplit) -> None:
        self._questions = {q.id: q for q in split.questions}
        self._scores = dict(split.scores)

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, **self.answerer.identity()}

    def usage(self) -> dict[str, Any]:
        return dict(self._usage)

    def _answer(self, request: ChatRequest) -> str:
        missing = [qid for qid in request.question_ids if qid not in self._questions]
        if missing:
            raise KeyError(f"baseline backend has no question {missing[0]!r}: the evaluate entry must call "
                           "bind_split(split) before generate()")
        questions = [self._questions[qid] for qid in request.question_ids]
        if len(questions) == 1:
            return self.answerer.answer(questions[0], self._scores[questions[0].score_id])
        return "\n".join(f"{i}. {self.answerer.answer(q, self._scores[q.score_id])}"
                         for i, q in enumerate(questions, start=1))

    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        for start in range(0, len(requests), self.batch_size):
            batch = list(requests[start:start + self.batch_size])
            began = time.perf_counter()
            completions = [Completion(r.key, self._answer(r), 0, 0, 0.0) for r in batch]
            self._usage["requests"] += len(batch)
            self._usage["seconds"] += time.perf_counter() - began
            yield completions
