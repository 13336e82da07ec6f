"""The WebSocket protocol of `npx sqlenv serve`, as plain data: the messages a client sends, the replies it reads.

It is OpenEnv's WebSocket protocol (openenv.core.env_server.types: WSResetMessage, WSStepMessage, WSStateMessage,
WSCloseMessage; WSObservationResponse, WSStateResponse, WSErrorResponse), one episode session per connection:

    client → server                                   server → client
    {"type": "reset", "data": {seed?, episode_id?,    {"type": "observation",
              question_id?, split?, difficulty?,        "data": {"observation": {...}, "reward": r, "done": d}}
              db_id?}}
    {"type": "step",  "data": {"action_type": ...,    (the same)
              "argument": ...}}
    {"type": "state"}                                 {"type": "state", "data": {...}}
    {"type": "close"}                                 (none: the server ends the session)
    (anything it cannot serve)                        {"type": "error", "data": {"message": ..., "code": ...}}

Nothing here does I/O, so every shape can be checked without a server (tests/test_protocol.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Tuple
from urllib.parse import urlsplit, urlunsplit

ActionType = Literal["DESCRIBE", "SAMPLE", "QUERY", "ANSWER"]
ACTION_TYPES: Tuple[str, ...] = ("DESCRIBE", "SAMPLE", "QUERY", "ANSWER")

#: Reset parameters the server reads; a TRL dataset row may carry more columns (the prompt), which are not sent.
RESET_KEYS: Tuple[str, ...] = ("seed", "episode_id", "question_id", "split", "difficulty", "db_id")

DEFAULT_URL = "ws://127.0.0.1:8000/ws"


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
            where = ".".join(str(part) for part in issue.get("loc") or [])
            got = f" (got {issue['input']!r})" if "input" in issue else ""
            issues.append(f"{where + ': ' if where else ''}{issue.get('msg', '')}{got}")
        return f"{self.message}: {'; '.join(issues)}" if issues else self.message


class SQLEnvConnectionError(SQLEnvError, ConnectionError):
    """The WebSocket could not be opened, or closed, or a reply did not come in time."""


class SQLEnvProtocolError(SQLEnvError):
    """The server sent something that is not a message of this protocol (not JSON, no type, an unexpected type)."""


@dataclass(frozen=True)
class SQLAction:
    """One step: `action_type` is DESCRIBE or SAMPLE (argument: a table), QUERY (an SQL SELECT) or ANSWER (a value:
    a scalar, or JSON for a list or rows). Not validated here: the server reports a bad action as an error."""

    action_type: str
    argument: str

    def to_data(self) -> Dict[str, Any]:
        return {"action_type": self.action_type, "argument": self.argument}


@dataclass
class SQLObservation:
    """What the agent sees after a reset or a step (the server's `observation` object).

    Attributes:
        text: The whole observation as text, for people and language models alike.
        question: The question to answer.
        db_id: The database it is asked of.
        tables: The database's tables.
        steps_left: Steps left in the episode's budget.
        result: Rows a SAMPLE or QUERY showed, `{"columns", "rows", "total_rows"}` (a BLOB cell is
            `{"$blob": "<hex>"}`), else None.
        table: The schema a DESCRIBE showed, `{"name", "columns", "foreign_keys", "row_count"}`, else None.
        error: Why the step failed, when it did.
        metadata: The rest of the step: reward components, outcome, terminated, truncated, episode return, ...
        raw: The observation exactly as the server sent it.
    """

    text: str
    question: str = ""
    db_id: str = ""
    tables: List[str] = field(default_factory=list)
    steps_left: Optional[int] = None
    result: Optional[Dict[str, Any]] = None
    table: Optional[Dict[str, Any]] = None
    error: Optional[str] = None
    metadata: Dict[str, Any] = field(default_factory=dict)
    raw: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: Dict[str, Any]) -> "SQLObservation":
        metadata = data.get("metadata")
        return cls(
            text=str(data.get("text", "")),
            question=str(data.get("question", "")),
            db_id=str(data.get("db_id", "")),
            tables=list(data.get("tables") or []),
            steps_left=data.get("steps_left"),
            result=data.get("result"),
            table=data.get("table"),
            error=data.get("error"),
            metadata=dict(metadata) if isinstance(metadata, dict) else {},
            raw=dict(data),
        )

    @property
    def components(self) -> Dict[str, float]:
        """This step's reward components (correctness, progress, operational), unweighted; {} after a reset."""
        components = self.metadata.get("components")
        return dict(components) if isinstance(components, dict) else {}


@dataclass
class StepResult:
    """OpenEnv's StepResult: the observation, the step's reward (None after a reset) and whether the episode ended."""

    observation: SQLObservation
    reward: Optional[float] = None
    done: bool = False


def normalize_url(url: str) -> str:
    """The WebSocket address for a server URL: http(s) becomes ws(s), a bare host:port gets ws://, and an address
    without a path gets `/ws` (OpenEnv's clients take the base URL; this one takes either)."""
    url = url.strip().rstrip("/")
    if url.startswith("http://"):
        url = "ws://" + url[len("http://"):]
    elif url.startswith("https://"):
        url = "wss://" + url[len("https://"):]
    elif not url.startswith(("ws://", "wss://")):
        url = "ws://" + url
    parts = urlsplit(url)
    path = parts.path if parts.path not in ("", "/") else "/ws"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def reset_message(**params: Any) -> Dict[str, Any]:
    """A reset message; parameters that are None are left out (the server then draws or defaults them)."""
    return {"type": "reset", "data": {k: v for k, v in params.items() if v is not None}}


def step_message(action: "SQLAction | Dict[str, Any]") -> Dict[str, Any]:
    data = action.to_data() if isinstance(action, SQLAction) else dict(action)
    return {"type": "step", "data": data}


def state_message() -> Dict[str, Any]:
    return {"type": "state"}


def close_message() -> Dict[str, Any]:
    return {"type": "close"}


def encode(message: Dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False)


def decode(raw: "str | bytes") -> Dict[str, Any]:
    """Parses one reply; raises SQLEnvServerError for an error reply, SQLEnvProtocolError for anything malformed."""
    try:
        message = json.loads(raw)
    except (TypeError, ValueError) as error:
        raise SQLEnvProtocolError(f"The server sent a reply that is not JSON: {str(raw)[:200]!r} ({error}).") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise SQLEnvProtocolError(f"The server sent a reply without a 'type': {str(raw)[:200]!r}.")
    if message["type"] == "error":
        data = message.get("data") if isinstance(message.get("data"), dict) else {}
        raise SQLEnvServerError(str(data.get("message", "Unknown error")), str(data.get("code", "UNKNOWN")), data)
    return message


def expect(message: Dict[str, Any], message_type: str) -> Dict[str, Any]:
    """The `data` of a reply of the given type."""
    if message["type"] != message_type:
        raise SQLEnvProtocolError(f"Expected a '{message_type}' reply, got '{message['type']}'.")
    data = message.get("data")
    if not isinstance(data, dict):
        raise SQLEnvProtocolError(f"The '{message_type}' reply has no 'data' object.")
    return data


def parse_result(data: Dict[str, Any]) -> StepResult:
    """An observation reply's data, `{"observation": {...}, "reward": r, "done": d}`, as a StepResult."""
    observation = data.get("observation")
    if not isinstance(observation, dict):
        raise SQLEnvProtocolError("The observation reply has no 'observation' object.")
    reward = data.get("reward")
    return StepResult(
        observation=SQLObservation.from_data(observation),
        reward=None if reward is None else float(reward),
        done=bool(data.get("done", False)),
    )
