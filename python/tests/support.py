"""What the Python tests share: the package on sys.path, one real `sqlenv serve` per test run, and the Node CLI.

The server is the repository's own (`node bin/sqlenv.mjs serve --dataset demo --port 0`), started once on first use
and stopped when the test process exits. Its address is read from the line it writes to stderr once listening
("sqlenv serve: … at http://127.0.0.1:PORT (WebSocket ws://127.0.0.1:PORT/ws)"); a server that does not say so
within SERVER_START_S is a test error that shows what it printed.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(PYTHON_DIR)
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

SQLENV = [os.environ.get("NODE", "node"), os.path.join(ROOT, "bin", "sqlenv.mjs")]
SERVER_START_S = 60.0

_server: Optional["ServerProcess"] = None
_server_lock = threading.Lock()


class ServerProcess:
    """`sqlenv serve` in its own process group; `url` is its WebSocket address. `dataset` is demo or spider (then
    SPIDER_DIR is set from spider_dir())."""

    def __init__(self, *args: str, dataset: str = "demo"):
        env = {**os.environ, "SPIDER_DIR": spider_dir()} if dataset == "spider" else None
        self.process = subprocess.Popen(
            [*SQLENV, "serve", "--dataset", dataset, "--host", "127.0.0.1", "--port", "0", *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.lines: List[str] = []
        self.url = self._wait_for_listening()
        # Keep draining stderr so the server never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _wait_for_listening(self) -> str:
        found: Dict[str, str] = {}
        ready = threading.Event()

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self.lines.append(line.rstrip("\n"))
                # "sqlenv serve: OpenEnv server for 'demo' (…) at http://127.0.0.1:PORT (WebSocket ws://…/ws)"
                if ("listening" in line.lower() or line.startswith("sqlenv serve:")) and "url" not in found:
                    url = listening_url(line)
                    if url:
                        found["url"] = url
                        ready.set()
                        return
            ready.set()  # The server exited without saying it listens.

        threading.Thread(target=read, daemon=True).start()
        ready.wait(SERVER_START_S)
        if "url" not in found:
            self.stop()
            printed = "\n".join(self.lines[-30:]) or "(nothing)"
            raise RuntimeError(f"sqlenv serve did not report 'listening' within {SERVER_START_S} s; it printed:\n{printed}")
        return found["url"]

    def _drain(self) -> None:
        if self.process.stderr is None:
            return
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def stop(self) -> None:
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def listening_url(line: str) -> Optional[str]:
    """The WebSocket URL in the server's ready line: its ws:// address, else http://, else host:port or "port N"."""
    match = re.search(r"\bwss?://[^\s,;)'\"]+", line) or re.search(r"\bhttps?://[^\s,;)'\"]+", line)
    if match:
        url = match.group(0).rstrip(".")
        from sqlenv_client.protocol import normalize_url

        return normalize_url(url)
    match = re.search(r"(?:\b127\.0\.0\.1|\blocalhost|\[::1\]):(\d+)", line) or re.search(r"\bport\s+(\d+)", line, re.I)
    return f"ws://127.0.0.1:{match.group(1)}/ws" if match else None


def server_url() -> str:
    """The shared server's WebSocket URL, starting it on first use."""
    global _server
    with _server_lock:
        if _server is None:
            _server = ServerProcess()
            atexit.register(_server.stop)
        return _server.url


def spider_dir() -> str:
    """Where Spider is: SPIDER_DIR, else the shared folder beside the repository (as tests/fixtures/spider-dir.ts)."""
    return os.environ.get("SPIDER_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "spider")


def sqlenv_json(*args: str, timeout_s: float = 120.0) -> str:
    """Runs the Node CLI and returns its stdout; raises with its stderr when it fails."""
    env = {**os.environ, "SPIDER_DIR": spider_dir()}
    done = subprocess.run([*SQLENV, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout_s, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"sqlenv {' '.join(args)} exited with {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout


def oracle_transcripts(episodes: int, seed: int = 0) -> "tuple[Dict[str, Any], List[Dict[str, Any]]]":
    """The Node CLI's Oracle evaluation on the demo data: its --json summary and one transcript record per episode."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "oracle.jsonl")
        stdout = sqlenv_json(
            "eval", "--policy", "oracle", "--dataset", "demo", "--split", "all",
            "--episodes", str(episodes), "--seed", str(seed), "--json", "--transcripts", path,
        )
        with open(path, encoding="utf-8") as file:
            # A run file (docs/run-files.md): its first line is the run's header, then one episode per line.
            records = [json.loads(line) for line in file if line.strip()][1:]
    return json.loads(stdout.strip().splitlines()[-1]), records


def prompt_rows(split: str = "train") -> List[Dict[str, Any]]:
    """`sqlenv export --format prompts` on the demo data: the rows a TRL training script loads."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "prompts.jsonl")
        sqlenv_json("export", "--format", "prompts", "--dataset", "demo", "--split", split, "--out", path)
        with open(path, encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]


def sft_rows(dataset: str = "demo", split: str = "train") -> List[Dict[str, Any]]:
    """`sqlenv export --format sft` (the page's defaults): Oracle demonstrations as SFTTrainer rows."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "sft.jsonl")
        sqlenv_json("export", "--format", "sft", "--dataset", dataset, "--split", split, "--out", path, timeout_s=300.0)
        with open(path, encoding="utf-8") as file:
            return [json.loads(line) for line in file if line.strip()]


def action_of(step: Dict[str, Any]) -> Dict[str, str]:
    """A transcript step's action (`{"type": "QUERY", "sql": ...}`) as the server's `{"action_type", "argument"}`."""
    action = step["action"]
    argument = {"DESCRIBE": "table", "SAMPLE": "table", "QUERY": "sql", "ANSWER": "value"}[action["type"]]
    value = action[argument]
    return {"action_type": action["type"], "argument": value if isinstance(value, str) else json.dumps(value)}


def wait_until(predicate: Any, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
