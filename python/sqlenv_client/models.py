"""Typed (pydantic) Action, Observation and State of SQLEnv, as OpenEnv declares environments.

With `openenv-core` installed they subclass OpenEnv's own `Action`, `Observation` and `State`
(openenv.core.env_server.types), so OpenEnv's clients, AutoEnv and validators take them as they are; without it they
subclass stand-ins with the same fields and the same extra-field policy (Action and Observation forbid unknown fields,
State allows them). `OPENENV_TYPES` says which.

Both pydantic majors work: Debian bookworm's python3-pydantic is 1.10 (what the project's test runner has), OpenEnv
requires 2. The differences this module meets (model config, validate/dump method names) are bridged by `PYDANTIC_V2`,
`parse_model` and `dump_model`.

The fields follow the server's wire format (src/server/protocol.ts: SqlActionWire, WireObservation; the state reply).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Type, TypeVar, cast

import pydantic
from pydantic import BaseModel, Field

PYDANTIC_V2 = int(pydantic.VERSION.split(".")[0]) >= 2

Model = TypeVar("Model", bound=BaseModel)

try:  # OpenEnv's base types, when openenv-core is installed (it needs pydantic 2).
    from openenv.core.env_server.types import Action as _ActionBase
    from openenv.core.env_server.types import Observation as _ObservationBase
    from openenv.core.env_server.types import State as _StateBase

    OPENENV_TYPES = True
except ImportError:
    OPENENV_TYPES = False

    def _config(extra: str) -> Dict[str, Any]:
        """A model's configuration, as the installed pydantic spells it (model_config, or a nested Config class)."""
        if PYDANTIC_V2:
            return {"model_config": pydantic.ConfigDict(extra=cast(Any, extra), validate_assignment=True)}  # type: ignore[attr-defined]
        return {"Config": type("Config", (), {"extra": extra, "validate_assignment": True})}

    # Stand-ins with OpenEnv's fields (openenv/core/env_server/types.py), for when openenv-core is not installed.
    _ActionBase = type(  # type: ignore[misc]
        "Action",
        (BaseModel,),
        {
            "__annotations__": {"metadata": Dict[str, Any]},
            "metadata": Field(default_factory=dict, description="Additional metadata for the action"),
            **_config("forbid"),
        },
    )
    _ObservationBase = type(  # type: ignore[misc]
        "Observation",
        (BaseModel,),
        {
            # OpenEnv's reward is `bool | int | float | None`; pydantic 1 would coerce 0.5 to the first member that
            # takes it (bool or int), so the stand-in keeps it a float.
            "__annotations__": {"done": bool, "reward": Optional[float], "metadata": Dict[str, Any]},
            "done": Field(default=False, description="Whether the episode has terminated"),
            "reward": Field(default=None, description="Reward signal from the last action"),
            "metadata": Field(default_factory=dict, description="Additional metadata for the observation"),
            **_config("forbid"),
        },
    )
    _StateBase = type(  # type: ignore[misc]
        "State",
        (BaseModel,),
        {
            "__annotations__": {"episode_id": Optional[str], "step_count": int},
            "episode_id": Field(default=None, description="Unique identifier for the current episode"),
            "step_count": Field(default=0, ge=0, description="Number of steps taken in the current episode"),
            **_config("allow"),
        },
    )


class SQLEnvAction(_ActionBase):  # type: ignore[misc, valid-type]
    """One step: DESCRIBE or SAMPLE a table, QUERY one read-only SELECT, or ANSWER (text, or JSON for a list or rows)."""

    action_type: Literal["DESCRIBE", "SAMPLE", "QUERY", "ANSWER"] = Field(description="The kind of action.")
    argument: str = Field(description="A table name, a SQL statement, or the answer value (text, or a JSON list or rows).")


class SQLEnvObservation(_ObservationBase):  # type: ignore[misc, valid-type]
    """What the agent sees after a reset or a step; `done`, `reward` and `metadata` come from OpenEnv's Observation."""

    text: str = Field(description="The whole observation as text: what a language model reads.")
    question: str = ""
    db_id: str = ""
    tables: List[str] = Field(default_factory=list)
    steps_left: Optional[int] = None
    result: Optional[Dict[str, Any]] = Field(default=None, description="Rows a SAMPLE or QUERY showed: columns, rows, total_rows.")
    table: Optional[Dict[str, Any]] = Field(default=None, description="The schema a DESCRIBE showed.")
    error: Optional[str] = None


class SQLEnvState(_StateBase):  # type: ignore[misc, valid-type]
    """The episode's state as the server reports it: OpenEnv's episode_id and step_count, then the episode's own
    fields (question, db_id, return so far, ...), kept as extra fields."""


def parse_model(model: Type[Model], data: Any) -> Model:
    """`model` validated from a dict (pydantic 2's model_validate, 1's parse_obj); raises pydantic's ValidationError."""
    if PYDANTIC_V2:
        return model.model_validate(data)  # type: ignore[attr-defined, no-any-return]
    return model.parse_obj(data)


def dump_model(instance: BaseModel) -> Dict[str, Any]:
    """A model as a plain dict (pydantic 2's model_dump, 1's dict), extra fields included."""
    if PYDANTIC_V2:
        return instance.model_dump()  # type: ignore[attr-defined, no-any-return]
    return instance.dict()
