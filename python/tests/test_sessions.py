"""Sessions the server ends: a full server (CAPACITY_REACHED) and an idle session (SESSION_ERROR), and how the client
and SQLEnvTRL recover from each. A server of their own: one session at most, closed after 1 s idle.

No fixed sleeps: an idle close is waited for as the event it is (the server's one slot comes free, seen by another
client getting it), and every wait has a generous deadline that only a broken server reaches."""

import os
import unittest
from unittest import mock

from support import ServerProcess, wait_until
from sqlenv_client import SQLEnvClient, SQLEnvConnectionError, SQLEnvServerError, SQLEnvTRL

QUESTION = "demo-school-014"


# Only a broken server takes this long: the reaper closes a 1 s idle session within 1.25 s.
PATIENCE_S = 30.0


def plays(client: SQLEnvClient) -> bool:
    try:
        return client.reset(question_id=QUESTION).observation.steps_left == 10
    except SQLEnvServerError as error:
        if error.code != "CAPACITY_REACHED":
            raise
        return False


class SessionEndTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess("--max-sessions", "1", "--idle-timeout", "1")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def playing_client(self) -> SQLEnvClient:
        """A client with an episode started, once the previous test's session has freed the one slot."""
        client = SQLEnvClient(self.server.url)
        self.addCleanup(client.close)
        self.assertTrue(wait_until(lambda: plays(client)), "the server's one slot is free")
        return client

    def wait_for_idle_close(self) -> None:
        """Returns once the idle reaper has closed the one open session: another client then gets the server's only
        slot (and lets it go again)."""
        probe = SQLEnvClient(self.server.url)
        try:
            self.assertTrue(wait_until(lambda: plays(probe), PATIENCE_S), "the idle session is closed and frees the slot")
        finally:
            probe.close()

    def test_full_server_then_a_free_slot(self):
        first = self.playing_client()
        second = SQLEnvClient(self.server.url)
        self.addCleanup(second.close)
        with self.assertRaises(SQLEnvServerError) as caught:
            second.reset(question_id=QUESTION)
        self.assertEqual(caught.exception.code, "CAPACITY_REACHED")
        self.assertFalse(second.connected, "the server closes a connection it has no session for")
        first.close()
        self.assertTrue(wait_until(lambda: plays(second)), "the slot is free once the first session has closed")

    def test_idle_session_is_closed_and_reset_reconnects(self):
        client = self.playing_client()
        self.wait_for_idle_close()
        with self.assertRaises((SQLEnvServerError, SQLEnvConnectionError)):
            client.describe("students")
        # The probe's close reaches the server a moment after it returns: reset until the slot is ours.
        self.assertTrue(wait_until(lambda: plays(client), PATIENCE_S), "reset reconnects with a fresh episode")
        client.close()

    def test_trl_instance_survives_an_idle_close_between_episodes(self):
        with mock.patch.dict(os.environ, {"SQLENV_URL": self.server.url}):
            env = SQLEnvTRL()
        self.addCleanup(env._close)
        self.assertTrue(wait_until(lambda: plays(env._client)), "the server's one slot is free")
        env.reset(question_id=QUESTION)
        env.answer("72")
        self.wait_for_idle_close()  # TRL trains between batches; the server closes the idle session meanwhile.
        observations: list[str] = []

        def resets() -> bool:
            try:
                observations.append(env.reset(question_id=QUESTION))
                return True
            except SQLEnvServerError as error:
                if error.code != "CAPACITY_REACHED":  # the probe's slot, not yet released: try again
                    raise
                return False

        self.assertTrue(wait_until(resets, PATIENCE_S), "SQLEnvTRL starts a new episode on a new session")
        self.assertIn("born in 2003", observations[-1])
        self.assertIn("correct", env.answer("72"))
        self.assertAlmostEqual(env.reward, 1.0)
        env._close()


if __name__ == "__main__":
    unittest.main()
