"""Oracle episodes through the Python client return what the Node CLI's evaluation returns, step by step.

The CLI plays the Oracle (`sqlenv eval --policy oracle --dataset demo --split all --seed 0 --transcripts`); each
transcript's actions are replayed over the WebSocket on the same question, and every step's reward, the episode's
return and its end must match, as must the mean return of the CLI's --json summary.
"""

import unittest

from support import action_of, oracle_transcripts, server_url
from sqlenv_client import SQLEnvClient

EPISODES = 12
TOLERANCE = 1e-9


class OracleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.summary, cls.records = oracle_transcripts(EPISODES, seed=0)
        cls.env = SQLEnvClient(server_url())

    @classmethod
    def tearDownClass(cls):
        cls.env.close()

    def play(self, record):
        """Replays one transcript on one session; returns (rewards, done, last observation)."""
        first = self.env.reset(question_id=record["questionId"])
        self.assertEqual(first.observation.question, record["question"])
        self.assertEqual(first.observation.db_id, record["dbId"])
        rewards, result = [], first
        for step in record["transcript"]:
            result = self.env.step(action_of(step))
            rewards.append(result.reward)
        return rewards, result

    def test_each_episode_matches_the_cli(self):
        self.assertEqual(len(self.records), EPISODES)
        self.assertGreater(len({r["questionId"] for r in self.records}), 5, "several questions")
        for record in self.records:
            with self.subTest(question=record["questionId"]):
                rewards, last = self.play(record)
                expected = [step["reward"] for step in record["transcript"]]
                self.assertEqual(len(rewards), len(expected))
                for got, want in zip(rewards, expected):
                    self.assertAlmostEqual(got, want, delta=TOLERANCE)
                self.assertAlmostEqual(sum(rewards), record["episodeReturn"], delta=1e-6)
                self.assertTrue(last.done)
                self.assertEqual(last.observation.text, record["transcript"][-1]["observation"])
                state = self.env.state()
                self.assertAlmostEqual(state["episode_return"], record["episodeReturn"], delta=TOLERANCE)
                self.assertEqual(state["step_count"], record["steps"])

    def test_mean_return_matches_the_cli_summary(self):
        returns = [sum(self.play(record)[0]) for record in self.records]
        self.assertAlmostEqual(sum(returns) / len(returns), self.summary["mean_return"], delta=1e-9)
        print(f"\n  Oracle over {len(returns)} demo episodes via the server: mean return {sum(returns) / len(returns):.6f}, "
              f"CLI summary {self.summary['mean_return']:.6f}")


if __name__ == "__main__":
    unittest.main()
