"""Fixtures for the `mirra produce/consume/topics` tests: librdkafka's mock cluster (a Kafka we
did not write) and a real `mirra server`. Every wait is bounded and waits on an event (a line
on a pipe, a process exit), never on a fixed sleep."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from mirra_testlib import (MIRRA, Broker, assert_one_line_error,  # noqa: E402,F401
                           pytest_runtest_makereport, pytest_runtest_setup)
from mirra_testlib import run_mirra as mirra  # noqa: E402,F401  (`mirra <args>` to completion)
from mock_cluster import TIMEOUT, MockCluster  # noqa: E402,F401


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
