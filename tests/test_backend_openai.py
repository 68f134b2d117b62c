"""``backend=openai`` against the loopback mock server: request fields, images, faults, streaming, resume."""

from __future__ import annotations

import base64
import io
import random
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from scoreqa.backends.base import ChatRequest, Completion
from scoreqa.backends.openai_api import BackendStopped, OpenAIBackend
from scoreqa.backends.pacing import RetryPolicy, retry_after_seconds
from scoreqa.backends.seeding import batch_seed
from scoreqa.evaluation.jsonl_store import JsonlStore
from scoreqa.evaluation.runner import generate_missing
from scoreqa.testing.openai_mock import MockOpenAIServer, Reply, echo_last_user_message

MODEL = {"name": "mock", "name_or_path": "mock-model", "kind": "causal_lm", "enable_thinking": False}
PAPER = {"do_sample": True, "temperature": 0.95, "top_p": 0.7, "top_k": 50, "max_new_tokens": 64, "seed": 7}
FAST = {"timeout": 0.5, "backoff_base": 0.01, "backoff_cap": 0.05}


def requests(n: int, prefix: str = "q") -> list[ChatRequest]:
    return [ChatRequest(f"{prefix}{i}", ({"role": "system", "content": "Answer briefly."},
                                         {"role": "user", "content": f"question {i}"}), (f"{prefix}{i}",))
            for i in range(n)]


def run(backend: OpenAIBackend, reqs: list[ChatRequest]) -> list[list[Completion]]:
    return list(backend.generate(reqs))


def flat(batches: list[list[Completion]]) -> dict[str, Completion]:
    out: dict[str, Completion] = {}
    for batch in batches:
        for completion in batch:
            assert completion.key not in out, f"{completion.key} yielded twice"
            out[completion.key] = completion
    return out


def question_number(body: dict) -> int:
    return int(body["messages"][-1]["content"].split()[1])


def test_self_hosted_model_gets_the_papers_sampling_and_a_seed_per_request():
    with MockOpenAIServer() as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, **FAST)
        got = flat(run(backend, requests(3)))
    assert {k: c.text for k, c in got.items()} == {f"q{i}": f"question {i}" for i in range(3)}
    by_question = {question_number(body): body for body in server.requests}
    for i, body in by_question.items():
        assert body["model"] == "mock-model"
        assert body["messages"] == [{"role": "system", "content": "Answer briefly."},
                                    {"role": "user", "content": f"question {i}"}]
        assert {k: v for k, v in body.items() if k not in ("model", "messages")} == {
            "temperature": 0.95, "top_p": 0.7, "top_k": 50, "max_tokens": 64,
            "seed": batch_seed(7, [f"q{i}"]), "chat_template_kwargs": {"enable_thinking": False}}
    assert backend.usage()["requests"] == 3 and backend.usage()["attempts"] == 3


