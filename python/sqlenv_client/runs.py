"""Evaluate any policy over `sqlenv serve` sessions and write a SQLEnv run file (docs/run-files.md).

A run file is JSON Lines: a header line (`"format": "sqlenv-run"`, the environment version the server reported,
dataset, split, policy, model and adapter ids, settings, seed, episode count), then one episode record per line
(question, seed, success, return, reward parts and the whole transcript) in the shape the page and `sqlenv eval
--transcripts` write. The page's Evaluate and Compare import it, and `npx sqlenv compare A.jsonl B.jsonl` compares
it with any other run, so a model trained with TRL and evaluated here sits beside the page's own runs.

    from sqlenv_client.runs import evaluate_policy

    def my_policy(observation, history):          # history: the StepResults so far, the reset's first
        return "QUERY SELECT count(*) FROM book"   # or {"action_type": ..., "argument": ...} or an SQLAction

    header, records = evaluate_policy(my_policy, dataset="demo", split="eval", episodes=20, seed=0,
                                      policy_name="my-model", model="Qwen/Qwen3-0.6B", path="my-run.jsonl")

Episode i is reset with seed `seed + i` (and the split), so the server draws its question as the page's Evaluate
does for a seeded plan; with `question_ids` each named question is played once, seeded `seed + i`.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .client import SQLEnvClient
from .errors import SQLEnvProtocolError
from .protocol import ACTION_TYPES, DEFAULT_URL, SQLAction, SQLObservation, StepResult

RUN_FILE_FORMAT = "sqlenv-run"
RUN_FILE_VERSION = 1
#: The field of an action object that holds its argument, by action type (src/env/actions.ts).
ARGUMENT_FIELD = {"DESCRIBE": "table", "SAMPLE": "table", "QUERY": "sql", "ANSWER": "value"}

ActionLike = Union[SQLAction, Dict[str, Any], str]
Policy = Callable[[SQLObservation, List[StepResult]], ActionLike]
Setting = Union[str, int, float, bool, None]


def as_action(action: ActionLike) -> SQLAction:
    """A policy's output as an SQLAction: an SQLAction, `{"action_type", "argument"}`, or text `QUERY SELECT …`."""
    if isinstance(action, SQLAction):
        return action
    if isinstance(action, dict):
        return SQLAction(str(action.get("action_type", "")), str(action.get("argument", "")))
    if isinstance(action, str):
        head, _, rest = action.strip().partition(" ")
        return SQLAction(head.rstrip(":").upper(), rest.strip())
    raise TypeError(f"A policy must return an SQLAction, a dict or a string, not {type(action).__name__}.")


def _parsed_action(action: SQLAction, error: Optional[str]) -> Dict[str, Any]:
    """The record's `action` object (ParsedAction): typed, or INVALID with the server's reason."""
    if action.action_type in ACTION_TYPES:
        return {"type": action.action_type, ARGUMENT_FIELD[action.action_type]: action.argument}
    raw = f"{action.action_type} {action.argument}".strip()
    return {"type": "INVALID", "raw": raw, "reason": error or "not an action"}


