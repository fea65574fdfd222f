"""librdkafka's mock cluster (tests/tools/mock_cluster, a Kafka we did not write) as a process
for the Python tests: `MockCluster(*topics, brokers=3)` starts it and reads its bootstrap
servers; `command(line)` sends one of its stdin commands (leader, down, up, topic,
topic-error) and fails unless it answers "ok"; `close()` ends it (stdin closed, exit 0).

The binary is $MOCK_CLUSTER_BIN (set by CMake), else tests/tools/mock_cluster of the build
that holds $MIRRA_BIN. Every wait is bounded and waits on a line on a pipe, never a sleep."""
import os
import re
import subprocess
import threading

from mirra_testlib import MIRRA

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
    """tests/tools/mock_cluster: prints its bootstrap servers, obeys commands on stdin. Topics
    are "name:partitions[:replication]"."""

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
