"""Adapters in evaluation: a saved adapter reloads to identical logits, and ``model.adapter`` changes evaluate.py's answers."""

from __future__ import annotations

import json

import pytest
import torch
from lightning.pytorch import Trainer

from scoreqa.evaluation.entry import evaluate
from scoreqa.models.loading import load_model, load_text_processor
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.builder import ModalitySpec
from scoreqa.training.datamodule import ScoreQADataModule, prepare_training_data
from scoreqa.training.encoding import ExampleEncoder
from scoreqa.training.entry import train
from scoreqa.training.module import LoRAFineTuner

pytestmark = pytest.mark.slow
MSU_TITLE = ["data=msu", "modality=title", "model=tiny-qwen3"]  # explicit: the defaults may move to another benchmark
PAPER = "schedule=paper"  # training: one example per step


def test_saved_and_reloaded_adapter_gives_identical_logits(compose, data_root, tiny_qwen3, tmp_path):
    cfg = compose("train", [f"paths.data_root={data_root}", *MSU_TITLE, PAPER, "data.limit=1", "optim.lr=1e-2",
                            "optim.warmup_ratio=0"])
    spec = ModelSpec.from_config(cfg.model)
    encoder = ExampleEncoder(load_text_processor(spec), spec.chat_kwargs(), vision=False)
    data = prepare_training_data(cfg.data, ModalitySpec.from_config(cfg.modality), "single", encoder, None)
    module = LoRAFineTuner(model=dict(cfg.model), lora=dict(cfg.lora), optim=dict(cfg.optim), adapt_vision=False)
    trainer = Trainer(accelerator="cpu", max_steps=4, limit_val_batches=0, logger=False, enable_checkpointing=False,
                      enable_progress_bar=False)
    trainer.fit(module, datamodule=ScoreQADataModule(data, encoder))
    module.save_adapter(tmp_path / "adapter", {"global_step": trainer.global_step})

    reloaded = load_model(ModelSpec.from_config({**cfg.model, "adapter": str(tmp_path / "adapter")}),
                          torch.device("cpu"))  # merged into the base weights for generation
    base_model = load_model(ModelSpec.from_config(cfg.model), torch.device("cpu"))
    inputs = encoder.encode(data.examples["val"][0])["input_ids"][None]
    with torch.no_grad():
        trained = module.model.eval()(input_ids=inputs).logits
        again = reloaded(input_ids=inputs).logits
        base = base_model(input_ids=inputs).logits
    torch.testing.assert_close(again, trained, rtol=1e-5, atol=1e-5)  # merging only reorders float sums
    assert (trained - base).abs().max() > 1e-3


def test_model_adapter_changes_what_evaluate_py_answers(compose, data_root, tiny_qwen3, tmp_path):
    """An adapter overfit on one training score: the same evaluation with and without it answers differently."""
    train(compose("train", [f"paths.data_root={data_root}", *MSU_TITLE, PAPER, "data.limit=1", "logger=none",
                            "optim.lr=1e-2",
                            "trainer.accumulate_grad_batches=1", "trainer.max_steps=36"]), tmp_path / "train")
    adapter = tmp_path / "train" / "adapter"
    common = [f"paths.data_root={data_root}", *MSU_TITLE, "data.split=train", "data.limit=1", "sampling=greedy",
              "sampling.max_new_tokens=6", "logger=none"]
    base = evaluate(compose("evaluate", common), tmp_path / "base")
    tuned = evaluate(compose("evaluate", [*common, f"model.adapter={adapter}"]), tmp_path / "tuned")
    assert base["run_key"] != tuned["run_key"] and base["n_new_generations"] == tuned["n_new_generations"] == 12

    def answers(run):
        return {r["question_id"]: r["raw_output"] for r in map(json.loads, (run / "records.jsonl").open())}

    before, after = answers(tmp_path / "base"), answers(tmp_path / "tuned")
    assert before.keys() == after.keys() and len(before) == 12
    assert sum(before[q] != after[q] for q in before) >= 6
