"""sqlenv_client: Python access to `npx sqlenv serve` (SQLEnv: Spider SQLite databases as an RL environment).

- SQLEnvClient: a synchronous client speaking OpenEnv's WebSocket protocol, one episode session per connection.
- SQLEnvTRL and sqlenv_reward: an environment class and a reward function for TRL's GRPOTrainer(environment_factory=…).
- protocol: the message shapes and typed errors, with no I/O.
"""

from .client import SQLEnvClient
from .protocol import (
    ACTION_TYPES,
    DEFAULT_URL,
    SQLAction,
    SQLEnvConnectionError,
    SQLEnvError,
    SQLEnvProtocolError,
    SQLEnvServerError,
    SQLObservation,
    StepResult,
)
from .trl_env import EPISODE_OVER, SQLEnvTRL, sqlenv_reward

__all__ = [
    "ACTION_TYPES",
    "DEFAULT_URL",
    "EPISODE_OVER",
    "SQLAction",
    "SQLEnvClient",
    "SQLEnvConnectionError",
    "SQLEnvError",
    "SQLEnvProtocolError",
    "SQLEnvServerError",
    "SQLEnvTRL",
    "SQLObservation",
    "StepResult",
    "sqlenv_reward",
]
