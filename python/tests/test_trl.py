"""SQLEnvTRL as TRL drives it: constructed with no arguments, reset(**row), tools called synchronously, reward read."""

import os
import unittest
from unittest import mock

from support import oracle_transcripts, prompt_rows, server_url
from sqlenv_client import EPISODE_OVER, SQLEnvTRL, sqlenv_reward

QUESTION = "demo-school-014"
ORACLE_SQL = "SELECT count(*) FROM students WHERE birth_date LIKE '2003%' OR enrollment_year = 2021"


def make_env() -> SQLEnvTRL:
    with mock.patch.dict(os.environ, {"SQLENV_URL": server_url()}):
        return SQLEnvTRL()


class TrlToolFlowTest(unittest.TestCase):
    def setUp(self):
        self.env = make_env()
        self.addCleanup(self.env._close)

    def test_a_row_resets_to_its_question(self):
        # TRL passes the whole row, prompt included; only the reset parameters reach the server.
        row = {"prompt": [{"role": "user", "content": "Answer with the tools."}], "question_id": QUESTION, "db_id": "school"}
        text = self.env.reset(**row)
        self.assertIn("How many students were born in 2003 or enrolled in 2021?", text)
        self.assertIn("Tables: departments, teachers, courses, students, enrollments", text)
        self.assertEqual((self.env.reward, self.env.done, self.env.steps), (0.0, False, 0))
        self.assertEqual(self.env.reset(question_id=QUESTION), text, "without a prompt, the observation is returned")

    def test_exported_rows_reset_to_their_questions_without_repeating_the_prompt(self):
        rows = prompt_rows("train")[:5]
        self.assertEqual(len(rows), 5)
        for row in rows:
            with self.subTest(question=row["question_id"]):
                self.assertIsNone(self.env.reset(**row), "the exported prompt already shows the first observation")
                observation = self.env.last.observation
                self.assertEqual((observation.question, observation.db_id), (row["question"], row["db_id"]))
                self.assertIn(observation.text, row["prompt"][-1]["content"])

    def test_oracle_flow_then_episode_over(self):
        self.env.reset(question_id=QUESTION)
        self.assertIn("enrollment_year", self.env.describe("students"))
        self.assertIn("72", self.env.query(ORACLE_SQL))
        self.assertIn("correct", self.env.answer("72"))
        self.assertTrue(self.env.done)
        self.assertAlmostEqual(self.env.reward, 0.98)
        self.assertEqual(self.env.reward_components, {"correctness": 1.0, "progress": 0.0, "operational": self.env.reward_components["operational"]})
        self.assertAlmostEqual(self.env.reward_components["operational"], -0.02)
        for tool, argument in [(self.env.describe, "students"), (self.env.query, "SELECT 1"), (self.env.answer, "72")]:
            self.assertEqual(tool(argument), EPISODE_OVER)
        self.assertEqual(self.env.steps, 3)
        self.assertEqual(sqlenv_reward(environments=[self.env], prompts=["p"], completions=["c"]), [self.env.reward])

    def test_mistakes_are_text_not_exceptions(self):
        self.env.reset(question_id=QUESTION)
        self.assertIn("Unknown table", self.env.sample("nope"))
        self.assertIn("Error", self.env.query("DELETE FROM students"))
        self.assertIn("incorrect", self.env.answer("71").lower())
        self.assertTrue(self.env.done)
        self.assertLess(self.env.reward, 0.4)

    def test_budget_ends_the_episode(self):
        self.env.reset(question_id=QUESTION)
        for i in range(10):
            self.env.query(f"SELECT student_id FROM students LIMIT {i + 1}")
        self.assertTrue(self.env.done)
        self.assertEqual(self.env.steps, 10)
        self.assertEqual(self.env.sample("students"), EPISODE_OVER)

    def test_reset_reuses_the_session_and_clears_the_return(self):
        self.env.reset(question_id=QUESTION)
        self.env.answer("72")
        socket = self.env._client._ws
        self.env.reset(question_id="demo-school-009")
        self.assertIs(self.env._client._ws, socket, "one server session per instance")
        self.assertEqual((self.env.reward, self.env.reward_components, self.env.done), (0.0, {}, False))

    def test_tool_before_reset_raises(self):
        with self.assertRaises(RuntimeError):
            self.env.describe("students")

    def test_default_url(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(SQLEnvTRL()._client.url, "ws://127.0.0.1:8000/ws")


class TrlOracleReturnsTest(unittest.TestCase):
    """A batch of instances, as TRL pools them, plays the CLI's Oracle transcripts; sqlenv_reward gives their returns."""

    def test_batch_returns_equal_the_cli(self):
        _, records = oracle_transcripts(6, seed=3)
        environments = [make_env() for _ in records]
        for env in environments:
            self.addCleanup(env._close)
        for env, record in zip(environments, records):
            env.reset(question_id=record["questionId"], prompt="ignored")
            for step in record["transcript"]:
                action = step["action"]
                tool = {"DESCRIBE": env.describe, "SAMPLE": env.sample, "QUERY": env.query, "ANSWER": env.answer}[action["type"]]
                tool(action.get("table", action.get("sql", action.get("value"))))
        rewards = sqlenv_reward(environments=environments)
        for got, record in zip(rewards, records):
            self.assertAlmostEqual(got, record["episodeReturn"], delta=1e-9)


if __name__ == "__main__":
    unittest.main()
