"""sqlenv_client: Python access to `npx sqlenv serve` (SQLEnv: Spider SQLite databases as an RL environment).

- SQLEnvClient: a synchronous client speaking OpenEnv's WebSocket protocol, one episode session per connection.
- SQLEnvTRL and sqlenv_reward: an environment class and a reward function for TRL's GRPOTrainer(environment_factory=…).
- protocol: the message shapes, with no I/O; replies: how a reply is parsed and checked; errors: the typed errors
  (every failure is an SQLEnvError); transport: the background event loop and per-call deadlines.
"""

from .client import SQLEnvClient
from .errors import (
    SQLEnvConnectionError,
    SQLEnvError,
    SQLEnvMessageTooLarge,
    SQLEnvProtocolError,
    SQLEnvServerError,
    SQLEnvTimeout,
)
from .protocol import ACTION_TYPES, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_URL, SQLAction, SQLObservation, StepResult
from .trl_env import EPISODE_OVER, SQLEnvTRL, sqlenv_reward

__all__ = [
    "ACTION_TYPES",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "DEFAULT_URL",
    "EPISODE_OVER",
    "SQLAction",
    "SQLEnvClient",
    "SQLEnvConnectionError",
    "SQLEnvError",
    "SQLEnvMessageTooLarge",
    "SQLEnvProtocolError",
    "SQLEnvServerError",
    "SQLEnvTRL",
    "SQLEnvTimeout",
    "SQLObservation",
    "StepResult",
    "sqlenv_reward",
]
