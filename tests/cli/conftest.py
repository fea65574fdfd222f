"""Fixtures for the `mirra produce/consume/topics` tests: librdkafka's mock cluster (a Kafka we
did not write) and a real `mirra server`. Every wait is bounded and waits on an event (a line
on a pipe, a process exit), never on a fixed sleep."""
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from mirra_testlib import (MIRRA, Broker, assert_one_line_error,  # noqa: E402,F401
                           pytest_runtest_makereport, pytest_runtest_setup)
from mirra_testlib import run_mirra as mirra  # noqa: E402,F401  (`mirra <args>` to completion)

MOCK = os.environ.get("MOCK_CLUSTER_BIN",
                      os.path.join(os.path.dirname(MIRRA), "tests/tools/mock_cluster"))
TIMEOUT = 30.0


def read_line(stream, timeout=TIMEOUT):
    """One line from a pipe within `timeout` seconds (a thread, so a hung process fails)."""
    out = []
    t = threading.Thread(target=lambda: out.append(stream.readline()), daemon=True)
    t.start()
    t.join(timeout)
    if not out:
        raise AssertionError(f"no line within {timeout}s")
    return out[0].rstrip("\n")


class MockCluster:
    """tests/tools/mock_cluster: prints its bootstrap servers, obeys commands on stdin."""

    def __init__(self, *topics, brokers=3):
        args = [MOCK, "--brokers", str(brokers)]
        for t in topics:
            args += ["--topic", t]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.bootstrap = read_line(self.proc.stdout)
        assert re.match(r"^127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)*$", self.bootstrap), self.bootstrap

    def command(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = read_line(self.proc.stdout)
        assert answer == "ok", f"{line}: {answer}"

    def close(self):
        self.proc.stdin.close()
        assert self.proc.wait(TIMEOUT) == 0


@pytest.fixture
def mock():
    m = MockCluster("t1:1", "t3:3")
    yield m
    m.close()


@pytest.fixture
def server(tmp_path):
    """`mirra server` on an ephemeral port; it must exit 0 at SIGTERM."""
    s = Broker(tmp_path, timeout=TIMEOUT).start()
    yield s
    assert s.stop() == 0, s.log()
