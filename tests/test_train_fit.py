"""Fitting: LR schedule per optimizer step, accumulation, overfitting, LoRA dropout, adapter-only checkpoints, resume."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from lightning.pytorch import Callback, Trainer

from scoreqa.models.loading import load_model, load_text_processor
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.builder import ModalitySpec
from scoreqa.training.datamodule import ScoreQADataModule, prepare_training_data
from scoreqa.training.encoding import ExampleEncoder
from scoreqa.training.entry import train
from scoreqa.training.module import LoRAFineTuner

pytestmark = pytest.mark.slow
MSU_TITLE = ["data=msu", "modality=title", "model=tiny-qwen3", "schedule=paper"]  # explicit: the defaults may move
# to another benchmark; the paper schedule trains one example per step


def _train(compose, data_root, run_dir, overrides):
    cfg = compose("train", [f"paths.data_root={data_root}", *MSU_TITLE, "logger=none", *overrides])
    return cfg, train(cfg, run_dir)


def _history(run_dir: Path) -> dict:
    return json.loads((run_dir / "loss_history.json").read_text())


def test_lr_follows_warmup_then_cosine_and_accumulation_sets_the_step_count(compose, data_root, tiny_qwen3,
                                                                             tmp_path):
    _, summary = _train(compose, data_root, tmp_path, ["data.limit=2", "trainer.accumulate_grad_batches=4",
                                                       "trainer.max_epochs=2", "optim.lr=1e-3",
                                                       "optim.warmup_ratio=0.2"])
    n_train = summary["n_train_examples"]
    total = 2 * math.ceil(n_train / 4)  # Lightning steps on an epoch's last, partial window too
    assert n_train == 22 and summary["global_step"] == total == 12
    history = _history(tmp_path)
    assert [step for step, _ in history["lr"]] == list(range(1, total + 1))
    warmup = math.ceil(0.2 * total)
    expected = [1e-3 * (k / warmup if k < warmup else 0.5 * (1 + math.cos(math.pi * (k - warmup) / (total - warmup))))
                for k in range(total)]
    assert [lr for _, lr in history["lr"]] == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert (tmp_path / "loss_curve.png").stat().st_size > 0


@pytest.fixture(scope="module")
def overfit(compose, data_root, tiny_qwen3, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("overfit")
    cfg, summary = _train(compose, data_root, run_dir, ["data.limit=1", "trainer.accumulate_grad_batches=1",
                                                        "trainer.max_steps=48", "optim.lr=1e-2"])
    return cfg, summary, run_dir


def test_small_overfit_run_lowers_the_loss(overfit):
    _, summary, run_dir = overfit
    losses = [loss for _, loss in _history(run_dir)["train"]]
    epoch = summary["n_train_examples"]  # batch 1, no accumulation: one optimizer step per example
    assert len(losses) == 48 == summary["global_step"] and epoch == 12
    first, last = sum(losses[:epoch]) / epoch, sum(losses[-epoch:]) / epoch
    assert last < first - 1.5, (first, last)  # nats per answer token, first epoch vs fourth


def test_checkpoints_hold_the_adapter_only_and_match_the_exported_adapter(overfit):
    cfg, summary, run_dir = overfit
    checkpoint = torch.load(run_dir / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=False)
    keys = list(checkpoint["state_dict"])
    assert keys and all(".lora_A." in k or ".lora_B." in k for k in keys)
    best = [p for p in (run_dir / "checkpoints").glob("best-*.ckpt")]
    assert len(best) == 1
    state = json.loads((run_dir / "adapter" / "training_state.json").read_text())
    assert state["global_step"] == summary["best_val_step"] and state["val/loss"] == summary["best_val_loss"]
    # the best checkpoint's weights, loaded into a fresh module, equal the exported PEFT adapter
    module = LoRAFineTuner(model=dict(cfg.model), lora=dict(cfg.lora), optim=dict(cfg.optim), adapt_vision=False)
    module.build_model()
    module.load_state_dict(torch.load(best[0], map_location="cpu", weights_only=False)["state_dict"], strict=False)
    spec = ModelSpec.from_config({**cfg.model, "adapter": str(run_dir / "adapter")})
    exported = load_model(spec, torch.device("cpu"))
    inputs = torch.randint(10, 2000, (1, 24))
    with torch.no_grad():
        # the exported adapter is merged into the base weights for generation: equal up to float summation order
        torch.testing.assert_close(exported(input_ids=inputs).logits, module.model.eval()(input_ids=inputs).logits,
                                   rtol=1e-5, atol=1e-5)


class _DropoutProbe(Callback):
    """Records what the first LoRA dropout module does to its input during fit and during validation."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, bool, torch.Tensor, torch.Tensor]] = []

    def on_fit_start(self, trainer, pl_module) -> None:
        dropout = next(m for n, m in pl_module.model.named_modules() if n.endswith("lora_dropout.default"))
        dropout.register_forward_hook(lambda module, args, out: self.seen.append(
            ("train" if trainer.training else "val", module.training, args[0].detach(), out.detach())))


