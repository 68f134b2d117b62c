"""Generation backends: one interface, implemented by transformers (``hf``) and later vLLM and OpenAI-compatible APIs."""

from scoreqa.backends.base import Backend, ChatRequest, Completion, SamplingSpec

__all__ = ["Backend", "ChatRequest", "Completion", "SamplingSpec"]
