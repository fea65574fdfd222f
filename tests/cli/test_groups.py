"""`mirra groups` (kafka-consumer-groups.sh) against a real `mirra server`, with groups made by
python3-confluent-kafka consumers: offsets committed without joining (an empty group), and a
subscribed consumer polling in a thread (a live, Stable group). Every wait is a bounded poll of
a condition (mirra_testlib.wait_until), never a sleep."""
import re
import threading

import pytest
from confluent_kafka import Consumer, TopicPartition

from conftest import TIMEOUT, Broker, assert_one_line_error, mirra
from mirra_testlib import succeeded as ok
from mirra_testlib import table_rows as rows
from mirra_testlib import wait_until

OVERRIDES = {
    "group.initial.rebalance.delay.ms": 0,  # a lone consumer joins at once
    "offsets.topic.num.partitions": 3,      # a quick first FindCoordinator
    "group.min.session.timeout.ms": 1000,
}


@pytest.fixture
def server(tmp_path):
    s = Broker(tmp_path, overrides=OVERRIDES, timeout=TIMEOUT).start()
    yield s
    assert s.stop() == 0, s.log()


def groups(server, *args):
    return mirra("groups", "--bootstrap-server", server.bootstrap, *args)


def make_topic(server, topic, partitions, records_per_partition):
    ok(mirra("topics", "--bootstrap-server", server.bootstrap, "--create", "--topic", topic,
             "--partitions", str(partitions)))
    for p in range(partitions):
        produce(server, topic, p, records_per_partition)


def produce(server, topic, partition, n):
    r = mirra("produce", "--bootstrap-server", server.bootstrap, "--topic", topic,
              "--partition", str(partition), input="".join(f"r{i}\n" for i in range(n)))
    assert r.returncode == 0, r.stderr


def commit(server, group, offsets):
    """Commits {(topic, partition): offset} for `group` without joining it (generation -1)."""
    c = Consumer({"bootstrap.servers": server.bootstrap, "group.id": group,
                  "enable.auto.commit": False})
    try:
        tps = [TopicPartition(t, p, o) for (t, p), o in offsets.items()]
        for tp in c.commit(offsets=tps, asynchronous=False):
            assert tp.error is None, tp
    finally:
        c.close()


def committed(server, group, topic):
    """{partition: CURRENT-OFFSET} from `mirra groups --describe` ('-' kept as is)."""
    out = ok(groups(server, "--describe", "--group", group))
    return {int(r[2]): r[3] for r in rows(out) if r[1] == topic}


class LiveConsumer:
    """A consumer subscribed to `topic` in `group`, polling in a thread and committing each
    message. hold() parks the thread: it stops polling but stays a member (librdkafka
    heartbeats from its own thread, and max.poll.interval.ms is minutes away)."""

    def __init__(self, server, group, topic, client_id="live-client"):
        self.consumer = Consumer({
            "bootstrap.servers": server.bootstrap, "group.id": group, "client.id": client_id,
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "session.timeout.ms": 10000})
        self.consumer.subscribe([topic])
        self.received = []  # (partition, offset), in arrival order
        self.errors = []
        self.lock = threading.Lock()
        self.go = threading.Event()
        self.go.set()
        self.parked = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            if not self.go.is_set():
                self.parked.set()
                self.go.wait()
                continue
            msg = self.consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error():
                self.errors.append(str(msg.error()))
                continue
            self.consumer.commit(message=msg, asynchronous=False)
            with self.lock:
                self.received.append((msg.partition(), msg.offset()))

    def count(self):
        with self.lock:
            return len(self.received)

    def by_partition(self):
        with self.lock:
            out = {}
            for p, o in self.received:
                out.setdefault(p, []).append(o)
            return out

    def hold(self):
        self.go.clear()
        assert self.parked.wait(TIMEOUT), "the consumer thread did not park"

    def close(self):
        self.stop.set()
        self.go.set()
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive()
        self.consumer.close()  # leaves the group
        assert not self.errors, self.errors


@pytest.fixture
def live(server):
    """Topic t (3 partitions, 5 records each) consumed to the end by a live member of g-live."""
    make_topic(server, "t", 3, 5)
    c = LiveConsumer(server, "g-live", "t")
    wait_until(lambda: c.count() == 15, TIMEOUT, "the consumer to read 15 records")
    yield c
    c.close()


