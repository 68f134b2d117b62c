"""What ``python train.py`` does with its composed config."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Sequence

import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from scoreqa.config import redact
from scoreqa.data.split import write_split
from scoreqa.models.loading import load_text_processor
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.builder import ModalitySpec
from scoreqa.training.callbacks import AdapterExport, LossCurve
from scoreqa.training.datamodule import ScoreQADataModule, prepare_training_data
from scoreqa.training.encoding import ExampleEncoder
from scoreqa.training.host_memory import pin_mmap_threshold
from scoreqa.training.module import LoRAFineTuner
from scoreqa.training.wandb_resume import training_logger

log = logging.getLogger(__name__)
MONITOR = "val/loss"
# overrides of these groups describe what was trained on, so the evaluation command repeats them
_EVALUATION_GROUPS = ("model", "data", "modality", "prompt", "paths")


def resume_checkpoint(resume: Any, run_dir: Path) -> str | None:
    """``auto``: the run dir's ``last.ckpt`` if there is one; ``false``: a fresh start; else a checkpoint path."""
    last = Path(run_dir) / "checkpoints" / "last.ckpt"
    if resume in (False, None, "false", "never"):
        if last.exists():
            raise FileExistsError(f"{run_dir} already holds checkpoints of a run; pass resume=auto to continue it, "
                                  "or hydra.run.dir=<new folder> to start another")
        return None
    if resume == "auto":
        return str(last) if last.exists() else None
    if not Path(resume).exists():
        raise FileNotFoundError(f"resume={resume}: no such checkpoint")
    return str(resume)


def adapt_vision_tower(setting: Any, modality: ModalitySpec, spec: ModelSpec) -> bool:
    """``auto``: adapt the vision tower exactly when page images are an input (the paper's pdf / pdf_abc)."""
    if spec.kind != "vision_language":
        return False
    return "pages" in modality.inputs if setting == "auto" else bool(setting)


def use_gradient_checkpointing(setting: Any, longest_tokens: int, min_tokens: int) -> bool:
    """``auto``: on when the longest example reaches ``min_tokens``, where activations outweigh the recompute."""
    if setting == "auto":
        return longest_tokens >= int(min_tokens)
    return bool(setting)


def use_packing(setting: Any, spec: ModelSpec, mode: str) -> bool:
    """``auto``: pack a score's questions (``training/packing.py``) for text models in single-question mode,
    the one layout where a score's examples share their prompt up to the question."""
    possible = spec.kind != "vision_language" and mode == "single"
    if setting == "auto":
        return possible
    if setting and not possible:
        raise ValueError(f"training.pack_questions=true needs a text model and prompt=single (got model={spec.name}, "
                         f"prompt mode {mode}): set training.pack_questions=auto or false")
    return bool(setting)


def evaluation_overrides(choices: dict[str, str], overrides: Sequence[str]) -> list[str]:
    """The group choices and value overrides that say what was trained, for ``evaluate.py``."""
    picked = [f"{group}={choices[group]}" for group in ("data", "model", "modality", "prompt") if group in choices]
    for item in overrides:
        key = item.lstrip("+~").split("=", 1)[0]
        if "." in key and key.split(".")[0] in _EVALUATION_GROUPS and key not in ("data.split", "model.adapter"):
            picked.append(item)
    return picked


def evaluation_commands(run_dir: Path, overrides: Sequence[str]) -> list[str]:
    """Commands that evaluate the adapter on the test split, and MMLU before and after."""
    args = " ".join(overrides)
    adapter = Path(run_dir).resolve() / "adapter"
    eval_dir = Path(run_dir).resolve() / "eval"
    model_args = " ".join(o for o in overrides if o.startswith(("model", "paths")))
    return [
        f"python evaluate.py {args} data.split=test model.adapter={adapter} hydra.run.dir={eval_dir}/test",
        f"python evaluate.py data=mmlu {model_args} hydra.run.dir={eval_dir}/mmlu-base",
        f"python evaluate.py data=mmlu {model_args} model.adapter={adapter} data.base_run={eval_dir}/mmlu-base "
        f"hydra.run.dir={eval_dir}/mmlu-adapter",
    ]


def build_trainer(cfg: DictConfig, run_dir: Path, has_val: bool, callbacks: list, logger: Any):
    """``cfg.trainer`` as a Lightning Trainer, with adapter-only checkpoints in ``<run dir>/checkpoints``."""
    from lightning.pytorch.callbacks import ModelCheckpoint

    settings = OmegaConf.to_container(cfg.checkpoint, resolve=True)
    if not has_val:
        settings.update(save_top_k=0)  # nothing to rank by: keep last.ckpt only
    # resume=auto looks for last.ckpt: always overwrite it, never write last-v1.ckpt beside it
    checkpoint = ModelCheckpoint(dirpath=run_dir / "checkpoints", monitor=MONITOR if has_val else None, mode="min",
                                 save_last=True, enable_version_counter=False, **settings)
    extra = [instantiate(c, _convert_="partial") for c in (cfg.get("callbacks") or {}).values() if c]
    return instantiate(cfg.trainer, callbacks=[checkpoint, *callbacks, *extra], logger=logger or False,
                       default_root_dir=str(run_dir), _convert_="partial",
                       **({} if has_val else {"limit_val_batches": 0}))