def test_hosted_model_sends_only_the_fields_its_api_block_allows(compose, monkeypatch):
    cfg = compose("evaluate", ["backend=openai", "model=gpt-5", "sampling=greedy"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with MockOpenAIServer() as server:
        from hydra.utils import instantiate

        backend = instantiate(cfg.backend, base_url=server.base_url, _convert_="all")
        flat(run(backend, requests(1)))
    body = server.requests[0]
    assert body["model"] == "gpt-5"
    assert set(body) == {"model", "messages", "seed", "max_completion_tokens"}
    assert body["max_completion_tokens"] == 16384
    greedy_claude = OpenAIBackend({"name": "c", "name_or_path": "c", "api": {"params": ["temperature", "top_p"]}},
                                  {"do_sample": False}, base_url="http://127.0.0.1:9/v1")
    assert greedy_claude.request_fields() == {"temperature": 0.0}  # greedy: no nucleus cut


def test_missing_key_or_endpoint_fails_before_any_request(monkeypatch):
    monkeypatch.delenv("SCOREQA_TEST_KEY", raising=False)
    with MockOpenAIServer() as server:
        backend = OpenAIBackend({**MODEL, "api": {"base_url": server.base_url, "key_env": "SCOREQA_TEST_KEY"}}, PAPER)
        with pytest.raises(RuntimeError, match="SCOREQA_TEST_KEY"):
            run(backend, requests(2))
        with pytest.raises(ValueError, match="base_url"):
            run(OpenAIBackend(MODEL, PAPER), requests(2))
    assert server.requests == []
    with pytest.raises(ValueError, match="unknown sampling fields"):
        OpenAIBackend(MODEL, PAPER, params=["temperature", "min_p"])


def page(tmp_path: Path, size: tuple[int, int], name: str) -> Path:
    path = tmp_path / name
    Image.new("RGB", size, (200, 30, 30)).save(path)
    return path


def test_pages_go_as_data_urls_within_the_pixel_budget(tmp_path):
    small, large = page(tmp_path, (40, 30), "page-1.png"), page(tmp_path, (400, 300), "page-2.png")
    request = ChatRequest("s:batched", ({"role": "user", "content": [
        {"type": "text", "text": "Look:"}, {"type": "image", "image": str(small)},
        {"type": "image", "image": str(large)}, {"type": "text", "text": "question 0"}]},), ("q0",))
    vlm = {**MODEL, "kind": "vision_language", "max_pixels": 12_000}
    with MockOpenAIServer() as server:
        run(OpenAIBackend(vlm, PAPER, base_url=server.base_url, **FAST), [request])
    parts = server.requests[0]["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "text"]
    images = []
    for part in parts[1:3]:
        header, data = part["image_url"]["url"].split(",", 1)
        assert header == "data:image/png;base64"
        images.append(Image.open(io.BytesIO(base64.b64decode(data))))
    assert base64.b64decode(parts[1]["image_url"]["url"].split(",", 1)[1]) == small.read_bytes()  # sent as is
    assert images[1].size == (126, 94)  # sqrt(12000 / 120000) * (400, 300), aspect kept, <= budget
    with pytest.raises(ValueError, match="kind='causal_lm'"):
        run(OpenAIBackend(MODEL, PAPER, base_url="http://127.0.0.1:9/v1"), [request])


def faulty_script():
    """Per question: 0 -> 429 (Retry-After 0.2) then ok; 1 -> 500, 500, ok; 2 -> stall past the timeout, ok;
    3 -> malformed JSON, ok; 4 -> 200 without choices, ok; 5 -> always 503 (fails for good); others ok."""
    plan = {0: [Reply.error(429, retry_after=0.2)], 1: [Reply.error(500)] * 2, 2: [Reply(stall_seconds=1.5)],
            3: [Reply(raw_body='{"id": "cut off')], 4: [Reply(raw_body='{"error": {"message": "overloaded"}}')],
            5: [Reply.error(503)] * 99}
    attempts: dict[int, int] = {}
    lock = threading.Lock()

    def script(body: dict, n: int) -> Reply:
        i = question_number(body)
        with lock:
            attempt = attempts[i] = attempts.get(i, 0) + 1
        faults = plan.get(i, [])
        return faults[attempt - 1] if attempt <= len(faults) else echo_last_user_message(body, n)

    return script


def test_injected_faults_end_in_correct_answers_or_recorded_failures():
    with MockOpenAIServer(faulty_script()) as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=4, max_retries=3, **FAST)
        got = flat(run(backend, requests(10)))
    assert set(got) == {f"q{i}" for i in range(10)}  # nothing lost, nothing twice
    for i in [0, 1, 2, 3, 4, 6, 7, 8, 9]:
        assert got[f"q{i}"].text == f"question {i}" and got[f"q{i}"].error is None
    assert got["q5"].text == "" and got["q5"].error.startswith("HTTP 503")
    usage = backend.usage()
    assert usage["requests"] == 9 and usage["failed_requests"] == 1
    assert usage["retries"] == 1 + 2 + 1 + 1 + 1 + 3  # q0..q4 as scripted, q5 until max_retries
    assert usage["attempts"] == len(server.requests) == 10 + usage["retries"]


def test_retry_after_is_obeyed_and_client_errors_are_not_retried():
    stamps: dict[int, list[float]] = {}

    def script(body: dict, n: int) -> Reply:
        i = question_number(body)
        stamps.setdefault(i, []).append(time.monotonic())
        if i == 0 and len(stamps[0]) == 1:
            return Reply.error(429, retry_after=0.6)
        return Reply.error(400) if i == 1 else echo_last_user_message(body, n)

    with MockOpenAIServer(script) as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=1, **FAST)
        got = flat(run(backend, requests(3)))
    assert stamps[0][1] - stamps[0][0] >= 0.6
    assert len(stamps[1]) == 1 and got["q1"].error.startswith("HTTP 400")
    assert got["q0"].text == "question 0" and got["q2"].text == "question 2"


def test_concurrency_limit_and_rate_limit_hold():
    with MockOpenAIServer(latency=0.1) as server:
        run(OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=5, **FAST), requests(30))
        assert server.max_in_flight == 5
    stamps: list[float] = []
    with MockOpenAIServer(lambda body, n: stamps.append(time.monotonic()) or echo_last_user_message(body, n)) as server:
        run(OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=4, requests_per_minute=600, **FAST),
            requests(5))
    assert stamps[-1] - stamps[0] >= 4 * 0.1 * 0.95  # 600/min = one start every 0.1 s


