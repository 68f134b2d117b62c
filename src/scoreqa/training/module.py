"""The LightningModule: a Hugging Face causal LM (or Qwen2.5-VL) wrapped with PEFT LoRA.

The model is built in ``configure_model`` so that, under DeepSpeed ZeRO-3, transformers creates and
loads it partitioned. Checkpoints keep only the trainable (LoRA) weights; the final adapter is
written in PEFT format, which ``evaluate.py model.adapter=...`` loads.
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
from scoreqa.training.schedule import cosine_with_warmup


class LoRAFineTuner(LightningModule):
    def __init__(self, model: Mapping[str, Any], lora: Mapping[str, Any], optim: Mapping[str, Any],
                 adapt_vision: bool, gradient_checkpointing: bool = False) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.spec = ModelSpec.from_config(model)
        self.lora_settings, self.optim_settings = dict(lora), dict(optim)
        self.adapt_vision, self.gradient_checkpointing = adapt_vision, gradient_checkpointing
        self.model: torch.nn.Module | None = None
        self.strict_loading = False  # checkpoints hold the adapter only; the base comes from name_or_path
        self._deepspeed_config_ref: Any = None

    def _zero_stage_3(self) -> bool:
        return bool(self._trainer is not None and getattr(self.trainer.strategy, "zero_stage_3", False))

    def configure_model(self) -> None:
        if self.model is not None:
            return
        from peft import PeftModel, get_peft_model
        from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

        if self._zero_stage_3():
            from transformers.integrations import HfDeepSpeedConfig

            # transformers creates and loads the weights partitioned while this object is alive
            self._deepspeed_config_ref = HfDeepSpeedConfig(self.trainer.strategy.config)
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
            model = get_peft_model(base, lora_config(self.lora_settings, self.adapt_vision))
        check_targets(model, self.lora_settings.get("vision_tower", "visual"), self.adapt_vision)
        self.model = model.train()  # from_pretrained returns eval mode; LoRA dropout must be active while fitting

    def forward(self, batch: Mapping[str, torch.Tensor]) -> Any:
        return self.model(**batch, use_cache=False)

    def training_step(self, batch: Mapping[str, torch.Tensor], batch_idx: int) -> dict[str, torch.Tensor]:
        loss = self(batch).loss
        size = len(batch["input_ids"])
        self.log("train/loss", loss, on_step=True, on_epoch=True, prog_bar=True, batch_size=size)
        self.log("train/lr", self.optimizers().param_groups[0]["lr"], on_step=True, batch_size=size)
        return {"loss": loss, "raw_loss": loss.detach()}  # Lightning divides "loss" by the accumulation

    def validation_step(self, batch: Mapping[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        loss = self(batch).loss
        self.log("val/loss", loss, on_epoch=True, prog_bar=True, sync_dist=True, batch_size=len(batch["input_ids"]))
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

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        """Drop the frozen base weights (DeepSpeed checkpoints exclude them through the strategy)."""
        if "state_dict" in checkpoint:
            keep = self.trainable_state_keys()
            checkpoint["state_dict"] = {k: v for k, v in checkpoint["state_dict"].items() if k in keep}

    def save_adapter(self, out_dir: Path, info: Mapping[str, Any]) -> None:
        """Write the adapter in PEFT format, atomically (a crash keeps the previous one).

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
