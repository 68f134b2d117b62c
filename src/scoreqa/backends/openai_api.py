"""OpenAI-compatible chat completions (hosted models, ``vllm serve``): concurrent, retried, streamed to the cache.

The paper's API baselines took over 11 hours each because every question waited for the previous
answer. Here up to ``concurrency`` requests are in flight; 429/5xx/timeouts/malformed replies are
retried with jittered exponential back-off (``Retry-After`` obeyed, and it pauses every worker);
an answer that still fails is returned as a :class:`Completion` with ``error`` set, which the runner
caches and asks again on the next run. Completions are yielded as they arrive, so a killed run
loses only the requests in flight.

Where the endpoint is and which sampling fields it accepts comes from the model config's ``api``
block (``conf/model/gpt-5.yaml`` ...); the key is read from the environment variable it names.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import time
from collections import deque
from typing import Any, Callable, Iterator, Mapping, Sequence

from scoreqa.backends.async_bridge import BackgroundProducer
from scoreqa.backends.base import Backend, ChatRequest, Completion, Message, SamplingSpec
from scoreqa.backends.context import Fit
from scoreqa.backends.page_images import page_data_url
from scoreqa.backends.pacing import RequestPacer, RetryPolicy, retry_after_seconds
from scoreqa.backends.seeding import batch_seed
from scoreqa.backends.server_window import measure_on_server
from scoreqa.config import scrub
from scoreqa.models.spec import ModelSpec

log = logging.getLogger(__name__)

# A model config without an ``api`` block is an open-weights model behind ``vllm serve`` (or SGLang): it takes
# every sampling field of the paper's settings, and the chat-template switches (Qwen3's enable_thinking).
SELF_HOSTED_PARAMS = ("temperature", "top_p", "top_k", "max_tokens", "seed")
HOSTED_PARAMS = ("temperature", "top_p", "max_tokens")  # when an ``api`` block lists no ``params``
# How each sampling field an endpoint may accept is filled from the run's sampling settings (None: not sent).
_SAMPLING_FIELDS: dict[str, Callable[[SamplingSpec], Any]] = {
    "temperature": lambda s: s.temperature if s.do_sample else 0.0,
    "top_p": lambda s: s.top_p if s.do_sample else None,
    "top_k": lambda s: s.top_k if s.do_sample else None,
    "max_tokens": lambda s: s.max_new_tokens,
    "max_completion_tokens": lambda s: s.max_new_tokens,
    "seed": lambda s: s.seed,  # replaced by a per-request seed derived from it
}
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
# How servers word a prompt over the window (vLLM, OpenAI, Anthropic's and Google's compatible endpoints).
_TOO_LONG = re.compile(r"context length|context window|maximum (input|prompt|context)|too many (input )?tokens"
                       r"|prompt is too long|max_model_len", re.IGNORECASE)


def too_long_error(status: int, message: str) -> bool:
    """A 400/413 whose message says the prompt exceeds the window: recorded as ``too_long``, not as a failure."""
    return status in (400, 413) and bool(_TOO_LONG.search(message))


REFUSED_STATUS = frozenset({401, 403})  # the key is wrong for every request: stop at once


class BackendStopped(RuntimeError):
    """The endpoint refused the key, or too many requests in a row failed: asking the rest would fail too."""


class MalformedResponse(ValueError):
    """A 200 reply that is not a chat completion (cut-off JSON, an error object, no choices)."""


def parse_reply(response: Any) -> tuple[str, int | None, int | None]:
    """Text and (prompt, completion) token counts of a chat completion; counts are None when not reported."""
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError) as error:
        raise MalformedResponse(f"no choices[0].message in the reply ({type(error).__name__}: {error})") from None
    if content is not None and not isinstance(content, str):
        raise MalformedResponse(f"choices[0].message.content is {type(content).__name__}, not text")
    usage = getattr(response, "usage", None)
    n_in, n_out = getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)
    return content or "", n_in if isinstance(n_in, int) else None, n_out if isinstance(n_out, int) else None


def _status_message(failure: Any) -> str:
    """The server's own error message when its body has one (``{"error": {"message": ...}}``)."""
    body = getattr(failure, "body", None)
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return str(failure.message)


def api_messages(messages: Sequence[Message], max_pixels: int | None) -> list[dict[str, Any]]:
    """Chat messages in the OpenAI format: text parts as they are, page images as ``data:`` URLs."""
    converted = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            parts = []
            for part in content:
                if part.get("type") == "text":
                    parts.append({"type": "text", "text": part["text"]})
                elif part.get("type") == "image":
                    parts.append({"type": "image_url",
                                  "image_url": {"url": page_data_url(part["image"], max_pixels)}})
                else:
                    raise ValueError(f"message part of type {part.get('type')!r} cannot be sent to an API")
            content = parts
        converted.append({"role": message["role"], "content": content})
    return converted


