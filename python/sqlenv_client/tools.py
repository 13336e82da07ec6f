"""The tool block, read from tools.json: the same four tools, words and order as the page's policy and the SFT export.

tools.json is a copy of SQL_TOOLS (src/policies/llm/tools.ts, the one source), written by
`npx tsx scripts/write-tool-specs.ts`; a test on each side fails when the copy is stale or the methods drift from it.

TRL (`GRPOTrainer(environment_factory=...)`) does not read this file: it lists an environment's public methods with
`inspect.getmembers` (alphabetical) and turns each into a tool with transformers' `get_json_schema`, which reads the
method's type hints and its Google-style docstring:

    {"type": "function", "function": {"name": <method name>, "description": <docstring text before "Args:">,
     "parameters": {"type": "object", "properties": {<arg>: {"type": <from the hint>, "description": <Args: line>}},
                    "required": [<args without a default>]},
     "return": {"type": <from the return hint>, "description": <Returns: block>}}}   (only with a return hint)

`tool_method` makes that rendering equal to the JSON: it writes the docstring from the JSON (description on one line,
as get_json_schema keeps newlines in it), checks the argument's name and type hint against the JSON, and drops the
return hint at run time, since the export's tool block has no "return" entry (type checkers still see `-> str`).
"""

from __future__ import annotations

import inspect
import json
import typing
from pathlib import Path
from typing import Any, Callable, Dict, List, TypeVar, Union, get_type_hints

TOOLS_JSON = Path(__file__).with_name("tools.json")

#: The tool declarations, in the order the export and the page show them (alphabetical, TRL's order).
TOOL_SPECS: List[Dict[str, Any]] = json.loads(TOOLS_JSON.read_text(encoding="utf-8"))
TOOL_SPECS_BY_NAME: Dict[str, Dict[str, Any]] = {spec["function"]["name"]: spec for spec in TOOL_SPECS}

Method = TypeVar("Method", bound=Callable[..., Any])

_JSON_TYPE_OF = {str: "string", int: "integer", float: "number", bool: "boolean"}


def tool_argument(name: str) -> "tuple[str, Dict[str, Any]]":
    """The one argument of tool `name`: its name and its JSON schema (type and description)."""
    properties = TOOL_SPECS_BY_NAME[name]["function"]["parameters"]["properties"]
    if len(properties) != 1:
        raise ValueError(f"tools.json: tool '{name}' should take exactly one argument, has {sorted(properties)}.")
    ((argument, schema),) = properties.items()
    return argument, schema


def tool_docstring(name: str, returns: str) -> str:
    """The Google-style docstring transformers' get_json_schema reads back as tool `name`'s JSON entry."""
    spec = TOOL_SPECS_BY_NAME[name]["function"]
    argument, schema = tool_argument(name)
    return f"{spec['description']}\n\nArgs:\n    {argument}: {schema['description']}\n\nReturns:\n    {returns}\n"


def json_type_of_hint(hint: Any) -> Any:
    """The JSON schema "type" transformers writes for a type hint, for the hints the tools use: a basic type's name,
    `array` for a bare `List`, and a Union as the sorted list of its members' names (None left out)."""
    if hint in _JSON_TYPE_OF:
        return _JSON_TYPE_OF[hint]
    origin = typing.get_origin(hint)
    if origin is list and not typing.get_args(hint):
        return "array"
    if origin is Union:
        return sorted(json_type_of_hint(member) for member in typing.get_args(hint) if member is not type(None))
    raise TypeError(f"No JSON type for the hint {hint!r} (use str, int, float, bool, List or a Union of them).")


def tool_method(returns: str) -> Callable[[Method], Method]:
    """Marks a SQLEnvTRL method as the tool of the same name in tools.json (see the module's header).

    Args:
        returns: What the tool returns, for the docstring's Returns: block (people read it; the tool block does not).

    Raises:
        TypeError: At import, when the method's argument name or type hint differs from tools.json.
    """

    def decorate(method: Method) -> Method:
        name = method.__name__
        if name not in TOOL_SPECS_BY_NAME:
            raise TypeError(f"{name}: no tool of that name in {TOOLS_JSON.name} ({', '.join(TOOL_SPECS_BY_NAME)}).")
        argument, schema = tool_argument(name)
        parameters = [p for p in inspect.signature(method).parameters if p != "self"]
        if parameters != [argument]:
            raise TypeError(f"{name}: takes {parameters}, but {TOOLS_JSON.name} declares the argument '{argument}'.")
        hint_type = json_type_of_hint(get_type_hints(method)[argument])
        if hint_type != schema["type"]:
            raise TypeError(f"{name}({argument}): the hint gives JSON type {hint_type}, {TOOLS_JSON.name} says {schema['type']}.")
        method.__doc__ = tool_docstring(name, returns)
        # get_json_schema would add {"return": {"type": "string", ...}} to the tool block; the export has none.
        method.__annotations__ = {key: value for key, value in method.__annotations__.items() if key != "return"}
        return method

    return decorate
