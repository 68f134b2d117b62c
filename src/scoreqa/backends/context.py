"""Context windows: how many tokens a request needs, whether it fits, and what a too-long request becomes.

A request whose prompt plus ``max_new_tokens`` exceeds the model's window is never sent: a server would
truncate or reject it, and a truncated score answered wrongly looks like an ordinary wrong answer. It is
recorded instead as a :class:`~scoreqa.backends.base.Completion` with ``too_long=True`` and its token count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from scoreqa.backends.base import ChatRequest, Completion
from scoreqa.models.spec import ModelSpec
from scoreqa.prompts.chat import render_chat


@dataclass(frozen=True)
class Fit:
    """One request measured against a window: ``prompt_tokens + max_new_tokens <= window``."""

    key: str
    prompt_tokens: int
    max_new_tokens: int
    window: int

    @property
    def fits(self) -> bool:
        return self.prompt_tokens + self.max_new_tokens <= self.window

    def describe(self) -> str:
        return (f"{self.prompt_tokens} prompt tokens + {self.max_new_tokens} new tokens > context window "
                f"{self.window}")

    def completion(self) -> Completion:
        return Completion(self.key, "", input_tokens=self.prompt_tokens, error=f"too long: {self.describe()}",
                          too_long=True)


def config_window(config: Any) -> int | None:
    """The window a transformers config declares (``text_config`` for vision-language models)."""
    config = getattr(config, "text_config", None) or config
    for name in ("max_position_embeddings", "max_sequence_length", "n_positions", "seq_length"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def model_window(spec: ModelSpec, path: str) -> int | None:
    """``model.context_window`` when the config sets it, else what the model's own config declares."""
    if spec.context_window:
        return int(spec.context_window)
    from transformers import AutoConfig

    return config_window(AutoConfig.from_pretrained(path, trust_remote_code=spec.trust_remote_code))


def count_prompt_tokens(processor: Any, spec: ModelSpec, requests: Sequence[ChatRequest]) -> list[int]:
    """Tokens each request's prompt takes, rendered and tokenised exactly as generation does
    (page images expanded to their visual tokens for vision-language models)."""
    counts = []
    for request in requests:
        text = render_chat(processor, request.messages, spec.chat_kwargs())
        if spec.kind == "vision_language" and request.images:
            from PIL import Image

            images = [Image.open(p).convert("RGB") for p in request.images]
            counts.append(int(processor(text=[text], images=images, return_tensors="pt")["input_ids"].shape[1]))
        else:
            tokenizer = getattr(processor, "tokenizer", processor)
            counts.append(len(tokenizer(text, add_special_tokens=False)["input_ids"]))
    return counts


def measure(requests: Sequence[ChatRequest], counts: Sequence[int], max_new_tokens: int, window: int) -> list[Fit]:
    return [Fit(r.key, int(n), int(max_new_tokens), int(window)) for r, n in zip(requests, counts)]
