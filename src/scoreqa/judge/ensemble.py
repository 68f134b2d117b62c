"""N LLM judges voting, as in the paper (three judges, majority vote).

An item is decided when one side has at least ``min_votes`` votes (default: a strict majority of all N
judges, so two failed judges out of three leave it undecided); ``decided_by`` says how the vote went
("llm_ensemble:2/3"). Otherwise the item stays undecided: "llm_ensemble:failed" when a judge failed
(reruns ask again), "llm_ensemble:tie" on an even split, "llm_ensemble:undecided" when ``min_votes`` is
not reached. Each verdict carries the individual votes for agreement statistics.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scoreqa.judge.base import Judge, JudgeItem, Verdict


@dataclass(frozen=True)
class EnsembleVerdict(Verdict):
    votes: dict[str, bool | None] = field(default_factory=dict)   # judge name -> its verdict (None = failed)


class EnsembleJudge(Judge):
    name = "llm_ensemble"

    def __init__(self, judges: Mapping[str, Judge] | Sequence[Judge], min_votes: int | None = None) -> None:
        self.judges = dict(judges) if isinstance(judges, Mapping) else {getattr(j, "name", str(i)): j
                                                                        for i, j in enumerate(judges)}
        if not self.judges:
            raise ValueError("an ensemble needs at least one judge (judge.judges is empty)")
        self.min_votes = min_votes if min_votes is not None else len(self.judges) // 2 + 1

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        with ThreadPoolExecutor(max_workers=len(self.judges)) as pool:
            results = dict(zip(self.judges, pool.map(lambda j: j.judge(items), self.judges.values())))
        return [self.combine({name: results[name][i].correct for name in self.judges}) for i in range(len(items))]

    def combine(self, votes: dict[str, bool | None]) -> EnsembleVerdict:
        yes = sum(v is True for v in votes.values())
        no = sum(v is False for v in votes.values())
        n = len(votes)
        if max(yes, no) >= self.min_votes and yes != no:
            return EnsembleVerdict(yes > no, f"{self.name}:{max(yes, no)}/{n}", votes)
        if yes + no < n:           # a judge failed: asked again on the next run (see evaluation.runner)
            return EnsembleVerdict(None, f"{self.name}:failed", votes)
        return EnsembleVerdict(None, f"{self.name}:{'tie' if yes == no else 'undecided'}", votes)

    @property
    def failures(self) -> list[dict[str, str]]:
        return [f for judge in self.judges.values() for f in getattr(judge, "failures", [])]

    def identity(self) -> dict[str, Any]:
        return {"judge": self.name, "min_votes": self.min_votes,
                "judges": {name: judge.identity() for name, judge in sorted(self.judges.items())}}
