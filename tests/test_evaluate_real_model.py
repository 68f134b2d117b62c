"""``python evaluate.py`` as a user runs it, on the real SmolLM2 with the default W&B logger (offline): real
English answers, no failure, no too-long prompt; and a window too small for the score is caught before sending."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SMALL = ["data.build_limit=5", "data.limit=1"]  # a 5-piece corpus, its one test score


def _evaluate(run_dir: Path, cache_dir: Path, smollm2: Path, *overrides: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SCOREQA_CACHE_DIR": str(cache_dir), "WANDB_MODE": "offline", "WANDB_DIR": str(run_dir)}
    return subprocess.run([sys.executable, "evaluate.py", f"hydra.run.dir={run_dir}", *SMALL, *overrides],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)


@pytest.mark.slow
def test_default_run_on_smollm2_is_complete_and_real(tmp_path, cache_dir, smollm2):
    done = _evaluate(tmp_path, cache_dir, smollm2)
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    counters = metrics  # the counters are top-level keys of metrics.json
    assert metrics["complete"] is True
    assert counters["n_too_long"] == 0 and counters["n_generation_failures"] == 0
    assert counters["n_questions"] >= 3
    config = (tmp_path / "config.yaml").read_text()
    assert "name: smollm2-135m" in config and "RuleJudge" in config
    answers = [json.loads(line)["text"] for line in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert all(sum(ch.isalpha() for ch in a) >= 3 for a in answers)  # words, not noise
    assert "What the numbers mean: SmolLM2 has 135M parameters" in done.stdout
    assert list((tmp_path / "wandb").glob("offline-run-*")), "no offline W&B run"


def test_a_score_over_the_window_stops_before_any_request(tmp_path, cache_dir, smollm2):
    done = _evaluate(tmp_path, cache_dir, smollm2, "model.context_window=600", "logger=none")
    assert done.returncode == 2
    assert "prompt tokens + 512 new tokens > context window 600" in done.stderr
    assert "score " in done.stderr and "nothing was sent" in done.stderr
    assert not (tmp_path / "predictions.jsonl").exists() or not (tmp_path / "predictions.jsonl").read_text()


def test_skip_records_too_long_questions_and_the_run_is_incomplete(tmp_path, cache_dir, smollm2):
    done = _evaluate(tmp_path, cache_dir, smollm2, "model.context_window=600", "data.too_long=skip",
                     "logger=none")
    assert done.returncode == 3, done.stderr[-2000:]
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    counters = metrics  # the counters are top-level keys of metrics.json
    assert metrics["complete"] is False
    assert counters["n_too_long"] == counters["n_questions"] - counters["n_unreferenced"] > 0
    assert counters["n_new_generations"] == 0
