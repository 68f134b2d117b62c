"""LLM judges against the loopback OpenAI-compatible mock: scripted verdicts, malformed output, 429 with
Retry-After, 500, timeouts — every item ends in a verdict or a recorded failure, never a crash."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from scoreqa.judge.base import JudgeItem
from scoreqa.judge.cascade import CascadeJudge
from scoreqa.judge.chat_models import JudgeConfigError, OpenAIChatModel
from scoreqa.judge.ensemble import EnsembleJudge
from scoreqa.judge.llm import LLMJudge, parse_binary
from scoreqa.judge.rules import RuleJudge
from scoreqa.prompts.templates import load_template
from scoreqa.testing.openai_mock import MockOpenAIServer, Reply

KEY_ENV = "SCOREQA_TEST_JUDGE_KEY"
ITEM = JudgeItem("q1", "What is the title of the piece?", "Gnomus", "The Gnome")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "test-key")


def judge_for(server: MockOpenAIServer, name: str = "mock", attempts: int = 2, max_retries: int = 1,
              timeout: float = 5.0, max_workers: int = 1) -> LLMJudge:
    model = OpenAIChatModel(model=name, base_url=server.base_url, api_key_env=KEY_ENV, max_retries=max_retries,
                            timeout=timeout)
    return LLMJudge(model, name=name, attempts=attempts, max_workers=max_workers)


def last_text(request: dict) -> str:
    return request["messages"][-1]["content"]


def test_parse_binary_accepts_only_a_bare_digit() -> None:
    assert parse_binary("1") is True and parse_binary(" 0\n") is False
    assert [parse_binary(t) for t in ("", "10", "1.", "Yes", "correct: 1", "O")] == [None] * 6


# MSU-Bench App. H.3, copied from the paper's text by hand for this test (reference "Gnomus", prediction "The Gnome")
H3_RENDERED = (
    'You are an expert in music theory. Your task is to evaluate the correctness of a Predicted Answer based on a '
    'Reference Answer.\n'
    '\n'
    'Reference Answer: "Gnomus" Predicted Answer: "The Gnome"\n'
    '\n'
    'Instruction:\n'
    '\n'
    'Relying on your music theory knowledge, compare the semantic meaning of the Predicted Answer to the Reference '
    'Answer.\n'
    '\n'
    'If the Predicted Answer matches the Reference Answer, output 1.\n'
    '\n'
    'If the Predicted Answer contradicts or fails to match the Reference Answer, output 0.\n'
    '\n'
    'Do not output any text or explanation. Output only the single digit.\n'
    '\n'
    'Decision:')


def test_the_default_request_is_the_papers_h3_prompt_at_temperature_0_with_one_token() -> None:
    with MockOpenAIServer(lambda request, n: Reply("1")) as server:
        verdict = judge_for(server).judge([ITEM])[0]
    request = server.requests[0]
    assert verdict.correct is True and verdict.decided_by == "llm:mock"
    assert request["messages"] == [{"role": "user", "content": H3_RENDERED}]
    assert request["temperature"] == 0.0 and request["max_tokens"] == 1 and request["model"] == "mock"


def test_v1_stays_selectable_and_its_text_is_sent_whole() -> None:
    with MockOpenAIServer(lambda request, n: Reply("0")) as server:
        model = OpenAIChatModel(model="mock", base_url=server.base_url, api_key_env=KEY_ENV, max_retries=1)
        verdict = LLMJudge(model, name="mock", template="judge/msu_binary.v1").judge([ITEM])[0]
    expected = load_template("judge/msu_binary.v1").text.replace("{question}", ITEM.question) \
        .replace("{reference}", ITEM.reference).replace("{prediction}", ITEM.prediction)
    assert verdict.correct is False
    assert last_text(server.requests[0]) == expected
    assert "Reference answer: Gnomus\nModel answer: The Gnome\n" in expected


def test_a_budgeted_reasoning_judge_reads_the_first_digit_of_its_visible_answer() -> None:
    replies = {"a": "<think>1 or 0? The reference says 1 bar</think>Decision: 0", "b": "1\n\nThe answers match.",
               "c": "The answers match."}
    items = [JudgeItem(k, "q", "r", k) for k in replies]
    with MockOpenAIServer(lambda request, n: Reply(replies[last_text(request).split('Predicted Answer: "')[1][0]])) \
            as server:
        model = OpenAIChatModel(model="mock", base_url=server.base_url, api_key_env=KEY_ENV, max_retries=1,
                                max_tokens=512, token_param="max_completion_tokens", temperature=None)
        judge = LLMJudge(model, name="mock", attempts=1, budget=True)
        verdicts = judge.judge(items)
    assert [v.correct for v in verdicts] == [False, True, None]
    assert server.requests[0]["max_completion_tokens"] == 512 and "temperature" not in server.requests[0]
    assert judge.identity()["reading"] == "first_digit" and judge.identity()["model"]["max_tokens"] == 512


def test_malformed_output_is_retried_then_recorded_undecided_never_guessed() -> None:
    replies = iter(["Yes, it is correct", "0"])
    with MockOpenAIServer(lambda request, n: Reply(next(replies))) as server:
        judge = judge_for(server, attempts=3)
        assert judge.judge([ITEM])[0].correct is False          # second call parsed
    assert len(server.requests) == 2 and judge.failures == []
    with MockOpenAIServer(lambda request, n: Reply("I think 1")) as server:
        judge = judge_for(server, attempts=3)
        verdict = judge.judge([ITEM])[0]
    assert (verdict.correct, verdict.decided_by) == (None, "llm:mock:failed")
    assert len(server.requests) == 3
    assert judge.failures[0]["id"] == "q1" and "malformed output 'I think 1'" in judge.failures[0]["reason"]


def test_429_with_retry_after_is_waited_out_by_the_client() -> None:
    def script(request: dict, n: int) -> Reply:
        return Reply.error(429, retry_after=0.2) if n == 0 else Reply("1")

    with MockOpenAIServer(script) as server:
        began = time.perf_counter()
        verdict = judge_for(server, attempts=1, max_retries=2).judge([ITEM])[0]
        waited = time.perf_counter() - began
    assert verdict.correct is True and len(server.requests) == 2
    assert waited >= 0.2                                         # Retry-After honoured


def test_persistent_500_and_malformed_bodies_end_as_recorded_failures() -> None:
    with MockOpenAIServer(lambda request, n: Reply.error(500, retry_after=0.01)) as server:
        judge = judge_for(server, attempts=2, max_retries=1)
        verdict = judge.judge([ITEM])[0]
    assert verdict.correct is None and len(server.requests) == 4   # 2 attempts x (1 call + 1 client retry)
    assert "500" in judge.failures[0]["reason"]
    with MockOpenAIServer(lambda request, n: Reply(raw_body="<html>gateway</html>")) as server:
        judge = judge_for(server, attempts=2, max_retries=0)
        assert judge.judge([ITEM])[0].correct is None
    assert len(judge.failures) == 1 and len(server.requests) == 2


def test_a_timeout_is_a_failure_and_a_later_answer_still_counts() -> None:
    def script(request: dict, n: int) -> Reply:
        return Reply("0", stall_seconds=1.0) if n == 0 else Reply("1")

    with MockOpenAIServer(script) as server:
        verdict = judge_for(server, attempts=2, max_retries=0, timeout=0.3).judge([ITEM])[0]
    assert verdict.correct is True and len(server.requests) == 2
    with MockOpenAIServer(lambda request, n: Reply("1", stall_seconds=1.0)) as server:
        judge = judge_for(server, attempts=1, max_retries=0, timeout=0.3)
        assert judge.judge([ITEM])[0].decided_by == "llm:mock:failed"
    assert "Timeout" in judge.failures[0]["reason"]


def test_setup_errors_stop_the_run_instead_of_silently_undeciding(monkeypatch: pytest.MonkeyPatch) -> None:
    with MockOpenAIServer(lambda request, n: Reply.error(401)) as server:
        with pytest.raises(JudgeConfigError, match="check the key"):
            judge_for(server).judge([ITEM])
        monkeypatch.delenv(KEY_ENV)
        with pytest.raises(JudgeConfigError, match=KEY_ENV):
            judge_for(server).judge([ITEM])


def by_model(votes: dict[str, str]):
    """A script answering per judge model; a value 'fail' returns HTTP 500."""
    def script(request: dict, n: int) -> Reply:
        vote = votes[request["model"]]
        return Reply.error(500, retry_after=0.01) if vote == "fail" else Reply(vote)
    return script


@pytest.mark.parametrize("votes, expected", [
    ({"a": "1", "b": "1", "c": "0"}, (True, "llm_ensemble:2/3")),
    ({"a": "0", "b": "0", "c": "0"}, (False, "llm_ensemble:3/3")),
    ({"a": "1", "b": "0", "c": "fail"}, (None, "llm_ensemble:failed")),
    ({"a": "1", "b": "fail", "c": "fail"}, (None, "llm_ensemble:failed")),
    ({"a": "0", "b": "0", "c": "fail"}, (False, "llm_ensemble:2/3")),
])
def test_ensemble_majority_vote_reports_ties_and_failures(votes: dict, expected: tuple) -> None:
    with MockOpenAIServer(by_model(votes)) as server:
        ensemble = EnsembleJudge({name: judge_for(server, name=name, attempts=1, max_retries=0) for name in "abc"})
        verdict = ensemble.judge([ITEM])[0]
    assert (verdict.correct, verdict.decided_by) == expected
    assert verdict.votes == {n: None if v == "fail" else v == "1" for n, v in votes.items()}
    assert len(ensemble.failures) == list(votes.values()).count("fail")


def test_an_even_split_is_a_tie_and_unanimity_can_be_required() -> None:
    with MockOpenAIServer(by_model({"a": "1", "b": "0", "c": "1", "d": "1"})) as server:
        judges = {name: judge_for(server, name=name, attempts=1, max_retries=0) for name in "abcd"}
        tie = EnsembleJudge({n: judges[n] for n in "ab"}).judge([ITEM])[0]
        strict = EnsembleJudge({n: judges[n] for n in "abc"}, min_votes=3).judge([ITEM])[0]
    assert (tie.correct, tie.decided_by) == (None, "llm_ensemble:tie")
    assert (strict.correct, strict.decided_by) == (None, "llm_ensemble:undecided")


def test_cascade_calls_the_llm_only_for_what_the_rules_leave_undecided() -> None:
    items = [JudgeItem("k", "What is the initial key?", "G minor", "Gm"),
             JudgeItem("m", "What is the initial time signature?", "4/4 time", "3/4"),
             ITEM, JudgeItem("g", "What is the genre of the piece?", "Sonata", "A sonata-allegro")]
    with MockOpenAIServer(lambda request, n: Reply("1" if "Gnome" in last_text(request) else "0")) as server:
        cascade = CascadeJudge(RuleJudge(), EnsembleJudge({"a": judge_for(server, name="a"),
                                                           "b": judge_for(server, name="b")}))
        verdicts = cascade.judge(items)
    assert [(v.correct, v.decided_by) for v in verdicts] == [
        (True, "rules:key"), (False, "rules:meter"), (True, "llm_ensemble:2/2"), (False, "llm_ensemble:2/2")]
    assert len(server.requests) == 4                              # 2 undecided items x 2 judges, no more
    assert all("Gnome" in last_text(r) or "sonata-allegro" in last_text(r) for r in server.requests)


def test_many_items_in_parallel_each_get_their_own_verdict() -> None:
    items = [JudgeItem(str(i), "Q?", "ref", f"answer {i}") for i in range(24)]
    script = lambda request, n: Reply("1" if int(re.search(r"answer (\d+)", last_text(request)).group(1)) % 2  # noqa
                                      else "0")
    with MockOpenAIServer(script, latency=0.05) as server:
        verdicts = judge_for(server, max_workers=8).judge(items)
    assert [v.correct for v in verdicts] == [i % 2 == 1 for i in range(24)]
    assert server.max_in_flight > 1


def test_identity_names_model_and_prompt_so_a_new_judge_gets_a_new_cache_key() -> None:
    with MockOpenAIServer() as server:
        one, other = judge_for(server, name="m1").identity(), judge_for(server, name="m2").identity()
    assert one["template"] == "judge/msu_binary.v2" and one["template_sha"] == load_template(
        "judge/msu_binary.v2").sha
    assert one["model"]["model"] == "m1" and one != other and "base_url" not in one["model"]
    cascade = CascadeJudge(RuleJudge(), EnsembleJudge({"a": LLMJudge(OpenAIChatModel("x"), name="a")}))
    assert set(cascade.identity()) == {"judge", "rules", "llm"}
    assert cascade.identity()["rules"]["source"] == RuleJudge().identity()["source"]


@pytest.mark.slow
def test_a_local_hf_model_judges_through_the_same_prompt(tiny_qwen3: Path) -> None:
    from scoreqa.judge.chat_models import HFChatModel

    model = HFChatModel({"name": "tiny", "name_or_path": str(tiny_qwen3), "dtype": "float32"}, device="cpu")
    judge = LLMJudge(model, name="tiny", attempts=1)
    verdicts = judge.judge([ITEM, JudgeItem("q2", "What is the initial key?", "G minor", "Gm")])
    reply = model.complete(judge.messages(ITEM))
    assert reply == model.complete(judge.messages(ITEM))          # greedy: the same single token every time
    for verdict in verdicts:     # random weights: a digit is a verdict, anything else a recorded failure
        assert verdict.decided_by == ("llm:tiny" if verdict.correct is not None else "llm:tiny:failed")
    assert len(judge.failures) == sum(v.correct is None for v in verdicts)


@pytest.mark.slow
def test_three_local_hf_judges_load_in_parallel_threads_and_vote(compose) -> None:
    """judge=llm_ensemble_smollm2: three SmolLM2-135M instances, loaded at once by the ensemble's threads
    (concurrent loading crashed with an ImportError inside transformers before loads were serialised)."""
    from hydra.utils import instantiate

    ensemble = instantiate(compose("evaluate", ["judge=llm_ensemble_smollm2"]).judge, _convert_="all")
    items = [JudgeItem("k", "What is the initial key?", "G minor", "G minor"), ITEM]
    verdicts = ensemble.judge(items)
    assert sorted(ensemble.judges) == ["a", "b", "c"]
    for verdict in verdicts:
        assert set(verdict.votes) == {"a", "b", "c"}
        assert len(set(verdict.votes.values())) == 1                 # same weights, greedy: the same vote
    assert len(ensemble.failures) == 3 * sum(v.votes["a"] is None for v in verdicts)
