"""The typed models (sqlenv_client/models.py) against the real server's replies, and their OpenEnv side.

Without openenv-core (as here), the models must take every reply of `sqlenv serve` as it is (they forbid unknown
fields, as OpenEnv's Action and Observation do, so a field the models lack fails) and refuse bad actions. With it,
they must subclass OpenEnv's types and SqlenvEnv must be an EnvClient: that is checked in a subprocess whose path holds a
small stand-in `openenv` package (OpenEnv itself cannot be installed here), written by the test.
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from support import PYTHON_DIR, server_url
from sqlenv_client import OPENENV_TYPES, SQLEnvAction, SQLEnvClient, SQLEnvObservation, SQLEnvState, SqlenvEnv
from sqlenv_client.models import dump_model, parse_model
from sqlenv_client.openenv_client import action_payload, observation_from_reply

QUESTION = "demo-school-014"


class ModelsAgainstTheServerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = SQLEnvClient(server_url())
        self.addCleanup(self.client.close)

    def typed(self, result) -> SQLEnvObservation:
        return observation_from_reply({"observation": result.observation.raw, "reward": result.reward, "done": result.done})

    def test_every_reply_of_an_episode_validates(self):
        first = self.typed(self.client.reset(question_id=QUESTION))
        self.assertEqual((first.db_id, first.done, first.reward), ("school", False, None))
        self.assertIn("students", first.tables)
        actions = [
            SQLEnvAction(action_type="DESCRIBE", argument="students"),
            SQLEnvAction(action_type="SAMPLE", argument="nope"),
            SQLEnvAction(action_type="QUERY", argument="SELECT count(*) FROM students"),
            SQLEnvAction(action_type="ANSWER", argument="72"),
        ]
        observations = [self.typed(self.client.step(action_payload(action))) for action in actions]
        described, refused, queried, answered = observations
        self.assertEqual(described.table["name"], "students")
        self.assertIn("Unknown table", refused.error)
        self.assertEqual(queried.result["columns"], ["count(*)"])
        self.assertTrue(answered.done)
        self.assertIsInstance(answered.reward, float)
        state = parse_model(SQLEnvState, self.client.state())
        self.assertEqual(state.step_count, 4)
        self.assertTrue(state.episode_id)
        self.assertEqual(dump_model(state)["question_id"], QUESTION, "the episode's own fields are kept as extra fields")

    def test_bad_actions_and_unknown_fields_are_refused(self):
        for fields in [{"action_type": "DROP", "argument": "x"}, {"action_type": "QUERY"}, {"action_type": "QUERY", "argument": "x", "sql": "y"}]:
            with self.subTest(fields=fields):
                with self.assertRaises(ValueError):  # pydantic's ValidationError is a ValueError in both majors
                    SQLEnvAction(**fields)
        with self.assertRaises(ValueError):
            parse_model(SQLEnvObservation, {"text": "t", "surprise": 1})

    def test_the_payload_is_the_wire_action(self):
        self.assertEqual(action_payload(SQLEnvAction(action_type="QUERY", argument="SELECT 1")), {"action_type": "QUERY", "argument": "SELECT 1"})

    def test_without_openenv(self):
        self.assertFalse(OPENENV_TYPES)
        self.assertIsNone(SqlenvEnv)


STAND_IN = {
    "openenv/__init__.py": "",
    "openenv/core/__init__.py": "",
    "openenv/core/env_server/__init__.py": "",
    "openenv/core/env_server/types.py": """
        from typing import Any, Dict, Optional
        from pydantic import BaseModel, Field
        class Action(BaseModel):
            metadata: Dict[str, Any] = Field(default_factory=dict)
            class Config:
                extra = "forbid"
        class Observation(BaseModel):
            done: bool = False
            reward: Optional[float] = None
            metadata: Dict[str, Any] = Field(default_factory=dict)
            class Config:
                extra = "forbid"
        class State(BaseModel):
            episode_id: Optional[str] = None
            step_count: int = 0
            class Config:
                extra = "allow"
    """,
    "openenv/core/client_types.py": """
        from dataclasses import dataclass
        from typing import Generic, Optional, TypeVar
        ObsT = TypeVar("ObsT")
        @dataclass
        class StepResult(Generic[ObsT]):
            observation: ObsT
            reward: Optional[float] = None
            done: bool = False
    """,
    "openenv/core/env_client.py": """
        from abc import ABC, abstractmethod
        from typing import Generic, TypeVar
        A, O, S = TypeVar("A"), TypeVar("O"), TypeVar("S")
        class EnvClient(ABC, Generic[A, O, S]):
            def __init__(self, base_url, provider=None):
                self.base_url = base_url
            @abstractmethod
            def _step_payload(self, action): ...
            @abstractmethod
            def _parse_result(self, payload): ...
            @abstractmethod
            def _parse_state(self, payload): ...
    """,
}

PROBE = """
import json
from openenv.core.env_server.types import Action, Observation, State
from openenv.core.env_client import EnvClient
import sqlenv_client
from sqlenv_client import client
env = client.SqlenvEnv(base_url="http://127.0.0.1:1", provider=None)  # AutoEnv's call
result = env._parse_result({"observation": {"text": "t", "tables": ["a"], "metadata": {}}, "reward": 0.5, "done": True})
print(json.dumps({
    "openenv_types": sqlenv_client.OPENENV_TYPES,
    "subclasses": [issubclass(sqlenv_client.SQLEnvAction, Action), issubclass(sqlenv_client.SQLEnvObservation, Observation),
                   issubclass(sqlenv_client.SQLEnvState, State), issubclass(client.SqlenvEnv, EnvClient)],
    "name": client.SqlenvEnv.__name__,
    "payload": env._step_payload(sqlenv_client.SQLEnvAction(action_type="QUERY", argument="SELECT 1")),
    "result": [result.observation.text, result.observation.tables, result.reward, result.done],
    "state": env._parse_state({"episode_id": "e", "step_count": 3, "question": "q"}).step_count,
}))
"""


class WithOpenEnvTest(unittest.TestCase):
    def test_models_and_client_subclass_openenv_types(self):
        with tempfile.TemporaryDirectory() as directory:
            for path, text in STAND_IN.items():
                os.makedirs(os.path.dirname(os.path.join(directory, path)), exist_ok=True)
                with open(os.path.join(directory, path), "w", encoding="utf-8") as file:
                    file.write(textwrap.dedent(text))
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([directory, PYTHON_DIR]), "PYTHONDONTWRITEBYTECODE": "1"}
            done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertTrue(report["openenv_types"])
        self.assertEqual(report["subclasses"], [True, True, True, True])
        self.assertEqual(report["name"], "SqlenvEnv")
        self.assertEqual(report["payload"], {"action_type": "QUERY", "argument": "SELECT 1"})
        self.assertEqual(report["result"], ["t", ["a"], 0.5, True])
        self.assertEqual(report["state"], 3)


if __name__ == "__main__":
    unittest.main()