class FailureStreak:
    """Stops a run when ``limit`` requests in a row (by completion order) failed for good, or the key was refused."""

    def __init__(self, limit: int, endpoint: str | None = None) -> None:
        self.limit, self.endpoint, self.failures, self.reason = limit, endpoint, 0, ""

    def record(self, error: str | None) -> None:
        self.failures = self.failures + 1 if error else 0
        if error and self.failures >= self.limit and not self.reason:
            self.reason = f"{self.failures} requests in a row failed for good (last: {error}) at {self.endpoint}"

    def refuse(self, reason: str) -> None:
        self.reason = self.reason or reason


class OpenAIBackend(Backend):
    """``backend=openai``. Endpoint settings default to the model's ``api`` block; backend values override them."""

    name = "openai"

    def __init__(self, model: Mapping[str, Any], sampling: Mapping[str, Any], base_url: str | None = None,
                 api_key_env: str | None = None, params: Sequence[str] | None = None,
                 extra: Mapping[str, Any] | None = None, concurrency: int = 32, timeout: float = 90.0,
                 max_retries: int = 4, backoff_base: float = 1.0, backoff_cap: float = 30.0,
                 requests_per_minute: float | None = None, max_consecutive_failures: int = 50) -> None:
        self.spec = ModelSpec.from_config(model)
        self.sampling = SamplingSpec.from_config(sampling)
        hosted = self.hosted = model.get("api") is not None
        api = dict(model.get("api") or {})
        self.base_url = base_url or api.get("base_url")
        self.api_key_env = api_key_env if api_key_env is not None else api.get("key_env")
        if params is None:
            default = HOSTED_PARAMS if hosted else SELF_HOSTED_PARAMS
            params = api["params"] if api.get("params") is not None else default
        self.params = tuple(params)
        unknown = sorted(set(self.params) - set(_SAMPLING_FIELDS))
        if unknown:
            raise ValueError(f"model.api.params / backend.params name unknown sampling fields {unknown}; "
                             f"known: {sorted(_SAMPLING_FIELDS)} (fixed fields go in model.api.extra)")
        template = {} if hosted or not self.spec.chat_kwargs() else {"chat_template_kwargs": self.spec.chat_kwargs()}
        self.extra = {**template, **dict(api.get("extra") or {}), **dict(extra or {})}
        if concurrency < 1:
            raise ValueError(f"backend.concurrency must be >= 1; got {concurrency}")
        self.concurrency, self.timeout = int(concurrency), float(timeout)
        self.retry = RetryPolicy(int(max_retries), float(backoff_base), float(backoff_cap))
        self.requests_per_minute = requests_per_minute
        self.max_consecutive_failures = int(max_consecutive_failures)
        self._stop = FailureStreak(self.max_consecutive_failures)
        self._usage: dict[str, Any] = {"requests": 0, "failed_requests": 0, "attempts": 0, "retries": 0,
                                       "input_tokens": 0, "output_tokens": 0, "requests_without_usage": 0,
                                       "seconds": 0.0}

    def request_fields(self) -> dict[str, Any]:
        """The JSON fields sent with every request besides ``model`` and ``messages`` (``seed`` varies per request)."""
        fields = {name: _SAMPLING_FIELDS[name](self.sampling) for name in self.params}
        fields.update(self.extra)
        return {k: v for k, v in fields.items() if v is not None}

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, **self.spec.identity(), "base_url": self.base_url,
                "max_pixels": self.spec.max_pixels, "request": self.request_fields()}

    def endpoint(self) -> str | None:
        return self.base_url

    def usage(self) -> dict[str, Any]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in self._usage.items()}

    def fits(self, requests: Sequence[ChatRequest]) -> list[Fit] | None:
        """Counted by a self-hosted server's ``/tokenize`` (vLLM); None for hosted APIs, which reject a too-long
        prompt themselves (recorded as ``too_long`` from their error, see :func:`too_long_error`)."""
        if self.hosted or not self.base_url:
            return None
        pairs = [(r, api_messages(r.messages, self.spec.max_pixels)) for r in requests]
        template = {k: v for k, v in self.extra.items() if k == "chat_template_kwargs"}
        return measure_on_server(self.base_url, self._api_key(), self.spec.name_or_path, pairs,
                                 self.sampling.max_new_tokens, self.spec.context_window, template)

    def _api_key(self) -> str:
        if not self.api_key_env:
            return "EMPTY"  # a local server without authentication (vllm serve's convention)
        key = os.environ.get(self.api_key_env)
        if not key:
            raise RuntimeError(f"model {self.spec.name}: set the environment variable {self.api_key_env} to its API "
                               "key (model.api.key_env names it; keys are never read from configs)")
        return key

    def _check(self, requests: Sequence[ChatRequest]) -> None:
        """Fail before the first request on what would fail every request."""
        if not self.base_url:
            raise ValueError(f"model {self.spec.name} has no API endpoint: set model.api.base_url or backend.base_url "
                             "(e.g. http://localhost:8000/v1 for `vllm serve`)")
        with_images = [r for r in requests if r.images]
        if with_images and self.spec.kind != "vision_language":
            raise ValueError(f"model {self.spec.name} is kind={self.spec.kind!r} but request {with_images[0].key} "
                             "has page images; use a text modality or a vision-language model config")
        missing = [(r.key, p) for r in with_images for p in r.images if not p.is_file()]
        if missing:
            key, path = missing[0]
            raise FileNotFoundError(f"page image {path} of request {key} does not exist ({len(missing)} missing in "
                                    "all); rasterise the scores or set data.skip_missing=true")

    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        if not requests:
            return
        self._check(requests)
        key = self._api_key()
        yield from BackgroundProducer(lambda emit: self._produce(list(requests), key, emit)).batches()

    async def _produce(self, requests: list[ChatRequest], key: str, emit: Callable[[Completion], None]) -> None:
        from openai import AsyncOpenAI

        todo = deque(requests)
        pacer = RequestPacer(self.requests_per_minute)
        rng = random.Random(self.sampling.seed)
        self._stop = FailureStreak(self.max_consecutive_failures, self.base_url)
        fields = self.request_fields()
        client = AsyncOpenAI(base_url=self.base_url, api_key=key, timeout=self.timeout, max_retries=0)

        async def worker() -> None:
            while todo and not self._stop.reason:
                completion = await self._complete(client, pacer, rng, todo.popleft(), fields, key)
                self._stop.record(completion.error)  # in completion order, whatever the concurrency
                emit(completion)

        try:
            await asyncio.gather(*(worker() for _ in range(min(self.concurrency, len(requests)))))
        finally:
            await client.close()
        if self._stop.reason:
            raise BackendStopped(f"{self._stop.reason}; stopped with {len(todo)} request(s) not "
                                 "sent. Answers so far are cached: fix the cause and re-run to ask the rest")

    async def _complete(self, client: Any, pacer: RequestPacer, rng: random.Random, request: ChatRequest,
                        fields: dict[str, Any], key: str) -> Completion:
        import openai

        began = time.perf_counter()
        body = dict(fields)
        if "seed" in body:
            body["seed"] = batch_seed(self.sampling.seed, [request.key])
        messages = await asyncio.to_thread(api_messages, request.messages, self.spec.max_pixels)
        error = ""
        for attempt in range(self.retry.max_retries + 1):
            await pacer.wait_turn()
            self._usage["attempts"] += 1
            wait: float | None = None
            try:
                response = await client.chat.completions.create(model=self.spec.name_or_path, messages=messages,
                                                                extra_body=body)
                text, n_in, n_out = parse_reply(response)
            except openai.APIStatusError as failure:
                error = scrub(f"HTTP {failure.status_code}: {_status_message(failure)}", [key])
                if failure.status_code in REFUSED_STATUS:
                    self._stop.refuse(f"{self.base_url} refused the key ({error}): set the environment variable "
                                      f"{self.api_key_env or '(backend.api_key_env)'} to a valid key")
                    break
                if too_long_error(failure.status_code, _status_message(failure)):
                    self._usage["failed_requests"] += 1
                    return Completion(request.key, "", seconds=time.perf_counter() - began,
                                      error=f"too long: {error}", too_long=True)
                if failure.status_code < 500 and failure.status_code not in RETRYABLE_STATUS:
                    break  # the request itself is wrong (400/401/403/404/422): asking again will not help
                wait = retry_after_seconds(failure.response.headers)
                if wait is not None:
                    pacer.pause(wait)
            except openai.APITimeoutError:
                error = f"timed out after {self.timeout:g} s"
            except openai.APIConnectionError as failure:
                error = f"connection error to {self.base_url}: {scrub(str(failure), [key])}"
            except (json.JSONDecodeError, openai.APIResponseValidationError, MalformedResponse) as failure:
                error = f"malformed reply: {scrub(str(failure), [key])}"
            else:
                return self._record(request, text, n_in, n_out, time.perf_counter() - began)
            if attempt < self.retry.max_retries and not self._stop.reason:
                self._usage["retries"] += 1
                log.debug("request %s: %s; retry %d", request.key, error, attempt + 1)
                await asyncio.sleep(self.retry.delay(attempt, wait, rng))
        seconds = time.perf_counter() - began
        self._usage["failed_requests"] += 1
        self._usage["seconds"] += seconds
        log.warning("request %s failed for good (%s); cached as a failure, asked again on the next run",
                    request.key, error)
        return Completion(request.key, "", seconds=seconds, error=error)

    def _record(self, request: ChatRequest, text: str, n_in: int | None, n_out: int | None,
                seconds: float) -> Completion:
        self._usage["requests"] += 1
        self._usage["seconds"] += seconds
        if n_in is None or n_out is None:
            self._usage["requests_without_usage"] += 1
        self._usage["input_tokens"] += n_in or 0
        self._usage["output_tokens"] += n_out or 0
        return Completion(request.key, text, n_in, n_out, seconds)
