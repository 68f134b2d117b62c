"""transformers generation: batched with left padding, CPU or GPU, text or vision-language models.

Throughput without changing an answer: requests are sorted by prompt length so a batch holds prompts of
similar length (little padding), batches are filled up to ``batch_size`` rows and ``max_batch_tokens``
(rows x (longest prompt + max_new_tokens), which bounds the KV cache), and text models decode with
:func:`~scoreqa.backends.hf_decode.decode_pruned`, in which a finished answer stops costing decode steps.
Vision-language models keep ``model.generate`` (their multimodal rotary positions live inside it).
"""

from __future__ import annotations

import time
from typing import Any, Iterator, Mapping, Sequence

import torch

from scoreqa.backends.base import Backend, ChatRequest, Completion, SamplingSpec
from scoreqa.backends.context import Fit, count_prompt_tokens, measure, model_window
from scoreqa.backends.hf_decode import decode_pruned
from scoreqa.backends.seeding import batch_seed
from scoreqa.models.loading import ensure_available, load_model, load_text_processor, resolve_device
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.chat import render_chat


class HFBackend(Backend):
    """Loads the model on the first request, so a fully cached run never loads weights."""

    name = "hf"

    def __init__(self, model: Mapping[str, Any], sampling: Mapping[str, Any], batch_size: int = 32,
                 max_batch_tokens: int = 65_536, device: str = "auto") -> None:
        self.spec = ModelSpec.from_config(model)
        self.sampling = SamplingSpec.from_config(sampling)
        self.batch_size, self.max_batch_tokens = int(batch_size), int(max_batch_tokens)
        if self.batch_size < 1 or self.max_batch_tokens < 1:
            raise ValueError(f"backend.batch_size and backend.max_batch_tokens must be >= 1; got {batch_size}, "
                             f"{max_batch_tokens}")
        self.device = resolve_device(device)
        self._model: torch.nn.Module | None = None
        self._processor: Any = None
        self._usage = {"requests": 0, "input_tokens": 0, "output_tokens": 0, "seconds": 0.0}

    def identity(self) -> dict[str, Any]:
        # decoder 2: length-sorted batches and pruned decoding (sampled answers differ from decoder 1's batches)
        return {"backend": self.name, "decoder": 2, **self.spec.identity(), "sampling": self.sampling.as_dict()}

    def usage(self) -> dict[str, Any]:
        return dict(self._usage)

    @property
    def tokenizer(self) -> Any:
        return getattr(self._processor, "tokenizer", self._processor)

    def _ensure_processor(self) -> None:
        if self._processor is None:
            self._processor = load_text_processor(self.spec)

    def _ensure_loaded(self) -> None:
        self._ensure_processor()
        if self._model is None:
            self._model = load_model(self.spec, self.device)

    def fits(self, requests: Sequence[ChatRequest]) -> list[Fit]:
        """Counted with the tokenizer alone: a run whose requests do not fit never loads the weights."""
        self._ensure_processor()
        window = model_window(self.spec, ensure_available(self.spec))
        if window is None:
            raise ValueError(f"model {self.spec.name}: its config declares no context window; set "
                             "model.context_window")
        counts = count_prompt_tokens(self._processor, self.spec, requests)
        return measure(requests, counts, self.sampling.max_new_tokens, window)

    def prompt_text(self, request: ChatRequest) -> str:
        """The exact string the model is conditioned on (training builds the same one)."""
        self._ensure_processor()
        return render_chat(self._processor, request.messages, self.spec.chat_kwargs())

    def _batches(self, requests: Sequence[ChatRequest]) -> Iterator[list[ChatRequest]]:
        """Longest prompts first (an out-of-memory shows at once), each batch within both budgets."""
        if self.spec.kind == "vision_language":  # page images make text length a poor measure: keep the order
            for start in range(0, len(requests), self.batch_size):
                yield list(requests[start:start + self.batch_size])
            return
        lengths = {r.key: n for r, n in zip(requests, count_prompt_tokens(self._processor, self.spec, requests))}
        batch: list[ChatRequest] = []
        for request in sorted(requests, key=lambda r: -lengths[r.key]):
            rows = len(batch) + 1
            longest = lengths[batch[0].key] if batch else lengths[request.key]
            if batch and (rows > self.batch_size
                          or rows * (longest + self.sampling.max_new_tokens) > self.max_batch_tokens):
                yield batch
                batch = []
            batch.append(request)
        if batch:
            yield batch

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

    def _end_tokens(self) -> list[int]:
        """The tokens that end an answer: the tokenizer's EOS plus the generation config's."""
        ids = {self.tokenizer.eos_token_id}
        configured = getattr(self._model.generation_config, "eos_token_id", None)
        ids.update(configured if isinstance(configured, list) else [configured])
        return sorted(i for i in ids if i is not None)

    def _new_tokens(self, inputs: dict[str, torch.Tensor]) -> list[list[int]]:
        s = self.sampling
        if self.spec.kind == "vision_language":
            with torch.inference_mode():
                output = self._model.generate(**inputs, **self._decode_kwargs())
            pad = self.tokenizer.pad_token_id
            return [[t for t in row.tolist() if t != pad] for row in output[:, inputs["input_ids"].shape[1]:]]
        return decode_pruned(self._model, inputs["input_ids"], inputs["attention_mask"],
                             max_new_tokens=s.max_new_tokens, eos_token_ids=self._end_tokens(),
                             do_sample=s.do_sample, temperature=s.temperature, top_k=s.top_k, top_p=s.top_p)

    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        if not requests:
            return
        self._ensure_loaded()
        for batch in self._batches(requests):
            began = time.perf_counter()
            inputs = self._encode(batch)
            torch.manual_seed(batch_seed(self.sampling.seed, [r.key for r in batch]))
            new_tokens = self._new_tokens(inputs)
            texts = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
            seconds = (time.perf_counter() - began) / len(batch)
            completions = []
            for i, request in enumerate(batch):
                n_in = int(inputs["attention_mask"][i].sum())
                n_out = len(new_tokens[i])
                completions.append(Completion(request.key, texts[i], n_in, n_out, seconds))
                self._usage["input_tokens"] += n_in
                self._usage["output_tokens"] += n_out
            self._usage["requests"] += len(batch)
            self._usage["seconds"] += seconds * len(batch)
            yield completions
