"""The models behind an LLM judge: any OpenAI-compatible endpoint, or a local Hugging Face model.

Both answer ``complete(messages) -> str`` and raise :class:`ChatCallError` for a call that failed
(after the client's own retries), or :class:`JudgeConfigError` for a setup no retry can fix (missing
key, wrong model name) — that one stops the run instead of turning every item into 'undecided'.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Mapping, Sequence

Messages = Sequence[Mapping[str, Any]]


class ChatCallError(RuntimeError):
    """One judge call failed (HTTP error after retries, timeout, malformed response)."""


class JudgeConfigError(RuntimeError):
    """The judge cannot work at all as configured."""


class OpenAIChatModel:
    """Chat completions from an OpenAI-compatible server (OpenAI, Gemini, Anthropic compat layers, vLLM).

    The key is read from the environment variable named by ``api_key_env`` (never from config);
    ``api_key_env: null`` is for servers without auth (a local vLLM). The official client retries
    429 (honouring Retry-After), 5xx, timeouts and dropped connections ``max_retries`` times.
    """

    def __init__(self, model: str, base_url: str | None = None, api_key_env: str | None = "OPENAI_API_KEY",
                 temperature: float | None = 0.0, max_tokens: int = 1, token_param: str = "max_tokens",
                 max_retries: int = 6, timeout: float = 60.0, extra_body: Mapping[str, Any] | None = None) -> None:
        self.model, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.temperature, self.max_tokens, self.token_param = temperature, max_tokens, token_param
        self.max_retries, self.timeout = max_retries, timeout
        self.extra_body = dict(extra_body) if extra_body else None
        self._client: Any = None
        self._lock = threading.Lock()

    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                from openai import OpenAI

                key = os.environ.get(self.api_key_env) if self.api_key_env else "EMPTY"
                if not key:
                    raise JudgeConfigError(f"judge model {self.model}: environment variable {self.api_key_env} is "
                                           f"not set; export it with the API key (keys never go in config files)")
                self._client = OpenAI(api_key=key, base_url=self.base_url, max_retries=self.max_retries,
                                      timeout=self.timeout)
            return self._client

    def complete(self, messages: Messages) -> str:
        import openai

        kwargs: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages],
                                  self.token_param: self.max_tokens}
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        client = self.client()
        try:
            response = client.chat.completions.create(**kwargs)
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError) as error:
            raise JudgeConfigError(f"judge model {self.model} at {self.base_url or 'api.openai.com'}: {error} "
                                   f"(check the key in {self.api_key_env} and the model name)") from error
        except (openai.OpenAIError, ValueError, KeyError, TypeError) as error:
            raise ChatCallError(f"{type(error).__name__}: {error}") from error
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError, TypeError) as error:
            raise ChatCallError(f"response without a message: {response!r:.200}") from error
        if content is None:
            raise ChatCallError("response with empty content")
        return content

    def identity(self) -> dict[str, Any]:
        """The endpoint's address is left out: the same model behind another host gives the same verdicts."""
        return {"model": self.model, "temperature": self.temperature, "max_tokens": self.max_tokens,
                "extra_body": self.extra_body}


_HF_LOAD_LOCK = threading.Lock()


class HFChatModel:
    """A local causal LM loaded with :mod:`scoreqa.models.loading`, decoding greedily (temperature 0).

    Loading is serialised across instances: an ensemble's judges run in parallel threads, and
    transformers' loading (meta-device init, the one-time GGUF export) is not safe to run concurrently.
    """

    def __init__(self, model: Mapping[str, Any], device: str = "auto", max_new_tokens: int = 1) -> None:
        from scoreqa.models.spec import ModelSpec

        self.spec = ModelSpec.from_config(model)
        self.device_name, self.max_new_tokens = device, max_new_tokens
        self._loaded: tuple[Any, Any, Any] | None = None
        self._lock = threading.Lock()      # one generate() at a time on the shared model

    def _load(self) -> tuple[Any, Any, Any]:
        if self._loaded is None:
            from scoreqa.models.loading import load_model, load_text_processor, resolve_device

            with _HF_LOAD_LOCK:
                device = resolve_device(self.device_name)
                self._loaded = (load_text_processor(self.spec), load_model(self.spec, device), device)
        return self._loaded

    def complete(self, messages: Messages) -> str:
        import torch

        from scoreqa.prompts.chat import render_chat

        with self._lock:
            tokenizer, model, device = self._load()
            prompt = render_chat(tokenizer, messages, self.spec.chat_kwargs())
            inputs = tokenizer(prompt, return_tensors="pt", add_special_tokens=False).to(device)
            with torch.no_grad():
                output = model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False,
                                        pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
            new_tokens = output[0, inputs["input_ids"].shape[1]:]
            return tokenizer.decode(new_tokens, skip_special_tokens=True)

    def identity(self) -> dict[str, Any]:
        return {**self.spec.identity(), "max_new_tokens": self.max_new_tokens, "decoding": "greedy"}
