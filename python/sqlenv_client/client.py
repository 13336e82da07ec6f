"""A synchronous client for `npx sqlenv serve`: one WebSocket connection, one episode session on the server.

It behaves as OpenEnv's EnvClient behind its `.sync()` wrapper (openenv.core.env_client, sync_client): `reset(**kw)`,
`step(action)` and `state()` send one message each and wait for its reply; an error reply raises (here a typed
SQLEnvServerError that keeps the code) and leaves the session usable; `close()` sends `{"type": "close"}` and closes
the socket, best effort.

Why a background event loop: the `websockets` package Debian ships (10.x) has only an asyncio API
(`websockets.sync` came in 11.0), and callers such as TRL's tool loop are synchronous. All clients of a process share
one daemon thread running one event loop; each call submits a coroutine to it and waits for the result, so a client
works the same from plain code, from a thread, or from inside a running event loop (a notebook). A lock per client
keeps one request in flight per connection, so replies can never be paired with the wrong request. A connection
that fails or times out is dropped (a late reply must not answer the next request); the next call opens a new one,
and `reset` retries once by itself, since a server may close a session left idle between episodes.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Coroutine, Dict, Optional, TypeVar

import websockets

from .protocol import (
    DEFAULT_URL,
    SQLAction,
    SQLEnvConnectionError,
    SQLEnvServerError,
    StepResult,
    close_message,
    decode,
    encode,
    expect,
    normalize_url,
    parse_result,
    reset_message,
    state_message,
    step_message,
)

T = TypeVar("T")

#: Error codes after which the server closes the connection (capacity reached, session idle or broken).
SESSION_ENDING_CODES = ("CAPACITY_REACHED", "FACTORY_ERROR", "SESSION_ERROR")

_loop: Optional[asyncio.AbstractEventLoop] = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """The process's shared event loop, started on first use in a daemon thread."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="sqlenv-client-loop", daemon=True).start()
            _loop = loop
        return _loop


def _run(coroutine: Coroutine[Any, Any, T], timeout_s: Optional[float] = None) -> T:
    future = asyncio.run_coroutine_threadsafe(coroutine, _background_loop())
    return future.result(timeout_s)