def _result_view(result: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    if result is None:
        return None
    return {"columns": result.get("columns", []), "rows": result.get("rows", []), "totalRows": result.get("total_rows")}


def _table_info(table: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    if table is None:
        return None
    return {
        "name": table.get("name", ""),
        "columns": [
            {"name": c.get("name", ""), "type": c.get("type", ""), "notNull": bool(c.get("not_null")), "primaryKey": int(c.get("primary_key") or 0)}
            for c in table.get("columns", [])
        ],
        "foreignKeys": [{"column": f.get("column", ""), "refTable": f.get("ref_table", ""), "refColumn": f.get("ref_column")} for f in table.get("foreign_keys", [])],
        "rowCount": int(table.get("row_count") or 0),
    }


#: Characters of an action a record keeps (VALUE_LIMITS.transcriptActionChars in src/sql/limits.ts).
TRANSCRIPT_ACTION_CHARS = 10_000


def _action_text(action: SQLAction, echoed: Any) -> str:
    """The action's canonical text: the server's echo, unless the server clipped it (it ends with "…"), when the
    text sent is used (kept to the length a record keeps, as the page clips it)."""
    sent = f"{action.action_type} {action.argument}".strip()
    if not isinstance(echoed, str) or not echoed:
        text = sent
    elif echoed.endswith("…") and sent.startswith(echoed[:-1]):
        text = sent
    else:
        text = echoed
    return text if len(text) <= TRANSCRIPT_ACTION_CHARS else text[: TRANSCRIPT_ACTION_CHARS - 1] + "…"


def _step_record(action: SQLAction, result: StepResult) -> Dict[str, Any]:
    observation = result.observation
    meta = observation.metadata
    components = meta.get("components") or {}
    step: Dict[str, Any] = {
        "action": _parsed_action(action, observation.error),
        "actionText": _action_text(action, meta.get("action")),
        "observation": observation.text,
        "reward": float(result.reward or 0.0),
        "components": {k: float(components.get(k, 0.0)) for k in ("correctness", "progress", "operational")},
        "outcome": str(meta.get("outcome", "ok")),
        "episodeReturn": float(meta.get("episode_return", 0.0)),
    }
    view = _result_view(observation.result)
    if view is not None:
        step["result"] = view
    table = _table_info(observation.table)
    if table is not None:
        step["table"] = table
    if observation.error is not None:
        step["error"] = observation.error
    return step


def play_episode(client: SQLEnvClient, policy: Policy, policy_name: str, dataset: str, reset: Dict[str, Any]) -> Tuple[Dict[str, Any], int]:
    """One episode on the client's session: the episode record and the environment version the server reported."""
    first = client.reset(**reset)
    meta = first.observation.metadata
    history: List[StepResult] = [first]
    transcript: List[Dict[str, Any]] = []
    result = first
    while not result.done:
        action = as_action(policy(result.observation, history))
        result = client.step(action)
        history.append(result)
        transcript.append(_step_record(action, result))
    last = result.observation.metadata
    record = {
        "policy": policy_name,
        "dataset": dataset,
        "questionId": str(meta.get("question_id", "")),
        "dbId": first.observation.db_id,
        "question": first.observation.question,
        "difficulty": meta.get("difficulty"),
        "split": meta.get("split"),
        "seed": int(meta.get("seed", reset.get("seed", 0))),
        "success": last.get("correct") is True,
        "episodeReturn": float(last.get("episode_return", 0.0)),
        "components": {k: sum(s["components"][k] for s in transcript) for k in ("correctness", "progress", "operational")},
        "steps": len(transcript),
        "terminated": bool(last.get("terminated")),
        "truncated": bool(last.get("truncated")),
        "transcript": transcript,
    }
    version = meta.get("env_version")
    if not isinstance(version, int):
        raise SQLEnvProtocolError(f"The server's reset did not say its environment version (metadata.env_version: {version!r}).")
    return record, version


def run_file_text(header: Dict[str, Any], records: Sequence[Dict[str, Any]]) -> str:
    """The file's text: the header line, then one record per line (no NaN: JSON has none, the page refuses it)."""
    lines = [json.dumps(header, ensure_ascii=False, allow_nan=False)]
    lines += [json.dumps(r, ensure_ascii=False, allow_nan=False) for r in records]
    return "\n".join(lines) + "\n"


def evaluate_policy(
    policy: Policy,
    *,
    dataset: str,
    url: str = DEFAULT_URL,
    split: str = "eval",
    episodes: Optional[int] = None,
    question_ids: Optional[Sequence[str]] = None,
    seed: int = 0,
    policy_name: Optional[str] = None,
    model: Optional[str] = None,
    adapter: Optional[str] = None,
    settings: Optional[Dict[str, Setting]] = None,
    path: Optional[str] = None,
    token: Optional[str] = None,
    on_progress: Optional[Callable[[int, int], None]] = None,
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """Plays `episodes` seeded episodes of `split` (or each of `question_ids` once) against `sqlenv serve` at `url`
    and returns (header, records); with `path`, writes them as a run file. `dataset` names the server's dataset
    (`--dataset` of `sqlenv serve`): runs are compared question by question, so it must be the name the page uses."""
    if (episodes is None) == (question_ids is None):
        raise ValueError("Give either episodes (a number of seeded episodes) or question_ids, not both or neither.")
    plan: List[Dict[str, Any]]
    if question_ids is not None:
        plan = [{"question_id": q, "seed": seed + i} for i, q in enumerate(question_ids)]
    else:
        if episodes is None or episodes < 1:
            raise ValueError(f"episodes must be at least 1, got {episodes!r}.")
        plan = [{"seed": seed + i, "split": split} for i in range(episodes)]
    name = policy_name or str(getattr(policy, "__name__", "python-policy"))
    started = time.time()
    records: List[Dict[str, Any]] = []
    versions = set()
    client_options: Dict[str, Any] = {} if token is None else {"token": token}
    with SQLEnvClient(url, **client_options) as client:
        for i, reset in enumerate(plan):
            record, version = play_episode(client, policy, name, dataset, reset)
            records.append(record)
            versions.add(version)
            if on_progress:
                on_progress(i + 1, len(plan))
    if len(versions) != 1:
        raise SQLEnvProtocolError(f"The server reported several environment versions in one run: {sorted(versions)}.")
    header = {
        "format": RUN_FILE_FORMAT,
        "formatVersion": RUN_FILE_VERSION,
        "envVersion": versions.pop(),
        "id": f"py-{int(started * 1000):x}-{secrets.token_hex(3)}",
        "dataset": dataset,
        "split": split if question_ids is None else "all",
        "policy": name,
        "model": model,
        "adapter": adapter,
        "seed": seed,
        "settings": dict(settings or {}),
        "episodes": len(records),
        "createdAt": int(started * 1000),
        "durationMs": int((time.time() - started) * 1000),
        "writer": "python",
    }
    if path is not None:
        with open(path, "w", encoding="utf-8") as file:
            file.write(run_file_text(header, records))
    return header, records
