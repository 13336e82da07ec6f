"""The errors this package raises: every failure a caller can see is an SQLEnvError, never a raw RecursionError,
TypeError, KeyError or asyncio exception.

    SQLEnvError
    ├── SQLEnvServerError        the server answered {"type": "error"}; the session goes on (unless the code ends it)
    ├── SQLEnvConnectionError    the socket could not be opened, or closed (also a ConnectionError)
    │   └── SQLEnvTimeout        a call did not finish within its deadline (also a TimeoutError)
    └── SQLEnvProtocolError      the server sent something that is not this protocol: not JSON, nested too deep,
        │                        a field missing or of the wrong type, a number out of range
        └── SQLEnvMessageTooLarge  a message above max_message_bytes (a reply: the connection is dropped;
                                   an outgoing action: nothing is sent and the session goes on)

After a connection error, a timeout or a protocol error the connection is dropped (a late or stray reply must never
answer the next request); the next call opens a new one, which on the server is a new session.
"""

from __future__ import annotations

from typing import Any, Dict, List


class SQLEnvError(Exception):
    """Base class of this package's errors."""


class SQLEnvServerError(SQLEnvError):
    """The server answered a message with `{"type": "error"}`. The session stays open and usable.

    Attributes:
        message: The server's message ("Invalid message" for a VALIDATION_ERROR, whose `errors` say more).
        code: OpenEnv's error code (INVALID_JSON, UNKNOWN_TYPE, VALIDATION_ERROR, EXECUTION_ERROR, ...).
        errors: A VALIDATION_ERROR's issues, pydantic-style: `{"type", "loc", "msg", "input"?}` each.
        data: The whole error payload.
    """

    def __init__(self, message: str, code: str, data: Dict[str, Any]):
        self.message = message
        self.code = code
        self.errors: List[Dict[str, Any]] = [e for e in data.get("errors") or [] if isinstance(e, dict)]
        self.data = data
        super().__init__(f"Server error: {self.detail} (code: {code})")

    @property
    def detail(self) -> str:
        """The message with each validation issue, e.g. "Invalid message: data.action_type: Input should be
        'DESCRIBE', 'SAMPLE', 'QUERY' or 'ANSWER' (got 'DROP')"."""
        issues = []
        for issue in self.errors:
            loc = issue.get("loc")
            where = ".".join(str(part) for part in loc) if isinstance(loc, list) else ""
            got = f" (got {issue['input']!r:.200})" if "input" in issue else ""
            issues.append(f"{where + ': ' if where else ''}{issue.get('msg', '')}{got}")
        return f"{self.message}: {'; '.join(issues)}" if issues else self.message


class SQLEnvConnectionError(SQLEnvError, ConnectionError):
    """The WebSocket could not be opened, or it closed during a call."""


class SQLEnvTimeout(SQLEnvConnectionError, TimeoutError):
    """A call (connect, send, reply, close) did not finish within its deadline; the connection is dropped."""


class SQLEnvProtocolError(SQLEnvError):
    """The server sent something that is not a message of this protocol; the connection is dropped."""


class SQLEnvMessageTooLarge(SQLEnvProtocolError):
    """A message is larger than the client's `max_message_bytes`.

    Attributes:
        limit: The limit in bytes.
        size: The message's size in bytes, when known (a reply is cut off before it is read whole: None).
    """

    def __init__(self, text: str, limit: int, size: "int | None" = None):
        self.limit = limit
        self.size = size
        super().__init__(text)