def test_list_and_describe_a_group_without_members(server):
    make_topic(server, "t", 3, 5)
    commit(server, "g-static", {("t", 0): 2, ("t", 1): 5})
    assert "g-static" in ok(groups(server, "--list")).splitlines()
    assert ["g-static", "Empty"] in rows(ok(groups(server, "--list", "--state")))
    assert ["g-static", "Empty"] in rows(ok(groups(server, "--list", "--state", "empty")))
    assert rows(ok(groups(server, "--list", "--state", "Stable"))) == []

    r = groups(server, "--describe", "--group", "g-static")
    assert r.returncode == 0, r.stderr
    assert r.stderr == "Consumer group 'g-static' has no active members.\n"
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                                "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]
    # Partition 2 has no committed offset: not shown, as Kafka's tool does.
    assert rows(r.stdout) == [["g-static", "t", "0", "2", "5", "3", "-", "-", "-"],
                              ["g-static", "t", "1", "5", "5", "0", "-", "-", "-"]]

    state = rows(ok(groups(server, "--describe", "--group", "g-static", "--state")))
    assert len(state) == 1
    assert re.fullmatch(r"127\.0\.0\.1:\d+", state[0][1]), state
    assert state[0][-2:] == ["Empty", "0"], state
    assert ok(groups(server, "--describe", "--group", "g-static", "--members")) == ""


def test_describe_a_live_group_shows_its_member_and_lag(server, live):
    wait_until(lambda: committed(server, "g-live", "t") == {0: "5", 1: "5", 2: "5"}, TIMEOUT,
               "the live consumer's commits")
    live.hold()
    produce(server, "t", 1, 4)  # not consumed: lag 4 on partition 1
    members = rows(ok(groups(server, "--describe", "--group", "g-live", "--members",
                             "--verbose")))
    assert len(members) == 1, members
    group, member_id, host, client_id, count, *assignment = members[0]
    assert (group, client_id, count) == ("g-live", "live-client", "3")
    assert " ".join(assignment) == "t(0,1,2)"
    out = ok(groups(server, "--describe", "--group", "g-live"))
    assert rows(out) == [["g-live", "t", "0", "5", "5", "0", member_id, host, "live-client"],
                         ["g-live", "t", "1", "5", "9", "4", member_id, host, "live-client"],
                         ["g-live", "t", "2", "5", "5", "0", member_id, host, "live-client"]]
    state = rows(ok(groups(server, "--describe", "--group", "g-live", "--state")))
    assert state[0][-2:] == ["Stable", "1"], state
    assert state[0][-3] in ("range", "roundrobin"), state  # librdkafka's assignors
    assert ["g-live", "Stable"] in rows(ok(groups(server, "--list", "--state", "Stable")))
    # --all-groups describes it too.
    assert member_id in ok(groups(server, "--describe", "--all-groups"))


def test_reset_and_delete_are_refused_while_the_group_is_active(server, live):
    for mode in ("--execute", "--dry-run"):
        r = groups(server, "--reset-offsets", "--group", "g-live", "--topic", "t",
                   "--to-earliest", mode)
        assert_one_line_error(r, "Assignments can only be reset if the group 'g-live' is "
                                 "inactive, but the current state is Stable.")
    assert_one_line_error(groups(server, "--delete", "--group", "g-live"), "g-live",
                          "not empty")
    r = groups(server, "--delete-offsets", "--group", "g-live", "--topic", "t")
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "subscribed" in r.stderr, r.stderr
    assert committed(server, "g-live", "t") == {0: "5", 1: "5", 2: "5"}


def plan(server, group, *args):
    """The (topic, partition, new offset) rows of a reset's output."""
    out = ok(groups(server, "--reset-offsets", "--group", group, *args))
    return [(r[1], int(r[2]), int(r[3])) for r in rows(out) if r[0] == group]


def test_reset_plans_follow_kafka_and_only_execute_commits(server):
    make_topic(server, "t", 3, 5)
    commit(server, "g", {("t", 0): 3, ("t", 1): 3, ("t", 2): 3})
    cases = [
        (["--to-earliest"], [0, 0, 0]),
        (["--to-latest"], [5, 5, 5]),
        (["--to-current"], [3, 3, 3]),
        (["--to-offset", "1"], [1, 1, 1]),
        (["--to-offset", "99"], [5, 5, 5]),        # clamped to the log end
        (["--shift-by", "-10"], [0, 0, 0]),        # clamped to the log start
        (["--shift-by", "1"], [4, 4, 4]),
        (["--to-datetime", "1970-01-01T00:00:00.000"], [0, 0, 0]),
        (["--to-datetime", "2999-01-01T00:00:00.000"], [5, 5, 5]),  # no record after: end
        (["--by-duration", "P3650D"], [0, 0, 0]),
    ]
    for args, expected in cases:
        got = plan(server, "g", "--topic", "t", *args)
        assert got == [("t", p, o) for p, o in enumerate(expected)], (args, got)
    assert plan(server, "g", "--topic", "t:0,2", "--to-offset", "1") == [("t", 0, 1), ("t", 2, 1)]
    assert plan(server, "g", "--all-topics", "--to-earliest", "--dry-run") == \
        [("t", 0, 0), ("t", 1, 0), ("t", 2, 0)]
    # Dry runs changed nothing.
    assert committed(server, "g", "t") == {0: "3", 1: "3", 2: "3"}
    assert plan(server, "g", "--topic", "t:0", "--to-offset", "1", "--execute") == [("t", 0, 1)]
    assert committed(server, "g", "t") == {0: "1", 1: "3", 2: "3"}


