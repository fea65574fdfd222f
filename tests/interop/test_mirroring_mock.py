"""Mirroring from a Kafka we did not write (issue 7): librdkafka 2.0.2's mock cluster
(tests/tools/mock_cluster) with 3 brokers as the source, a real `mirra server` as the
destination.

The mock is a limited Kafka: Metadata v0-2 only, so no topic ids (the destination makes a fresh one
and matches the topic by name, docs/mirroring-design.md §4); no admin APIs (no DescribeCluster: the
cluster id comes from Metadata v2; no DescribeConfigs: no topic configs are copied); one batch per
partition per Fetch; transactions without markers or a last stable offset (so none are produced
here: read_committed would show aborted records on the source itself).

A topic of 6 partitions led by all 3 brokers gets records from python3-confluent-kafka
producers (every codec, keys, null keys and values, repeated and empty headers, explicit
timestamps; an idempotent producer); the destination must hold the same records at the same
offsets. Then every leader moves, a broker goes down (its partitions keep it as their leader
for a while, then move, as in a real failover) and comes back, and the mirror must follow:
leader changes and lost brokers are retried, never FAILED (§2). Every wait is a bounded poll of
a condition, never a sleep."""
from collections import Counter

import confluent_kafka
import pytest
from confluent_kafka.admin import AdminClient

from mirra_testlib import run_mirra, wait_until
from mirroring import ZERO_TOPIC_ID, caught_up, describe, ok, start_mirror, topic_id
from mock_cluster import MockCluster
from records import read_to_end

TOPIC = "orders"
PARTITIONS = 6
BROKERS = (1, 2, 3)
STEP = 30  # seconds: the bound of each wait
POLL = 0.2  # seconds between two looks at the mirror (each look runs `mirra` and a consumer)
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
BASE_TS = 1_700_000_000_000


def spread(shift):
    """Leaders over all 3 brokers: partition p led by broker (p + shift) % 3 + 1."""
    return {p: BROKERS[(p + shift) % len(BROKERS)] for p in range(PARTITIONS)}


def set_leaders(mock, leaders):
    for p, b in leaders.items():
        mock.command(f"leader {TOPIC} {p} {b}")
    # What a client sees: the mock's Metadata now names these leaders.
    wait_until(lambda: leaders_seen(mock) == leaders, STEP, f"the mock to report leaders {leaders}")


def leaders_seen(mock):
    md = AdminClient({"bootstrap.servers": mock.bootstrap}).list_topics(TOPIC, timeout=10)
    return {p.id: p.leader for p in md.topics[TOPIC].partitions.values()}


def produce(mock, tag, partitions, sent, kinds=CODECS + ["idempotent"]):
    """A batch of each kind (a codec, or an idempotent producer's) on each of `partitions`;
    appends each value sent to `sent`."""
    errors = []

    def delivered(err, _msg):
        if err is not None:
            errors.append(err)

    for kind in kinds:
        conf = {"bootstrap.servers": mock.bootstrap, "linger.ms": 20,
                "compression.type": "lz4" if kind == "idempotent" else kind}
        if kind == "idempotent":
            conf["enable.idempotence"] = True
        p = confluent_kafka.Producer(conf)
        for i in range(4 * len(partitions)):
            value = None if i % 7 == 3 else f"{tag}-{kind}-{i}-\u00fc".encode() * (1 + i % 3)
            p.produce(TOPIC, value=value, key=None if i % 5 == 0 else f"k{i}".encode(),
                      partition=partitions[i % len(partitions)],
                      headers=[("h", tag.encode()), ("h", str(i).encode()), ("empty", b"")],
                      timestamp=BASE_TS + len(sent), on_delivery=delivered)
            sent.append(value)
        assert p.flush(STEP) == 0, f"{tag}/{kind}: not every record was delivered"
    assert not errors, errors[:3]


def read_all(bootstrap):
    """{(partition, offset): (key, value, headers, (timestamp type, timestamp))}"""
    return {(m.partition(), m.offset()): (m.key(), m.value(), m.headers(), m.timestamp())
            for m in read_to_end(bootstrap, TOPIC, PARTITIONS, "read_uncommitted", STEP)}


def never_failed(dst):
    rows = [r for r in describe(dst) if r["topic"] == TOPIC]
    failed = [r for r in rows if r["state"] == "FAILED"]
    assert not failed, f"a transient source problem made partitions FAILED: {failed}"
    return rows


