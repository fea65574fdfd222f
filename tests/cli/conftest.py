"""Fixtures for the `mirra produce/consume/topics` tests: librdkafka's mock cluster (a Kafka we
did not write) and a real `mirra server`. Every wait is bounded and waits on an event (a line
on a pipe, a process exit), never on a fixed sleep."""
import os
import re
import subprocess
import threading

import pytest

HERE = os.path.dirname(__file__)
MIRRA = os.environ.get("MIRRA_BIN", os.path.join(HERE, "../../build/mirra"))
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


def mirra(*args, input=None, timeout=TIMEOUT):
    """Runs `mirra <args>`; returns the CompletedProcess (text mode)."""
    return subprocess.run([MIRRA, *args], input=input, capture_output=True, text=True,
                          timeout=timeout)


def assert_one_line_error(r, *fragments):
    """Exit code 1 and exactly one line on stderr containing every fragment."""
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


class MirraServer:
    """`mirra server` on an ephemeral port; its log is drained by a thread."""

    def __init__(self, tmp_path):
        self.proc = subprocess.Popen(
            [MIRRA, "server", "--override", "listeners=PLAINTEXT://127.0.0.1:0",
             "--override", f"log.dirs={tmp_path / 'data'}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.port = None
        found = threading.Event()

        def drain():
            for line in self.proc.stderr:
                self.lines.append(line)
                m = re.search(r"listening on PLAINTEXT://127\.0\.0\.1:(\d+)", line)
                if m and self.port is None:
                    self.port = int(m.group(1))
                    found.set()
            found.set()

        threading.Thread(target=drain, daemon=True).start()
        assert found.wait(TIMEOUT) and self.port, "no 'listening on' line:\n" + "".join(self.lines)
        self.bootstrap = f"127.0.0.1:{self.port}"

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(TIMEOUT) == 0, "".join(self.lines)


@pytest.fixture
def server(tmp_path):
    s = MirraServer(tmp_path)
    yield s
    s.stop()
