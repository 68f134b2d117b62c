"""``python evaluate.py`` on the real SmolLM2: a window too small for the score is caught before sending, or
recorded as too long and the run marked incomplete. (The default run itself, with the default W&B logger in
offline mode: tests/test_train_default_learns.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
SMALL = ["data.build_limit=5", "data.limit=1"]  # a 5-piece corpus, its one test score


def _evaluate(run_dir: Path, cache_dir: Path, smollm2: Path, *overrides: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SCOREQA_CACHE_DIR": str(cache_dir), "WANDB_MODE": "offline", "WANDB_DIR": str(run_dir)}
    return subprocess.run([sys.executable, "evaluate.py", f"hydra.run.dir={run_dir}", *SMALL, *overrides],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)


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