def assert_mirrored(mock, dst, sent, what):
    """The mirror catches up (lag 0 everywhere), and both sides hold the same records."""
    wait_until(lambda: never_failed(dst) and caught_up(mock, dst, TOPIC, PARTITIONS), STEP,
               f"the mirror to catch up {what}", interval=POLL)
    source = read_all(mock.bootstrap)
    assert Counter(v[1] for v in source.values()) == Counter(sent), "the source lost records"
    mirrored = read_all(dst.bootstrap)
    diff = sorted(k for k in source.keys() | mirrored.keys() if source.get(k) != mirrored.get(k))
    assert not diff, (f"{what}: {len(diff)} record(s) differ, first at {diff[0]}: source "
                      f"{source.get(diff[0])}, destination {mirrored.get(diff[0])}")


def lagging_on(mock, dst, down, up):
    """While a broker is down: the partitions it leads (`down`) show the error (retries, last
    error) and stay MIRRORING; the others (`up`) are caught up."""
    rows = {r["partition"]: r for r in never_failed(dst)}
    ends = {p: high_watermark(mock, p) for p in up}  # those of `down` cannot be asked now
    return (all(rows[p]["state"] == "MIRRORING" and rows[p]["retries"] > 0
                and rows[p]["lastError"] for p in down)
            and all(rows[p]["destinationLogEndOffset"] == ends[p] and rows[p]["lag"] == 0
                    for p in up))


def high_watermark(mock, partition):
    c = confluent_kafka.Consumer({"bootstrap.servers": mock.bootstrap, "group.id": "wm"})
    try:
        return c.get_watermark_offsets(confluent_kafka.TopicPartition(TOPIC, partition),
                                       timeout=10)[1]
    finally:
        c.close()


def assert_fresh_topic(dst):
    """The mock has no topic ids: a fresh one here (not zero), the source's partition count;
    it has no DescribeConfigs: nothing copied but the mirror's own config."""
    ids = {r["topicId"] for r in describe(dst)}
    created = dst.wait_for(r"mirror dr: added topic orders \(id (\S+), 6 partition\(s\)\)")
    assert ids == {created.group(1)} and ZERO_TOPIC_ID not in ids, (ids, created.group(1))
    assert topic_id(dst, TOPIC) == (f"TopicId: {created.group(1)}", f"PartitionCount: {PARTITIONS}")
    assert "no topic configs are copied" in dst.log(), dst.tail()
    desc = ok(run_mirra("topics", "--bootstrap-server", dst.bootstrap, "--describe",
                        "--topic", TOPIC))
    assert "mirror.name=dr" in desc, desc


def take_broker_3_down_and_up(mock, dst, leaders, sent):
    # Its partitions keep it as their leader (the mock moves none on its own): they retry,
    # staying MIRRORING, while the others go on.
    mock.command("down 3")
    down = [p for p, b in leaders.items() if b == 3]
    up = [p for p in range(PARTITIONS) if p not in down]
    # One batch per partition: the mock serves one batch per partition per Fetch, and while a
    # broker is down each fetch round lasts as long as the source client retries it
    # (MirrorRunner's retry_timeout, 5 s).
    produce(mock, "while-down", up, sent, kinds=["idempotent"])
    wait_until(lambda: lagging_on(mock, dst, down, up), STEP,
               f"partitions {up} to catch up while {down} retry", interval=POLL)
    # Their leadership moves to a broker still up, as a real cluster's failover would.
    set_leaders(mock, {p: (1 if p in down else b) for p, b in leaders.items()})
    produce(mock, "after-failover", list(range(PARTITIONS)), sent)
    assert_mirrored(mock, dst, sent, "with broker 3 down")

    mock.command("up 3")
    set_leaders(mock, spread(2))
    produce(mock, "after-up", list(range(PARTITIONS)), sent)
    assert_mirrored(mock, dst, sent, "with broker 3 back")
    assert all(r["lastError"] is None and r["retries"] == 0 for r in describe(dst))


@pytest.fixture
def mock():
    m = MockCluster(f"{TOPIC}:{PARTITIONS}:3", brokers=len(BROKERS))
    yield m
    m.close()


def test_mirror_from_librdkafkas_mock_cluster(mock, make_broker, tmp_path):
    dst = make_broker(name="destination")
    set_leaders(mock, spread(0))
    sent = []
    produce(mock, "before", list(range(PARTITIONS)), sent)
    start_mirror(mock, dst, tmp_path, TOPIC)
    produce(mock, "during", list(range(PARTITIONS)), sent)  # writes go on while it copies
    assert_mirrored(mock, dst, sent, "the first records")
    assert_fresh_topic(dst)

    # Every partition gets a new leader.
    leaders = spread(1)
    set_leaders(mock, leaders)
    produce(mock, "after-move", list(range(PARTITIONS)), sent)
    assert_mirrored(mock, dst, sent, "after every leader moved")

    take_broker_3_down_and_up(mock, dst, leaders, sent)
