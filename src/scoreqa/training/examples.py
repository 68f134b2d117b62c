"""Training examples: the evaluation's chat request plus the answer the model should give to it.

``single`` mode gives one example per question (target: its reference answer); ``batched`` mode gives
one per score (target: ``1. <answer>`` lines, the format ``parse_numbered_answers`` reads back).
A question without a reference answer cannot be a target: it is dropped, and in batched mode it is
also left out of the numbered list, so numbers and answers stay aligned.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoreqa.backends.base import ChatRequest
from scoreqa.data.records import BenchmarkSplit, Question
from scoreqa.prompts.builder import PromptBuilder


@dataclass(frozen=True)
class TrainingExample:
    score_id: str
    request: ChatRequest
    target: str

    @property
    def key(self) -> str:
        return self.request.key


def batched_target(questions: list[Question]) -> str:
    """The numbered answer list a batched prompt asks for."""
    return "\n".join(f"{i}. {q.reference}" for i, q in enumerate(questions, start=1))


def build_examples(split: BenchmarkSplit, builder: PromptBuilder) -> tuple[list[TrainingExample], list[str]]:
    """Examples of ``split`` in its order, and the ids of the questions dropped for lack of a reference."""
    unreferenced = [q.id for q in split.questions if not q.has_reference]
    examples: list[TrainingExample] = []
    for score_id, questions in split.questions_by_score().items():
        referenced = [q for q in questions if q.has_reference]
        score = split.scores[score_id]
        if builder.mode == "single":
            examples.extend(TrainingExample(score_id, builder.request_for(score, [q]), str(q.reference))
                            for q in referenced)
        elif referenced:
            examples.append(TrainingExample(score_id, builder.request_for(score, referenced),
                                            batched_target(referenced)))
    return examples, unreferenced
