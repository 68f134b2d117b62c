"""The LightningModule: a Hugging Face causal LM (or Qwen2.5-VL) wrapped with PEFT LoRA.

Under DeepSpeed ZeRO-3, transformers creates and loads the base model partitioned. Checkpoints keep
only the trainable (LoRA) weights; the final adapter is written in PEFT format, which
``evaluate.py model.adapter=...`` loads.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path
from typing import Any, Mapping

import torch
from lightning.pytorch import LightningModule

from scoreqa.models.loading import ensure_available, resolve_dtype
from scoreqa.models.spec import ModelSpec
from scoreqa.training.lora import check_targets, lora_config
from scoreqa.training.loss import answer_loss
from scoreqa.training.packing import n_packed_questions, packed_answer_loss
from scoreqa.training.schedule import cosine_with_warmup


class LoRAFineTuner(LightningModule):
    def __init__(self, model: Mapping[str, Any], lora: Mapping[str, Any], optim: Mapping[str, Any],
                 adapt_vision: bool, gradient_checkpointing: bool = False, seed: int = 0,
                 packed: bool = False) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.spec = ModelSpec.from_config(model)
        self.lora_settings, self.optim_settings = dict(lora), dict(optim)
        self.adapt_vision, self.gradient_checkpointing, self.seed = adapt_vision, gradient_checkpointing, seed
        self.loss_function = packed_answer_loss if packed else answer_loss
        self.packed = packed
        self.model: torch.nn.Module | None = None
        self.strict_loading = False  # checkpoints hold the adapter only; the base comes from name_or_path
        self._deepspeed_config_ref: Any = None

    def _zero_stage_3(self) -> bool:
        return bool(self._trainer is not None and getattr(self.trainer.strategy, "zero_stage_3", False))

    def setup(self, stage: str) -> None:
        self.build_model()

    def build_model(self) -> None:
        """Base model + LoRA, once. Built in ``setup``, outside Lightning's ZeRO-3 ``zero.Init`` context: there,
        transformers partitions the base itself (loading real weights), and PEFT then creates and initialises
        the adapter as ordinary tensors (inside ``zero.Init``, PEFT's zero init of ``lora_B`` would be lost)."""
        if self.model is not None:
            return
        from peft import PeftModel, get_peft_model
        from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

        if self._zero_stage_3():
            from transformers.integrations import HfDeepSpeedConfig

            # transformers creates and loads the weights partitioned while this object is alive; Lightning fills
            # in the batch size later, and transformers only reads the ZeRO section
            config = {"train_micro_batch_size_per_gpu": 1, **self.trainer.strategy.config}
            self._deepspeed_config_ref = HfDeepSpeedConfig(config)
        device = self.trainer.strategy.root_device if self._trainer is not None else torch.device("cpu")
        model_class = AutoModelForImageTextToText if self.spec.kind == "vision_language" else AutoModelForCausalLM
        base = model_class.from_pretrained(ensure_available(self.spec), dtype=resolve_dtype(self.spec.dtype, device),
                                           trust_remote_code=self.spec.trust_remote_code)
        if self.gradient_checkpointing:
            base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            base.enable_input_require_grads()
        if self.spec.adapter:  # continue training an adapter
            model = PeftModel.from_pretrained(base, self.spec.adapter, is_trainable=True)
        else:
            # seeded here: the initial adapter must not depend on how much randomness building the base used
            # (ZeRO-3 builds it partitioned and draws differently)
            torch.manual_seed(self.seed)
            model = get_peft_model(base, lora_config(self.lora_settings, self.adapt_vision))
        check_targets(model, self.lora_settings.get("vision_tower", "visual"), self.adapt_vision)
        self.model = model.train()  # from_pretrained returns eval mode; LoRA dropout must be active while fitting

    def teardown(self, stage: str) -> None:
        self.release_zero3()

    def release_zero3(self) -> None:
        """Tell transformers ZeRO-3 is over: its flag is process-wide, and the next model this process loads
        (an evaluation, the next run of a sweep) must load whole. Also called after a failed fit."""
        if self._deepspeed_config_ref is not None:
            from transformers.integrations.deepspeed import unset_hf_deepspeed_config

            unset_hf_deepspeed_config()
            self._deepspeed_config_ref = None

    def forward(self, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """The answer-token loss, the LM head run on the answer positions only (``training/loss.py``), per
        question of a packed score when packing (``training/packing.py``)."""
        return self.loss_function(self.model, batch)

    def questions_in(self, batch: Mapping[str, torch.Tensor]) -> int:
        return n_packed_questions(batch) if self.packed else len(batch["input_ids"])

    def training_step(self, batch: Mapping[str, torch.Tensor], batch_idx: int) -> dict[str, torch.Tensor]:
        loss = self(batch)
        size = self.questions_in(batch)
        self.log("train/loss", loss, on_step=True, on_epoch=True, prog_bar=True, batch_size=size)
        self.log("train/lr", self.optimizers().param_groups[0]["lr"], on_step=True, batch_size=size)
        return {"loss": loss, "raw_loss": loss.detach()}  # Lightning divides "loss" by the accumulation

    def validation_step(self, batch: Mapping[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        loss = self(batch)
        self.log("val/loss", loss, on_epoch=True, prog_bar=True, sync_dist=True, batch_size=self.questions_in(batch))
        return loss

    def configure_optimizers(self) -> dict[str, Any]:
        settings = self.optim_settings
        parameters = [p for p in self.model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(parameters, lr=float(settings["lr"]), betas=tuple(settings["betas"]),
                                      eps=float(settings["eps"]), weight_decay=float(settings["weight_decay"]))
        total = self.trainer.estimated_stepping_batches
        if total == float("inf"):
            raise ValueError("set trainer.max_epochs or trainer.max_steps: the cosine schedule needs a length")
        scheduler = cosine_with_warmup(optimizer, int(total), float(settings["warmup_ratio"]))
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step", "frequency": 1}}

    def trainable_state_keys(self) -> set[str]:
        return {name for name, parameter in self.named_parameters() if parameter.requires_grad}

    def state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The trainable (LoRA) weights only: what every checkpoint keeps, Lightning's and DeepSpeed's alike
        (DeepSpeed's own ``exclude_frozen_parameters`` misses tied aliases such as ``lm_head.weight``)."""
        full = super().state_dict(*args, **kwargs)
        prefix = kwargs.get("prefix", "")
        keep = {prefix + name for name in self.trainable_state_keys()}
        for key in [k for k in full if k not in keep]:
            del full[key]
        return full

    def save_adapter(self, out_dir: Path, info: Mapping[str, Any]) -> None:
        """Write the adapter in PEFT format to ``<out_dir>.saving``, then swap it in: a crash never leaves a
        half-written ``out_dir``.

        Every rank must call this: under ZeRO-3 the LoRA weights are gathered from all of them.
        """
        out_dir = Path(out_dir)
        gather: contextlib.AbstractContextManager = contextlib.nullcontext()
        if self._zero_stage_3():
            import deepspeed

            gather = deepspeed.zero.GatheredParameters([p for p in self.model.parameters() if p.requires_grad])
        with gather:
            if self.trainer.is_global_zero:
                staging = out_dir.with_name(out_dir.name + ".saving")
                shutil.rmtree(staging, ignore_errors=True)
                self.model.save_pretrained(str(staging))
                (staging / "training_state.json").write_text(json.dumps(dict(info), indent=1))
                shutil.rmtree(out_dir, ignore_errors=True)
                staging.rename(out_dir)
        self.trainer.strategy.barrier("save_adapter")
