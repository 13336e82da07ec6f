"""The protocol's shapes, checked without a server (the TRL class's tool surface: test_tools.py)."""

import json
import socket
import unittest

import support  # noqa: F401  (puts the package on sys.path)
from sqlenv_client import SQLEnvClient, SQLEnvConnectionError, SQLEnvProtocolError, SQLEnvServerError
from sqlenv_client.protocol import SQLAction, decode, expect, normalize_url, parse_result, reset_message, step_message
from sqlenv_client.replies import MAX_REPLY_DEPTH, nesting_depth, parse_json


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


class ReplyBoundsTest(unittest.TestCase):
    """The bounds of replies.py at their edges: the last value accepted and the first refused, derived by hand."""

    def test_nesting_depth(self):
        cases = [(5, 0), ("s", 0), ([], 1), ({}, 1), ({"a": [1]}, 2), ([[[]]], 3), ({"a": {"b": []}, "c": 1}, 3),
                 ([1, [2, [3]], [4]], 3)]
        for value, depth in cases:
            with self.subTest(value=value):
                self.assertEqual(nesting_depth(value, 100), depth)
        self.assertEqual(nesting_depth([[[[[]]]]], 2), 3, "stops once past the limit")

    def test_depth_limit(self):
        self.assertEqual(MAX_REPLY_DEPTH, 32)
        expected: list = []
        for _ in range(31):
            expected = [expected]
        self.assertEqual(parse_json("[" * 32 + "]" * 32), expected)
        with self.assertRaises(SQLEnvProtocolError):
            parse_json("[" * 33 + "]" * 33)
        with self.assertRaises(SQLEnvProtocolError):
            parse_json('{"a": ' * 33 + "1" + "}" * 33)

    def test_integer_literal_limit(self):
        self.assertEqual(parse_json("9" * 32), 10**32 - 1)
        self.assertEqual(parse_json("-" + "9" * 32), -(10**32 - 1))
        for literal in ["9" * 33, "-" + "9" * 33]:
            with self.subTest(digits=len(literal)), self.assertRaises(SQLEnvProtocolError):
                parse_json(literal)
        self.assertEqual(parse_json("1e400"), float("inf"), "a float literal is not an integer literal (finite checks come later)")
        for constant in ["NaN", "Infinity", "-Infinity"]:
            with self.subTest(constant=constant), self.assertRaises(SQLEnvProtocolError):
                parse_json(constant)

    def test_counts_are_safe_integers(self):
        def steps_left(value):
            return parse_result({"observation": {"text": "", "steps_left": value}, "reward": None, "done": False}).observation.steps_left

        self.assertEqual(steps_left(2**53 - 1), 2**53 - 1)
        self.assertEqual(steps_left(0), 0)
        self.assertIsNone(steps_left(None))
        for bad in [2**53, -1, 3.0, True, "3"]:
            with self.subTest(value=bad), self.assertRaises(SQLEnvProtocolError):
                steps_left(bad)

    def test_reward_and_done(self):
        def result(**data):
            return parse_result({"observation": {"text": ""}, **data})

        self.assertEqual(result(reward=1, done=True).reward, 1.0)
        self.assertIsInstance(result(reward=1, done=True).reward, float)
        self.assertIsNone(result(done=False).reward, "no reward after a reset")
        self.assertEqual(result(reward=-0.05, done=False).reward, -0.05)
        for data in [{"reward": True, "done": False}, {"reward": float("inf"), "done": False}, {"reward": 0},
                     {"reward": 0, "done": 1}, {"reward": 0, "done": None}]:
            with self.subTest(data=data), self.assertRaises(SQLEnvProtocolError):
                result(**data)

    def test_optional_observation_fields_default(self):
        observation = parse_result({"observation": {"text": "t"}, "reward": None, "done": False}).observation
        self.assertEqual((observation.question, observation.db_id, observation.tables, observation.metadata), ("", "", [], {}))
        self.assertEqual((observation.result, observation.table, observation.error, observation.steps_left), (None, None, None, None))

    def test_result_and_table_shapes(self):
        good_result = {"columns": ["a", "b"], "rows": [[1, "x"], [None, {"$blob": "00ff"}], [2.5, -3]], "total_rows": None}
        good_table = {"name": "t", "columns": [{"name": "id", "type": "INTEGER", "not_null": True, "primary_key": 1}],
                      "foreign_keys": [{"column": "a", "ref_table": "u", "ref_column": None}], "row_count": 4}
        observation = parse_result({"observation": {"text": "", "result": good_result, "table": good_table},
                                    "reward": 0, "done": False}).observation
        self.assertEqual((observation.result, observation.table), (good_result, good_table))
        bad = [("result", {**good_result, "rows": [[True]]}), ("result", {**good_result, "rows": [[{"$blob": 1}]]}),
               ("result", {**good_result, "rows": [[float("nan")]]}), ("result", {**good_result, "total_rows": -1}),
               ("result", {"rows": []}), ("table", {**good_table, "row_count": "4"}),
               ("table", {**good_table, "foreign_keys": [{"column": "a", "ref_table": 5}]}),
               ("table", {**good_table, "columns": [{"name": "id", "type": "INTEGER", "not_null": "yes", "primary_key": 0}]})]
        for key, value in bad:
            with self.subTest(key=key, value=value), self.assertRaises(SQLEnvProtocolError):
                parse_result({"observation": {"text": "", key: value}, "reward": 0, "done": False})

    def test_error_replies(self):
        with self.assertRaises(SQLEnvServerError) as caught:
            decode(json.dumps({"type": "error", "data": {"message": "m", "code": "C", "extra": {"any": 1}}}))
        self.assertEqual((caught.exception.message, caught.exception.code, caught.exception.errors), ("m", "C", []))
        for data in [None, {"code": "C"}, {"message": "m"}, {"message": ["m"], "code": "C"},
                     {"message": "m", "code": "C", "errors": [1]}, {"message": "m", "code": "C", "errors": [{"loc": [True]}]}]:
            with self.subTest(data=data), self.assertRaises(SQLEnvProtocolError):
                decode(json.dumps({"type": "error", "data": data}))


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


if __name__ == "__main__":
    unittest.main()
