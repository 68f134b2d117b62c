"""``python evaluate.py`` end to end on the tiny model: outputs, resume, cache isolation, kill -9, W&B, secrets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MSU_TITLE = ["data=msu", "modality=title", "model=tiny-qwen3"]  # the real question table, no score files needed
METRIC_KEYS = {"accuracy", "accuracy_ci95", "lsr", "lsr_ci95", "remaining_scores", "n_questions", "n_scores",
               "n_parse_failures", "n_undecided", "n_new_generations", "run_key", "judged_by", "inference"}


def evaluate(run_dir: Path, *overrides: str, env: dict | None = None) -> dict:
    subprocess.run([sys.executable, "evaluate.py", f"hydra.run.dir={run_dir}", *MSU_TITLE, *overrides], cwd=REPO,
                   check=True,
                   capture_output=True, text=True, env={**os.environ, **(env or {})})
    return json.loads((run_dir / "metrics.json").read_text())


@pytest.fixture(scope="module")
def first_run(tmp_path_factory, cache_dir, tiny_qwen3):
    run_dir = tmp_path_factory.mktemp("run")
    return run_dir, evaluate(run_dir, "data.limit=2", "logger=none")


def test_run_writes_metrics_config_and_split(first_run):
    run_dir, metrics = first_run
    assert METRIC_KEYS <= set(metrics)
    assert set(metrics["accuracy"]) == {"overall", "level_1", "level_2", "level_3", "level_4"}
    assert set(metrics["lsr"]) == {"level_1", "level_2", "level_3", "level_4"}
    assert metrics["n_scores"] == 2 and metrics["n_questions"] == 24
    assert metrics["n_new_generations"] == 24 == metrics["inference"]["requests"]
    assert metrics["n_judged"] + metrics["n_unreferenced"] == 24
    assert (run_dir / "config.yaml").exists()
    split = json.loads((run_dir / "split.json").read_text())
    assert [len(split[k]) for k in ("train", "val", "test")] == [90, 30, 30]
    rows = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 24 and {r["run_key"] for r in rows} == {metrics["run_key"]}


def test_rerun_makes_no_model_call_and_reports_the_same_metrics(first_run):
    run_dir, metrics = first_run
    again = evaluate(run_dir, "data.limit=2", "logger=none")
    assert again["n_new_generations"] == 0
    assert again["inference"].get("requests", 0) == 0
    strip = lambda m: {k: v for k, v in m.items() if k not in ("n_new_generations", "inference")}  # noqa: E731
    assert strip(again) == strip(metrics)


def test_other_settings_never_reuse_cached_rows(first_run):
    run_dir, metrics = first_run
    greedy = evaluate(run_dir, "data.limit=2", "logger=none", "sampling=greedy", "sampling.max_new_tokens=8")
    assert greedy["run_key"] != metrics["run_key"]
    assert greedy["n_new_generations"] == 24
    batched = evaluate(run_dir, "data.limit=2", "logger=none", "prompt=batched", "sampling.max_new_tokens=8")
    assert batched["n_new_generations"] == 2  # one request per score
    assert batched["n_parse_failures"] + batched["n_judged"] >= 24 - batched["n_unreferenced"]


def test_kill_9_loses_at_most_the_batch_in_flight(tmp_path, cache_dir, tiny_qwen3):
    overrides = [*MSU_TITLE, "data.limit=10", "logger=none", "backend.batch_size=2", "sampling=greedy",
                 "sampling.max_new_tokens=48", f"hydra.run.dir={tmp_path}"]
    process = subprocess.Popen([sys.executable, "evaluate.py", *overrides], cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    predictions = tmp_path / "predictions.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if predictions.exists() and predictions.read_text().count("\n") >= 4:
            break
        time.sleep(0.02)
    assert process.poll() is None, "the run finished before it could be killed; make it longer"
    process.send_signal(signal.SIGKILL)
    process.wait()
    kept = {json.loads(line)["key"] for line in predictions.read_text().splitlines() if line.endswith("}")}
    assert 4 <= len(kept) < 120
    subprocess.run([sys.executable, "evaluate.py", *overrides], cwd=REPO, check=True, capture_output=True)
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["n_new_generations"] == 120 - len(kept)
    assert metrics["n_questions"] == 120


def test_wandb_offline_logs_the_predictions_table_and_no_secret(tmp_path, cache_dir, tiny_qwen3):
    secret = "sk-scoreqa-test-0123456789"
    evaluate(tmp_path, "data.limit=1", "logger=wandb", "+secrets.openai_api_key=${oc.env:SCOREQA_TEST_SECRET}",
             env={"WANDB_MODE": "offline", "SCOREQA_TEST_SECRET": secret})
    run = next((tmp_path / "wandb").glob("offline-run-*"))
    table = json.loads(next((run / "files" / "media" / "table").glob("predictions_*.table.json")).read_text())
    assert len(table["data"]) == 12 and "reference" in table["columns"]
    assert next((run / "files" / "media" / "table").glob("lsr_curve_table_*.table.json"))
    for path in [*tmp_path.rglob("*.yaml"), *run.rglob("*.wandb"), *tmp_path.rglob("*.log")]:
        assert secret.encode() not in path.read_bytes(), f"secret leaked into {path}"
    assert "<redacted>" in (tmp_path / "config.yaml").read_text()
