"""Reading a server's reply as untrusted input: parse it within bounds, then check every field before it is used.

A hostile or broken server can send anything a WebSocket frame holds. Each reply goes through two gates:

1. `parse_json`: JSON with bounds the real server never comes near. Integer literals longer than MAX_INT_DIGITS
   are refused before Python converts them (a JavaScript server never writes more than 21 digits; CPython's own
   limit is 4,300, and older CPythons had none, converting in quadratic time). NaN and ±Infinity are refused
   (JSON.stringify writes neither). Nesting deeper than MAX_REPLY_DEPTH is refused (the real replies are 7 levels
   deep), so no caller, printer or deepcopy of a reply can hit Python's recursion limit; 10^5 levels fail in the
   parser itself, whose RecursionError is caught here.
2. The shape checks (`observation_fields`, `step_fields`, `state_fields`, `error_fields`): each known field must be
   present when required and of its type, with numbers finite and counts within JavaScript's safe integers.
   Unknown extra keys are allowed (a newer server may add some); `metadata` is free-form beyond its `components`.

Every failure is an SQLEnvProtocolError that names the field, e.g. "observation.steps_left should be an integer
from 0 to 9007199254740991, got 'three'". Nothing here does I/O (tests/test_protocol.py).
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Optional

from .errors import SQLEnvProtocolError

#: Deepest nesting of objects and arrays a reply may have (the server's replies have 7 levels).
MAX_REPLY_DEPTH = 32
#: Longest integer literal a reply may hold; JavaScript writes integers of 10^21 and above in exponent form.
MAX_INT_DIGITS = 32
#: Largest count (steps, rows) a reply may hold: JavaScript's Number.MAX_SAFE_INTEGER.
MAX_SAFE_INTEGER = 2**53 - 1
#: Characters of a bad value quoted in an error message.
PREVIEW_CHARS = 80


def preview(value: Any) -> str:
    """A short description of a value for an error message, never the whole of a large one."""
    if isinstance(value, dict):
        return f"an object with {len(value)} keys"
    if isinstance(value, list):
        return f"an array of {len(value)} items"
    if isinstance(value, (str, bytes)):
        head = value[:PREVIEW_CHARS]
        return repr(head) + ("…" if len(value) > PREVIEW_CHARS else "")
    return repr(value)[:PREVIEW_CHARS]


class _OutOfBounds(ValueError):
    """A JSON literal this client refuses (raised from inside json.loads by the hooks below)."""


def _refuse_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _OutOfBounds(f"an integer literal with {digits} digits (at most {MAX_INT_DIGITS})")
    return int(literal)


def _refuse_constant(name: str) -> Any:
    raise _OutOfBounds(f"{name}, which is not JSON")


def parse_json(raw: "str | bytes") -> Any:
    """The JSON value of one reply, within the bounds above; SQLEnvProtocolError when it is not."""
    try:
        value = json.loads(raw, parse_int=_refuse_int, parse_constant=_refuse_constant)
    except RecursionError:
        raise SQLEnvProtocolError(
            f"The server sent a reply nested deeper than Python can parse (at most {MAX_REPLY_DEPTH} levels are accepted)."
        ) from None
    except _OutOfBounds as error:
        raise SQLEnvProtocolError(f"The server sent a reply with {error}.") from None
    except (TypeError, ValueError) as error:  # UnicodeDecodeError is a ValueError
        raise SQLEnvProtocolError(f"The server sent a reply that is not JSON: {preview(raw)} ({error}).") from None
    depth = nesting_depth(value, MAX_REPLY_DEPTH)
    if depth > MAX_REPLY_DEPTH:
        raise SQLEnvProtocolError(f"The server sent a reply nested more than {MAX_REPLY_DEPTH} levels deep.")
    return value


def nesting_depth(value: Any, limit: int) -> int:
    """Levels of objects and arrays in a parsed JSON value (a scalar is 0), counted without recursion and
    stopping once past `limit`."""
    deepest = 0
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


# -- field checks: each returns the value when it has the expected type, else raises naming the field ----------------


def _wrong(path: str, expected: str, value: Any) -> SQLEnvProtocolError:
    return SQLEnvProtocolError(f"The server's reply has a bad {path}: it should be {expected}, got {preview(value)}.")


def _missing(path: str) -> SQLEnvProtocolError:
    return SQLEnvProtocolError(f"The server's reply has no {path}.")


def obj(value: Any, path: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise _wrong(path, "an object", value)
    return value


def string(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise _wrong(path, "a string", value)
    return value


def optional_string(value: Any, path: str) -> Optional[str]:
    return None if value is None else string(value, path)


def boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _wrong(path, "true or false", value)
    return value


def count(value: Any, path: str) -> int:
    """A non-negative integer no larger than JavaScript's safe integers (a float such as 3.0 is refused too)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SAFE_INTEGER:
        raise _wrong(path, f"an integer from 0 to {MAX_SAFE_INTEGER}", value)
    return value


