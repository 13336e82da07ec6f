"""sqlenv_client: Python access to `npx sqlenv serve` (SQLEnv: Spider SQLite databases as an RL environment).

- SQLEnvClient: a synchronous client speaking OpenEnv's WebSocket protocol, one episode session per connection.
- SQLEnvTRL and sqlenv_reward: an environment class and a reward function for TRL's GRPOTrainer(environment_factory=…);
  its tools' docstrings come from tools.json (TOOL_SPECS), the tool block of the page and of `sqlenv export`.
- SQLEnvAction, SQLEnvObservation, SQLEnvState: typed pydantic models (OpenEnv's types when openenv-core is installed);
  SqlenvEnv: OpenEnv's EnvClient for SQLEnv (None without openenv-core), found by `AutoEnv.from_env("sqlenv")`.
- evaluate_policy (runs): plays any policy over `sqlenv serve` sessions and writes a run file (docs/run-files.md) that
  the page's Compare and `sqlenv compare` read.
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
from .models import OPENENV_TYPES, SQLEnvAction, SQLEnvObservation, SQLEnvState
from .openenv_client import SqlenvEnv
from .protocol import ACTION_TYPES, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_URL, SQLAction, SQLObservation, StepResult
from .runs import as_action, evaluate_policy
from .tools import TOOL_SPECS
from .trl_env import EPISODE_OVER, SQLEnvTRL, sqlenv_reward

__all__ = [
    "ACTION_TYPES",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "DEFAULT_URL",
    "EPISODE_OVER",
    "OPENENV_TYPES",
    "SQLAction",
    "SQLEnvAction",
    "SQLEnvClient",
    "SQLEnvConnectionError",
    "SQLEnvError",
    "SQLEnvMessageTooLarge",
    "SQLEnvObservation",
    "SQLEnvProtocolError",
    "SQLEnvServerError",
    "SQLEnvState",
    "SQLEnvTRL",
    "SQLEnvTimeout",
    "SQLObservation",
    "SqlenvEnv",
    "StepResult",
    "TOOL_SPECS",
    "as_action",
    "evaluate_policy",
    "sqlenv_reward",
]
