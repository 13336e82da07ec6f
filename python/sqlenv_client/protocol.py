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

Every reply is untrusted input: replies.py parses it within bounds and checks each field before this module builds
the dataclasses below from it. Nothing here does I/O, so every shape can be checked without a server
(tests/test_protocol.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Tuple
from urllib.parse import urlsplit, urlunsplit

from .errors import (  # noqa: F401  (re-exported: these errors were first defined here)
    SQLEnvConnectionError,
    SQLEnvError,
    SQLEnvMessageTooLarge,
    SQLEnvProtocolError,
    SQLEnvServerError,
    SQLEnvTimeout,
)
from .replies import error_fields, observation_fields, parse_json, preview, state_fields, step_fields

ActionType = Literal["DESCRIBE", "SAMPLE", "QUERY", "ANSWER"]
ACTION_TYPES: Tuple[str, ...] = ("DESCRIBE", "SAMPLE", "QUERY", "ANSWER")

#: Reset parameters the server reads; a TRL dataset row may carry more columns (the prompt), which are not sent.
RESET_KEYS: Tuple[str, ...] = ("seed", "episode_id", "question_id", "split", "difficulty", "db_id")

DEFAULT_URL = "ws://127.0.0.1:8000/ws"

#: Largest message the client sends or reads, in bytes: the server's own per-connection send buffer cap
#: (src/server/ws-handler.ts), and uvicorn's default, which OpenEnv's Python servers run under.
DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024


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
    def from_data(cls, data: Any) -> "SQLObservation":
        """The server's observation object, checked field by field (SQLEnvProtocolError names a bad field)."""
        return cls(**observation_fields(data))

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
    """Parses one reply (replies.parse_json: bounded JSON); raises SQLEnvServerError for a well-formed error reply
    and SQLEnvProtocolError for anything malformed, an error reply with a malformed payload included."""
    message = parse_json(raw)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise SQLEnvProtocolError(f"The server sent a reply without a 'type': {preview(raw)}.")
    if message["type"] == "error":
        data = error_fields(message.get("data"))
        raise SQLEnvServerError(data["message"], data["code"], data)
    return message


def expect(message: Dict[str, Any], message_type: str) -> Dict[str, Any]:
    """The `data` object of a reply of the given type."""
    if message.get("type") != message_type:
        raise SQLEnvProtocolError(f"Expected a '{message_type}' reply, got {preview(message.get('type'))}.")
    data = message.get("data")
    if not isinstance(data, dict):
        raise SQLEnvProtocolError(f"The '{message_type}' reply has no 'data' object.")
    return data


def parse_result(data: Any) -> StepResult:
    """An observation reply's data, `{"observation": {...}, "reward": r, "done": d}`, as a StepResult; every field
    is checked first (replies.step_fields)."""
    fields = step_fields(data)
    return StepResult(
        observation=SQLObservation(**fields["observation"]),
        reward=fields["reward"],
        done=fields["done"],
    )


def parse_state(data: Any) -> Dict[str, Any]:
    """A state reply's data, checked (replies.state_fields): episode_id, step_count and the episode's fields."""
    return state_fields(data)
