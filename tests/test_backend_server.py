"""The real SmolLM2 behind a real vLLM OpenAI-compatible server (vllm-cpu, run by .ci/vllm_cpu.sh): greedy answers
are identical through ``hf``, in-process ``vllm`` and the server; paper sampling works on the server; a too-long
prompt is caught by the server's own count before it is sent; ``evaluate.py backend=local_server`` runs with the
default W&B logger (offline)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("vllm", reason="vLLM is tested in its own venv: bash .ci/vllm_cpu.sh")
os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")

from hydra.utils import instantiate  # noqa: E402

from scoreqa.backends.base import ChatRequest  # noqa: E402
from scoreqa.backends.hf import HFBackend  # noqa: E402
from scoreqa.backends.openai_api import OpenAIBackend  # noqa: E402
from scoreqa.backends.vllm import VLLMBackend  # noqa: E402
from scoreqa.prompts.builder import ModalitySpec, PromptBuilder  # noqa: E402
from scoreqa.serve.command import server_command  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GREEDY = {"do_sample": False, "max_new_tokens": 48, "seed": 0}
PAPER = {"do_sample": True, "temperature": 0.95, "top_p": 0.7, "top_k": 50, "max_new_tokens": 24, "seed": 0}
LOCAL = {"api_key_env": "", "params": ["temperature", "top_p", "top_k", "max_tokens"], "concurrency": 8}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(smollm2_config, tmp_path_factory):
    """``python -m scoreqa.serve``'s command for SmolLM2 on a free loopback port; stopped after the module."""
    port = _free_port()
    command = server_command(smollm2_config, "127.0.0.1", port, seed=0, max_model_len=8192)
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the vLLM server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            urllib.request.urlopen(f"{url}/models", timeout=5)
            break
        except OSError:
            time.sleep(3)
    else:
        process.kill()
        pytest.fail(f"the vLLM server did not answer within 15 min:\n{log.read_text()[-3000:]}")
    yield url
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def msu_requests(compose, data_root: Path):
    """The first test score's 12 MSU-Bench questions, title only, one per request (the paper's prompts)."""
    cfg = compose("evaluate", ["data=msu", "modality=title", "data.limit=1", f"paths.data_root={data_root}"])
    benchmark = instantiate(cfg.data, _convert_="all")
    split = benchmark.load(needs=("title",))
    return PromptBuilder(benchmark.templates, ModalitySpec.from_config(cfg.modality), "single").requests(split)


def _answers(backend, requests) -> dict[str, str]:
    return {c.key: c.text for batch in backend.generate(requests) for c in batch}


def test_greedy_answers_are_identical_through_hf_vllm_and_the_server(server, smollm2_config, msu_requests):
    hf = _answers(HFBackend(smollm2_config, GREEDY, device="cpu"), msu_requests)
    previous = os.environ.get("VLLM_ENABLE_V1_MULTIPROCESSING")
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    try:
        in_process = VLLMBackend(smollm2_config, GREEDY, enforce_eager=True,
                                 engine_kwargs={"max_model_len": 8192, "max_num_seqs": 16})
        vllm_answers = _answers(in_process, msu_requests)
        del in_process._llm
    finally:
        if previous is None:
            os.environ.pop("VLLM_ENABLE_V1_MULTIPROCESSING")
        else:
            os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = previous
    served = _answers(OpenAIBackend(smollm2_config, GREEDY, base_url=server, **LOCAL), msu_requests)
    assert len(hf) == 12 and all(hf.values())
    assert vllm_answers == hf
    assert served == hf


def test_paper_sampling_through_the_server(server, smollm2_config, msu_requests):
    backend = OpenAIBackend(smollm2_config, PAPER, base_url=server, **LOCAL)
    assert "seed" not in backend.request_fields()  # vllm-cpu: the engine seed only
    completions = [c for batch in backend.generate(msu_requests) for c in batch]
    assert all(c.error is None and c.text for c in completions)
    assert len({c.text for c in completions}) > 6


def test_the_server_counts_tokens_and_a_too_long_prompt_is_never_sent(server, smollm2_config):
    backend = OpenAIBackend(smollm2_config, GREEDY, base_url=server, **LOCAL)
    short = ChatRequest("short", ({"role": "user", "content": "Hello"},), ("q0",))
    long = ChatRequest("long", ({"role": "user", "content": "C D E F " * 3000},), ("q1",))
    fits = {f.key: f for f in backend.fits([short, long])}
    local = {f.key: f for f in HFBackend(smollm2_config, GREEDY, device="cpu").fits([short, long])}
    assert fits["short"].prompt_tokens == local["short"].prompt_tokens and fits["short"].fits
    assert fits["long"].window == 8192 and not fits["long"].fits and fits["long"].completion().too_long


def test_evaluate_py_against_the_server_with_offline_wandb(server, data_root, cache_dir, tmp_path):
    overrides = ["model=smollm2-135m", "data=msu", "modality=title", "data.limit=1", "backend=local_server",
                 f"backend.base_url={server}", "sampling=greedy", "sampling.max_new_tokens=48",
                 f"paths.data_root={data_root}", f"hydra.run.dir={tmp_path}", "bootstrap_resamples=200"]
    env = {**os.environ, "SCOREQA_CACHE_DIR": str(cache_dir), "WANDB_MODE": "offline",
           "WANDB_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "evaluate.py", *overrides], cwd=REPO, capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["n_new_generations"] == 12
    assert list((tmp_path / "wandb").glob("offline-run-*")), "no offline W&B run was written"


def test_a_three_judge_ensemble_against_the_server(server, compose, smollm2_config):
    """``judge=llm_ensemble_local`` pointed at the SmolLM2 server: the paper's H.3 prompt, temperature 0, one
    token, majority vote. SmolLM2 is a weak judge; what is asserted is the path: every call reaches the server and
    every verdict is a vote or an honest "undecided" (an answer other than 0/1), never a transport failure."""
    from hydra.utils import instantiate

    from scoreqa.judge.base import JudgeItem

    path = smollm2_config["name_or_path"]
    overrides = ["judge=llm_ensemble_local"] + [f"judge.judges.{j}.model.{k}={v}" for j in "abc"
                                                for k, v in (("base_url", server), ("model", path))]
    cfg = compose("evaluate", overrides)
    ensemble = instantiate(cfg.judge, _convert_="all")
    items = [JudgeItem("q1", "Key?", "G minor", "G minor"), JudgeItem("q2", "Meter?", "3/4", "The meter is 4/4."),
             JudgeItem("q3", "Tempo?", "Allegro", "Allegro"), JudgeItem("q4", "Clef?", "Bass clef", "Treble")]
    verdicts = ensemble.judge(items)
    assert len(verdicts) == 4 and all(v.decided_by.startswith("llm_ensemble") for v in verdicts)
    reasons = [f["reason"] for judge in ensemble.judges.values() for f in judge.failures]
    assert not [r for r in reasons if "malformed output" not in r], reasons
