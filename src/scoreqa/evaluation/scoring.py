"""From cached completions to per-question records: parse, then judge what can be judged."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

from scoreqa.backends.base import ChatRequest, Completion
from scoreqa.data.records import BenchmarkSplit
from scoreqa.judge.base import JudgeItem
from scoreqa.prompts.answers import parse_numbered_answers, strip_thinking

# decided_by values for questions no judge sees
NO_REFERENCE, PARSE_FAILURE, GENERATION_FAILED = "no_reference", "parse_failure", "generation_failed"
TOO_LONG = "too_long"  # the prompt did not fit the context window: never sent


@dataclass
class QuestionRecord:
    """Everything a report needs about one question; ``correct`` is None only without a reference."""

    question_id: str
    score_id: str
    level: int
    question: str
    reference: str | None
    raw_output: str | None
    prediction: str | None
    correct: bool | None = None
    decided_by: str | None = None
    undecided: bool = False  # the judge could not decide; counted as incorrect

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_completions(split: BenchmarkSplit, requests: Sequence[ChatRequest], completions: dict[str, Completion],
                      mode: str) -> list[QuestionRecord]:
    """One record per question; batched outputs are split by number and never guessed by position."""
    questions = {q.id: q for q in split.questions}
    records = []
    for request in requests:
        completion = completions[request.key]
        if mode == "batched":
            answers = parse_numbered_answers(completion.text, len(request.question_ids))
        else:
            answers = [strip_thinking(completion.text) or None]
        for question_id, answer in zip(request.question_ids, answers):
            q = questions[question_id]
            record = QuestionRecord(q.id, q.score_id, q.level, q.text, q.reference, completion.text, answer)
            if q.reference is None:
                record.decided_by = NO_REFERENCE
            elif completion.too_long:
                record.correct, record.decided_by = False, TOO_LONG
            elif completion.error:
                record.correct, record.decided_by = False, GENERATION_FAILED
            elif answer is None:
                record.correct, record.decided_by = False, PARSE_FAILURE
            records.append(record)
    return records


def judge_items(records: Sequence[QuestionRecord]) -> list[JudgeItem]:
    """The records that need a judge: a reference and a parsed prediction."""
    return [JudgeItem(r.question_id, r.question, r.reference, r.prediction) for r in records
            if r.decided_by is None]
