"""A synchronous client for `npx sqlenv serve`: one WebSocket connection, one episode session on the server.

It behaves as OpenEnv's EnvClient behind its `.sync()` wrapper (openenv.core.env_client, sync_client): `reset(**kw)`,
`step(action)` and `state()` send one message each and wait for its reply; an error reply raises (here a typed
SQLEnvServerError that keeps the code) and leaves the session usable; `close()` sends `{"type": "close"}` and closes
the socket, best effort.

The server is not trusted (errors.py lists what each failure raises):
- Size: no message above `max_message_bytes` is read (websockets' max_size stops reading it and closes with 1009,
  compressed frames included) or sent (refused before sending; the session goes on). At most MAX_QUEUED_REPLIES
  replies wait unread, so a connection holds a bounded amount of memory (websockets: up to 4 × max_size per message
  queued, for text).
- Time: every call has one deadline, set when it starts (transport.Deadline): opening the connection takes at most
  `connect_timeout_s` of it, the exchange (send, then the reply) at most `message_timeout_s`, and the whole call,
  `reset`'s one reconnecting retry included, at most `connect_timeout_s + message_timeout_s`. A send the server never
  reads times out like a reply that never comes. `close()` takes at most CLOSE_TIMEOUT_S.
- Content: each reply is parsed within bounds and checked field by field (replies.py) before it is used.

A lock per client keeps one request in flight per connection, so replies can never be paired with the wrong request.
A connection that fails, times out or breaks the protocol is dropped (aborted: a late reply must not answer the next
request); the next call opens a new one, which the server treats as a new session. `reset` retries once on a fresh
connection after a connection error that was not a timeout, since a server may close a session left idle between
episodes.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import re
import threading
from typing import Any, Callable, Dict, Optional, TypeVar

import websockets
from websockets.exceptions import ConnectionClosed

from .errors import (
    SQLEnvConnectionError,
    SQLEnvError,
    SQLEnvMessageTooLarge,
    SQLEnvProtocolError,
    SQLEnvServerError,
    SQLEnvTimeout,
)
from .protocol import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_URL,
    SQLAction,
    StepResult,
    close_message,
    decode,
    encode,
    expect,
    normalize_url,
    parse_result,
    parse_state,
    reset_message,
    state_message,
    step_message,
)
from .transport import Deadline, DeadlineExpired, HeldLock, abort, run_until

#: Error codes after which the server closes the connection (capacity reached, session idle or broken).
SESSION_ENDING_CODES = ("CAPACITY_REACHED", "FACTORY_ERROR", "SESSION_ERROR")
#: Replies websockets may hold unread; the client reads each reply as it comes, so one is enough.
MAX_QUEUED_REPLIES = 1
#: Seconds `close()` may take (the closing handshake; then the socket is aborted).
CLOSE_TIMEOUT_S = 1.0
#: Seconds to wait for a message the server sent just before closing (why it closed) when a send finds it closed.
LAST_WORDS_S = 0.5
#: WebSocket close code for a message over a size limit (RFC 6455 §7.4.1).
CLOSE_MESSAGE_TOO_BIG = 1009

_TOKEN = re.compile(r"[\x21-\x7e]+")  # visible ASCII: nothing that could end or split a header
#: websockets' connect. It is exported lazily (a type checker sees no attribute) and its options differ across
#: versions (extra_headers before 14.0, additional_headers after), so it is typed as what it is here: a callable.
_ws_connect: Callable[..., Any] = getattr(websockets, "connect")
_HEADERS_OPTION = "additional_headers" if "additional_headers" in inspect.signature(_ws_connect).parameters else "extra_headers"
Reply = TypeVar("Reply")


class SQLEnvClient:
    """One session with a SQLEnv server.

    Args:
        url: The server, as `ws://host:port/ws`, `http://host:port` or `host:port` (default ws://127.0.0.1:8000/ws).
        connect_timeout_s: Seconds a call may spend opening the WebSocket.
        message_timeout_s: Seconds a call may spend sending its message and waiting for the reply (a QUERY runs
            under the server's own time limit, 2 s by default, twice when the result is compared with the empty
            database). No call takes longer than `connect_timeout_s + message_timeout_s`, retries included.
        max_message_bytes: The largest message read or sent, in bytes (default 16 MiB).
        token: The server's access token (`sqlenv serve --token`), sent as `Authorization: Bearer <token>`.

    Raises:
        ValueError: A timeout that is not a positive finite number, a size that is not a positive integer, or a
            token with characters other than visible ASCII.

    Example:
        >>> with SQLEnvClient("ws://127.0.0.1:8000/ws") as env:
        ...     result = env.reset(question_id="demo-school-014")
        ...     result = env.step(SQLAction("QUERY", "SELECT count(*) FROM students"))
        ...     print(result.observation.text, result.reward, result.done)
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        connect_timeout_s: float = 10.0,
        message_timeout_s: float = 60.0,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        token: Optional[str] = None,
    ):
        self.url = normalize_url(url)
        self._connect_timeout = _positive_seconds("connect_timeout_s", connect_timeout_s)
        self._message_timeout = _positive_seconds("message_timeout_s", message_timeout_s)
        if isinstance(max_message_bytes, bool) or not isinstance(max_message_bytes, int) or max_message_bytes < 1:
            raise ValueError(f"max_message_bytes must be a positive integer, got {max_message_bytes!r}.")
        self.max_message_bytes = max_message_bytes
        if token is not None and not (isinstance(token, str) and _TOKEN.fullmatch(token)):
            raise ValueError("token must be a non-empty string of visible ASCII characters (no spaces or line breaks).")
        # Passed only with a token: websockets renamed extra_headers to additional_headers in its newer API (14.0).
        self._header_options = {_HEADERS_OPTION: {"Authorization": f"Bearer {token}"}} if token else {}
        self._ws: Any = None
        self._lock = threading.Lock()

    # -- the OpenEnv client API --------------------------------------------------------------------------------------

    def connect(self) -> "SQLEnvClient":
        """Opens the WebSocket (and so the server's session); a no-op when open. Raises SQLEnvConnectionError
        (SQLEnvTimeout after `connect_timeout_s`)."""
        deadline = Deadline(self._connect_timeout)
        with self._locked(deadline, "connect"):
            self._connect_locked(deadline)
        return self

    def reset(self, **params: Any) -> StepResult:
        """Starts a new episode on this session and returns its first observation (reward None, done False).

        Args:
            **params: seed, episode_id, question_id, split, difficulty, db_id; None values are not sent.
        """
        message = reset_message(**params)
        deadline = self._call_deadline()
        try:
            return self._request(message, _read_observation, deadline)
        except SQLEnvTimeout:
            raise  # The call's time is spent: no retry.
        except SQLEnvServerError as error:
            if error.code != "SESSION_ERROR":
                raise
        except SQLEnvConnectionError:
            pass
        # The server may have closed the session while it sat idle between episodes (`serve --idle-timeout`): a
        # reset needs no earlier state, so it is retried once on a fresh connection, within the same deadline.
        return self._request(message, _read_observation, deadline)

    def step(self, action: "SQLAction | Dict[str, Any]") -> StepResult:
        """Takes one action: an SQLAction or `{"action_type": ..., "argument": ...}`."""
        return self._request(step_message(action), _read_observation)

    def state(self) -> Dict[str, Any]:
        """The episode's state as the server reports it (episode_id, step_count, question, return so far, ...)."""
        return self._request(state_message(), _read_state)

    def close(self) -> None:
        """Ends the session: sends `close`, then closes the socket, within CLOSE_TIMEOUT_S (then the socket is
        aborted). Never raises, and a second call is harmless."""
        with self._lock:
            ws, self._ws = self._ws, None
        if ws is None:
            return

        async def shut() -> None:
            try:
                await ws.send(encode(close_message()))
            except Exception:
                pass  # The server may already be gone; closing is all that is left to do.
            await ws.close()

        try:
            run_until(shut, Deadline(CLOSE_TIMEOUT_S))
        except Exception:
            pass  # Best effort: the socket is aborted below whatever happened.
        finally:
            abort(ws)

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

    def _call_deadline(self) -> Deadline:
        return Deadline(self._connect_timeout + self._message_timeout)

    def _locked(self, deadline: Deadline, what: str) -> "HeldLock":
        """The client's lock, waited for no longer than the call's deadline."""
        if not self._lock.acquire(timeout=deadline.remaining()):
            raise SQLEnvTimeout(
                f"'{what}' on {self.url} waited {deadline.seconds} s for this client's previous call (from another "
                "thread) to finish; a client runs one call at a time."
            )
        return HeldLock(self._lock)

    def _connect_locked(self, deadline: Deadline) -> None:
        if self._ws is not None:
            return

        def open_socket() -> Any:
            return _ws_connect(
                self.url,
                open_timeout=None,  # run_until enforces the deadline, which may be shorter than connect_timeout_s
                close_timeout=CLOSE_TIMEOUT_S,
                max_size=self.max_message_bytes,
                max_queue=MAX_QUEUED_REPLIES,
                **self._header_options,
            )

        try:
            self._ws = run_until(open_socket, deadline.within(self._connect_timeout))
        except DeadlineExpired:
            raise SQLEnvTimeout(
                f"Could not connect to {self.url} in time (connect_timeout_s={self._connect_timeout}). Is the server "
                "running (npx sqlenv serve) and answering?"
            ) from None
        except Exception as error:
            hint = _refusal_hint(error)
            raise SQLEnvConnectionError(
                f"Could not connect to {self.url}: {error}. {hint or 'Is the server running (npx sqlenv serve)?'}"
            ) from error

    def _request(
        self,
        message: Dict[str, Any],
        read: Callable[[Dict[str, Any]], Reply],
        deadline: Optional[Deadline] = None,
    ) -> Reply:
        """Sends one message and returns `read(reply)`: an error reply raises SQLEnvServerError, a malformed one
        (or one `read` refuses) SQLEnvProtocolError. Connects first when needed; all within `deadline` (by default,
        a call's)."""
        deadline = deadline or self._call_deadline()
        text = encode(message)
        size = len(text.encode("utf-8"))
        if size > self.max_message_bytes:
            raise SQLEnvMessageTooLarge(
                f"The '{message['type']}' message is {size} bytes, above max_message_bytes ({self.max_message_bytes}); "
                "nothing was sent and the session goes on.",
                self.max_message_bytes,
                size,
            )
        with self._locked(deadline, message["type"]):
            self._connect_locked(deadline)
            ws = self._ws
            phase = ["sending"]

            async def exchange() -> "str | bytes":
                try:
                    await ws.send(text)
                except ConnectionClosed:
                    # The server may have closed the socket right after saying why (CAPACITY_REACHED for a full
                    # server, SESSION_ERROR for an idle session): that message, still queued, is the better answer.
                    last_words = await _last_words(ws)
                    if last_words is None:
                        raise
                    return last_words
                phase[0] = "waiting for the reply to"
                reply: "str | bytes" = await ws.recv()
                return reply

            try:
                raw = run_until(exchange, deadline.within(self._message_timeout))
            except BaseException as error:
                # The connection is lost or out of step (a late reply would pair with the next request): drop it.
                self._drop()
                if isinstance(error, DeadlineExpired):
                    raise SQLEnvTimeout(
                        f"Timed out {phase[0]} '{message['type']}' on {self.url} (message_timeout_s="
                        f"{self._message_timeout}); the connection is closed and the next call opens a new session."
                    ) from None
                if isinstance(error, Exception):
                    raise self._transport_error(error, message["type"], size) from error
                raise
            try:
                return read(decode(raw))
            except SQLEnvServerError as error:
                if error.code in SESSION_ENDING_CODES:
                    self._drop()  # The server ends the session after these (full, idle, broken).
                raise
            except SQLEnvProtocolError:
                self._drop()  # A server that breaks the protocol once cannot be trusted to pair the next reply.
                raise

    def _transport_error(self, error: Exception, message_type: str, size: int) -> SQLEnvError:
        """The typed error for a failed exchange: a reply over our size limit, our message over the server's, or a
        lost connection."""
        if isinstance(error, ConnectionClosed):
            if error.sent is not None and error.sent.code == CLOSE_MESSAGE_TOO_BIG:
                return SQLEnvMessageTooLarge(
                    f"The reply to '{message_type}' from {self.url} is larger than max_message_bytes "
                    f"({self.max_message_bytes}); it was not read and the connection is closed.",
                    self.max_message_bytes,
                )
            if error.rcvd is not None and error.rcvd.code == CLOSE_MESSAGE_TOO_BIG:
                return SQLEnvConnectionError(
                    f"The server at {self.url} closed the connection because the '{message_type}' message ({size} "
                    "bytes) is above its message size limit; the next call opens a new session."
                )
        return SQLEnvConnectionError(f"The connection to {self.url} failed during '{message_type}': {error}")

    def _drop(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            abort(ws)


def _read_observation(reply: Dict[str, Any]) -> StepResult:
    return parse_result(expect(reply, "observation"))


def _read_state(reply: Dict[str, Any]) -> Dict[str, Any]:
    return parse_state(expect(reply, "state"))


def _positive_seconds(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}.")
    return float(value)


def _refusal_hint(error: Exception) -> str:
    """What to do when the server refused the WebSocket upgrade with an HTTP status."""
    response = getattr(error, "response", None)  # websockets >= 14: InvalidStatus(response)
    status = getattr(error, "status_code", getattr(response, "status_code", None))
    if status in (401, 403):
        return "The server refused the connection: pass its token (SQLEnvClient(token=...), or SQLENV_TOKEN for SQLEnvTRL)."
    return ""


async def _last_words(ws: Any) -> "str | bytes | None":
    """A message received before the socket closed and not yet read, if any."""
    try:
        return await asyncio.wait_for(ws.recv(), timeout=LAST_WORDS_S)
    except Exception:
        return None



# OpenEnv's AutoEnv looks for the client, action and observation classes in `sqlenv_client.client` (see openenv.yaml);
# SqlenvEnv is None unless openenv-core is installed.
from .models import SQLEnvAction, SQLEnvObservation, SQLEnvState  # noqa: E402,F401
from .openenv_client import SqlenvEnv  # noqa: E402,F401