def test_lora_dropout_is_active_during_fit_and_off_in_validation(compose, data_root, tiny_qwen3):
    cfg = compose("train", [f"paths.data_root={data_root}", *MSU_TITLE, "data.limit=1"])
    spec = ModelSpec.from_config(cfg.model)
    encoder = ExampleEncoder(load_text_processor(spec), spec.chat_kwargs(), vision=False)
    data = prepare_training_data(cfg.data, ModalitySpec.from_config(cfg.modality), "single", encoder, None)
    module = LoRAFineTuner(model=dict(cfg.model), lora={**cfg.lora, "dropout": 0.5}, optim=dict(cfg.optim),
                           adapt_vision=False)
    probe = _DropoutProbe()
    trainer = Trainer(accelerator="cpu", max_steps=3, limit_val_batches=1, val_check_interval=3, logger=False,
                      enable_checkpointing=False, enable_progress_bar=False, callbacks=[probe])
    trainer.fit(module, datamodule=ScoreQADataModule(data, encoder))
    train_calls = [(training, x, y) for phase, training, x, y in probe.seen if phase == "train"]
    val_calls = [(training, x, y) for phase, training, x, y in probe.seen if phase == "val"]
    assert train_calls and val_calls
    for training, x, y in train_calls:
        kept = y != 0
        assert training and 0.3 < 1 - kept.float().mean() < 0.7  # p = 0.5 zeroes about half
        assert torch.allclose(y[kept], 2 * x[kept])  # survivors scaled by 1 / (1 - p)
    assert all(not training and torch.equal(x, y) for training, x, y in val_calls)


def test_resume_continues_from_last_checkpoint_and_the_same_wandb_run(compose, data_root, tiny_qwen3, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    common = [f"paths.data_root={data_root}", *MSU_TITLE, "data.limit=1", "trainer.accumulate_grad_batches=1", "logger=wandb"]
    first = train(compose("train", [*common, "trainer.max_steps=3"]), tmp_path)
    run_id = (tmp_path / "wandb_run_id").read_text()
    assert first["global_step"] == 3 and (tmp_path / "checkpoints" / "last.ckpt").exists()
    second = train(compose("train", [*common, "trainer.max_steps=6"]), tmp_path)
    assert second["global_step"] == 6
    assert (tmp_path / "wandb_run_id").read_text() == run_id
    runs = sorted((tmp_path / "wandb").glob("offline-run-*"))
    assert len(runs) == 2 and all(r.name.endswith(f"-{run_id}") for r in runs)
    assert [step for step, _ in _history(tmp_path)["train"]] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(FileExistsError, match="resume=auto"):
        train(compose("train", [*common, "trainer.max_steps=7", "resume=false"]), tmp_path)
