"""Render chat messages to the exact prompt string a model sees (shared by evaluation and training)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence


def render_chat(template_owner: Any, messages: Sequence[Mapping[str, Any]], chat_kwargs: Mapping[str, Any],
                add_generation_prompt: bool = True) -> str:
    """``apply_chat_template`` of a tokenizer or processor; Qwen3 reads ``enable_thinking`` from ``chat_kwargs``."""
    return template_owner.apply_chat_template([dict(m) for m in messages], tokenize=False,
                                              add_generation_prompt=add_generation_prompt, **chat_kwargs)