def train(cfg: DictConfig, run_dir: Path, overrides: Sequence[str] | None = None) -> dict[str, Any]:
    """Fine-tune ``cfg.model`` with LoRA on the train split of ``cfg.data``; writes ``<run dir>/adapter``.

    ``overrides`` (from the command line) go into the printed evaluation command.
    """
    import lightning.pytorch as pl
    from lightning.fabric.utilities.rank_zero import rank_zero_only

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_path = resume_checkpoint(cfg.resume, run_dir)  # first: a refused fresh start must not touch the folder
    plain = redact(OmegaConf.to_container(cfg, resolve=True))
    if rank_zero_only.rank == 0:
        (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(plain)))
    pl.seed_everything(int(cfg.seed), workers=True)
    pin_mmap_threshold()  # freed activations leave resident memory (training/host_memory.py)
    if cfg.training.torch_threads:
        torch.set_num_threads(int(cfg.training.torch_threads))
    if torch.cuda.is_available() and cfg.trainer.get("accelerator") == "cpu":
        log.warning("GPUs are available but trainer=cpu trains on the CPU: pass trainer=deepspeed_zero2 "
                    "(the GPU default), trainer=gpu or trainer=bf16")

    spec = ModelSpec.from_config(cfg.model)
    modality = ModalitySpec.from_config(cfg.modality)
    vision = spec.kind == "vision_language"
    if "pages" in modality.inputs and not vision:
        raise ValueError(f"modality={modality.name} shows page images, which model={spec.name} (a text model) cannot "
                         "read: use a vision-language model such as model=qwen2.5-vl-3b")
    encoder = ExampleEncoder(load_text_processor(spec), spec.chat_kwargs(), vision, cfg.training.end_of_turn)
    data = prepare_training_data(cfg.data, modality, cfg.prompt.mode, encoder, cfg.training.max_tokens)
    if data.all_score_ids is not None and rank_zero_only.rank == 0:
        write_split(run_dir / "split.json", data.all_score_ids, cfg.data.split_seed)
    packed = use_packing(cfg.training.pack_questions, spec, cfg.prompt.mode)
    datamodule = ScoreQADataModule(data, encoder, cfg.training.batch_size, cfg.training.num_workers,
                                   seed=int(cfg.seed), pack=packed)
    checkpointing = use_gradient_checkpointing(cfg.training.gradient_checkpointing, data.longest_example_tokens,
                                               cfg.training.gradient_checkpointing_min_tokens)
    module = LoRAFineTuner(model=OmegaConf.to_container(cfg.model, resolve=True),
                           lora=OmegaConf.to_container(cfg.lora, resolve=True),
                           optim=OmegaConf.to_container(cfg.optim, resolve=True),
                           adapt_vision=adapt_vision_tower(cfg.lora.adapt_vision, modality, spec),
                           gradient_checkpointing=checkpointing, seed=int(cfg.seed), packed=packed)

    has_val = bool(data.examples["val"])
    export, history = AdapterExport(run_dir / "adapter", MONITOR), LossCurve(run_dir, MONITOR)
    logger = training_logger(cfg.logger, run_dir, resuming=ckpt_path is not None, config=plain)
    trainer = build_trainer(cfg, run_dir, has_val, [export, history], logger)
    if ckpt_path:
        log.info("resuming from %s", ckpt_path)
    try:
        trainer.fit(module, datamodule=datamodule, ckpt_path=ckpt_path)
    finally:  # leave the process clean for the next run in it (a sweep, a test): own W&B run, no ZeRO-3 flag
        module.release_zero3()
        if logger is not None and trainer.is_global_zero:
            logger.experiment.finish()

    commands = evaluation_commands(run_dir, overrides if overrides is not None else [
        f"model={spec.name}", f"data={cfg.data.name}", f"modality={modality.name}", f"prompt={cfg.prompt.name}"])
    summary = {
        **data.summary(),
        "global_step": trainer.global_step,
        "current_epoch": trainer.current_epoch,
        "best_val_loss": export.best,
        "best_val_step": export.best_step,
        "validated": export.best is not None,
        "adapter_selected_by": "lowest val/loss" if export.best is not None else "last step (no validation ran)",
        "gradient_checkpointing": checkpointing,
        "packed_questions": packed,
        "first_train_loss": history.train[0][1] if history.train else None,
        "last_train_loss": history.train[-1][1] if history.train else None,
        "adapter": str(run_dir / "adapter"),
        "evaluate_commands": commands,
    }
    if trainer.is_global_zero:
        (run_dir / "train_summary.json").write_text(json.dumps(summary, indent=1))
        print(f"\nadapter: {run_dir / 'adapter'}\nloss curve: {run_dir / 'loss_curve.png'}\n"
              f"train loss {summary['first_train_loss']} -> {summary['last_train_loss']} (first and last optimizer "
              f"step), best val loss {summary['best_val_loss']}\n\nEvaluate the adapter:\n  " + "\n  ".join(commands))
    return summary
