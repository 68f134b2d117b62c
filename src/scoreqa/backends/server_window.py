"""Context windows of OpenAI-compatible servers: what vLLM's own endpoints tell, before any request is sent.

vLLM (and SGLang) serve ``POST {root}/tokenize``, which renders a chat with the served model's template and
answers ``{"count": n, "max_model_len": w}``: the exact prompt length and window. Hosted APIs have no such
endpoint; for them the window comes from ``model.context_window`` alone and a prompt the server rejects as too
long comes back as a failed request (see ``openai_api.too_long_error``).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Sequence

from scoreqa.backends.base import ChatRequest
from scoreqa.backends.context import Fit


def server_root(base_url: str) -> str:
    """``http://host:8000/v1`` -> ``http://host:8000`` (vLLM's ``/tokenize`` lives beside ``/v1``)."""
    root = base_url.rstrip("/")
    return root[:-3] if root.endswith("/v1") else root


def _post(url: str, body: dict[str, Any], key: str, timeout: float) -> dict[str, Any] | None:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as failure:
        if failure.code in (404, 405):  # no tokenize endpoint: a hosted API
            return None
        raise
    except (urllib.error.URLError, TimeoutError, json.JSONDecodeError):
        return None


def measure_on_server(base_url: str, key: str, model: str, requests: Sequence[tuple[ChatRequest, list]],
                      max_new_tokens: int, window: int | None, extra: dict[str, Any], timeout: float = 60.0
                      ) -> list[Fit] | None:
    """Each request's prompt length as the server counts it; None when the server cannot tokenize."""
    fits = []
    for request, messages in requests:
        answer = _post(f"{server_root(base_url)}/tokenize", {"model": model, "messages": messages,
                                                              "add_generation_prompt": True, **extra}, key, timeout)
        if answer is None or not isinstance(answer.get("count"), int):
            return None
        limit = window or answer.get("max_model_len")
        if not isinstance(limit, int):
            return None
        fits.append(Fit(request.key, answer["count"], max_new_tokens, limit))
    return fits
