"""Consume an asyncio producer from synchronous code, item by item, as the items arrive.

The runner's backend interface is a plain generator (it appends each yielded batch to the cache);
API calls are concurrent coroutines. The producer runs on its own event loop in a background thread,
so requests keep flowing while the caller writes results, and whatever has arrived by the time the
caller asks again comes back as one batch.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Awaitable, Callable, Generic, Iterator, TypeVar

T = TypeVar("T")
Emit = Callable[[T], None]
_DONE = object()


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class BackgroundProducer(Generic[T]):
    """``for batch in BackgroundProducer(produce).batches(): ...`` where ``produce(emit)`` is a coroutine
    function that calls ``emit(item)`` for every result. Closing the generator early (an exception in
    the caller, Ctrl-C) cancels the producer and waits for its thread, so no request outlives the call."""

    def __init__(self, produce: Callable[[Emit[T]], Awaitable[None]], name: str = "scoreqa-async") -> None:
        self._produce = produce
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._loop = asyncio.new_event_loop()
        self._task: asyncio.Task[None] | None = None
        self._cancelled = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._task = self._loop.create_task(self._produce(self._queue.put))
            if self._cancelled.is_set():
                self._task.cancel()
            self._loop.run_until_complete(self._task)
            self._queue.put(_DONE)
        except asyncio.CancelledError:
            self._queue.put(_DONE)
        except BaseException as error:  # handed to the consuming thread, which raises it
            self._queue.put(_Failed(error))
        finally:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

    def _cancel(self) -> None:
        self._cancelled.set()
        try:
            self._loop.call_soon_threadsafe(lambda: self._task is not None and self._task.cancel())
        except RuntimeError:  # the loop already finished
            pass

    def batches(self) -> Iterator[list[T]]:
        self._thread.start()
        finished = False
        try:
            while not finished:
                try:
                    items = [self._queue.get(timeout=0.5)]
                except queue.Empty:  # wake up now and then so Ctrl-C is seen promptly
                    continue
                while True:
                    try:
                        items.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                batch: list[T] = []
                failure: _Failed | None = None
                for item in items:
                    if item is _DONE:
                        finished = True
                    elif isinstance(item, _Failed):
                        finished, failure = True, item
                    else:
                        batch.append(item)
                if batch:
                    yield batch
                if failure is not None:
                    raise failure.error
        finally:
            if not finished:
                self._cancel()
            self._thread.join()
