"""Load a model exactly as a cluster user would: hub id or local path, dtype, optional LoRA adapter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from scoreqa.models.spec import ModelSpec
from scoreqa.models.tiny import build_tiny_model

_DTYPES = {"float32": torch.float32, "fp32": torch.float32, "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
           "float16": torch.float16, "fp16": torch.float16}


def resolve_device(device: str = "auto") -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def resolve_dtype(name: str, device: torch.device) -> torch.dtype:
    """``auto`` is bfloat16 on a GPU and float32 on a CPU."""
    if name == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32
    if name not in _DTYPES:
        raise ValueError(f"model.dtype must be auto or one of {sorted(_DTYPES)}; got {name!r}")
    return _DTYPES[name]


def ensure_available(spec: ModelSpec) -> str:
    """Build a tiny model or export a packaged GGUF on first use; hub ids and existing folders pass through."""
    if spec.build:
        build_tiny_model(spec.build, Path(spec.name_or_path))
    elif spec.gguf:
        from scoreqa.models.gguf_export import GGUFSource, export_gguf

        export_gguf(GGUFSource.from_config(spec.gguf), Path(spec.name_or_path))
    return spec.name_or_path


def load_text_processor(spec: ModelSpec) -> Any:
    """The tokenizer (text models) or processor (vision-language models), padding on the left for generation."""
    from transformers import AutoProcessor, AutoTokenizer

    path = ensure_available(spec)
    if spec.kind == "vision_language":
        kwargs = {"max_pixels": spec.max_pixels} if spec.max_pixels else {}
        processor = AutoProcessor.from_pretrained(path, trust_remote_code=spec.trust_remote_code, **kwargs)
        processor.tokenizer.padding_side = "left"
        return processor
    return AutoTokenizer.from_pretrained(path, padding_side="left", trust_remote_code=spec.trust_remote_code)


def load_model(spec: ModelSpec, device: torch.device) -> torch.nn.Module:
    """The base model with the LoRA adapter applied when ``spec.adapter`` is set, in eval mode."""
    from transformers import AutoModelForCausalLM, AutoModelForImageTextToText

    path = ensure_available(spec)
    model_class = AutoModelForImageTextToText if spec.kind == "vision_language" else AutoModelForCausalLM
    model = model_class.from_pretrained(path, dtype=resolve_dtype(spec.dtype, device),
                                        trust_remote_code=spec.trust_remote_code)
    if spec.adapter:
        from peft import PeftModel

        adapter = Path(spec.adapter)
        if not (adapter / "adapter_config.json").exists() and adapter.exists():
            raise FileNotFoundError(f"model.adapter={adapter} has no adapter_config.json: pass the folder "
                                    "train.py wrote as <run dir>/adapter")
        # merged into the base weights: generation then costs what the base model costs (an unmerged LoRA adds
        # two small matmuls to every adapted projection at every step)
        model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    return model.to(device).eval()
