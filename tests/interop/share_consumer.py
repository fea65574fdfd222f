"""librdkafka 2.15.1's share consumer for the Python tests: tests/share_client/share_consumer (the
driver) and tests/share_client/mock_share_cluster (librdkafka's mock cluster with share groups).

`consume(bootstrap, group, topics, *args)` runs the driver to its stop and returns a `Run`: its
records (stdout, one JSON object a line), its events (stderr, likewise), its exit code.
`ShareConsumer(...)` starts one in the background (several members at once), `.stop()` sends
SIGTERM, `.finish()` waits for it. `MockShareCluster(records=..)` starts the mock, `.produce(n)`
adds records, `.members(group)` counts a group's members, `.close()` ends it.

The binaries are $SHARE_CONSUMER_BIN and $MOCK_SHARE_CLUSTER_BIN (set by tests/interop/
CMakeLists.txt), else those of the build that holds $MIRRA_BIN. A missing binary fails the test.
Every wait is bounded and waits for a process or a line on a pipe, never a sleep."""
import json
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from mirra_testlib import MIRRA
from mock_cluster import read_line
from raw_admin import incremental_alter

# Broker settings for share members that come and go within a test: Kafka's minimum session
# timeout (45 s) and heartbeat interval (5 s) lowered with their bounds.
FAST_MEMBERSHIP = {
    "group.share.min.session.timeout.ms": "1000", "group.share.session.timeout.ms": "3000",
    "group.share.min.heartbeat.interval.ms": "500", "group.share.heartbeat.interval.ms": "500"}
GROUP_RESOURCE, SET = 32, 0


def topic_with(broker, name, partitions, n):
    """A topic of `partitions` with n records "key-<i>" spread over them in turn."""
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(15)
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(n):
        p.produce(name, key=f"key-{i}".encode(), value=f"value-{i}".encode(), partition=i % partitions)
    assert p.flush(15) == 0


def earliest(broker, group):
    """The share group starts at the earliest offset (its GROUP config
    share.auto.offset.reset), where Kafka's default is the latest."""
    got = incremental_alter(broker.port, [(GROUP_RESOURCE, group,
                                           [("share.auto.offset.reset", SET, "earliest")])])
    assert got[(GROUP_RESOURCE, group)][0] == 0, got


_BUILD = os.path.dirname(MIRRA)
SHARE_CONSUMER = os.environ.get("SHARE_CONSUMER_BIN",
                                os.path.join(_BUILD, "tests/share_client/share_consumer"))
MOCK_SHARE_CLUSTER = os.environ.get("MOCK_SHARE_CLUSTER_BIN",
                                    os.path.join(_BUILD, "tests/share_client/mock_share_cluster"))
TIMEOUT = 60.0  # seconds: the bound of one driver run


def _binary(path):
    assert os.access(path, os.X_OK), (f"{path} is missing: build the targets share_consumer and "
                                      "mock_share_cluster (tests/share_client)")
    return path


def _json_lines(text, what):
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise AssertionError(f"{what}: not a JSON line: {line!r}") from e
    return out


@dataclass
class Run:
    """One finished driver: `records` in the order received, `events` as written."""
    returncode: int
    records: list
    events: list
    stderr: str = field(repr=False)

    def stopped(self):
        """The final event: {"event":"stopped","reason":..,"records":..,"errors":..}."""
        last = [e for e in self.events if e.get("event") == "stopped"]
        assert last, f"no stopped event (exit {self.returncode}):\n{self.stderr}"
        return last[-1]

    def errors(self):
        return [e for e in self.events if e.get("event") == "error"]

    def assert_clean(self, reason="max-records"):
        """Exit 0, stopped for `reason`, no error event."""
        assert self.returncode == 0, (self.returncode, self.stderr)
        assert self.stopped()["reason"] == reason, self.stderr
        assert not self.errors(), self.errors()


