"""API throughput and resume: ``python benchmarks/api_throughput.py [--n 1800] [--latency 0.2]``.

1. A loopback OpenAI-compatible mock server (own process) answers every request after a fixed latency.
   1,800 requests go out one after another (a plain synchronous ``openai.OpenAI`` loop, how the paper's
   baselines were run) and then through ``backend=openai`` at concurrency 8, 32 and 64.
2. ``evaluate.py backend=openai`` on all 1,800 MSU-Bench questions is killed with SIGKILL half-way and run
   again; the rerun must ask exactly the questions whose answers were not cached.

The last line is ``speedup_c32=<sequential time / time at concurrency 32>``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROMPT = "Consider the score titled 'Prelude in C major' by J. S. Bach. " * 12  # ~0.7 kB, like an MSU prompt


def _serve(latency: float, conn) -> None:
    """Child process: run the mock server; answer "count" with the requests seen, stop on "stop"."""
    from scoreqa.testing.openai_mock import MockOpenAIServer

    with MockOpenAIServer(latency=latency) as server:
        conn.send(server.base_url)
        while (command := conn.recv()) != "stop":
            conn.send(len(server.requests) if command == "count" else None)


class ServerProcess:
    def __init__(self, latency: float) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(latency, child), daemon=True)

    def __enter__(self) -> "ServerProcess":
        self._process.start()
        self.base_url = self._conn.recv()
        return self

    def count(self) -> int:
        self._conn.send("count")
        return self._conn.recv()

    def __exit__(self, *exc) -> None:
        self._conn.send("stop")
        self._process.join(10)


def chat_requests(n: int):
    from scoreqa.backends.base import ChatRequest

    return [ChatRequest(f"q{i}", ({"role": "system", "content": "Answer the question about the score."},
                                  {"role": "user", "content": f"{PROMPT}\nQuestion {i}: who composed it?"}),
                        (f"q{i}",)) for i in range(n)]


def sequential_seconds(base_url: str, requests) -> float:
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key="mock", max_retries=0)
    began = time.perf_counter()
    for request in requests:
        reply = client.chat.completions.create(model="mock", messages=list(request.messages), temperature=0.95)
        assert reply.choices[0].message.content.endswith("who composed it?")
    return time.perf_counter() - began


def backend_seconds(base_url: str, requests, concurrency: int) -> float:
    from scoreqa.backends.openai_api import OpenAIBackend

    backend = OpenAIBackend({"name": "mock", "name_or_path": "mock"}, {"do_sample": True}, base_url=base_url,
                            concurrency=concurrency)
    began = time.perf_counter()
    got = {c.key: c for batch in backend.generate(requests) for c in batch}
    seconds = time.perf_counter() - began
    assert len(got) == len(requests) and not any(c.error for c in got.values()), "lost or failed requests"
    return seconds


def cached_answers(predictions: Path) -> int:
    """Complete, successful rows in the cache (a row torn by the kill does not count)."""
    keys = set()
    for line in predictions.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not row.get("error"):
            keys.add(row["key"])
    return len(keys)


def kill_and_rerun(latency: float, data_root: Path) -> tuple[int, int, int]:
    """(cached at the kill, requests the rerun made, questions) for evaluate.py killed half-way."""
    with ServerProcess(latency) as server, tempfile.TemporaryDirectory() as run_dir:
        command = [sys.executable, "evaluate.py", "data=msu", "data.split=all", "modality=title", "backend=openai",
                   "model=deepseek-v3", f"backend.base_url={server.base_url}", "logger=none", "bootstrap_resamples=200",
                   f"paths.data_root={data_root}", f"hydra.run.dir={run_dir}"]
        env = {**os.environ, "DEEPSEEK_API_KEY": "mock-key", "WANDB_MODE": "disabled"}
        predictions = Path(run_dir) / "predictions.jsonl"
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while process.poll() is None and not (predictions.exists() and
                                              predictions.read_bytes().count(b"\n") >= 900):
            time.sleep(0.01)
        if process.poll() is not None:
            raise RuntimeError("evaluate.py ended before it could be killed half-way")
        process.send_signal(signal.SIGKILL)
        process.wait()
        cached = cached_answers(predictions)
        before = server.count()
        subprocess.run(command, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rerun = server.count() - before
        metrics = json.loads((Path(run_dir) / "metrics.json").read_text())
        assert metrics["n_new_generations"] == rerun, metrics["inference"]
        return cached, rerun, metrics["n_questions"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1800, help="requests per measurement")
    parser.add_argument("--latency", type=float, default=0.2, help="server latency per request (s)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32, 64])
    parser.add_argument("--data-root", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--skip-kill", action="store_true", help="only the throughput measurement")
    args = parser.parse_args()

    requests = chat_requests(args.n)
    with ServerProcess(args.latency) as server:
        sequential = sequential_seconds(server.base_url, requests)
        print(f"sequential: {args.n} requests in {sequential:.1f} s ({args.n / sequential:.1f} req/s)", flush=True)
        speedups = {}
        for concurrency in args.concurrency:
            seconds = backend_seconds(server.base_url, requests, concurrency)
            speedups[concurrency] = sequential / seconds
            print(f"backend=openai concurrency {concurrency}: {seconds:.1f} s ({args.n / seconds:.1f} req/s), "
                  f"speedup {speedups[concurrency]:.1f}x (ideal {concurrency}x)", flush=True)
    if not args.skip_kill:
        cached, rerun, total = kill_and_rerun(args.latency, args.data_root)
        print(f"kill -9 half-way: {cached}/{total} answers cached; rerun made {rerun} requests "
              f"(missing {total - cached}: {'only the missing ones' if rerun == total - cached else 'MISMATCH'})")
    print(f"speedup_c32={speedups.get(32, float('nan')):.2f}")


if __name__ == "__main__":
    main()
