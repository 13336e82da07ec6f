"""The Python run-file helper against a real `sqlenv serve`, and its file read by the page's reader.

The CLI plays the Oracle and writes a run file (`sqlenv eval --transcripts`); a Python policy replays each of its
episodes' actions through `evaluate_policy` over the server, which writes a second run file. Then
`sqlenv compare cli.jsonl python.jsonl --json` — the same reader (src/eval/run-file.ts) and statistics the page uses —
must read the Python file and find the two runs identical question by question: no question solved by one only,
a mean return difference of exactly 0. The header must carry what was given and what the server reported.
"""

import json
import os
import tempfile
import unittest

from support import action_of, server_url, sqlenv_json
from sqlenv_client.runs import as_action, evaluate_policy

EPISODES = 6


class RunFileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.cli_path = os.path.join(cls.dir.name, "cli.jsonl")
        cls.py_path = os.path.join(cls.dir.name, "python.jsonl")
        sqlenv_json("eval", "--policy", "oracle", "--dataset", "demo", "--split", "eval", "--episodes", str(EPISODES),
                    "--seed", "2", "--transcripts", cls.cli_path)
        with open(cls.cli_path, encoding="utf-8") as file:
            lines = [json.loads(line) for line in file if line.strip()]
        cls.cli_header, cls.cli_records = lines[0], lines[1:]
        actions = {r["questionId"]: [action_of(s) for s in r["transcript"]] for r in cls.cli_records}

        def replay_oracle(observation, history):
            question_id = history[0].observation.metadata["question_id"]
            return actions[question_id][len(history) - 1]

        progress = []
        cls.header, cls.records = evaluate_policy(
            replay_oracle, url=server_url(), dataset="demo", split="eval",
            question_ids=[r["questionId"] for r in cls.cli_records], seed=2, policy_name="oracle-replay",
            model="none", settings={"note": "replay", "temperature": 0.0}, path=cls.py_path,
            on_progress=lambda done, total: progress.append((done, total)),
        )
        cls.progress = progress

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_header_names_the_run(self):
        h = self.header
        self.assertEqual(h["format"], "sqlenv-run")
        self.assertEqual(h["envVersion"], self.cli_header["envVersion"])
        self.assertEqual((h["dataset"], h["policy"], h["model"], h["adapter"], h["writer"]), ("demo", "oracle-replay", "none", None, "python"))
        self.assertEqual(h["settings"], {"note": "replay", "temperature": 0.0})
        self.assertEqual(h["episodes"], EPISODES)
        self.assertEqual(self.progress[-1], (EPISODES, EPISODES))
        with open(self.py_path, encoding="utf-8") as file:
            lines = [json.loads(line) for line in file]
        self.assertEqual(lines[0], h)
        self.assertEqual(lines[1:], self.records)

    def test_records_match_the_cli_episode_by_episode(self):
        for cli, py in zip(self.cli_records, self.records):
            with self.subTest(question=cli["questionId"]):
                for key in ("questionId", "dbId", "question", "difficulty", "split", "success", "steps", "terminated", "truncated"):
                    self.assertEqual(py[key], cli[key], key)
                self.assertAlmostEqual(py["episodeReturn"], cli["episodeReturn"], delta=1e-9)
                self.assertEqual([s["actionText"] for s in py["transcript"]], [s["actionText"] for s in cli["transcript"]])
                self.assertEqual([s["observation"] for s in py["transcript"]], [s["observation"] for s in cli["transcript"]])
                for k in ("correctness", "progress", "operational"):
                    self.assertAlmostEqual(py["components"][k], cli["components"][k], delta=1e-9)

    def test_the_page_reader_reads_it_and_finds_no_difference(self):
        out = json.loads(sqlenv_json("compare", self.cli_path, self.py_path, "--json").strip().splitlines()[-1])
        self.assertEqual(out["b"]["writer"], "python")
        self.assertEqual(out["overall"]["questions"], len({r["questionId"] for r in self.cli_records}))
        self.assertEqual((out["overall"]["onlyA"], out["overall"]["onlyB"]), (0, 0))
        self.assertAlmostEqual(out["overall"]["meanReturnDiff"], 0.0, delta=1e-9)
        self.assertEqual(out["warnings"], [])
        print(f"\n  sqlenv compare (CLI Oracle vs Python replay): {out['summary']}")

    def test_actions_in_every_form(self):
        self.assertEqual(as_action("query: SELECT 1").to_data(), {"action_type": "QUERY", "argument": "SELECT 1"})
        self.assertEqual(as_action({"action_type": "ANSWER", "argument": "3"}).action_type, "ANSWER")
        with self.assertRaises(TypeError):
            as_action(3)


if __name__ == "__main__":
    unittest.main()