def _command(bootstrap, group, topics, args):
    cmd = [_binary(SHARE_CONSUMER), "--bootstrap", bootstrap, "--group", group]
    for t in [topics] if isinstance(topics, str) else topics:
        cmd += ["--topic", t]
    return cmd + [str(a) for a in args]


class ShareConsumer:
    """A driver in the background. Threads read its output as it comes; with a `sink` (a
    queue.Queue) each record is also put there as it arrives, for tests that watch several
    members at once."""

    def __init__(self, bootstrap, group, topics, *args, sink=None):
        self.proc = subprocess.Popen(_command(bootstrap, group, topics, args),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._out, self._err = [], []
        self._readers = [threading.Thread(target=self._read, args=(self.proc.stdout, self._out,
                                                                    sink), daemon=True),
                         threading.Thread(target=self._read, args=(self.proc.stderr, self._err,
                                                                    None), daemon=True)]
        for t in self._readers:
            t.start()

    @staticmethod
    def _read(stream, lines, sink):
        for line in stream:
            lines.append(line)
            if sink is not None:
                sink.put(json.loads(line))

    def stop(self, timeout=TIMEOUT):
        """SIGTERM: the driver stops polling, closes (sending pending acknowledgements), exits.
        Sent once the driver has said it subscribed: its handler is in place from then on, and a
        signal before it (a member still starting on a loaded machine) would kill it instead."""
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and not any('"subscribed"' in e for e in self._err):
            assert time.monotonic() < deadline, "share_consumer never subscribed"
            time.sleep(0.01)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def finish(self, timeout=TIMEOUT):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"share_consumer still running after {timeout}s:\n"
                                 + "".join(self._err))
        for t in self._readers:
            t.join(TIMEOUT)  # the pipes end with the process
        err = "".join(self._err)
        return Run(self.proc.returncode, _json_lines("".join(self._out), "stdout"),
                   _json_lines(err, "stderr"), err)


def consume(bootstrap, group, topics, *args, timeout=TIMEOUT):
    """Runs the driver to its stop (give it --max-records and/or --idle-ms)."""
    return ShareConsumer(bootstrap, group, topics, *args).finish(timeout)


class MockShareCluster:
    """tests/share_client/mock_share_cluster: one topic holding `records` records (record i: key
    "key-i", value "value-i", partition i % partitions)."""

    def __init__(self, records=0, partitions=1, brokers=1, topic="share-topic", delivery_limit=0,
                 lock_ms=0, session_timeout_ms=0):
        self.topic, self.partitions, self.count = topic, partitions, records
        args = [_binary(MOCK_SHARE_CLUSTER), "--brokers", brokers, "--topic", topic,
                "--partitions", partitions, "--records", records]
        if delivery_limit:
            args += ["--delivery-limit", delivery_limit]
        if lock_ms:
            args += ["--lock-ms", lock_ms]
        if session_timeout_ms:
            args += ["--session-timeout-ms", session_timeout_ms]
        self.proc = subprocess.Popen([str(a) for a in args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.bootstrap = read_line(self.proc.stdout)
        assert re.match(r"^127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)*$", self.bootstrap), self.bootstrap

    def produce(self, n):
        """n more records, numbered on; returns their numbers."""
        self.proc.stdin.write(f"produce {n}\n")
        self.proc.stdin.flush()
        assert read_line(self.proc.stdout) == "ok"
        first, self.count = self.count, self.count + n
        return range(first, self.count)

    def members(self, group):
        """How many members the mock's share group `group` has now."""
        self.proc.stdin.write(f"members {group}\n")
        self.proc.stdin.flush()
        answer = read_line(self.proc.stdout)
        assert answer.startswith("ok "), answer
        return int(answer[3:])

    def record(self, i):
        """What the driver prints for record i, without the per-delivery fields."""
        p = i % self.partitions
        return {"topic": self.topic, "partition": p, "offset": i // self.partitions,
                "key": f"key-{i}", "value": f"value-{i}"}

    def close(self):
        self.proc.stdin.close()
        assert self.proc.wait(TIMEOUT) == 0
