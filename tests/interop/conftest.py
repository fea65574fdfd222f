"""Shared fixtures of the broker interop suite (tests/interop).

`Broker` (tests/pylib/mirra_testlib.py) runs one `mirra server` process on a free loopback
port with its own data directory, collects everything it logs, and can be stopped with
SIGTERM, killed with SIGKILL, and started again on the same directory and port. Every wait is
bounded and waits for a condition (a log line, a process exit, a client answer), never for a
fixed time.

When a test fails, the log of every broker it used is appended to the failure report, so a
client-side symptom comes with the broker's side of the story.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from mirra_testlib import (Broker, in_use, make_broker, pytest_runtest_makereport,  # noqa: E402,F401
                           pytest_runtest_setup, stop_cleanly)
from certs import certs  # noqa: E402,F401 - session fixture: test CA, server, client certs


@pytest.fixture(scope="session")
def session_broker(tmp_path_factory):
    """One broker shared by the per-client tests (each test uses its own topics)."""
    b = Broker(tmp_path_factory.mktemp("shared"), {"num.partitions": 2}, name="shared-broker")
    b.start()
    yield b
    # Well-behaved real clients never make the broker warn (e.g. close a connection because a
    # client asked for an API without a handler).
    stop_cleanly(b, no_problems=True, what="while serving the client tests")


@pytest.fixture
def broker(session_broker):
    return in_use(session_broker)


@pytest.fixture(scope="session", autouse=True)
def _node_servers():
    """The Node client processes (tests/interop/node) live for the session."""
    yield
    import clients
    clients.NodeServer.close_all()
