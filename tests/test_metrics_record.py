"""The one Metrics record: when a run is complete, valid JSON, and a summary that puts failures first."""

from __future__ import annotations

import json

from scoreqa.evaluation.report import failure_causes, summary_table
from scoreqa.metrics.record import Counters, Estimate, Metrics, Scores

SCORES = Scores("accuracy", 50.0, {"level": {"level_1": Estimate(50.0, (25.0, 75.0), 4)}})


def test_failed_or_too_long_requests_or_nothing_evaluated_make_a_run_incomplete():
    assert Metrics("msu", SCORES, Counters(n_questions=4)).complete
    assert not Metrics("msu", SCORES, Counters(n_questions=4, n_generation_failures=1)).complete
    too_long = Metrics("msu", SCORES, Counters(n_questions=4, n_too_long=2))
    assert not too_long.complete
    assert too_long.incomplete_reasons() == ["2 question(s) whose prompt did not fit the context window"]
    empty = Metrics("msu", Scores("none", None), Counters())
    assert not empty.complete and empty.incomplete_reasons()[0].startswith("no question was evaluated")


def test_metrics_json_is_valid_json_even_with_nan_scores():
    nan = float("nan")
    metrics = Metrics("msu", Scores("accuracy", nan, {"level": {"level_4": Estimate(nan, (nan, nan), 0)}},
                                    details={"accuracy": {"overall": nan}}), Counters())
    text = json.dumps(metrics.as_dict(), allow_nan=False)  # raises on NaN
    back = json.loads(text)
    assert back["headline"] == {"name": "accuracy", "value": None} and back["accuracy"]["overall"] is None
    assert back["groups"]["level"]["level_4"] == {"value": None, "ci95": [None, None], "n": 0}
    assert back["complete"] is False


def test_summary_prints_failures_first_with_cause_and_endpoint():
    failures = failure_causes(["connection error to http://h:1/v1: refused"] * 3 + ["timed out after 90 s"],
                              "http://h:1/v1")
    metrics = Metrics("msu", SCORES, Counters(n_questions=8, n_generation_failures=4), failures, "abc")
    lines = summary_table(metrics).splitlines()
    assert lines[0] == "INCOMPLETE RUN: 4 question(s) whose request failed for good"
    assert lines[1] == "  3 x connection error to http://h:1/v1: refused at http://h:1/v1"
    assert lines[2] == "  1 x timed out after 90 s at http://h:1/v1"
    assert lines[-1].endswith("[INCOMPLETE]") and "generation failures 4" in lines[-1]


def test_a_too_long_request_is_counted_apart_from_generation_failures():
    from scoreqa.backends.base import ChatRequest, Completion
    from scoreqa.data.records import BenchmarkSplit, Question, Score
    from scoreqa.evaluation.report import count_outcomes
    from scoreqa.evaluation.scoring import TOO_LONG, parse_completions

    questions = [Question(f"s:L1.{i}", "s", 1, "q", "r") for i in range(3)]
    split = BenchmarkSplit("msu", "test", {"s": Score("s", "t")}, questions)
    requests = [ChatRequest(q.id, ({"role": "user", "content": "q"},), (q.id,)) for q in questions]
    completions = {"s:L1.0": Completion("s:L1.0", "r"),
                   "s:L1.1": Completion("s:L1.1", "", input_tokens=9000, error="too long: 9000 + 512 > 8192",
                                        too_long=True),
                   "s:L1.2": Completion("s:L1.2", "", error="HTTP 500: down")}
    records = parse_completions(split, requests, completions, "single")
    assert [r.decided_by for r in records] == [None, TOO_LONG, "generation_failed"]
    counters = count_outcomes(records, n_new_generations=3, n_skipped_scores=0)
    assert (counters.n_too_long, counters.n_generation_failures, counters.n_judged) == (1, 1, 0)
    assert not Metrics("msu", SCORES, counters).complete
