"""SQLEnvTRL: the environment for TRL's `GRPOTrainer(environment_factory=SQLEnvTRL, reward_funcs=[sqlenv_reward])`.

TRL's contract (trl/trainer/grpo_trainer.py, "environment_factory"): the factory is called with no arguments; each
instance plays one rollout at a time and is reused (reset) across batches; `reset(**row)` receives the dataset row's
columns (the prompt included) and the string it returns, if any, is appended to the last user message; every public method
other than `reset` and `get_reward` becomes a tool (listed by `inspect.getmembers`, so in alphabetical order), its JSON
schema built by transformers' `get_json_schema` from the type hints and the Google-style docstring, and is called
synchronously with the arguments its chat-template parser JSON-decoded from the model's `<tool_call>`; reward functions
receive the instances as `environments=`. The tool block TRL builds this way is the SFT export's, word for word and in
the same order: the docstrings come from tools.json (tools.py).

So the class has exactly four public methods besides `reset` (the four actions), and keeps everything else in
attributes: `reward` (the episode's return so far), `reward_components` (the unweighted components, summed over
the episode), `done`, `steps`. It deliberately has no `get_reward`: the reward comes from a reward function
(`sqlenv_reward`) that reads `reward`, as the original SQLEnv notebook did, so it is counted once.

One server session (one WebSocket) per instance, opened on the first reset; the server is named by the environment
variable SQLENV_URL (default ws://127.0.0.1:8000/ws), and its access token, if it wants one, by SQLENV_TOKEN. After the episode ends, a tool returns a short "episode is
over" text instead of raising, so a model that keeps calling tools only learns that it should stop.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Union

from .client import SQLEnvClient
from .errors import SQLEnvServerError
from .protocol import DEFAULT_URL, RESET_KEYS, SQLAction, StepResult
from .tools import tool_method

EPISODE_OVER = "The episode is over: no more actions are taken. Stop calling tools."


class SQLEnvTRL:
    """A SQLEnv episode behind four tools, for TRL's `environment_factory`.

    Attributes:
        reward: The episode's return so far (sum of the step rewards, weighted as the server weighs them).
        reward_components: The unweighted reward components (correctness, progress, operational), summed.
        done: Whether the episode has ended (answered, or the step budget spent).
        steps: Actions taken this episode.
        last: The last StepResult (observation, reward, done), or None before the first reset.
    """

    def __init__(self) -> None:
        self._client = SQLEnvClient(os.environ.get("SQLENV_URL", DEFAULT_URL), token=os.environ.get("SQLENV_TOKEN") or None)
        self.reward: float = 0.0
        self.reward_components: Dict[str, float] = {}
        self.done: bool = False
        self.steps: int = 0
        self.last: Optional[StepResult] = None
        self._episode_started = False

    def reset(self, **row: Any) -> Optional[str]:
        """Starts a new episode (TRL's lifecycle hook, not a tool).

        Args:
            **row: The dataset row; `seed`, `episode_id`, `question_id`, `split`, `difficulty` and `db_id` are sent
                to the server, the other columns are not.

        Returns:
            The first observation as text (the question, the database and its tables, the steps left), which TRL
            appends to the prompt; None when the row's prompt already holds that text, as the rows of
            `sqlenv export --format prompts` do, so that it is not shown twice.
        """
        params = {key: row[key] for key in RESET_KEYS if row.get(key) is not None}
        result = self._client.reset(**params)
        self.reward = 0.0
        self.reward_components = {}
        self.done = result.done
        self.steps = 0
        self.last = result
        self._episode_started = True
        text = result.observation.text
        return None if _prompt_holds(row.get("prompt"), text) else text

    # The four tools. Their docstrings are written from tools.json by @tool_method (tools.py), so TRL's tool block is
    # the SFT export's; the decorator also checks each argument's name and type hint against that file.

    @tool_method(returns="Whether the answer is correct.")
    def answer(self, value: Union[str, float, List]) -> str:  # type: ignore[type-arg]  # a bare List: transformers writes JSON's "array"
        # TRL's Qwen3 parser JSON-decodes the call's arguments, so `value` is whatever JSON the model wrote: a string,
        # a number (an int is a float here, and "number" in JSON), a list or rows. Anything but a string is sent as JSON,
        # as the tool declares it and as MCP and the export send it; str() would send Python's repr (['a'], None).
        if isinstance(value, str):
            return self._act("ANSWER", value)
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            return f"Error: the answer must be text, a number, a list or rows of JSON values ({error})."
        return self._act("ANSWER", text)

    @tool_method(returns="The table's schema, or what was wrong.")
    def describe(self, table: str) -> str:
        return self._act("DESCRIBE", table)

    @tool_method(returns="The result as a table (long results are cut, and say so), or the error.")
    def query(self, sql: str) -> str:
        return self._act("QUERY", sql)

    @tool_method(returns="A few rows of the table, or what was wrong.")
    def sample(self, table: str) -> str:
        return self._act("SAMPLE", table)

    def _act(self, action_type: str, argument: Any) -> str:
        if not isinstance(argument, str):  # a model may put a number where a table name or SQL belongs
            argument = json.dumps(argument, ensure_ascii=False, default=str)
        if not self._episode_started:
            raise RuntimeError("SQLEnvTRL: call reset() before using a tool.")
        if self.done:
            return EPISODE_OVER
        try:
            result = self._client.step(SQLAction(action_type, argument))
        except SQLEnvServerError as error:
            # The server refused the message (e.g. an argument it cannot take); the session is still usable.
            return f"Error: {error.detail}"
        self.steps += 1
        self.last = result
        self.reward += result.reward or 0.0
        for name, value in result.observation.components.items():
            self.reward_components[name] = self.reward_components.get(name, 0.0) + float(value)
        self.done = result.done
        return result.observation.text

    def _close(self) -> None:
        """Ends the server session (private, so TRL does not expose it as a tool)."""
        self._client.close()


def _prompt_holds(prompt: Any, text: str) -> bool:
    """Whether a TRL prompt (a string, or chat messages whose last one is the user's turn) already holds `text`."""
    if isinstance(prompt, str):
        return text in prompt
    if isinstance(prompt, list) and prompt and isinstance(prompt[-1], dict):
        content = prompt[-1].get("content")
        if isinstance(content, list):  # multimodal content blocks
            content = "".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
        return isinstance(content, str) and text in content
    return False


def sqlenv_reward(environments: List[SQLEnvTRL], **kwargs: Any) -> List[float]:
    """A TRL reward function: each rollout's episode return, read from its environment.

    Args:
        environments: The environment instances of the batch, one per completion (TRL passes them).
        **kwargs: The other columns TRL passes (prompts, completions, ...), unused.

    Returns:
        One reward per completion.
    """
    return [float(env.reward) for env in environments]
