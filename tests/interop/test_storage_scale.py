"""Many partitions (issue 15, points 6 and 13): ten thousand partitions work under the usual
process limit of 1024 open files, and a clean restart recovers nothing and rewrites nothing.
"""
import os
import re

import confluent_kafka
from confluent_kafka.admin import AdminClient, NewTopic

import clients
from mirra_testlib import Broker

FILE_LIMIT = 1024
CREATE_TIMEOUT = 120.0  # seconds for CreateTopics of thousands of partitions on a busy machine


class LimitedBroker(Broker):
    """A broker started under `prlimit --nofile=<limit>:<limit>`, as on a default Linux box."""

    def __init__(self, *args, limit=FILE_LIMIT, **kwargs):
        super().__init__(*args, **kwargs)
        self.limit = limit

    def command(self, port):
        return ["prlimit", f"--nofile={self.limit}:{self.limit}", "--"] + super().command(port)


def create_topics(bootstrap, topics):
    """{name: partitions} in one CreateTopics request; every topic must succeed."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fs = admin.create_topics([NewTopic(t, n, 1) for t, n in topics.items()],
                             operation_timeout=CREATE_TIMEOUT, request_timeout=CREATE_TIMEOUT)
    errors = {}
    for t, f in fs.items():
        try:
            f.result(timeout=CREATE_TIMEOUT)
        except confluent_kafka.KafkaException as e:
            errors[t] = str(e)
    assert not errors, f"{len(errors)} topic(s) failed, e.g. {list(errors.items())[:3]}"


def leaderless(bootstrap, topics):
    """Partitions of `topics` whose metadata shows no leader or an error."""
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=60)
    bad = []
    for t, n in topics.items():
        tm = md.topics.get(t)
        assert tm is not None and tm.error is None, f"{t}: {tm and tm.error}"
        assert len(tm.partitions) == n, f"{t}: {len(tm.partitions)} partitions, expected {n}"
        bad += [(t, p) for p, pm in tm.partitions.items() if pm.leader < 0 or pm.error]
    return bad


def test_ten_thousand_partitions_at_1024_open_files(tmp_path):
    b = LimitedBroker(tmp_path, name="10k").start()
    try:
        # 9,600 partitions in four topics and 400 one-partition topics (the case).
        topics = {f"wide-{i}": 2400 for i in range(4)}
        topics.update({f"single-{i}": 1 for i in range(400)})
        assert sum(topics.values()) == 10_000
        create_topics(b.bootstrap, topics)
        assert leaderless(b.bootstrap, topics) == []

        # A sample spread over every topic and the whole range of partitions.
        sample = [(t, p) for t, n in topics.items() for p in range(0, n, 97 if n > 1 else 1)]
        sample = sample[::2]  # about 150 of the 400 single ones, 25 per wide topic
        delivered = {}
        producer = confluent_kafka.Producer({"bootstrap.servers": b.bootstrap, "acks": "all",
                                             "linger.ms": 20, "message.timeout.ms": 60000})

        def report(err, msg):
            delivered[(msg.topic(), msg.partition())] = err or msg.offset()

        for t, p in sample:
            producer.produce(t, value=f"{t}/{p}".encode(), partition=p, on_delivery=report)
        assert producer.flush(CREATE_TIMEOUT) == 0
        assert delivered == {tp: 0 for tp in sample}, \
            {tp: r for tp, r in delivered.items() if r != 0}
        ck = clients.ConfluentKafka(b.bootstrap)
        for t, p in sample[:: max(1, len(sample) // 12)]:  # read back a dozen, spread out
            got = ck.consume(t, p, "earliest", 1)
            assert [r["value"] for r in got] == [f"{t}/{p}"], (t, p, got)
        assert not re.search(r"(?i)too many open files", b.log()), b.tail()
    finally:
        b.stop()


def partition_files(data_dir):
    """{relative path: (inode, mtime_ns, size)} of every file in the partition directories."""
    out = {}
    for entry in os.scandir(data_dir):
        if not entry.is_dir() or entry.name.startswith("__cluster_metadata"):
            continue
        for f in os.scandir(entry.path):
            st = f.stat()
            out[f"{entry.name}/{f.name}"] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return out


MARKER = ".mirra_cleanshutdown"
OPENED = r"opened \d+ partition\(s\) of \d+ topic"


def test_clean_restart_recovers_and_rewrites_nothing(make_broker):
    b = make_broker(name="clean-restart")
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic("full", 4)
    ck.create_topic("empty", 4)  # never written: used to be "recovered" at every start
    recs = [{"partition": p, "key": "k", "value": f"v{i}", "headers": [], "timestamp": None}
            for i in range(20) for p in range(4)]
    ck.produce("full", recs)

    b.restart()
    b.wait_for(OPENED, start=b.run_mark)
    assert b.stop() == 0
    before = partition_files(b.data_dir)

    b.start()
    line = b.wait_for(OPENED + r".*", start=b.run_mark).group(0)
    after = partition_files(b.data_dir)
    changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()
               if before.get(k) != after.get(k)}
    assert changed == {}, f"a clean start changed partition files: {changed}\n{line}"
    assert "after a clean shutdown: 0 segment(s)" in line, line
    assert [len(ck.consume("full", p, "earliest", 20)) for p in range(4)] == [20] * 4
    # The marker is taken at start-up: a kill -9 of this run must not pass for a clean stop.
    assert not (b.data_dir / MARKER).exists()

    # kill -9: no marker, so the next start recovers the logs above their recovery points.
    ck.produce("full", recs[:4])
    b.kill()
    b.start()
    line = b.wait_for(OPENED + r".*", start=b.run_mark).group(0)
    assert "after an unclean shutdown" in line, line
    assert [len(ck.consume("full", p, "earliest", 21)) for p in range(4)] == [21] * 4
    assert b.stop() == 0
    assert (b.data_dir / MARKER).exists()


def test_create_topics_fails_for_partitions_that_cannot_be_opened(make_broker):
    b = make_broker(name="unopenable")
    # A plain file where partition 1's directory goes: that log cannot be created.
    (b.data_dir / "blocked-1").write_text("not a directory")
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    f = admin.create_topics([NewTopic("blocked", 3, 1)], operation_timeout=30,
                            request_timeout=30)["blocked"]
    try:
        f.result(timeout=60)
        raise AssertionError("CreateTopics reported success for a partition that is offline")
    except confluent_kafka.KafkaException as e:
        err = e.args[0]
        assert err.code() == confluent_kafka.KafkaError.KAFKA_STORAGE_ERROR, err
        assert "blocked" in err.str() and "could not be opened" in err.str(), err
    # Same for CreatePartitions.
    (b.data_dir / "grown-2").write_text("not a directory")
    clients.ConfluentKafka(b.bootstrap).create_topic("grown", 2)
    from confluent_kafka.admin import NewPartitions
    f = admin.create_partitions([NewPartitions("grown", 3)], operation_timeout=30,
                                request_timeout=30)["grown"]
    try:
        f.result(timeout=60)
        raise AssertionError("CreatePartitions reported success for a partition that is offline")
    except confluent_kafka.KafkaException as e:
        assert e.args[0].code() == confluent_kafka.KafkaError.KAFKA_STORAGE_ERROR, e
