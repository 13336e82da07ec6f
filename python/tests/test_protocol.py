"""The protocol's shapes and the TRL class's tool surface, checked without a server."""

import inspect
import json
import socket
import typing
import unittest

import support  # noqa: F401  (puts the package on sys.path)
from sqlenv_client import SQLEnvClient, SQLEnvConnectionError, SQLEnvProtocolError, SQLEnvServerError, SQLEnvTRL
from sqlenv_client.protocol import SQLAction, decode, expect, normalize_url, parse_result, reset_message, step_message


class UrlTest(unittest.TestCase):
    def test_normalize_url(self):
        cases = [
            ("ws://127.0.0.1:8000/ws", "ws://127.0.0.1:8000/ws"),
            ("ws://127.0.0.1:8000", "ws://127.0.0.1:8000/ws"),
            ("ws://127.0.0.1:8000/", "ws://127.0.0.1:8000/ws"),
            ("http://localhost:8000", "ws://localhost:8000/ws"),
            ("https://example.org/ws", "wss://example.org/ws"),
            ("127.0.0.1:9000", "ws://127.0.0.1:9000/ws"),
            ("ws://host:1/custom/path", "ws://host:1/custom/path"),
        ]
        for given, expected in cases:
            with self.subTest(given=given):
                self.assertEqual(normalize_url(given), expected)


class MessageTest(unittest.TestCase):
    def test_reset_leaves_out_none(self):
        self.assertEqual(reset_message(seed=3, question_id=None, split="eval"), {"type": "reset", "data": {"seed": 3, "split": "eval"}})
        self.assertEqual(reset_message(), {"type": "reset", "data": {}})

    def test_step_from_action_or_dict(self):
        expected = {"type": "step", "data": {"action_type": "QUERY", "argument": "SELECT 1"}}
        self.assertEqual(step_message(SQLAction("QUERY", "SELECT 1")), expected)
        self.assertEqual(step_message({"action_type": "QUERY", "argument": "SELECT 1"}), expected)

    def test_error_reply_raises_with_code(self):
        raw = json.dumps({"type": "error", "data": {"message": "Unknown message type: nope", "code": "UNKNOWN_TYPE"}})
        with self.assertRaises(SQLEnvServerError) as caught:
            decode(raw)
        self.assertEqual(caught.exception.code, "UNKNOWN_TYPE")
        self.assertEqual(caught.exception.message, "Unknown message type: nope")
        self.assertIn("UNKNOWN_TYPE", str(caught.exception))

    def test_malformed_replies(self):
        for raw in ["not json", "[1, 2]", '{"data": {}}']:
            with self.subTest(raw=raw), self.assertRaises(SQLEnvProtocolError):
                decode(raw)
        with self.assertRaises(SQLEnvProtocolError):
            expect({"type": "state", "data": {}}, "observation")
        with self.assertRaises(SQLEnvProtocolError):
            parse_result({"reward": 1.0, "done": True})

    def test_parse_observation(self):
        data = {
            "observation": {
                "text": "> QUERY SELECT 1\n...",
                "question": "How many?",
                "db_id": "school",
                "tables": ["students"],
                "steps_left": 7,
                "result": {"columns": ["1"], "rows": [[1]], "total_rows": 1},
                "metadata": {"components": {"correctness": 0, "progress": 0, "operational": 0.02}},
            },
            "reward": 0.02,
            "done": False,
        }
        result = parse_result(data)
        self.assertEqual(result.reward, 0.02)
        self.assertFalse(result.done)
        self.assertEqual(result.observation.db_id, "school")
        self.assertEqual(result.observation.steps_left, 7)
        self.assertEqual(result.observation.components["operational"], 0.02)
        self.assertIsNone(parse_result({"observation": {"text": ""}, "reward": None, "done": False}).reward)


class ConnectionTest(unittest.TestCase):
    def test_no_server_is_a_connection_error(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        # The port was free a moment ago and nothing listens on it now.
        client = SQLEnvClient(f"ws://127.0.0.1:{port}/ws", connect_timeout_s=2)
        with self.assertRaises(SQLEnvConnectionError) as caught:
            client.reset()
        self.assertIn(str(port), str(caught.exception))
        client.close()
        client.close()


class ToolSurfaceTest(unittest.TestCase):
    """TRL exposes every public method but reset and get_reward as a tool, with a schema from hints and docstring."""

    def test_public_methods_are_reset_and_the_four_tools(self):
        env = SQLEnvTRL()
        public = {name for name, _ in inspect.getmembers(env, predicate=inspect.ismethod) if not name.startswith("_")}
        self.assertEqual(public, {"reset", "describe", "sample", "query", "answer"})

    def test_tools_are_typed_and_documented(self):
        for name, argument in [("describe", "table"), ("sample", "table"), ("query", "sql"), ("answer", "value")]:
            with self.subTest(tool=name):
                method = getattr(SQLEnvTRL, name)
                hints = typing.get_type_hints(method)
                self.assertEqual(hints, {argument: str, "return": str})
                doc = inspect.getdoc(method)
                self.assertIn("Args:", doc)
                self.assertIn(f"    {argument}: ", doc)
                self.assertIn("Returns:", doc)

    def test_schema_as_transformers_builds_it(self):
        try:
            from transformers.utils import get_json_schema
        except ImportError:
            self.skipTest("transformers is not installed")
        schema = get_json_schema(SQLEnvTRL().query)
        self.assertEqual(schema["function"]["name"], "query")
        self.assertEqual(schema["function"]["parameters"]["required"], ["sql"])


if __name__ == "__main__":
    unittest.main()
