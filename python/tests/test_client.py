"""SQLEnvClient against the real server: observation fields, errors that leave the session usable, state, close."""

import unittest

from support import server_url
from sqlenv_client import SQLAction, SQLEnvClient, SQLEnvServerError

QUESTION = "demo-school-014"  # "How many students were born in 2003 or enrolled in 2021?" (school; gold 72)


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.env = SQLEnvClient(server_url())
        self.addCleanup(self.env.close)

    def test_reset_gives_the_first_observation(self):
        result = self.env.reset(question_id=QUESTION)
        observation = result.observation
        self.assertFalse(result.done)
        self.assertIn(result.reward, (None, 0, 0.0))
        self.assertEqual(observation.db_id, "school")
        self.assertIn("born in 2003", observation.question)
        self.assertIn("students", observation.tables)
        self.assertEqual(observation.steps_left, 10)
        self.assertIn(observation.question, observation.text)

    def test_step_gives_text_result_and_components(self):
        self.env.reset(question_id=QUESTION)
        described = self.env.step(SQLAction("DESCRIBE", "students"))
        self.assertIn("enrollment_year", described.observation.text)
        self.assertEqual(described.observation.steps_left, 9)
        # Environment v3: every step costs 0.01; nothing is paid for looking.
        self.assertAlmostEqual(described.reward, -0.01)
        self.assertEqual(set(described.observation.components), {"correctness", "progress", "operational"})
        queried = self.env.query("SELECT count(*) FROM students WHERE birth_date LIKE '2003%' OR enrollment_year = 2021")
        self.assertIsNotNone(queried.observation.result)
        self.assertIn("72", queried.observation.text)
        answered = self.env.answer("72")
        self.assertTrue(answered.done)
        self.assertEqual(answered.observation.components["correctness"], 1)
        self.assertAlmostEqual(described.reward + queried.reward + answered.reward, 0.98)

    def test_bad_action_type_is_an_error_and_the_session_goes_on(self):
        self.env.reset(question_id=QUESTION)
        with self.assertRaises(SQLEnvServerError) as caught:
            self.env.step({"action_type": "DROP", "argument": "students"})
        self.assertEqual(caught.exception.code, "VALIDATION_ERROR")
        self.assertEqual([issue["loc"] for issue in caught.exception.errors], [["data", "action_type"]])
        self.assertIn("data.action_type: Input should be 'DESCRIBE', 'SAMPLE', 'QUERY' or 'ANSWER' (got 'DROP')", str(caught.exception))
        result = self.env.step(SQLAction("DESCRIBE", "students"))
        self.assertEqual(result.observation.steps_left, 9, "the refused message cost no step")

    def test_unknown_message_type_is_an_error(self):
        self.env.connect()
        with self.assertRaises(SQLEnvServerError) as caught:
            self.env._request({"type": "teleport"}, dict)
        self.assertEqual(caught.exception.code, "UNKNOWN_TYPE")
        self.assertEqual(self.env.reset(question_id=QUESTION).observation.steps_left, 10)

    def test_step_before_reset_is_an_error(self):
        with self.assertRaises(SQLEnvServerError):
            self.env.step(SQLAction("DESCRIBE", "students"))
        self.assertFalse(self.env.reset(question_id=QUESTION).done)

    def test_invalid_action_in_the_environment_costs_a_step(self):
        # An unknown table is not a protocol error: the environment answers it with an observation and a penalty.
        self.env.reset(question_id=QUESTION)
        result = self.env.describe("no_such_table")
        self.assertFalse(result.done)
        self.assertAlmostEqual(result.reward, -0.05)
        self.assertIn("no_such_table", result.observation.text)

    def test_state(self):
        self.env.reset(question_id=QUESTION)
        self.env.describe("students")
        state = self.env.state()
        self.assertEqual(state.get("step_count"), 1)
        self.assertIn("episode_id", state)

    def test_seeded_resets_repeat_and_sessions_are_independent(self):
        other = SQLEnvClient(server_url())
        self.addCleanup(other.close)
        first = self.env.reset(seed=7, split="all").observation
        second = other.reset(seed=7, split="all").observation
        self.assertEqual((first.question, first.db_id), (second.question, second.db_id))
        other.describe(first.tables[0])
        self.assertEqual(self.env.state().get("step_count"), 0, "a step in one session does not touch another")

    def test_close_is_harmless_twice_and_a_new_connection_works(self):
        self.env.reset(question_id=QUESTION)
        self.env.close()
        self.env.close()
        self.assertFalse(self.env.connected)
        self.assertEqual(self.env.reset(question_id=QUESTION).observation.steps_left, 10)


if __name__ == "__main__":
    unittest.main()
