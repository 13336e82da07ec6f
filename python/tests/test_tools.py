"""SQLEnvTRL's tool surface as TRL sees it equals tools.json (the export's tool block), with no transformers installed.

TRL lists an environment's public methods with `inspect.getmembers` and renders each with transformers'
`get_json_schema`. Here the same reading is done by a small Google-docstring reader and a type-hint table written
for this test from transformers' documented rules (description = the text before "Args:", one "name: text" line per
argument, str → string, float → number, bare List → array, a Union → the sorted list of its members' types, a
"return" entry whenever there is a return hint), and compared with tools.json, key order included. The by-hand run
of transformers' own code is in docs/python-client.md.
"""

import inspect
import json
import os
import re
import typing
import unittest
from typing import Any, Dict, List, Union

import support  # noqa: F401  (puts the package on sys.path)
from sqlenv_client import SQLEnvTRL
from sqlenv_client.tools import TOOL_SPECS, TOOLS_JSON, json_type_of_hint, tool_method

HINT_TYPES = {str: "string", float: "number", int: "integer", typing.List: "array"}


def hint_type(hint: Any) -> Any:
    if typing.get_origin(hint) is Union:
        return sorted(hint_type(member) for member in typing.get_args(hint))
    return HINT_TYPES[hint]


def read_docstring(doc: str) -> "tuple[str, Dict[str, str]]":
    """(description, {argument: description}) from a Google-style docstring."""
    description, _, rest = doc.partition("\n\nArgs:\n")
    args_block = rest.split("\n\nReturns:")[0]
    arguments = dict(re.findall(r"^\s+(\w+): (.+)$", args_block, flags=re.M))
    return description.strip(), arguments


def schema_as_trl_builds_it(method: Any) -> Dict[str, Any]:
    description, argument_docs = read_docstring(inspect.getdoc(method))
    hints = typing.get_type_hints(method)
    parameters = list(inspect.signature(method).parameters)
    properties = {name: {"type": hint_type(hints[name]), "description": argument_docs[name]} for name in parameters}
    function: Dict[str, Any] = {
        "name": method.__name__,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": parameters},
    }
    if "return" in hints:
        function["return"] = {"type": hint_type(hints["return"])}
    return {"type": "function", "function": function}


class ToolSurfaceTest(unittest.TestCase):
    def setUp(self) -> None:
        self.env = SQLEnvTRL()

    def tool_methods(self) -> List[Any]:
        """TRL's discovery (trl/trainer/grpo_trainer.py): public bound methods but reset and get_reward, as listed."""
        return [
            member
            for name, member in inspect.getmembers(self.env, predicate=inspect.ismethod)
            if name not in ("reset", "get_reward") and not name.startswith("_")
        ]

    def test_tools_come_in_the_json_order(self):
        names = [method.__name__ for method in self.tool_methods()]
        self.assertEqual(names, [spec["function"]["name"] for spec in TOOL_SPECS])
        self.assertEqual(names, ["answer", "describe", "query", "sample"])

    def test_each_tool_renders_as_its_json_entry(self):
        for method, spec in zip(self.tool_methods(), TOOL_SPECS):
            with self.subTest(tool=method.__name__):
                rendered = schema_as_trl_builds_it(method)
                self.assertEqual(json.dumps(rendered, ensure_ascii=False), json.dumps(spec, ensure_ascii=False))

    def test_transformers_renders_the_json_where_it_is_installed(self):
        try:
            from transformers.utils import get_json_schema
        except ImportError:
            self.skipTest("transformers is not installed (docs/python-client.md has the by-hand run of its code)")
        self.assertEqual([get_json_schema(method) for method in self.tool_methods()], TOOL_SPECS)

    def test_answer_takes_json_values(self):
        hints = typing.get_type_hints(SQLEnvTRL.answer)
        self.assertEqual(set(typing.get_args(hints["value"])), {str, float, typing.List})

    def test_the_json_file_is_the_package_copy(self):
        self.assertEqual(os.path.basename(TOOLS_JSON), "tools.json")
        with open(TOOLS_JSON, encoding="utf-8") as file:
            self.assertEqual(json.load(file), TOOL_SPECS)


class ToolMethodCheckTest(unittest.TestCase):
    """@tool_method refuses a method that would drift from tools.json, at import time."""

    def test_a_wrong_argument_name_or_type_or_tool_name_is_refused(self):
        def wrong_name(self: Any, sql_text: str) -> str:
            return sql_text

        wrong_name.__name__ = "query"

        def wrong_type(self: Any, value: str) -> str:
            return value

        wrong_type.__name__ = "answer"

        def unknown(self: Any, table: str) -> str:
            return table

        for method, message in [(wrong_name, "declares the argument 'sql'"), (wrong_type, "the hint gives JSON type string"), (unknown, "no tool")]:
            with self.subTest(method=method.__name__):
                with self.assertRaisesRegex(TypeError, message):
                    tool_method(returns="x")(method)

    def test_json_type_of_hint(self):
        self.assertEqual(json_type_of_hint(Union[str, float, List]), ["array", "number", "string"])
        self.assertEqual(json_type_of_hint(Union[str, int, None]), ["integer", "string"])
        with self.assertRaises(TypeError):
            json_type_of_hint(Dict[str, int])


if __name__ == "__main__":
    unittest.main()
