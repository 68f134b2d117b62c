"""transformers generation: batched with left padding, CPU or GPU, text or vision-language models."""

from __future__ import annotations

import time
from typing import Any, Iterator, Mapping, Sequence

import torch

from scoreqa.backends.base import Backend, ChatRequest, Completion, SamplingSpec
from scoreqa.backends.seeding import batch_seed
from scoreqa.models.loading import load_model, load_text_processor, resolve_device
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.chat import render_chat


class HFBackend(Backend):
    """Loads the model on the first request, so a fully cached run never loads weights."""

    name = "hf"

    def __init__(self, model: Mapping[str, Any], sampling: Mapping[str, Any], batch_size: int = 8,
                 device: str = "auto") -> None:
        self.spec = ModelSpec.from_config(model)
        self.sampling = SamplingSpec.from_config(sampling)
        self.batch_size = int(batch_size)
        self.device = resolve_device(device)
        self._model: torch.nn.Module | None = None
        self._processor: Any = None
        self._usage = {"requests": 0, "input_tokens": 0, "output_tokens": 0, "seconds": 0.0}

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, **self.spec.identity(), "sampling": self.sampling.as_dict()}

    def usage(self) -> dict[str, Any]:
        return dict(self._usage)

    @property
    def tokenizer(self) -> Any:
        return getattr(self._processor, "tokenizer", self._processor)

    def _ensure_loaded(self) -> None:
        if self._model is None:
            self._processor = load_text_processor(self.spec)
            self._model = load_model(self.spec, self.device)

    def prompt_text(self, request: ChatRequest) -> str:
        """The exact string the model is conditioned on (training builds the same one)."""
        self._ensure_loaded()
        return render_chat(self._processor, request.messages, self.spec.chat_kwargs())

    def _encode(self, batch: Sequence[ChatRequest]) -> dict[str, torch.Tensor]:
        texts = [self.prompt_text(r) for r in batch]
        if self.spec.kind == "vision_language":
            from PIL import Image

            images = [Image.open(p).convert("RGB") for r in batch for p in r.images]
            encoded = self._processor(text=texts, images=images or None, padding=True, return_tensors="pt")
        else:
            encoded = self._processor(texts, padding=True, return_tensors="pt", add_special_tokens=False)
        return {k: v.to(self.device) for k, v in encoded.items()}

    def _decode_kwargs(self) -> dict[str, Any]:
        s = self.sampling
        kwargs: dict[str, Any] = {"max_new_tokens": s.max_new_tokens, "do_sample": s.do_sample,
                                  "pad_token_id": self.tokenizer.pad_token_id}
        if s.do_sample:
            kwargs.update(temperature=s.temperature, top_p=s.top_p, top_k=s.top_k)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        return kwargs

    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        if not requests:
            return
        self._ensure_loaded()
        for start in range(0, len(requests), self.batch_size):
            batch = list(requests[start:start + self.batch_size])
            began = time.perf_counter()
            inputs = self._encode(batch)
            torch.manual_seed(batch_seed(self.sampling.seed, [r.key for r in batch]))
            with torch.inference_mode():
                output = self._model.generate(**inputs, **self._decode_kwargs())
            new_tokens = output[:, inputs["input_ids"].shape[1]:]
            texts = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
            seconds = (time.perf_counter() - began) / len(batch)
            completions = []
            for i, request in enumerate(batch):
                n_in = int(inputs["attention_mask"][i].sum())
                n_out = int((new_tokens[i] != self.tokenizer.pad_token_id).sum())
                completions.append(Completion(request.key, texts[i], n_in, n_out, seconds))
                self._usage["input_tokens"] += n_in
                self._usage["output_tokens"] += n_out
            self._usage["requests"] += len(batch)
            self._usage["seconds"] += seconds * len(batch)
            yield completions
