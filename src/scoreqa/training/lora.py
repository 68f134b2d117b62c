"""Which modules get LoRA: the language model always, the vision tower only when the pages are an input.

Qwen2.5-VL names its vision MLPs like the language model's (``gate_proj``…), so the targets are a
regular expression over full module names, split by whether a name lies under the vision tower.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

import torch


def target_pattern(language_modules: Sequence[str], vision_modules: Sequence[str], vision_tower: str,
                   adapt_vision: bool) -> str:
    """A regex PEFT full-matches against module names (``model.language_model.layers.0.self_attn.q_proj``)."""
    tower = re.escape(vision_tower)
    language = rf"(?!.*\b{tower}\b).*\.(?:{'|'.join(map(re.escape, language_modules))})"
    if not adapt_vision:
        return language
    vision = rf".*\b{tower}\.blocks\.\d+\..*\.(?:{'|'.join(map(re.escape, vision_modules))})"
    return f"(?:{language})|(?:{vision})"


def lora_config(config: Mapping[str, Any], adapt_vision: bool):
    """A ``peft.LoraConfig`` from ``conf/lora/*.yaml``."""
    from peft import LoraConfig

    pattern = target_pattern(config["language_modules"], config.get("vision_modules") or (),
                             config.get("vision_tower", "visual"), adapt_vision)
    return LoraConfig(r=int(config["r"]), lora_alpha=int(config["alpha"]), lora_dropout=float(config["dropout"]),
                      bias=config.get("bias", "none"), target_modules=pattern, task_type="CAUSAL_LM")


def adapted_modules(model: torch.nn.Module) -> list[str]:
    """Names of the modules that carry a LoRA adapter."""
    return [name for name, module in model.named_modules() if hasattr(module, "lora_A") and len(module.lora_A)]


def check_targets(model: torch.nn.Module, vision_tower: str, adapt_vision: bool) -> None:
    """Fail loudly when the targets matched nothing, or missed (or hit) the vision tower against the setting."""
    names = adapted_modules(model)
    in_tower = [n for n in names if re.search(rf"\b{re.escape(vision_tower)}\b", n)]
    if len(names) == len(in_tower):
        raise ValueError("LoRA matched no language-model module: check lora.language_modules against the "
                         "model's module names")
    has_tower = any(re.search(rf"\b{re.escape(vision_tower)}\b", n) for n, _ in model.named_modules())
    if adapt_vision and has_tower and not in_tower:
        raise ValueError(f"lora.adapt_vision is on but no module under '{vision_tower}' matched "
                         "lora.vision_modules: check them against the model's vision tower")
    if not adapt_vision and in_tower:
        raise AssertionError(f"vision modules adapted although the vision tower should stay frozen: {in_tower[:3]}")
