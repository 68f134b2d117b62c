"""When to send the next API request: retry back-off with jitter, ``Retry-After``, a per-minute rate limit.

Hosted APIs throttle with 429s and fail transiently with 5xx; a 1,800-question run must ride through
both without hammering the server (exponential back-off, jittered so concurrent workers spread out)
and without ignoring what the server asked for (``Retry-After``, which also pauses the other workers).
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from dataclasses import dataclass
from typing import Mapping

# A server asking for longer than this is still obeyed, but no longer than this per wait.
MAX_SERVER_WAIT = 900.0


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` extra attempts; attempt ``n`` waits ``uniform(0, min(cap, base * 2**n))`` ("full jitter")
    unless the server said how long to wait (``Retry-After``), which is obeyed plus up to 10 % jitter."""

    max_retries: int = 6
    backoff_base: float = 1.0
    backoff_cap: float = 60.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            wait = min(max(retry_after, 0.0), MAX_SERVER_WAIT)
            return wait + rng.uniform(0.0, 0.1 * wait)
        return rng.uniform(0.0, min(self.backoff_cap, self.backoff_base * 2 ** attempt))


def retry_after_seconds(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds a response asks the client to wait: ``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP date."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return float(lowered["retry-after-ms"]) / 1000.0
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class RequestPacer:
    """Spaces request starts to ``requests_per_minute`` (None: no limit) and holds every worker while a
    server-requested pause (``Retry-After`` on a 429) is in force."""

    def __init__(self, requests_per_minute: float | None = None) -> None:
        if requests_per_minute is not None and requests_per_minute <= 0:
            raise ValueError(f"backend.requests_per_minute must be positive or null; got {requests_per_minute}")
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._next_start = 0.0
        self._paused_until = 0.0
        self._lock = asyncio.Lock()

    def pause(self, seconds: float) -> None:
        """Hold all new requests for ``seconds`` (the server said it is overloaded)."""
        self._paused_until = max(self._paused_until, time.monotonic() + min(seconds, MAX_SERVER_WAIT))

    async def wait_turn(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                ready = max(self._next_start, self._paused_until)
                if ready <= now:
                    break
                await asyncio.sleep(ready - now)
            self._next_start = now + self.interval
