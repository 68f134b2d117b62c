"""``python train.py model=tiny-qwen3 trainer.max_steps=5 hydra.run.dir=DIR``: a loadable adapter, the eval command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from scoreqa.models.loading import load_model
from scoreqa.models.spec import ModelSpec

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]


def test_train_py_leaves_a_loadable_adapter_and_prints_how_to_evaluate_it(compose, tiny_qwen3, data_root, tmp_path):
    run_dir = tmp_path / "run"
    env = {**os.environ, "SCOREQA_DATA_ROOT": str(data_root)}
    done = subprocess.run([sys.executable, "train.py", "model=tiny-qwen3", "trainer.max_steps=5",
                           f"hydra.run.dir={run_dir}"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    adapter = run_dir / "adapter"
    assert (adapter / "adapter_config.json").exists() and (adapter / "adapter_model.safetensors").exists()
    summary = json.loads((run_dir / "train_summary.json").read_text())
    assert summary["global_step"] == 5
    assignment = json.loads((run_dir / "split.json").read_text())  # the benchmark's 6:2:2 split, written whole
    for split in ("train", "val"):
        left_out = [d for d in summary["dropped_too_long_scores"] + summary["skipped_missing_input_scores"]
                    if d["split"] == split]
        assert summary[f"n_{split}_scores"] + len(left_out) == len(assignment[split]) > 0
    # the exported adapter is the lowest-val/loss one when validation ran, else the last step
    expected = summary["best_val_step"] if summary["validated"] else summary["global_step"]
    assert summary["adapter_selected_by"] == ("lowest val/loss" if summary["validated"] else
                                              "last step (no validation ran)")
    assert json.loads((adapter / "training_state.json").read_text())["global_step"] == expected
    assert (run_dir / "loss_curve.png").stat().st_size > 0 and (run_dir / "split.json").exists()
    history = json.loads((run_dir / "loss_history.json").read_text())
    assert [step for step, _ in history["train"]] == [1, 2, 3, 4, 5]
    command = f"model.adapter={adapter.resolve()}"
    assert any(command in line and line.strip().startswith("python evaluate.py") for line in done.stdout.splitlines())

    cfg = compose("evaluate", [f"paths.data_root={data_root}", "model=tiny-qwen3"])
    base = load_model(ModelSpec.from_config(cfg.model), torch.device("cpu"))
    adapted = load_model(ModelSpec.from_config({**cfg.model, "adapter": str(adapter)}), torch.device("cpu"))
    saved = json.loads((adapter / "adapter_config.json").read_text())
    assert saved["r"] == 8 and saved["lora_alpha"] == 16
    assert not any("lora_" in name for name, _ in adapted.named_parameters())  # merged for generation
    inputs = torch.randint(10, 2000, (1, 16))
    with torch.no_grad():
        assert not torch.equal(base(input_ids=inputs).logits, adapted(input_ids=inputs).logits)