def integer(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_SAFE_INTEGER:
        raise _wrong(path, f"an integer of at most {MAX_SAFE_INTEGER} in size", value)
    return value


def number(value: Any, path: str) -> float:
    """A finite number, as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _wrong(path, "a finite number", value)
    return float(value)


def string_list(value: Any, path: str) -> List[str]:
    if not isinstance(value, list):
        raise _wrong(path, "an array of strings", value)
    return [string(item, f"{path}[{i}]") for i, item in enumerate(value)]


def required(data: Dict[str, Any], key: str, path: str) -> Any:
    if key not in data:
        raise _missing(f"{path}.{key}")
    return data[key]


# -- the reply shapes (src/server/protocol.ts) --------------------------------------------------------------------------


def cell(value: Any, path: str) -> Any:
    """One result cell: null, a string, a finite number, or a BLOB as {"$blob": "<hex>"}."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number(value, path)
        return value
    if isinstance(value, dict) and isinstance(value.get("$blob"), str):
        return value
    raise _wrong(path, 'null, a string, a number or {"$blob": "<hex>"}', value)


def result_shape(value: Any, path: str) -> Optional[Dict[str, Any]]:
    """Rows a SAMPLE or QUERY showed: {"columns": [str], "rows": [[cell]], "total_rows": int | null}."""
    if value is None:
        return None
    data = obj(value, path)
    string_list(required(data, "columns", path), f"{path}.columns")
    rows = required(data, "rows", path)
    if not isinstance(rows, list):
        raise _wrong(f"{path}.rows", "an array of rows", rows)
    for r, row in enumerate(rows):
        if not isinstance(row, list):
            raise _wrong(f"{path}.rows[{r}]", "an array of cells", row)
        for c, item in enumerate(row):
            cell(item, f"{path}.rows[{r}][{c}]")
    total = data.get("total_rows")
    if total is not None:
        count(total, f"{path}.total_rows")
    return data


def table_shape(value: Any, path: str) -> Optional[Dict[str, Any]]:
    """A DESCRIBE's schema: {"name", "columns": [{name, type, not_null, primary_key}], "foreign_keys", "row_count"}."""
    if value is None:
        return None
    data = obj(value, path)
    string(required(data, "name", path), f"{path}.name")
    columns = required(data, "columns", path)
    if not isinstance(columns, list):
        raise _wrong(f"{path}.columns", "an array", columns)
    for i, column in enumerate(columns):
        where = f"{path}.columns[{i}]"
        column = obj(column, where)
        string(required(column, "name", where), f"{where}.name")
        string(required(column, "type", where), f"{where}.type")
        boolean(required(column, "not_null", where), f"{where}.not_null")
        count(required(column, "primary_key", where), f"{where}.primary_key")
    keys = data.get("foreign_keys", [])
    if not isinstance(keys, list):
        raise _wrong(f"{path}.foreign_keys", "an array", keys)
    for i, key in enumerate(keys):
        where = f"{path}.foreign_keys[{i}]"
        key = obj(key, where)
        string(required(key, "column", where), f"{where}.column")
        string(required(key, "ref_table", where), f"{where}.ref_table")
        optional_string(key.get("ref_column"), f"{where}.ref_column")
    count(required(data, "row_count", path), f"{path}.row_count")
    return data


def components_shape(value: Any, path: str) -> Dict[str, float]:
    data = obj(value, path)
    return {string(name, f"{path} key"): number(part, f"{path}.{name}") for name, part in data.items()}


def observation_fields(value: Any, path: str = "observation") -> Dict[str, Any]:
    """The arguments of SQLObservation for a server observation; only `text` is required, the rest default."""
    data = obj(value, path)
    metadata = obj(data.get("metadata", {}), f"{path}.metadata")
    if "components" in metadata:
        components_shape(metadata["components"], f"{path}.metadata.components")
    steps_left = data.get("steps_left")
    return {
        "text": string(required(data, "text", path), f"{path}.text"),
        "question": string(data.get("question", ""), f"{path}.question"),
        "db_id": string(data.get("db_id", ""), f"{path}.db_id"),
        "tables": string_list(data.get("tables", []), f"{path}.tables"),
        "steps_left": None if steps_left is None else count(steps_left, f"{path}.steps_left"),
        "result": result_shape(data.get("result"), f"{path}.result"),
        "table": table_shape(data.get("table"), f"{path}.table"),
        "error": optional_string(data.get("error"), f"{path}.error"),
        "metadata": dict(metadata),
        "raw": dict(data),
    }


def step_fields(value: Any) -> Dict[str, Any]:
    """An observation reply's data, {"observation": {...}, "reward": number | null, "done": bool}, checked:
    `observation` and `done` are required, `reward` may be null or absent (after a reset)."""
    data = obj(value, "data")
    reward = data.get("reward")
    return {
        "observation": observation_fields(required(data, "observation", "data"), "data.observation"),
        "reward": None if reward is None else number(reward, "data.reward"),
        "done": boolean(required(data, "done", "data"), "data.done"),
    }


#: State fields the server may send beyond OpenEnv's episode_id and step_count, and how each is checked.
_STATE_FIELDS = {
    "seed": integer,
    "question_id": string,
    "db_id": string,
    "steps_left": count,
    "done": boolean,
    "terminated": boolean,
    "truncated": boolean,
    "best_similarity": number,
    "episode_return": number,
}


def state_fields(value: Any) -> Dict[str, Any]:
    """A state reply's data: step_count required, episode_id a string or null, the other known fields typed."""
    data = obj(value, "data")
    count(required(data, "step_count", "data"), "data.step_count")
    optional_string(data.get("episode_id"), "data.episode_id")
    for key, check in _STATE_FIELDS.items():
        if data.get(key) is not None:
            check(data[key], f"data.{key}")
    return dict(data)


def error_fields(value: Any) -> Dict[str, Any]:
    """An error reply's data: {"message": str, "code": str, "errors"?: [{"loc": [str|int], "msg": str, ...}]}."""
    data = obj(value, "data")
    string(required(data, "message", "data"), "data.message")
    string(required(data, "code", "data"), "data.code")
    issues = data.get("errors")
    if issues is not None:
        if not isinstance(issues, list):
            raise _wrong("data.errors", "an array", issues)
        for i, issue in enumerate(issues):
            where = f"data.errors[{i}]"
            issue = obj(issue, where)
            string(issue.get("msg", ""), f"{where}.msg")
            loc = issue.get("loc", [])
            if not isinstance(loc, list) or not all(isinstance(p, (str, int)) and not isinstance(p, bool) for p in loc):
                raise _wrong(f"{where}.loc", "an array of keys and indexes", loc)
    return data
