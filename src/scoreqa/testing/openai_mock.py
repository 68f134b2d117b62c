"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benchmarks.

Each POST to ``/v1/chat/completions`` is answered by ``script(request_json, n)`` (``n`` counts this
server's requests from 0), which returns a :class:`Reply`: a normal completion, an HTTP error with
optional ``Retry-After``, a malformed body, or a stall longer than the client's timeout. A fixed
``latency`` (seconds) is added to every request, so throughput can be measured against it.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    content: str | None = "ok"          # the assistant message text
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: str | None = None          # sent verbatim instead of a JSON completion (malformed output)
    stall_seconds: float = 0.0           # sleep before answering (longer than the client timeout = timeout)

    @classmethod
    def error(cls, status: int, retry_after: float | None = None, message: str | None = None) -> "Reply":
        """An error reply; ``message`` is the server's text (e.g. one that echoes the key, as some servers do)."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return cls(content=None, status=status, headers=headers,
                   raw_body=json.dumps({"error": {"message": message or f"scripted {status}", "type": "scripted"}}))


Script = Callable[[dict[str, Any], int], Reply]


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # many clients connect at once when concurrency is measured (default: 5)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):  # a killed client is no error
            super().handle_error(request, client_address)


def echo_last_user_message(request: dict[str, Any], n: int) -> Reply:
    """Default script: answer with the last user message's text."""
    content = request["messages"][-1]["content"]
    if isinstance(content, list):
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return Reply(content=str(content))


class MockOpenAIServer:
    """``with MockOpenAIServer(script, latency=0.2) as server: OpenAI(base_url=server.base_url, api_key="x")``."""

    def __init__(self, script: Script = echo_last_user_message, latency: float = 0.0) -> None:
        self.script, self.latency = script, latency
        self.requests: list[dict[str, Any]] = []
        self.in_flight = self.max_in_flight = 0  # requests being answered now / at most at once
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "MockOpenAIServer":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stall

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                if not self.path.rstrip("/").endswith("/chat/completions"):  # e.g. vLLM's /tokenize: a hosted API's 404
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with owner._lock:
                    n = len(owner.requests)
                    owner.requests.append(body)
                    owner.in_flight += 1
                    owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
                try:
                    reply = owner.script(body, n)
                    time.sleep(owner.latency + reply.stall_seconds)
                finally:
                    with owner._lock:
                        owner.in_flight -= 1
                payload = reply.raw_body if reply.raw_body is not None else json.dumps(_completion(body, reply, n))
                data = payload.encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def _completion(request: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
    prompt_chars = sum(len(json.dumps(m.get("content", ""))) for m in request.get("messages", []))
    return {
        "id": f"chatcmpl-mock-{n}", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", "mock"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": reply.content}}],
        "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(reply.content or "") // 4,
                  "total_tokens": prompt_chars // 4 + len(reply.content or "") // 4},
    }