class SQLEnvClient:
    """One session with a SQLEnv server.

    Args:
        url: The server, as `ws://host:port/ws`, `http://host:port` or `host:port` (default ws://127.0.0.1:8000/ws).
        connect_timeout_s: Seconds to wait for the WebSocket to open.
        message_timeout_s: Seconds to wait for each reply (a QUERY runs under the server's own time limit, 2 s by
            default, twice when the result is compared with the empty database).

    Example:
        >>> with SQLEnvClient("ws://127.0.0.1:8000/ws") as env:
        ...     result = env.reset(question_id="demo-school-014")
        ...     result = env.step(SQLAction("QUERY", "SELECT count(*) FROM students"))
        ...     print(result.observation.text, result.reward, result.done)
    """

    def __init__(self, url: str = DEFAULT_URL, connect_timeout_s: float = 10.0, message_timeout_s: float = 60.0):
        self.url = normalize_url(url)
        self._connect_timeout = connect_timeout_s
        self._message_timeout = message_timeout_s
        self._ws: Any = None
        self._lock = threading.Lock()

    # -- the OpenEnv client API --------------------------------------------------------------------------------------

    def connect(self) -> "SQLEnvClient":
        """Opens the WebSocket (and so the server's session); a no-op when open. Raises SQLEnvConnectionError."""
        with self._lock:
            self._connect_locked()
        return self

    def reset(self, **params: Any) -> StepResult:
        """Starts a new episode on this session and returns its first observation (reward None, done False).

        Args:
            **params: seed, episode_id, question_id, split, difficulty, db_id; None values are not sent.
        """
        message = reset_message(**params)
        try:
            return parse_result(expect(self._request(message), "observation"))
        except SQLEnvServerError as error:
            if error.code != "SESSION_ERROR":
                raise
        except SQLEnvConnectionError:
            pass
        # The server may have closed the session while it sat idle between episodes (`serve --idle-timeout`): a
        # reset needs no earlier state, so it is retried once on a fresh connection.
        return parse_result(expect(self._request(message), "observation"))

    def step(self, action: "SQLAction | Dict[str, Any]") -> StepResult:
        """Takes one action: an SQLAction or `{"action_type": ..., "argument": ...}`."""
        return parse_result(expect(self._request(step_message(action)), "observation"))

    def state(self) -> Dict[str, Any]:
        """The episode's state as the server reports it (episode_id, step_count, question, return so far, ...)."""
        return expect(self._request(state_message()), "state")

    def close(self) -> None:
        """Ends the session: sends `close`, then closes the socket. Best effort, and a second call is harmless."""
        with self._lock:
            ws, self._ws = self._ws, None
        if ws is None:
            return

        async def shut() -> None:
            try:
                await ws.send(encode(close_message()))
            except Exception:
                pass  # The server may already be gone; closing is all that is left to do.
            try:
                await ws.close()
            except Exception:
                pass

        try:
            _run(shut(), self._connect_timeout + 5)
        except Exception:
            pass

    # -- conveniences ------------------------------------------------------------------------------------------------

    def describe(self, table: str) -> StepResult:
        return self.step(SQLAction("DESCRIBE", table))

    def sample(self, table: str) -> StepResult:
        return self.step(SQLAction("SAMPLE", table))

    def query(self, sql: str) -> StepResult:
        return self.step(SQLAction("QUERY", sql))

    def answer(self, value: str) -> StepResult:
        return self.step(SQLAction("ANSWER", value))

    @property
    def connected(self) -> bool:
        return self._ws is not None

    def __enter__(self) -> "SQLEnvClient":
        return self.connect()

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # Best effort only (it may not run at interpreter exit); call close() or use `with`.
        if getattr(self, "_ws", None) is not None:
            try:
                self.close()
            except Exception:
                pass

    # -- transport ---------------------------------------------------------------------------------------------------

    def _connect_locked(self) -> None:
        if self._ws is not None:
            return
        async def open_socket() -> Any:
            # Built inside the loop's thread: websockets may look up the running loop when constructing.
            return await websockets.connect(self.url, open_timeout=self._connect_timeout, max_size=None)

        try:
            self._ws = _run(open_socket(), self._connect_timeout + 5)
        except Exception as error:
            raise SQLEnvConnectionError(
                f"Could not connect to {self.url}: {error}. Is the server running (npx sqlenv serve)?"
            ) from error

    def _request(self, message: Dict[str, Any]) -> Dict[str, Any]:
        """Sends one message and returns its reply (decoded; an error reply raises SQLEnvServerError)."""
        with self._lock:
            self._connect_locked()
            ws = self._ws

            async def exchange() -> "str | bytes":
                try:
                    await ws.send(encode(message))
                except websockets.ConnectionClosed:
                    # The server may have closed the socket right after saying why (CAPACITY_REACHED for a full
                    # server, SESSION_ERROR for an idle session): that message, still queued, is the better answer.
                    last_words = await _last_words(ws)
                    if last_words is None:
                        raise
                    return last_words
                return await asyncio.wait_for(ws.recv(), timeout=self._message_timeout)

            try:
                raw = _run(exchange())
            except Exception as error:
                # The connection is lost or out of step (a late reply would pair with the next request): drop it.
                self._ws = None
                _run_quietly(ws.close())
                if isinstance(error, asyncio.TimeoutError):
                    raise SQLEnvConnectionError(
                        f"No reply to '{message['type']}' from {self.url} within {self._message_timeout} s; "
                        "the session is closed."
                    ) from error
                raise SQLEnvConnectionError(f"The connection to {self.url} failed during '{message['type']}': {error}") from error
            try:
                return decode(raw)
            except SQLEnvServerError as error:
                if error.code in SESSION_ENDING_CODES:
                    # The server ends the session after these (full, idle, broken): the socket is done for.
                    self._ws = None
                    _run_quietly(ws.close())
                raise


async def _last_words(ws: Any) -> "str | bytes | None":
    """A message received before the socket closed and not yet read, if any."""
    try:
        return await asyncio.wait_for(ws.recv(), timeout=0.5)
    except Exception:
        return None


def _run_quietly(coroutine: Coroutine[Any, Any, Any]) -> None:
    try:
        _run(coroutine, 5)
    except Exception:
        pass
