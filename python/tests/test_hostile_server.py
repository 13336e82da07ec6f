"""SQLEnvClient against fake hostile servers: every failure is a typed SQLEnvError, within the call's own timeout.

Each fake server is a websockets server on 127.0.0.1, port 0, in its own thread and event loop (HostileServer), whose
handler misbehaves one way: a 64 MB reply, no reply at all, never reading, replies nested 10^5 levels deep, fields of
the wrong type, huge integers. The tests assert the error's type and what the server saw (how many connections and
messages), never how long anything took: a call is bounded by the client's own timeouts (1 s here), and a misbehaving
server gives up after PATIENCE_S, so a client without timeouts fails these tests (with a connection error, not
SQLEnvTimeout) rather than hanging them.
"""

from __future__ import annotations

import asyncio
import http
import json
import os
import socket
import threading
import unittest
from typing import Any, Awaitable, Callable, Iterator, List, Optional
from unittest import mock

import websockets
from websockets.legacy.server import serve as legacy_serve  # the API Debian's 10.x has; newer versions keep it

import support  # noqa: F401  (puts the package on sys.path)
from sqlenv_client import (
    DEFAULT_MAX_MESSAGE_BYTES,
    SQLAction,
    SQLEnvClient,
    SQLEnvConnectionError,
    SQLEnvError,
    SQLEnvMessageTooLarge,
    SQLEnvProtocolError,
    SQLEnvServerError,
    SQLEnvTimeout,
    SQLEnvTRL,
)

#: Seconds a fake server holds a connection it is stalling before closing it (only a client without timeouts waits).
PATIENCE_S = 30.0
#: The client timeouts used here: small, so that the tests are quick.
TIMEOUT_S = 1.0
MIB = 1024 * 1024

Handler = Callable[["HostileServer", Any], Awaitable[None]]


def observation_reply(text: str = "ok", **extra: Any) -> str:
    """A well-formed observation reply, with `extra` replacing fields of its data."""
    data = {
        "observation": {"text": text, "question": "q?", "db_id": "db", "tables": ["t"], "steps_left": 3,
                        "result": None, "table": None, "error": None, "metadata": {}},
        "reward": 0.5,
        "done": False,
    }
    data.update(extra)
    return json.dumps({"type": "observation", "data": data})


