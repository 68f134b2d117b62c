"""Pre-flight: requests that do not fit the model's context window are never sent.

``data.too_long=fail`` (the default) stops the run before any request is sent, naming the score, its token
count and the window; ``skip`` records each such request as a ``too_long`` completion (counted as
``n_too_long``, which makes the run incomplete) and sends the rest.
"""

from __future__ import annotations

from typing import Callable, Sequence

from scoreqa.backends.base import Backend, ChatRequest, Completion
from scoreqa.data.benchmark import check_too_long


class TooLongError(ValueError):
    """A request does not fit the context window and ``data.too_long=fail``."""


def screen(requests: Sequence[ChatRequest], backend: Backend, policy: str,
           describe: Callable[[ChatRequest], str]) -> tuple[list[ChatRequest], list[Completion]]:
    """The requests to send, and a ``too_long`` completion for each one that does not fit."""
    check_too_long(policy)
    fits = backend.fits(requests) if requests else None
    if fits is None:
        return list(requests), []
    by_key = {r.key: r for r in requests}
    over = [f for f in fits if not f.fits]
    if over and policy == "fail":
        first = over[0]
        raise TooLongError(f"{describe(by_key[first.key])}: {first.describe()} ({len(over)} of {len(fits)} "
                           "requests do not fit; nothing was sent). Use data.too_long=skip to run the rest, a "
                           "shorter modality (modality=title), or a model with a longer window")
    too_long = {f.key for f in over}
    return [r for r in requests if r.key not in too_long], [f.completion() for f in over]