def test_completions_stream_out_as_they_arrive():
    released = threading.Event()

    def script(body: dict, n: int) -> Reply:
        if question_number(body) == 1:
            released.wait(10)
        return echo_last_user_message(body, n)

    with MockOpenAIServer(script) as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=2, timeout=15)
        batches = backend.generate(requests(2))
        first = next(batches)  # q1 is still held by the server
        released.set()
        rest = list(batches)
    assert [c.key for c in first] == ["q0"]
    assert [c.key for batch in rest for c in batch] == ["q1"]


def test_runner_caches_failures_and_asks_only_them_again(tmp_path):
    fail_once = {"q2", "q5"}

    def script(body: dict, n: int) -> Reply:
        key = f"q{question_number(body)}"
        if key in fail_once:
            return Reply.error(500)
        return echo_last_user_message(body, n)

    store = JsonlStore(tmp_path / "predictions.jsonl")
    reqs = requests(8)
    with MockOpenAIServer(script) as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=4, max_retries=1, **FAST)
        cached, made = generate_missing(reqs, backend, store, "run")
        assert made == 8 and {k for k, c in cached.items() if c.error} == fail_once
        fail_once.clear()
        n_before = len(server.requests)
        cached, made = generate_missing(reqs, backend, store, "run")
        assert made == 2 and sorted(question_number(b) for b in server.requests[n_before:]) == [2, 5]
        assert all(c.error is None and c.text == f"question {k[1:]}" for k, c in cached.items())
        assert generate_missing(reqs, backend, store, "run")[1] == 0
    assert len(server.requests) == 8 + 2 + 2  # first run (2 with one retry each), then only the two failures


def test_a_refused_key_stops_at_once_with_the_fix_and_no_key_in_the_error(monkeypatch):
    monkeypatch.setenv("SCOREQA_TEST_KEY", "sk-live-abcdef123456")
    echo = lambda body, n: Reply.error(401, message="Incorrect API key provided: sk-live-abcdef123456")  # noqa: E731
    with MockOpenAIServer(echo) as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, api_key_env="SCOREQA_TEST_KEY",
                                concurrency=2, max_consecutive_failures=50, **FAST)
        yielded: list[Completion] = []
        with pytest.raises(BackendStopped, match=f"{server.base_url} refused the key.*set the environment "
                                                 "variable SCOREQA_TEST_KEY to a valid key") as raised:
            for batch in backend.generate(requests(40)):
                yielded.extend(batch)
    assert len(yielded) == len(server.requests) <= 2 and all(c.error for c in yielded)  # no retries, no more sends
    assert "abcdef123456" not in str(raised.value) and not any("abcdef123456" in c.error for c in yielded)


def test_consecutive_failures_count_in_completion_order_even_when_all_requests_are_in_flight():
    # 62 failing requests at concurrency 32 (the probe): the limit must still stop the run
    with MockOpenAIServer(lambda body, n: Reply.error(500)) as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=32, max_consecutive_failures=50,
                                **FAST)
        with pytest.raises(BackendStopped, match=f"50 requests in a row failed for good.*HTTP 500.*{server.base_url}"):
            for _ in backend.generate(requests(62)):
                pass


def test_backoff_and_retry_after_parsing():
    policy, rng = RetryPolicy(backoff_base=1.0, backoff_cap=8.0), random.Random(0)
    assert all(0 <= policy.delay(n, None, rng) <= min(8.0, 2 ** n) for n in range(8) for _ in range(50))
    assert max(policy.delay(6, None, rng) for _ in range(200)) > 4.0  # jitter spreads over the whole window
    assert all(3.0 <= policy.delay(0, 3.0, rng) <= 3.3 for _ in range(50))
    assert retry_after_seconds({"Retry-After": "2.5"}) == 2.5
    assert retry_after_seconds({"retry-after-ms": "1500", "Retry-After": "9"}) == 1.5
    assert retry_after_seconds({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0) == 10.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None and retry_after_seconds({}) is None


def test_closing_the_generator_early_stops_sending():
    with MockOpenAIServer(latency=0.05) as server:
        backend = OpenAIBackend(MODEL, PAPER, base_url=server.base_url, concurrency=2, **FAST)
        batches = backend.generate(requests(40))
        next(batches)
        batches.close()  # e.g. the runner raised while caching: the background requests must stop with it
        sent = len(server.requests)
        time.sleep(0.3)
        assert len(server.requests) == sent < 10
