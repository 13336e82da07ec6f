"""Figures for the client against hostile servers (a script, not a test: unittest does not collect it).

    PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 python/tests/measure_hostile.py [--package-dir DIR] [--big-mib N]

For each case it prints how long the call took, what it raised, and the growth of the process's peak RSS
(ru_maxrss: client and fake server share the process, the server streams the big reply in 1 MiB fragments).
`--package-dir` runs an older `sqlenv_client` (a folder holding that package) for before/after figures; the cases
use only the options every version has (message_timeout_s, connect_timeout_s, defaults for the rest).
A stalling fake server gives up after --patience-s, so an old client's hang is reported as "≥ patience".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package-dir", help="a folder holding the sqlenv_client to measure (default: this checkout's)")
    parser.add_argument("--big-mib", type=int, default=256, help="size of the big reply in MiB (default 256)")
    parser.add_argument("--patience-s", type=float, default=60.0, help="how long a stalling server waits (default 60)")
    parser.add_argument("--timeout-s", type=float, default=5.0, help="the client's message_timeout_s (default 5)")
    args = parser.parse_args()

    sys.path.insert(0, HERE)
    import support  # noqa: F401  (puts this checkout's package on sys.path)

    if args.package_dir:
        sys.path.insert(0, os.path.abspath(args.package_dir))
    import test_hostile_server as hostile
    from sqlenv_client import SQLAction, SQLEnvClient

    hostile.PATIENCE_S = args.patience_s
    print(f"client: {os.path.dirname(sys.modules['sqlenv_client'].__file__)}; message_timeout_s={args.timeout_s}, "
          f"connect_timeout_s=1, stalling servers give up after {args.patience_s} s")

    def measure(name: str, handler: hostile.Handler, call, receive_buffer=None, timeout_s=args.timeout_s) -> None:
        server = hostile.HostileServer(handler, receive_buffer)
        client = SQLEnvClient(server.url, connect_timeout_s=1, message_timeout_s=timeout_s)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.monotonic()
        try:
            call(client)
            outcome = "returned"
        except BaseException as error:  # noqa: BLE001 — what it raises is the figure
            outcome = f"{type(error).__name__}: {str(error)[:90]}"
        elapsed = time.monotonic() - start
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
        client.close()
        server.stop()
        print(f"{name:<44} {elapsed:7.2f} s  peak RSS +{grown:7.1f} MiB  {outcome}")

    big = args.big_mib * hostile.MIB
    huge_text = "x" * (2 * hostile.largest_send_buffer() + hostile.MIB)
    # The big reply gets a long timeout, so that a client without a size limit has the time to take it all in.
    measure(f"reply of {args.big_mib} MiB (timeout 300 s)", hostile.reply_of_size(big), lambda c: c.reset(), timeout_s=300)
    measure("step never answered", hostile.never_answer, lambda c: c.step(SQLAction("QUERY", "SELECT 1")))
    measure(f"step of {len(huge_text) // hostile.MIB} MiB, server never reads", hostile.never_read,
            lambda c: c.step(SQLAction("QUERY", huge_text)), receive_buffer=64 * 1024)
    measure("reset never answered (retry?)", hostile.never_answer, lambda c: c.reset())
    for name, reply in [("nested 10^5 levels", "[" * 100_000 + "]" * 100_000),
                        ("reward a 400-digit integer", hostile.observation_reply().replace('"reward": 0.5', '"reward": 1' + "0" * 400)),
                        ("tables a number", hostile.observation_reply(observation={"text": "", "tables": 5})),
                        ("error errors a number", json.dumps({"type": "error", "data": {"message": "m", "code": "C", "errors": 5}}))]:
        async def replying(server: hostile.HostileServer, ws, reply=reply):  # type: ignore[no-untyped-def]
            server.reply = reply
            await hostile.answer(server, ws)

        measure(name, replying, lambda c: c.reset())


if __name__ == "__main__":
    main()
