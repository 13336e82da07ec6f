"""Running the client's coroutines from synchronous code, each under a deadline that cannot be exceeded.

Why a background event loop: the `websockets` package Debian ships (10.x) has only an asyncio API (`websockets.sync`
came in 11.0), and callers such as TRL's tool loop are synchronous. All clients of a process share one daemon thread
running one event loop; each call submits a coroutine to it and waits for the result, so a client works the same
from plain code, from a thread, or from inside a running event loop (a notebook).

Deadlines: a call gets one `Deadline` when it starts; every await inside it (connect, send, receive, a retry's
reconnect) takes its time from that one budget, so a retry can never double it. `run_until` enforces it twice: in
the loop, where the coroutine is cancelled at the deadline (websockets' handshake, send and recv are safe to cancel)
and the call returns without waiting for that cancellation to finish; and in the waiting thread, which gives up
GRACE_S later should the loop itself be stuck. Also here: `abort` (drop a connection at once, from any thread) and
`HeldLock` (a lock acquired under a deadline, released by `with`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from typing import Any, Awaitable, Callable, Optional, TypeVar

T = TypeVar("T")

#: How long the calling thread waits beyond a deadline for the loop to report the coroutine cancelled.
GRACE_S = 2.0

_loop: Optional[asyncio.AbstractEventLoop] = None
_loop_lock = threading.Lock()


class DeadlineExpired(Exception):
    """A coroutine run by run_until did not finish before its deadline (internal: the client turns it into
    SQLEnvTimeout with what it was waiting for)."""


class Deadline:
    """A point in time, from a budget in seconds (time.monotonic, so clock changes do not matter)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def within(self, seconds: float) -> "Deadline":
        """The earlier of this deadline and `seconds` from now (e.g. a connect inside a call's budget)."""
        sooner = Deadline(seconds)
        return sooner if sooner.end < self.end else self


def background_loop() -> asyncio.AbstractEventLoop:
    """The process's shared event loop, started on first use in a daemon thread."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="sqlenv-client-loop", daemon=True).start()
            _loop = loop
        return _loop


def run_until(make: Callable[[], Awaitable[T]], deadline: Deadline) -> T:
    """Runs `make()` on the background loop and returns its result, or raises DeadlineExpired once `deadline` has
    passed. Other exceptions of the coroutine propagate as they are.

    On expiry the coroutine is cancelled but not waited for: its clean-up (websockets fails a cancelled handshake and
    waits up to its close_timeout for the socket to close) goes on in the loop after the call has returned.
    `make` builds the coroutine inside the loop's thread: websockets looks up the running loop when constructing.
    """

    async def bounded() -> T:
        task = asyncio.ensure_future(make())
        task.add_done_callback(_retrieve)
        try:
            done, _ = await asyncio.wait({task}, timeout=deadline.remaining())
        except asyncio.CancelledError:
            task.cancel()
            raise
        if not done:
            task.cancel()
            raise DeadlineExpired()
        return task.result()

    future = asyncio.run_coroutine_threadsafe(bounded(), background_loop())
    try:
        return future.result(deadline.remaining() + GRACE_S)
    except concurrent.futures.TimeoutError:
        # The loop did not answer in time (it should always, but a stuck loop must not hang the caller).
        future.cancel()
        raise DeadlineExpired() from None


def _retrieve(task: "asyncio.Future[Any]") -> None:
    """Marks a task's exception as seen, so a call that gave up on it leaves no "never retrieved" warning."""
    if not task.cancelled():
        task.exception()


def call_soon(callback: Callable[[], Any]) -> None:
    """Runs a plain callback on the loop's thread (asyncio objects are not thread-safe), without waiting."""
    background_loop().call_soon_threadsafe(callback)


def abort(ws: Any) -> None:
    """Closes a connection at once, without a closing handshake (its transport, on the loop's thread)."""
    transport = getattr(ws, "transport", None)
    if transport is not None:
        call_soon(transport.abort)


class HeldLock:
    """Releases a lock acquired with a timeout when the `with` block ends."""

    def __init__(self, lock: threading.Lock):
        self._lock = lock

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: Any) -> None:
        self._lock.release()
