"""transformers generation: batched with left padding, CPU or GPU, text or vision-language models.

Throughput without changing an answer: text prompts that share at least ``min_shared_prefix_tokens`` leading
tokens (the questions about one score) are batched together and their common prefix is prefilled once
(:mod:`~scoreqa.backends.prefix_groups`); other requests are sorted by prompt length so a batch holds prompts
of similar length (little padding). Batches are filled up to ``batch_size`` rows and ``max_batch_tokens``
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
from scoreqa.backends.hf_decode import decode_pruned, pad_between
from scoreqa.backends.prefix_groups import plan_batches
from scoreqa.backends.seeding import batch_seed
from scoreqa.models.loading import ensure_available, load_model, load_text_processor, resolve_device
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.chat import render_chat


class HFBackend(Backend):
    """Loads the model on the first request, so a fully cached run never loads weights."""

    name = "hf"

    def __init__(self, model: Mapping[str, Any], sampling: Mapping[str, Any], batch_size: int = 32,
                 max_batch_tokens: int = 65_536, min_shared_prefix_tokens: int = 256, device: str = "auto") -> None:
        self.spec = ModelSpec.from_config(model)
        self.sampling = SamplingSpec.from_config(sampling)
        self.batch_size, self.max_batch_tokens = int(batch_size), int(max_batch_tokens)
        if self.batch_size < 1 or self.max_batch_tokens < 1:
            raise ValueError(f"backend.batch_size and backend.max_batch_tokens must be >= 1; got {batch_size}, "
                             f"{max_batch_tokens}")
        self.min_shared_prefix_tokens = int(min_shared_prefix_tokens)
        if self.min_shared_prefix_tokens < 0:
            raise ValueError(f"backend.min_shared_prefix_tokens must be >= 0 (0 = no sharing); got "
                             f"{min_shared_prefix_tokens}")
        self.device = resolve_device(device)
        self._model: torch.nn.Module | None = None
        self._processor: Any = None
        self._usage = {"requests": 0, "input_tokens": 0, "output_tokens": 0, "seconds": 0.0}

    def identity(self) -> dict[str, Any]:
        # decoder 2: length-sorted batches and pruned decoding (sampled answers differ from decoder 1's batches).
        # decoder 3: shared-prefix batches; a batch's seed depends on its keys, so sampled answers differ from
        # decoder 2's (greedy answers do not).
        return {"backend": self.name, "decoder": 3, **self.spec.identity(), "sampling": self.sampling.as_dict()}

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

    def _batches(self, requests: Sequence[ChatRequest]
                 ) -> Iterator[tuple[list[ChatRequest], int, list[list[int]] | None]]:
        """(requests, leading tokens they all share and prefill once, their token ids: text models only) per
        batch, see :func:`plan_batches`. Each prompt is tokenized once, here."""
        if self.spec.kind == "vision_language":  # page images make text length a poor measure: keep the order
            for start in range(0, len(requests), self.batch_size):
                yield list(requests[start:start + self.batch_size]), 0, None
            return
        prompts = [self._prompt_ids(self.prompt_text(r)) for r in requests]
        for batch in plan_batches(prompts, batch_size=self.batch_size, max_batch_tokens=self.max_batch_tokens,
                                  max_new_tokens=self.sampling.max_new_tokens,
                                  min_shared=self.min_shared_prefix_tokens):
            yield [requests[i] for i in batch.rows], batch.shared, [prompts[i] for i in batch.rows]

    def _prompt_ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _encode(self, batch: Sequence[ChatRequest], shared_prefix: int = 0,
                ids: Sequence[Sequence[int]] | None = None) -> dict[str, torch.Tensor]:
        """Model inputs; text prompts (``ids`` when already tokenized) laid out by :func:`pad_between`
        (left-padded when nothing is shared)."""
        if self.spec.kind == "vision_language":
            from PIL import Image

            images = [Image.open(p).convert("RGB") for r in batch for p in r.images]
            encoded = self._processor(text=[self.prompt_text(r) for r in batch], images=images or None,
                                      padding=True, return_tensors="pt")
        else:
            ids = ids if ids is not None else [self._prompt_ids(self.prompt_text(r)) for r in batch]
            input_ids, attention_mask = pad_between(ids, shared_prefix, self.tokenizer.pad_token_id)
            encoded = {"input_ids": input_ids, "attention_mask": attention_mask}
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

    def _new_tokens(self, inputs: dict[str, torch.Tensor], shared_prefix: int) -> list[list[int]]:
        s = self.sampling
        if self.spec.kind == "vision_language":
            with torch.inference_mode():
                output = self._model.generate(**inputs, **self._decode_kwargs())
            pad = self.tokenizer.pad_token_id
            return [[t for t in row.tolist() if t != pad] for row in output[:, inputs["input_ids"].shape[1]:]]
        return decode_pruned(self._model, inputs["input_ids"], inputs["attention_mask"],
                             max_new_tokens=s.max_new_tokens, eos_token_ids=self._end_tokens(),
                             shared_prefix=shared_prefix, do_sample=s.do_sample, temperature=s.temperature,
                             top_k=s.top_k, top_p=s.top_p)

    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        if not requests:
            return
        self._ensure_loaded()
        for batch, shared_prefix, ids in self._batches(requests):
            began = time.perf_counter()
            inputs = self._encode(batch, shared_prefix, ids)
            torch.manual_seed(batch_seed(self.sampling.seed, [r.key for r in batch]))
            new_tokens = self._new_tokens(inputs, shared_prefix)
            texts = self.tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
            seconds = (time.perf_counter() - began) / len(batch)
            completions = []
            for i, request in enumerate(batch):
                n_in = int(inputs["attention_mask"][i].sum())  # the whole prompt: only pads are masked
                n_out = len(new_tokens[i])
                completions.append(Completion(request.key, texts[i], n_in, n_out, seconds))
                self._usage["input_tokens"] += n_in
                self._usage["output_tokens"] += n_out
            self._usage["requests"] += len(batch)
            self._usage["seconds"] += seconds * len(batch)
            yield completions
