"""From completions to judged records: no reference, failures, parse failures, cached verdicts."""

from __future__ import annotations

from scoreqa.backends.base import ChatRequest, Completion
from scoreqa.data.records import BenchmarkSplit, Question, Score
from scoreqa.evaluation.jsonl_store import JsonlStore
from scoreqa.evaluation.report import level_metrics
from scoreqa.evaluation.runner import judge_missing
from scoreqa.evaluation.scoring import parse_completions
from scoreqa.judge.exact import ExactMatchJudge


def _split():
    questions = [Question("s:L1.1", "s", 1, "Key?", "G minor"), Question("s:L1.2", "s", 1, "Clef?", None),
                 Question("s:L2.1", "s", 2, "Tempo?", "Allegro")]
    return BenchmarkSplit("msu", "test", {"s": Score("s", "t")}, questions)


def test_batched_parse_no_reference_and_failures():
    split = _split()
    request = ChatRequest("s:batched", (), ("s:L1.1", "s:L1.2", "s:L2.1"))
    records = parse_completions(split, [request], {"s:batched": Completion("s:batched", "1. g minor.\n2. Treble")},
                                "batched")
    assert [(r.prediction, r.decided_by) for r in records] == [("g minor.", None), ("Treble", "no_reference"),
                                                                (None, "parse_failure")]
    assert records[2].correct is False
    failed = parse_completions(split, [request], {"s:batched": Completion("s:batched", "", error="HTTP 500")}, "batched")
    assert [r.decided_by for r in failed] == ["generation_failed", "no_reference", "generation_failed"]


def test_verdicts_are_cached_and_reused(tmp_path):
    split = _split()
    requests = [ChatRequest(q.id, (), (q.id,)) for q in split.questions]
    completions = {"s:L1.1": Completion("s:L1.1", "Answer: G Minor"), "s:L1.2": Completion("s:L1.2", "x"),
                   "s:L2.1": Completion("s:L2.1", "Presto")}
    store = JsonlStore(tmp_path / "judgments.jsonl")
    records = parse_completions(split, requests, completions, "single")
    assert judge_missing(records, ExactMatchJudge(), store) == 2
    assert [(r.correct, r.decided_by) for r in records] == [(True, "exact"), (None, "no_reference"), (False, "exact")]
    again = parse_completions(split, requests, completions, "single")
    assert judge_missing(again, ExactMatchJudge(), store) == 0
    assert [r.correct for r in again] == [r.correct for r in records]
    metrics = level_metrics(records, bootstrap_resamples=200)
    assert metrics["accuracy"]["overall"] == 50.0 and metrics["accuracy"]["level_1"] == 100.0
    assert metrics["lsr"] == {"level_1": 100.0, "level_2": 0.0, "level_3": 0.0, "level_4": 0.0}
