"""SQLEnvTRL.answer takes what TRL's tool parser gives it: JSON values, sent to the server as JSON.

TRL's Qwen3 response schema (trl/chat_template_utils.py, `qwen3_schema`) JSON-decodes each `<tool_call>…</tool_call>`,
so `answer` receives a str, an int, a float, a list of values or a list of rows, not the text the model wrote. The
first test pins the text each sends; the second plays the gold answer of every row of the SFT export of the curated
Spider train split (`sqlenv export --format sft --dataset spider --split train`, the rows a model is SFT-trained on)
through that path against a real server, and expects every one accepted (the issue measured 227 of 454 with the old
`str(value)`, which sends Python's repr).
"""

from __future__ import annotations

import json
import math
import os
import unittest
from collections import Counter
from typing import Any, Dict, List

from support import ServerProcess, sft_rows, spider_dir
from sqlenv_client import SQLAction, SQLEnvTRL, StepResult
from sqlenv_client.protocol import SQLObservation


class RecordingClient:
    """Stands in for SQLEnvClient: records the actions sent and answers every step with a plain observation."""

    def __init__(self) -> None:
        self.sent: List[SQLAction] = []

    def reset(self, **params: Any) -> StepResult:
        return StepResult(SQLObservation(text="start"))

    def step(self, action: SQLAction) -> StepResult:
        self.sent.append(action)
        return StepResult(SQLObservation(text="ok"), reward=0.0, done=False)


class AnswerEncodingTest(unittest.TestCase):
    def setUp(self) -> None:
        self.env = SQLEnvTRL()
        self.client = RecordingClient()
        self.env._client = self.client  # type: ignore[assignment]
        self.env.reset()

    def sent(self, value: Any) -> str:
        self.env.answer(value)
        action = self.client.sent[-1]
        self.assertEqual(action.action_type, "ANSWER")
        return action.argument

    def test_each_json_type_is_sent_as_json(self):
        # Every type the SFT export's gold answers have: text, int, float, lists of text/ints/nulls, rows.
        cases = [
            ("Paris", "Paris"),
            ("it's 'quoted'", "it's 'quoted'"),
            (42, "42"),
            (-3, "-3"),
            (2.5, "2.5"),
            (["a", "b"], '["a", "b"]'),
            (["O'Hara", "é"], '["O\'Hara", "é"]'),
            ([1, 2], "[1, 2]"),
            ([None, None], "[null, null]"),
            ([["a", 1], ["b", 2.5]], '[["a", 1], ["b", 2.5]]'),
            ([], "[]"),
        ]
        for value, expected in cases:
            with self.subTest(value=value):
                text = self.sent(value)
                self.assertEqual(text, expected)
                if not isinstance(value, str):
                    self.assertEqual(json.loads(text), value, "the server reads back the value TRL passed")

    def test_values_that_are_not_json_are_an_error_text_not_a_step(self):
        for value in [math.nan, math.inf, [1, object()]]:
            with self.subTest(value=repr(value)):
                reply = self.env.answer(value)  # type: ignore[arg-type]
                self.assertTrue(reply.startswith("Error: the answer must be"), reply)
        self.assertEqual(self.client.sent, [], "nothing reached the server, no step was spent")
        self.assertEqual(self.env.steps, 0)

    def test_a_number_where_text_belongs_is_sent_as_its_json_text(self):
        self.env.describe(7)  # type: ignore[arg-type]  # a model may write {"table": 7}
        self.assertEqual(self.client.sent[-1], SQLAction("DESCRIBE", "7"))


def kind_of(value: Any) -> str:
    """A gold answer's shape, for the table: str, int, float, list of <item types>, rows."""
    if isinstance(value, list):
        if value and all(isinstance(item, list) for item in value):
            return "rows"
        return "list of " + "/".join(sorted({type(item).__name__ for item in value})) if value else "empty list"
    return type(value).__name__


def decoded_answer(row: Dict[str, Any]) -> Any:
    """The row's final answer as TRL's parser hands it over: the call written as the model writes it (the JSON
    object Qwen3's template puts in `<tool_call>`), then JSON-decoded."""
    calls = [call for message in row["messages"] for call in message.get("tool_calls") or []]
    final = calls[-1]["function"]
    assert final["name"] == "answer", final
    text = json.dumps({"name": final["name"], "arguments": final["arguments"]}, ensure_ascii=False)
    return json.loads(text)["arguments"]["value"]


@unittest.skipUnless(os.path.exists(os.path.join(spider_dir(), "tables.json")), f"no Spider data at {spider_dir()}")
class SftGoldAnswersTest(unittest.TestCase):
    """Every SFT row's gold answer, passed the way TRL passes it, is accepted by the server."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.rows = sft_rows("spider", "train")
        cls.server = ServerProcess(dataset="spider")
        cls.addClassCleanup(cls.server.stop)

    def test_every_gold_answer_is_accepted(self):
        self.assertGreaterEqual(len(self.rows), 400, "the curated Spider train split has about 450 exportable questions")
        env = SQLEnvTRL()
        env._client = type(env._client)(self.server.url)
        self.addCleanup(env._close)
        tally: Dict[str, Counter] = {}
        refused = []
        for row in self.rows:
            value = decoded_answer(row)
            env.reset(question_id=row["question_id"], split=row["split"])
            reply = env.answer(value)
            correct = env.reward_components.get("correctness") == 1.0
            tally.setdefault(kind_of(value), Counter())[correct] += 1
            if not correct:
                refused.append((row["question_id"], value, reply[:200]))
        table = ", ".join(f"{kind} {c[True]}/{c[True] + c[False]}" for kind, c in sorted(tally.items()))
        print(f"\nSFT gold answers through SQLEnvTRL.answer: {len(self.rows) - len(refused)}/{len(self.rows)} accepted ({table})")
        self.assertEqual(refused, [], f"refused: {refused[:5]}")


if __name__ == "__main__":
    unittest.main()
