"""SqlenvEnv: OpenEnv's own client (openenv.core.env_client.EnvClient, async, with `.sync()`) typed for SQLEnv.

Defined only when `openenv-core` is installed (else `SqlenvEnv` is None); SQLEnvClient (client.py) needs nothing but
websockets. OpenEnv's `AutoEnv.from_env("sqlenv", base_url=...)` finds this class by convention: it looks for
installed distributions named `openenv-*` (this package is `openenv-sqlenv-client`, module `sqlenv_client`), reads the
module's `openenv.yaml` (name `sqlenv`, so the class `SqlenvEnv` in `sqlenv_client.client`, and the action and
observation classes named there) — openenv/auto/_discovery.py.

The three hooks EnvClient leaves abstract are the whole adapter: an action becomes its wire dict, a reply's
`{"observation", "reward", "done"}` becomes StepResult[SQLEnvObservation], a state reply becomes SQLEnvState.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

from .models import OPENENV_TYPES, SQLEnvAction, SQLEnvObservation, SQLEnvState, dump_model, parse_model

SqlenvEnv: Optional[Type[Any]] = None

if OPENENV_TYPES:
    from openenv.core.client_types import StepResult as _StepResult
    from openenv.core.env_client import EnvClient as _EnvClient

    class _SqlenvEnv(_EnvClient[SQLEnvAction, SQLEnvObservation, SQLEnvState]):  # type: ignore[misc]
        """SQLEnv through OpenEnv's EnvClient: `async with SqlenvEnv(base_url="http://127.0.0.1:8000") as env`, or
        `env.sync()` for a synchronous one."""

        def _step_payload(self, action: SQLEnvAction) -> Dict[str, Any]:
            return action_payload(action)

        def _parse_result(self, payload: Dict[str, Any]) -> "_StepResult[SQLEnvObservation]":
            observation = observation_from_reply(payload)
            return _StepResult(observation=observation, reward=observation.reward, done=observation.done)

        def _parse_state(self, payload: Dict[str, Any]) -> SQLEnvState:
            return parse_model(SQLEnvState, payload)

    _SqlenvEnv.__name__ = _SqlenvEnv.__qualname__ = "SqlenvEnv"
    SqlenvEnv = _SqlenvEnv


def action_payload(action: "SQLEnvAction | Dict[str, Any]") -> Dict[str, Any]:
    """The wire form of an action: `{"action_type", "argument"}` (metadata only when set)."""
    data = dict(action) if isinstance(action, dict) else dump_model(action)
    if not data.get("metadata"):
        data.pop("metadata", None)
    return data


def observation_from_reply(payload: Dict[str, Any]) -> SQLEnvObservation:
    """A reset or step reply's data, `{"observation": {...}, "reward": r, "done": d}`, as one typed observation
    (OpenEnv's Observation carries reward and done itself)."""
    observation = dict(payload.get("observation") or {})
    observation["reward"] = payload.get("reward")
    observation["done"] = bool(payload.get("done", False))
    return parse_model(SQLEnvObservation, observation)
