"""The embedded default learns: ``python train.py`` (SmolLM2, corpus as ABC, CPU, schedule=smollm2_cpu) and then
``python evaluate.py model.adapter=…`` beats ``python evaluate.py`` on the default test split, in the same
judge and decoding, both evaluations with the default W&B logger in offline mode.

The base run is also the check that the default ``evaluate.py`` on the real model is complete and real. It runs
beside the training (one thread each, the defaults, on two cores), which changes nothing but the wall time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _start(script: str, run_dir: Path, cache: Path, *overrides: str) -> subprocess.Popen:
    env = {**os.environ, "SCOREQA_CACHE_DIR": str(cache), "WANDB_MODE": "offline", "WANDB_DIR": str(run_dir)}
    run_dir.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([sys.executable, script, f"hydra.run.dir={run_dir}", *overrides], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _finish(process: subprocess.Popen) -> subprocess.CompletedProcess:
    stdout, stderr = process.communicate(timeout=3600)
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    assert done.returncode == 0, f"{' '.join(map(str, process.args[1:3]))}: {stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def default_runs(tmp_path_factory, cache_dir, smollm2):
    """Default train.py, then the default evaluate.py without and with its adapter, in a fresh cache (the
    default 20-score corpus, never a smaller build of another test) sharing the session's SmolLM2 export."""
    root = tmp_path_factory.mktemp("default_learns")
    cache = root / "cache"
    cache.mkdir()
    (cache / "models").symlink_to(smollm2.parent, target_is_directory=True)
    from scoreqa.corpus.build import build_corpus

    build_corpus(cache / "corpus", limit=20, seed=0, progress=False, max_abc_chars=8000)  # data=corpus's default
    training, base = _start("train.py", root / "train", cache), _start("evaluate.py", root / "base", cache)
    _finish(training)
    lora = _finish(_start("evaluate.py", root / "lora", cache, f"model.adapter={root / 'train' / 'adapter'}"))
    return root, _finish(base), lora


@pytest.mark.slow
def test_default_adapter_beats_the_base_model_on_the_default_test_split(default_runs):
    root, _, _ = default_runs
    summary = json.loads((root / "train" / "train_summary.json").read_text())
    assert summary["packed_questions"] is True and summary["validated"] is True
    metrics = {name: json.loads((root / name / "metrics.json").read_text()) for name in ("base", "lora")}
    for name, m in metrics.items():
        assert m["complete"] is True, name
        assert m["n_generation_failures"] == 0 and m["n_too_long"] == 0, name
    assert metrics["base"]["n_questions"] == metrics["lora"]["n_questions"] >= 25
    configs = {name: (root / name / "config.yaml").read_text() for name in ("base", "lora")}
    assert configs["base"].replace("adapter: null", "") == configs["lora"].replace(
        f"adapter: {root / 'train' / 'adapter'}", "")  # same data, prompt, judge and decoding
    base, lora = (metrics[name]["accuracy"]["overall"] for name in ("base", "lora"))
    print(f"default test split: base {base:.1f}% -> adapter {lora:.1f}%")
    assert lora > base


@pytest.mark.slow
def test_the_default_run_on_smollm2_is_real_and_logged_offline(default_runs):
    root, base, _ = default_runs
    config = (root / "base" / "config.yaml").read_text()
    assert "name: smollm2-135m" in config and "RuleJudge" in config
    answers = [json.loads(line)["text"] for line in (root / "base" / "predictions.jsonl").read_text().splitlines()]
    assert all(sum(ch.isalpha() for ch in a) >= 3 for a in answers)  # words, not noise
    assert "What the numbers mean: SmolLM2 has 135M parameters" in base.stdout
    for name in ("base", "lora"):
        assert list((root / name / "wandb").glob("offline-run-*")), f"{name}: no offline W&B run"
