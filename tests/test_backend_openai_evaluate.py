"""``evaluate(backend=openai, model=<API baseline>)`` on MSU-Bench against the mock: prompts, report, resume, keys."""

from __future__ import annotations

import json

import pytest
from hydra.utils import instantiate

from scoreqa.evaluation.entry import evaluate
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder
from scoreqa.testing.openai_mock import MockOpenAIServer, Reply, echo_last_user_message

BASELINES = ["gpt-5", "gpt-5-mini", "claude-opus-4", "claude-sonnet-4", "gemini-2.5-pro", "gemini-2.5-flash",
             "grok-4", "deepseek-v3", "qwen3-max"]
SECRET = "sk-scoreqa-test-do-not-log-4242"


@pytest.mark.parametrize("name", BASELINES)
def test_every_baseline_config_names_an_https_endpoint_and_a_key_variable(compose, name):
    cfg = compose("evaluate", ["backend=openai", f"model={name}"])
    api = cfg.model.api
    assert api.base_url.startswith("https://") and api.key_env.endswith("_API_KEY")
    assert cfg.model.kind in ("causal_lm", "vision_language") and cfg.model.name == name


def test_api_run_reports_inference_and_resumes_without_new_requests(compose, data_root, tmp_path, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)
    answered: list[dict] = []

    def script(body: dict, n: int) -> Reply:  # every 5th of the first 30 requests gets a 500 (then a retry)
        if n % 5 == 4 and n < 30:
            return Reply.error(500)
        answered.append(body)
        return echo_last_user_message(body, n)

    with MockOpenAIServer(script) as server:
        overrides = ["data=msu", "modality=title", "backend=openai", "model=deepseek-v3", "logger=none",
                     f"backend.base_url={server.base_url}", "data.limit=2", f"paths.data_root={data_root}",
                     "bootstrap_resamples=200", "backend.backoff_base=0.01", "backend.concurrency=8"]
        metrics = evaluate(compose("evaluate", overrides), tmp_path)
        first_requests = list(server.requests)
        again = evaluate(compose("evaluate", overrides), tmp_path)
    assert metrics["n_questions"] == 24 and metrics["n_new_generations"] == 24
    inference = metrics["inference"]
    assert inference["requests"] == 24 and inference["failed_requests"] == 0
    assert inference["attempts"] == len(first_requests) == 24 + inference["retries"] and inference["retries"] == 5
    # the mock reports sum(len(json(content))) // 4 prompt tokens: the report sums what the server said it used
    assert inference["input_tokens"] == sum(sum(len(json.dumps(m["content"])) for m in body["messages"]) // 4
                                            for body in answered)
    assert inference["output_tokens"] == sum(len(b["messages"][-1]["content"]) // 4 for b in answered)
    assert inference["wall_seconds"] > 0 and inference["invocation_seconds"] >= inference["wall_seconds"]
    assert again["n_new_generations"] == 0 and len(server.requests) == len(first_requests)
    assert again["inference"]["requests"] == 0

    cfg = compose("evaluate", overrides)
    split = instantiate(cfg.data, _convert_="all").load(needs=("title",))
    builder = PromptBuilder(dict(cfg.data.templates), ModalitySpec.from_config(cfg.modality), "single")
    sent = sorted(json.dumps(b["messages"], sort_keys=True) for b in first_requests)
    built = {json.dumps([dict(m) for m in r.messages], sort_keys=True) for r in builder.requests(split)}
    assert set(sent) == built  # the exact prompts of the shared prompt builder, some sent twice (retries)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"API key leaked into {path}"
    assert "DEEPSEEK_API_KEY" in (tmp_path / "config.yaml").read_text()  # the variable's name is recorded