class HostileServer:
    """A WebSocket server on 127.0.0.1:<free port> running `handler(server, ws)` for each connection.

    Attributes:
        url: Its ws:// address.
        connections: Connections opened so far.
        messages: Every message received, in order.
        headers: The request headers of each connection.
        reply: What `answer` sends back to each message (tests set it between calls).
        refuse_with: An HTTP status answering every upgrade instead of accepting it, or None.
    """

    def __init__(self, handler: Handler, receive_buffer: Optional[int] = None, refuse_with: Optional[int] = None):
        self.handler = handler
        self.connections = 0
        self.messages: List[str] = []
        self.headers: List[Any] = []
        self._open: List[Any] = []  # (websocket, handler task) of each connection, ended by stop()
        self.reply = observation_reply()
        self.refuse_with = refuse_with
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="hostile-server", daemon=True)
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(self._start(receive_buffer), self.loop).result(10)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws"

    async def _start(self, receive_buffer: Optional[int]) -> Any:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            # Set before listen(), so accepted sockets inherit it and the kernel cannot grow it: a server that stops
            # reading then pushes back on the client after a few hundred KB, not tens of MB.
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        listener.bind(("127.0.0.1", 0))
        return await legacy_serve(self._handle, sock=listener, max_size=None, compression=None, close_timeout=0.5,
                                  process_request=self._refuse)

    async def _refuse(self, path: str, headers: Any) -> Any:
        """Answers the upgrade with HTTP `refuse_with` when set (as a server that wants a token)."""
        return None if self.refuse_with is None else (http.HTTPStatus(self.refuse_with), [], b"refused\n")

    async def _handle(self, ws: Any) -> None:
        self.connections += 1
        self.headers.append(ws.request_headers)
        self._open.append((ws, asyncio.current_task()))
        try:
            await self.handler(self, ws)
        except (websockets.ConnectionClosed, websockets.InvalidState, ConnectionError):
            pass  # The client gave up on us, as it should.

    async def receive(self, ws: Any) -> str:
        message = await ws.recv()
        self.messages.append(message)
        return message

    def stop(self) -> None:
        async def shut() -> None:
            for ws, task in self._open:  # handlers that stall would hold wait_closed() for PATIENCE_S
                task.cancel()
                ws.transport.abort()
            self.server.close()
            await self.server.wait_closed()

        asyncio.run_coroutine_threadsafe(shut(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.loop.close()


# -- behaviours ---------------------------------------------------------------------------------------------------------


async def answer(server: HostileServer, ws: Any) -> None:
    """Replies `server.reply` to every message."""
    while True:
        await server.receive(ws)
        await ws.send(server.reply)


async def never_answer(server: HostileServer, ws: Any) -> None:
    """Reads every message and answers none, for PATIENCE_S."""
    async def read_all() -> None:
        while True:
            await server.receive(ws)

    try:
        await asyncio.wait_for(read_all(), PATIENCE_S)
    except asyncio.TimeoutError:
        await ws.close()


async def never_read(server: HostileServer, ws: Any) -> None:
    """Accepts the connection and stops reading from it, for PATIENCE_S."""
    ws.transport.pause_reading()
    await asyncio.sleep(PATIENCE_S)
    ws.transport.abort()


def reply_of_size(size: int) -> Handler:
    """Answers the first message with a well-formed observation whose text makes the message `size` bytes, sent in
    1 MiB fragments (a client's limit must count the whole message, not each frame; the server never holds it all)."""
    async def handler(server: HostileServer, ws: Any) -> None:
        await server.receive(ws)
        head, tail = observation_reply("").split('"text": ""')
        head += '"text": "'
        tail = '"' + tail
        chunk = "x" * MIB
        filler = size - len(head) - len(tail)

        def fragments() -> Iterator[str]:
            yield head
            for start in range(0, filler, MIB):
                yield chunk[: min(MIB, filler - start)]
            yield tail

        await ws.send(fragments())
        await asyncio.sleep(PATIENCE_S)

    return handler


def drop_then(later: Handler, first_delay_s: float = 0.0) -> Handler:
    """The first connection is cut (no reply, no close frame) `first_delay_s` after its first message, as a server
    that closed an idle session; later connections behave as `later`."""
    async def handler(server: HostileServer, ws: Any) -> None:
        if server.connections == 1:
            await server.receive(ws)
            await asyncio.sleep(first_delay_s)
            ws.transport.abort()
            return
        await later(server, ws)

    return handler


def answer_after(delay_s: float) -> Handler:
    async def handler(server: HostileServer, ws: Any) -> None:
        await server.receive(ws)
        await asyncio.sleep(delay_s)
        await ws.send(server.reply)
        await asyncio.sleep(PATIENCE_S)

    return handler


def largest_send_buffer() -> int:
    """The most a TCP socket's send buffer can grow to here (Linux: tcp_wmem's maximum), else 16 MiB."""
    try:
        with open("/proc/sys/net/ipv4/tcp_wmem", encoding="ascii") as file:
            return int(file.read().split()[2])
    except (OSError, ValueError, IndexError):
        return 16 * MIB


class HostileTestCase(unittest.TestCase):
    def serve(self, handler: Handler, receive_buffer: Optional[int] = None) -> HostileServer:
        server = HostileServer(handler, receive_buffer)
        self.addCleanup(server.stop)
        return server

    def client(self, server: HostileServer, **options: Any) -> SQLEnvClient:
        options.setdefault("connect_timeout_s", TIMEOUT_S)
        options.setdefault("message_timeout_s", TIMEOUT_S)
        client = SQLEnvClient(server.url, **options)
        self.addCleanup(client.close)
        return client


class SizeTest(HostileTestCase):
    def test_a_64_mb_reply_is_refused_unread(self):
        server = self.serve(reply_of_size(64 * MIB))
        client = self.client(server, message_timeout_s=30)
        with self.assertRaises(SQLEnvMessageTooLarge) as caught:
            client.reset()
        self.assertEqual(caught.exception.limit, 16 * MIB, "the default limit")
        self.assertIn("max_message_bytes", str(caught.exception))
        self.assertFalse(client.connected, "the connection is dropped")

    def test_the_limit_is_the_one_configured(self):
        big = self.serve(reply_of_size(2 * MIB))
        with self.assertRaises(SQLEnvMessageTooLarge):
            self.client(big, max_message_bytes=1 * MIB, message_timeout_s=30).reset()
        small = self.serve(reply_of_size(MIB // 2))
        result = self.client(small, max_message_bytes=1 * MIB, message_timeout_s=30).reset()
        self.assertEqual(len(result.observation.text.encode("utf-8")), MIB // 2 - len(observation_reply("")))

    def test_an_action_over_the_limit_is_not_sent_and_the_session_goes_on(self):
        server = self.serve(answer)
        client = self.client(server, max_message_bytes=1000)
        client.reset()
        with self.assertRaises(SQLEnvMessageTooLarge) as caught:
            client.query("SELECT '" + "é" * 500 + "'")  # 500 characters, 1,000 bytes in UTF-8
        self.assertGreater(caught.exception.size, 1000)
        self.assertEqual(len(server.messages), 1, "only the reset reached the server")
        self.assertTrue(client.connected)
        self.assertEqual(client.query("SELECT 1").observation.text, "ok")
        self.assertEqual(server.connections, 1, "the same session went on")


class TimeoutTest(HostileTestCase):
    def test_a_step_without_reply_times_out_and_the_next_call_reconnects(self):
        stalled = self.serve(never_answer)
        client = self.client(stalled)
        with self.assertRaises(SQLEnvTimeout) as caught:
            client.step(SQLAction("QUERY", "SELECT 1"))
        self.assertIn("message_timeout_s", str(caught.exception))
        self.assertFalse(client.connected, "a late reply must not answer the next request")
        self.assertEqual(len(stalled.messages), 1)
        with self.assertRaises(SQLEnvTimeout):
            client.state()
        self.assertEqual(stalled.connections, 2, "the next call opened a new connection")

    def test_a_server_that_never_reads_makes_send_time_out(self):
        server = self.serve(never_read, receive_buffer=64 * 1024)
        size = 2 * largest_send_buffer() + MIB  # more than the kernel can buffer between us (its receive buffer is pinned)
        fits = size + MIB <= DEFAULT_MAX_MESSAGE_BYTES
        client = self.client(server, **({} if fits else {"max_message_bytes": size + MIB}))
        client.connect()
        with self.assertRaises(SQLEnvTimeout) as caught:
            client.query("SELECT '" + "x" * size + "'")
        self.assertIn("sending", str(caught.exception))
        self.assertFalse(client.connected)

    def test_a_handshake_that_never_completes_times_out(self):
        # A listening socket that never accepts: the kernel completes TCP, nobody answers the HTTP upgrade.
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(8)
            client = SQLEnvClient(f"ws://127.0.0.1:{listener.getsockname()[1]}/ws", connect_timeout_s=TIMEOUT_S)
            with self.assertRaises(SQLEnvTimeout) as caught:
                client.reset()
            self.assertIn("connect_timeout_s", str(caught.exception))
            client.close()

    def test_a_reset_that_times_out_is_not_retried(self):
        server = self.serve(never_answer)
        with self.assertRaises(SQLEnvTimeout):
            self.client(server).reset()
        self.assertEqual((server.connections, len(server.messages)), (1, 1), "one attempt: the deadline is spent")

    def test_a_reset_retries_once_after_a_dropped_session(self):
        server = self.serve(drop_then(answer))
        result = self.client(server).reset(seed=1)
        self.assertEqual(result.observation.text, "ok")
        self.assertEqual(server.connections, 2)
        self.assertEqual([json.loads(m) for m in server.messages], [{"type": "reset", "data": {"seed": 1}}] * 2)

    def test_the_retry_gets_only_what_is_left_of_the_calls_deadline(self):
        # Deadline: connect 0.5 s + message 2 s = 2.5 s from the start. The first connection is cut 1 s after the
        # reset arrives, so the retry is sent at 1 s or later, and its reply comes 1.6 s after that: at 2.6 s or later,
        # always past the call's deadline (load only makes it later), yet within a fresh 2 s message timeout. A client
        # that restarts its timeouts for the retry returns that reply.
        server = self.serve(drop_then(answer_after(1.6), first_delay_s=1.0))
        client = self.client(server, connect_timeout_s=0.5, message_timeout_s=2.0)
        with self.assertRaises(SQLEnvTimeout):
            client.reset()
        self.assertEqual(server.connections, 2, "the retry was made")

    def test_close_returns_against_a_server_that_never_reads(self):
        server = self.serve(never_read, receive_buffer=64 * 1024)
        client = self.client(server)
        client.connect()
        client.close()
        self.assertFalse(client.connected)
        client.close()


#: Replies that are not this protocol, each with words its error message must contain (the field at fault).
MALFORMED = [
    ("nested 10^5 levels", "[" * 100_000 + "]" * 100_000, "nested"),
    ("metadata nested 10^5 levels", observation_reply().replace('"metadata": {}', '"metadata": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000), "nested"),
    ("nested 100 levels (parsable, too deep)", observation_reply().replace('"metadata": {}', '"metadata": ' + "[" * 100 + "]" * 100), "nested"),
    ("reward a string", observation_reply(reward="abc"), "data.reward"),
    ("reward an array", observation_reply(reward=[1]), "data.reward"),
    ("reward true", observation_reply(reward=True), "data.reward"),
    ("reward a 400-digit integer", observation_reply().replace('"reward": 0.5', '"reward": 1' + "0" * 400), "digits"),
    ("reward 1e400 (infinite)", observation_reply().replace('"reward": 0.5', '"reward": 1e400'), "data.reward"),
    ("reward NaN", observation_reply().replace('"reward": 0.5', '"reward": NaN'), "NaN, which is not JSON"),
    ("a 5,000-digit integer", observation_reply().replace('"steps_left": 3', '"steps_left": ' + "9" * 5000), "digits"),
    ("steps_left 10^20", observation_reply().replace('"steps_left": 3', '"steps_left": 1' + "0" * 20), "steps_left"),
    ("steps_left a string", observation_reply().replace('"steps_left": 3', '"steps_left": "3"'), "steps_left"),
    ("done a string", observation_reply(done="false"), "data.done"),
    ("done missing", observation_reply().replace(', "done": false', ""), "data.done"),
    ("observation missing", json.dumps({"type": "observation", "data": {"reward": 0, "done": False}}), "data.observation"),
    ("observation a list", observation_reply(observation=[1]), "data.observation"),
    ("text missing", observation_reply(observation={"question": "q"}), "observation.text"),
    ("text a number", observation_reply(observation={"text": 5}), "observation.text"),
    ("tables a number", observation_reply(observation={"text": "", "tables": 5}), "observation.tables"),
    ("tables a string", observation_reply(observation={"text": "", "tables": "abc"}), "observation.tables"),
    ("components not numbers", observation_reply(observation={"text": "", "metadata": {"components": {"progress": "high"}}}), "components.progress"),
    ("result rows not arrays", observation_reply(observation={"text": "", "result": {"columns": ["a"], "rows": [5], "total_rows": 1}}), "result.rows[0]"),
    ("table columns wrong", observation_reply(observation={"text": "", "table": {"name": "t", "columns": [{"name": 1}], "foreign_keys": [], "row_count": 0}}), "table.columns[0].name"),
    ("error errors a number", json.dumps({"type": "error", "data": {"message": "m", "code": "C", "errors": 5}}), "data.errors"),
    ("error loc a number", json.dumps({"type": "error", "data": {"message": "m", "code": "C", "errors": [{"loc": 5, "msg": "x"}]}}), "loc"),
    ("error without data", json.dumps({"type": "error"}), "data"),
    ("error code a number", json.dumps({"type": "error", "data": {"message": "m", "code": 5}}), "data.code"),
    ("a reply of another type", json.dumps({"type": "state", "data": {"step_count": 0}}), "observation"),
    ("not JSON", "<html>", "not JSON"),
    ("not UTF-8", b"\xff\xfe{}", "not JSON"),
]


class MalformedReplyTest(HostileTestCase):
    def test_each_malformed_reply_is_a_protocol_error_and_the_client_recovers(self):
        server = self.serve(answer)
        client = self.client(server)
        for name, reply, words in MALFORMED:
            with self.subTest(reply=name):
                server.reply = reply
                try:
                    client.reset()
                except SQLEnvProtocolError as error:
                    self.assertIn(words, str(error))
                    self.assertLess(len(str(error)), 400, "the message quotes the reply briefly")
                except Exception as error:  # noqa: BLE001 — any other type is the failure under test
                    self.fail(f"{type(error).__name__} instead of SQLEnvProtocolError: {str(error)[:200]}")
                else:
                    self.fail("the reply was accepted")
                self.assertFalse(client.connected, "a server that broke the protocol is not trusted with the next reply")
        server.reply = observation_reply("fine")
        self.assertEqual(client.reset().observation.text, "fine")
        self.assertEqual(server.connections, len(MALFORMED) + 1)

    def test_state_replies_are_checked(self):
        server = self.serve(answer)
        client = self.client(server)
        for state, words in [({"step_count": "1"}, "step_count"), ({}, "step_count"),
                             ({"step_count": 1, "episode_return": "high"}, "episode_return"),
                             ({"step_count": 1, "episode_id": 7}, "episode_id")]:
            with self.subTest(state=state):
                server.reply = json.dumps({"type": "state", "data": state})
                with self.assertRaises(SQLEnvProtocolError) as caught:
                    client.state()
                self.assertIn(words, str(caught.exception))
        server.reply = json.dumps({"type": "state", "data": {"episode_id": "e", "step_count": 2, "episode_return": 0.5}})
        self.assertEqual(client.state(), {"episode_id": "e", "step_count": 2, "episode_return": 0.5})

    def test_a_well_formed_error_reply_keeps_the_session(self):
        server = self.serve(answer)
        client = self.client(server)
        server.reply = json.dumps({"type": "error", "data": {"message": "Invalid message", "code": "VALIDATION_ERROR",
                                                               "errors": [{"loc": ["data", 0], "msg": "bad", "input": "x"}]}})
        with self.assertRaises(SQLEnvServerError) as caught:
            client.reset()
        self.assertIn("data.0: bad (got 'x')", str(caught.exception))
        self.assertTrue(client.connected)
        self.assertEqual(server.connections, 1)

    def test_every_failure_is_an_sqlenv_error(self):
        for error_type in (SQLEnvTimeout, SQLEnvMessageTooLarge, SQLEnvProtocolError, SQLEnvConnectionError, SQLEnvServerError):
            self.assertTrue(issubclass(error_type, SQLEnvError), error_type)
        self.assertTrue(issubclass(SQLEnvTimeout, TimeoutError) and issubclass(SQLEnvTimeout, SQLEnvConnectionError))


class TokenTest(HostileTestCase):
    def test_the_token_is_sent_as_a_bearer_header(self):
        server = self.serve(answer)
        self.client(server, token="s3cret-token").reset()
        self.client(server).reset()
        self.assertEqual([h.get("Authorization") for h in server.headers], ["Bearer s3cret-token", None])

    def test_trl_instances_read_the_token_from_the_environment(self):
        server = self.serve(answer)
        with mock.patch.dict(os.environ, {"SQLENV_URL": server.url, "SQLENV_TOKEN": "t0k"}):
            env = SQLEnvTRL()
        self.addCleanup(env._close)
        self.assertEqual(env.reset(question_id="q"), "ok")
        self.assertEqual(server.headers[0].get("Authorization"), "Bearer t0k")

    def test_a_refused_upgrade_says_to_pass_the_token(self):
        refusing = HostileServer(answer, refuse_with=401)
        self.addCleanup(refusing.stop)
        with self.assertRaises(SQLEnvConnectionError) as caught:
            self.client(refusing).reset()
        self.assertNotIsInstance(caught.exception, SQLEnvTimeout)
        self.assertIn("token", str(caught.exception))
        self.assertEqual(refusing.connections, 0)

    def test_a_token_that_could_split_a_header_is_refused(self):
        for token in ["two words", "line\r\nX-Evil: 1", "", "é"]:
            with self.subTest(token=token), self.assertRaises(ValueError):
                SQLEnvClient("ws://127.0.0.1:1/ws", token=token)

    def test_bad_options_are_refused(self):
        for options in [{"message_timeout_s": 0}, {"connect_timeout_s": float("inf")}, {"message_timeout_s": None},
                        {"max_message_bytes": 0}, {"max_message_bytes": 1.5}]:
            with self.subTest(options=options), self.assertRaises(ValueError):
                SQLEnvClient("ws://127.0.0.1:1/ws", **options)


if __name__ == "__main__":
    unittest.main()
