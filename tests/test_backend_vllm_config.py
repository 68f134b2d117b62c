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