def test_a_consumer_resumes_at_the_reset_position(server):
    make_topic(server, "t", 3, 5)
    commit(server, "g-resume", {("t", 0): 5, ("t", 1): 5, ("t", 2): 5})
    assert plan(server, "g-resume", "--topic", "t:0", "--shift-by", "-3", "--execute") == \
        [("t", 0, 2)]
    c = LiveConsumer(server, "g-resume", "t")
    try:
        wait_until(lambda: c.by_partition().get(0, []) == [2, 3, 4], TIMEOUT,
                   "partition 0 from the reset offset 2")
        # Partition 1 resumes at its committed 5: the next record is the first it reads.
        produce(server, "t", 1, 1)
        wait_until(lambda: c.by_partition().get(1) == [5], TIMEOUT, "partition 1 from offset 5")
        assert 2 not in c.by_partition()
    finally:
        c.close()


def test_delete_groups_and_offsets(server):
    make_topic(server, "t", 2, 3)
    make_topic(server, "u", 1, 3)
    commit(server, "g1", {("t", 0): 1, ("t", 1): 2, ("u", 0): 3})
    commit(server, "g2", {("t", 0): 1})

    r = groups(server, "--delete-offsets", "--group", "g1", "--topic", "u")
    assert rows(ok(r), "TOPIC") == [["u", "0", "Successful"]]
    assert rows(ok(groups(server, "--describe", "--group", "g1"))) == [
        ["g1", "t", "0", "1", "3", "2", "-", "-", "-"],
        ["g1", "t", "1", "2", "3", "1", "-", "-", "-"]]

    assert ok(groups(server, "--delete", "--group", "g1", "--group", "g2")) == \
        "Deletion of requested consumer groups ('g1', 'g2') was successful.\n"
    listed = ok(groups(server, "--list")).splitlines()
    assert "g1" not in listed and "g2" not in listed
    assert_one_line_error(groups(server, "--delete", "--group", "g1"), "g1")
    assert_one_line_error(groups(server, "--describe", "--group", "g1"),
                          "Consumer group 'g1' does not exist.")


@pytest.mark.parametrize("args,fragment", [
    ([], "exactly one action"),
    (["--list", "--describe"], "exactly one action"),
    (["--describe"], "--describe takes one of these options: --all-groups, --group"),
    (["--describe", "--group", "g", "--all-groups"], "cannot be used together"),
    (["--describe", "--group", "g", "--members", "--state"], "at most one of these options"),
    (["--list", "--state", "Sleeping"], "Invalid state list 'Sleeping'"),
    (["--reset-offsets", "--group", "g", "--topic", "t"], "exactly one of --to-earliest"),
    (["--reset-offsets", "--group", "g", "--to-earliest"], "--all-topics, --topic"),
    (["--reset-offsets", "--group", "g", "--topic", "t", "--to-earliest", "--execute",
      "--dry-run"], "only accepts one of --execute and --dry-run"),
    (["--reset-offsets", "--group", "g", "--topic", "t:x", "--to-earliest"],
     "Invalid partition 'x'"),
    (["--reset-offsets", "--group", "g", "--topic", "t", "--to-datetime", "2020-01-01"],
     "--to-datetime '2020-01-01' is not of the form"),
    (["--reset-offsets", "--group", "g", "--topic", "t", "--by-duration", "1h"],
     "--by-duration '1h'"),
    (["--reset-offsets", "--group", "g", "--topic", "t", "--to-offset", "ten"], "--to-offset"),
    (["--describe", "--group", "g", "--execute"], "--execute can only be used with"),
    (["--delete-offsets", "--group", "g"], "one --group and at least one --topic"),
    (["--describe", "--group", "g", "--bogus"], "--bogus"),
])
def test_bad_arguments_fail_with_one_line(args, fragment):
    assert_one_line_error(mirra("groups", "--bootstrap-server", "127.0.0.1:1", *args), fragment)


def test_unreachable_broker_and_missing_bootstrap_fail_with_one_line():
    assert_one_line_error(mirra("groups", "--list"), "--bootstrap-server is required")
    assert_one_line_error(mirra("groups", "--bootstrap-server", "127.0.0.1:1", "--list"),
                          "cannot reach any broker")


def test_unknown_topic_and_group(server):
    assert_one_line_error(groups(server, "--reset-offsets", "--group", "g", "--topic", "nope",
                                 "--to-earliest"), "nope")
    assert_one_line_error(groups(server, "--describe", "--group", "never"),
                          "Consumer group 'never' does not exist.")
