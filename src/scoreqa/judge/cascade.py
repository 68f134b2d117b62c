"""Rules first, LLM judges only for what the rules leave undecided: most Level 1–3 answers cost no call."""

from __future__ import annotations

from typing import Any, Sequence

from scoreqa.judge.base import Judge, JudgeItem, Verdict


class CascadeJudge(Judge):
    name = "cascade"

    def __init__(self, rules: Judge, llm: Judge) -> None:
        self.rules, self.llm = rules, llm

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        verdicts = list(self.rules.judge(items))
        pending = [i for i, verdict in enumerate(verdicts) if verdict.correct is None]
        if pending:
            for i, verdict in zip(pending, self.llm.judge([items[i] for i in pending])):
                verdicts[i] = verdict
        return verdicts

    @property
    def failures(self) -> list[dict[str, str]]:
        return list(getattr(self.llm, "failures", []))

    def identity(self) -> dict[str, Any]:
        return {"judge": self.name, "rules": self.rules.identity(), "llm": self.llm.identity()}
