"""The context-window pre-flight: a request over the window is never sent; fail names the score, skip records it."""

from __future__ import annotations

from typing import Iterator, Sequence

import pytest

from scoreqa.backends.base import Backend, ChatRequest, Completion
from scoreqa.backends.context import Fit
from scoreqa.evaluation.context_check import TooLongError, screen


class CountingBackend(Backend):
    """Counts one token per character, with a window of 100 and 20 new tokens; records what it is sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def fits(self, requests: Sequence[ChatRequest]) -> list[Fit]:
        return [Fit(r.key, len(r.messages[0]["content"]), 20, 100) for r in requests]

    def generate(self, requests: Sequence[ChatRequest]) -> Iterator[list[Completion]]:
        self.sent += [r.key for r in requests]
        yield [Completion(r.key, "ok") for r in requests]

    def identity(self) -> dict:
        return {"backend": "counting"}


def _request(key: str, length: int) -> ChatRequest:
    return ChatRequest(key, ({"role": "user", "content": "x" * length},), (f"{key}-q",))


REQUESTS = [_request("short", 10), _request("edge", 80), _request("long", 81)]


def test_fail_stops_before_sending_and_names_the_request():
    with pytest.raises(TooLongError) as caught:
        screen(REQUESTS, CountingBackend(), "fail", lambda r: f"score S1 ('Air'), question {r.question_ids[0]}")
    message = str(caught.value)
    assert "score S1 ('Air'), question long-q" in message
    assert "81 prompt tokens + 20 new tokens > context window 100" in message
    assert "1 of 3 requests do not fit; nothing was sent" in message


def test_skip_records_too_long_completions_with_their_token_count():
    send, over = screen(REQUESTS, CountingBackend(), "skip", str)
    assert [r.key for r in send] == ["short", "edge"]  # 80 + 20 = 100 fits exactly
    assert [(c.key, c.too_long, c.input_tokens, c.text) for c in over] == [("long", True, 81, "")]
    assert over[0].error.startswith("too long: 81 prompt tokens")


def test_a_backend_that_cannot_count_sends_everything():
    class Hosted(CountingBackend):
        def fits(self, requests):
            return None

    send, over = screen(REQUESTS, Hosted(), "fail", str)
    assert len(send) == 3 and over == []


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="data.too_long must be fail or skip"):
        screen(REQUESTS, CountingBackend(), "truncate", str)
