"""DeepSpeed: every conf/trainer config passes DeepSpeed's own validator; ZeRO-2/3 train and save on the CPU stand-in."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import torch
from hydra.utils import instantiate
from lightning.pytorch import Trainer
from lightning.pytorch.strategies import DeepSpeedStrategy
from safetensors.torch import load_file

from scoreqa.models.loading import load_model
from scoreqa.models.spec import ModelSpec
from scoreqa.training.entry import train

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]
STAND_IN = "scoreqa.testing.deepspeed_cpu.CPUDeepSpeedStrategyForTests"


def _deepspeed_trainer_configs(compose) -> dict[str, object]:
    found = {}
    for path in sorted((REPO / "conf" / "trainer").glob("*.yaml")):
        cfg = compose("train", [f"trainer={path.stem}", "schedule=paper"])
        strategy = cfg.trainer.strategy
        if not isinstance(strategy, str) and "DeepSpeed" in strategy._target_:
            found[path.stem] = cfg
    return found


def test_every_deepspeed_trainer_config_passes_deepspeeds_validator(compose):
    from deepspeed.runtime.config import DeepSpeedConfig
    from lightning.fabric.strategies.deepspeed import _format_precision_config

    configs = _deepspeed_trainer_configs(compose)
    assert set(configs) == {"deepspeed_zero2", "deepspeed_zero3"}
    for name, cfg in configs.items():
        strategy = instantiate(cfg.trainer.strategy, _convert_="partial")
        assert isinstance(strategy, DeepSpeedStrategy) and type(strategy.config) is dict
        assert strategy.exclude_frozen_parameters
        # a Trainer accepts it (Lightning only refuses it later, when a CPU run starts)
        Trainer(**{k: v for k, v in instantiate(cfg.trainer, _convert_="partial", _partial_=True).keywords.items()
                   if k not in ("accelerator", "devices")}, accelerator="cpu", devices=1, logger=False)
        # what Lightning adds before deepspeed.initialize (DeepSpeedStrategy._format_config)
        final = copy.deepcopy(strategy.config)
        final.update(gradient_accumulation_steps=cfg.trainer.accumulate_grad_batches,
                     train_micro_batch_size_per_gpu=cfg.training.batch_size,
                     gradient_clipping=cfg.trainer.gradient_clip_val)
        _format_precision_config(final, cfg.trainer.precision, 0, 1000, 1, 16, 2)
        parsed = DeepSpeedConfig(final)
        assert parsed.zero_optimization_stage == {"deepspeed_zero2": 2, "deepspeed_zero3": 3}[name]
        assert parsed.bfloat16_config.enabled and parsed.gradient_accumulation_steps == 16
        assert parsed.train_micro_batch_size_per_gpu == 1 and parsed.gradient_clipping == 1.0
    # the validator is strict: a misspelt ZeRO key is an error, not silently ignored
    broken = copy.deepcopy(instantiate(configs["deepspeed_zero2"].trainer.strategy, _convert_="partial").config)
    broken["zero_optimization"]["overlap_com"] = True
    with pytest.raises(Exception, match="overlap_com"):
        DeepSpeedConfig({**broken, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1})


@pytest.fixture(scope="module")
def zero_runs(compose, data_root, tiny_qwen3, tmp_path_factory):
    """ZeRO-2 and ZeRO-3 fits through train.py's own path, on the test-only CPU stand-in strategy."""
    runs = {}
    for stage in (2, 3):
        run_dir = tmp_path_factory.mktemp(f"zero{stage}")
        cfg = compose("train", _stand_in(data_root, stage, "trainer.max_steps=3"))
        runs[stage] = (cfg, train(cfg, run_dir), run_dir)
    return runs


def _stand_in(data_root, stage: int, *extra: str) -> list[str]:
    return [f"paths.data_root={data_root}", "data=msu", "modality=title", "model=tiny-qwen3", "schedule=paper",
            "logger=none",
            f"trainer=deepspeed_zero{stage}", f"trainer.strategy._target_={STAND_IN}", "trainer.accelerator=cpu",
            "trainer.devices=1", "trainer.precision=32-true", "trainer.accumulate_grad_batches=2",
            "trainer.num_sanity_val_steps=0", "data.limit=1", "optim.lr=1e-3", "optim.warmup_ratio=0",
            "lora.dropout=0", *extra]


@pytest.mark.parametrize("stage", [2, 3])
def test_cpu_stand_in_runs_zero_steps_and_saves_adapter_only(zero_runs, stage):
    cfg, summary, run_dir = zero_runs[stage]
    assert summary["global_step"] == 3
    checkpoint = run_dir / "checkpoints" / "last.ckpt"
    assert checkpoint.is_dir()  # a DeepSpeed checkpoint folder
    (states_file,) = (checkpoint / "checkpoint").glob("*mp_rank_00_model_states.pt")  # ZeRO-3 adds zero_pp_rank_0_
    states = torch.load(states_file, map_location="cpu", weights_only=False)
    assert states["module"] and all("lora_" in key for key in states["module"])
    assert states["global_steps"] == 3
    adapter = run_dir / "adapter"
    weights = load_file(adapter / "adapter_model.safetensors")
    assert all(v.numel() > 0 for v in weights.values())
    assert any(k.endswith("lora_B.weight") and v.abs().sum() > 0 for k, v in weights.items())  # it trained
    assert json.loads((adapter / "adapter_config.json").read_text())["r"] == 8
    model = load_model(ModelSpec.from_config({**cfg.model, "adapter": str(adapter)}), torch.device("cpu"))
    base = load_model(ModelSpec.from_config(cfg.model), torch.device("cpu"))
    inputs = torch.randint(10, 2000, (1, 16))
    with torch.no_grad():  # the merged adapter changes the model
        assert not torch.equal(base(input_ids=inputs).logits, model(input_ids=inputs).logits)


def test_zero3_trains_the_same_adapter_as_zero2(zero_runs):
    """Same seed, data and initial adapter: ZeRO-3 (model built partitioned by transformers, weights loaded
    into the partitions) must train what ZeRO-2 trains. A randomly initialised base would not."""
    zero2 = load_file(zero_runs[2][2] / "adapter" / "adapter_model.safetensors")
    zero3 = load_file(zero_runs[3][2] / "adapter" / "adapter_model.safetensors")
    assert zero2.keys() == zero3.keys()
    for key in zero2:
        torch.testing.assert_close(zero3[key], zero2[key], rtol=1e-4, atol=1e-6)


def test_zero2_run_resumes_from_its_adapter_only_deepspeed_checkpoint(compose, data_root, zero_runs, tmp_path):
    """Resuming loads DeepSpeed's checkpoint (LoRA weights, optimizer state, its step counter) without base weights."""
    import shutil

    _, _, first = zero_runs[2]
    shutil.copytree(first, tmp_path / "run")
    resumed = train(compose("train", _stand_in(data_root, 2, "trainer.max_steps=5")), tmp_path / "run")
    assert resumed["global_step"] == 5
    history = json.loads((tmp_path / "run" / "loss_history.json").read_text())
    assert [step for step, _ in history["train"]] == [1, 2, 3, 4, 5]
    (states_file,) = (tmp_path / "run" / "checkpoints" / "last.ckpt" / "checkpoint").glob("*model_states.pt")
    states = torch.load(states_file, map_location="cpu", weights_only=False)
    assert states["global_steps"] == 5  # DeepSpeed's own counter went on from 3: its state was restored
