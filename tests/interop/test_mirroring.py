"""Cluster mirroring between two real `mirra server` processes (docs/mirroring-design.md §1-5, §7):
a source written by python3-confluent-kafka producers (plain with every codec, keys, headers and
null values; idempotent; transactional with commits and aborts) over 8 partitions, mirrored into a
destination with `mirra mirror --create/--add`, must end up with the same topic id and partition
count, the same records at the same offsets, read_committed consumers that read the same, and
batches that equal the source's byte for byte except the producer id (rewritten to -(p+2)) and the
CRC. Mirror topics are read-only (real clients fail fast), follow the source's log start, and fail
over to the local LSO with a durable LMO. Every wait is a bounded poll of a condition, never a
sleep."""
import struct
import time

import pytest

import confluent_kafka
from confluent_kafka import TopicPartition

import clients
from mirra_testlib import run_mirra, wait_until
from mirroring import (PARTITIONS, PID_AT, STEP, TXN, assert_same_batches, caught_up, describe,
                       ok, read_everything, segment_batches, start_mirror, topic_id,
                       watermarks_of)

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


def produce_everything(bootstrap, topic, tag):
    """Plain batches in every codec, an idempotent producer, and transactions committed and
    aborted, spread over every partition. Returns the number of records sent."""
    sent = 0
    for codec in CODECS:
        p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "compression.type": codec,
                                      "linger.ms": 5})
        for i in range(40):
            value = None if i % 13 == 0 else f"{tag}-{codec}-{i}".encode() * (1 + i % 5)
            p.produce(topic, value=value, key=f"k{i}".encode() if i % 3 else None,
                      partition=i % PARTITIONS, headers=[("h", f"{i}".encode()), ("empty", b"")])
            sent += 1
        assert p.flush(STEP) == 0
    idem = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True,
                                     "linger.ms": 2})
    for i in range(200):
        idem.produce(topic, value=f"{tag}-idem-{i}".encode(), partition=i % PARTITIONS)
        sent += 1
    assert idem.flush(STEP) == 0
    txn = confluent_kafka.Producer({"bootstrap.servers": bootstrap,
                                    "transactional.id": f"{tag}-txn", "linger.ms": 2})
    txn.init_transactions(STEP)
    for n, commit in enumerate([True, False, True]):
        txn.begin_transaction()
        for i in range(24):
            txn.produce(topic, value=f"{tag}-txn{n}-{i}".encode(), partition=i % PARTITIONS)
            sent += 1
        if commit:
            txn.commit_transaction(STEP)
        else:
            txn.abort_transaction(STEP)
    return sent




def test_steady_state_mirror_is_identical(make_broker, tmp_path):
    src = make_broker(TXN, name="source")
    dst = make_broker(TXN, name="destination")
    topic = "mirrored"
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", topic,
                 "--partitions", str(PARTITIONS), "--config", "retention.ms=86400000"))
    produce_everything(src.bootstrap, topic, "before")
    start_mirror(src, dst, tmp_path, topic)
    # Writes keep coming while it mirrors.
    produce_everything(src.bootstrap, topic, "during")
    wait_until(lambda: caught_up(src, dst, topic), STEP, "the mirror to catch up")

    assert topic_id(dst, topic) == topic_id(src, topic)
    desc = ok(run_mirra("topics", "--bootstrap-server", dst.bootstrap, "--describe",
                        "--topic", topic))
    assert "mirror.name=dr" in desc and "retention.ms=86400000" in desc, desc
    for isolation in ("read_uncommitted", "read_committed"):
        expected = read_everything(src.bootstrap, topic, isolation)
        assert read_everything(dst.bootstrap, topic, isolation) == expected, isolation
        assert len(expected) > 0
    assert_same_batches(src, dst, topic)
    listed = ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--list"))
    assert listed.splitlines()[1].split()[3] == "1", listed  # one topic in the mirror


@pytest.fixture
def mirrored_topic(make_broker, tmp_path):
    """A source with a topic of 2 partitions and 10 records, mirrored into a destination."""
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    topic = "read-only"
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", topic,
                 "--partitions", "2"))
    ok(run_mirra("produce", "--bootstrap-server", src.bootstrap, "--topic", topic,
                 input="".join(f"r{i}\n" for i in range(10))))
    start_mirror(src, dst, tmp_path, topic)
    wait_until(lambda: sum(watermarks_of(dst.bootstrap, topic, 2)) == 10, STEP, "the copy")
    return src, dst, topic


@pytest.mark.parametrize("client", [clients.ConfluentKafka, clients.KafkaPython, clients.KafkaJS])
def test_producing_to_a_mirror_topic_fails_fast(mirrored_topic, client):
    _, dst, topic = mirrored_topic
    records = [{"key": "k", "value": f"v{i}", "partition": i % 2} for i in range(4)]
    started = time.monotonic()
    results = client(dst.bootstrap).produce(topic, records)
    elapsed = time.monotonic() - started
    assert all("error" in r for r in results), results
    # Well below each client's own delivery timeout (20 s in clients.py): no retry loop.
    assert elapsed < 10, (elapsed, results)
    assert sum(watermarks_of(dst.bootstrap, topic, 2)) == 10  # nothing was appended
    print(client.__name__, f"{elapsed:.2f}s", results[0]["error"])


def test_admin_writes_to_a_mirror_topic_are_refused(mirrored_topic):
    _, dst, topic = mirrored_topic
    r = run_mirra("topics", "--bootstrap-server", dst.bootstrap, "--alter", "--topic", topic,
                  "--partitions", "4")
    assert r.returncode == 1 and "read-only" in r.stderr and "mirror dr" in r.stderr, r.stderr
    r = run_mirra("topics", "--bootstrap-server", dst.bootstrap, "--create", "--topic", "sneaky",
                  "--config", "mirror.name=dr")
    assert r.returncode == 1 and "mirror.name" in r.stderr, r.stderr
    p = confluent_kafka.Producer({"bootstrap.servers": dst.bootstrap})
    errors = []
    p.produce(topic, value=b"x", partition=0, on_delivery=lambda err, _: errors.append(err))
    p.flush(STEP)
    assert len(errors) == 1 and errors[0] is not None
    assert errors[0].code() == 134, errors[0]


def delete_records(port, topic, partition, offset):
    """DeleteRecords v0 on the source (confluent-kafka 2.0 has no admin call for it)."""
    from mirra_testlib import request, round_trip
    name = topic.encode()
    body = (struct.pack(">i", 1) + struct.pack(">h", len(name)) + name +
            struct.pack(">iiq", 1, partition, offset) + struct.pack(">i", 10000))
    resp = round_trip(port, request(21, 0, 7, body))
    pos = 4 + 4 + 4 + 2 + len(name) + 4  # correlation, throttle, topic count, name, partitions
    _, low, err = struct.unpack_from(">iqh", resp, pos)
    assert err == 0, err
    return low


def low_watermark(bootstrap, topic, partition):
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "wm"})
    try:
        return c.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)[0]
    finally:
        c.close()


def test_the_log_start_follows_the_source(mirrored_topic):
    src, dst, topic = mirrored_topic
    ends = watermarks_of(src.bootstrap, topic, 2)
    p = 0 if ends[0] >= 2 else 1
    assert delete_records(src.port, topic, p, ends[p] - 1) == ends[p] - 1
    wait_until(lambda: low_watermark(dst.bootstrap, topic, p) == ends[p] - 1, STEP,
               "the destination's log start to follow")
    assert watermarks_of(dst.bootstrap, topic, 2) == ends  # the log end did not move


def lso_and_end(bootstrap, topic, partitions):
    return (watermarks_of(bootstrap, topic, partitions, "read_committed"),
            watermarks_of(bootstrap, topic, partitions))


def states(dst, topic):
    return {r["partition"]: r for r in describe(dst) if r["topic"] == topic}


def test_failover_with_an_open_source_transaction(make_broker, tmp_path):
    src = make_broker(TXN, name="source")
    dst = make_broker(TXN, name="destination")
    topic = "orders"
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", topic,
                 "--partitions", "2"))
    start_mirror(src, dst, tmp_path, topic)
    txn = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap,
                                    "transactional.id": "open-txn", "linger.ms": 2})
    txn.init_transactions(STEP)
    txn.begin_transaction()
    for i in range(10):
        txn.produce(topic, value=f"committed-{i}".encode(), partition=i % 2)
    txn.commit_transaction(STEP)
    txn.begin_transaction()
    for i in range(6):
        txn.produce(topic, value=f"open-{i}".encode(), partition=0)
    assert txn.flush(STEP) == 0  # on the source's log, never committed
    plain = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap})
    for i in range(5):
        plain.produce(topic, value=f"plain-{i}".encode(), partition=1)
    assert plain.flush(STEP) == 0
    src_lso, _ = lso_and_end(src.bootstrap, topic, 2)
    # The mirror copies up to the source's LSO: partition 0 stops at the open transaction.
    wait_until(lambda: watermarks_of(dst.bootstrap, topic, 2) == src_lso, STEP, "the copy")
    assert_one_line_error_code(run_mirra("produce", "--bootstrap-server", dst.bootstrap,
                                          "--topic", topic, input="x\n"), "read-only")

    out = ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--remove", "--mirror",
                       "dr", "--topic", topic))
    dst_lso, dst_end = lso_and_end(dst.bootstrap, topic, 2)
    assert dst_lso == dst_end, (dst_lso, dst_end)  # nothing above the LSO survived
    assert f"0:{dst_lso[0]}, 1:{dst_lso[1]}" in out, out
    rows = states(dst, topic)
    assert [(rows[p]["state"], rows[p]["lastMirroredOffset"]) for p in (0, 1)] == \
        [("STOPPED", dst_lso[0]), ("STOPPED", dst_lso[1])]
    # Issue 15 point 7: failed over, a partition has no lag any more: partition 0's last fetch
    # saw the source's open transaction above the copy, and its lag and lag time stayed and
    # grew. Describe shows neither (-1), the LMO says where mirroring ended.
    assert src_lso[0] < watermarks_of(src.bootstrap, topic, 2)[0]
    for p in (0, 1):
        assert rows[p]["lag"] == -1 and rows[p]["lagMs"] == -1, rows[p]
    # The output says what the truncation to the LSO discarded (nothing here: the copy never
    # went past the source's LSO), per partition and in total.
    assert "discarded above the LSO (partition:offsets) 0:0, 1:0, 0 in total" in out, out
    # A read_committed consumer reads to the end without waiting on any transaction.
    got = read_partitions(dst.bootstrap, topic, 2, "read_committed")
    assert sorted(v for v in got if v.startswith("committed")) == \
        sorted(f"committed-{i}" for i in range(10))
    assert not any(v.startswith("open") for v in got)
    # Writable now: a new idempotent producer gets a destination producer id (>= 0).
    idem = confluent_kafka.Producer({"bootstrap.servers": dst.bootstrap,
                                     "enable.idempotence": True})
    delivered = []
    idem.produce(topic, value=b"after-failover", partition=0,
                 on_delivery=lambda err, m: delivered.append((err, m.offset())))
    assert idem.flush(STEP) == 0
    assert delivered == [(None, dst_lso[0])], delivered
    (pid,) = struct.unpack_from(">q", segment_batches(dst, topic, 0)[-1], PID_AT)
    assert pid >= 0, pid
    # The failover is durable.
    dst.restart()
    rows = states(dst, topic)
    assert rows[0]["state"] == "STOPPED" and rows[0]["lastMirroredOffset"] == dst_lso[0]
    ok(run_mirra("produce", "--bootstrap-server", dst.bootstrap, "--topic", topic,
                 "--partition", "1", input="still writable\n"))
    txn.abort_transaction(STEP)


def assert_one_line_error_code(r, fragment):
    assert r.returncode == 1 and fragment in r.stderr, (r.returncode, r.stderr)


def read_partitions(bootstrap, topic, partitions, isolation):
    return [v[1].decode() for v in read_everything(bootstrap, topic, isolation,
                                                   partitions).values()]


def produce_idempotent(bootstrap, topic, values, partition):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for v in values:
        p.produce(topic, value=v.encode(), partition=partition)
    assert p.flush(STEP) == 0


def pids(broker, topic, partition):
    return [struct.unpack_from(">q", b, PID_AT)[0] for b in segment_batches(broker, topic, partition)]


def mirror_cmd(broker, *args):
    return run_mirra("mirror", "--bootstrap-server", broker.bootstrap, *args)


def test_failback_copies_only_the_delta(make_broker, tmp_path):
    a = make_broker(name="cluster-a")
    b = make_broker(name="cluster-b")
    topic = "events"
    ok(run_mirra("topics", "--bootstrap-server", a.bootstrap, "--create", "--topic", topic,
                 "--partitions", "1"))
    produce_idempotent(a.bootstrap, topic, [f"a{i}" for i in range(20)], 0)
    start_mirror(a, b, tmp_path, topic, name="dr")
    wait_until(lambda: watermarks_of(b.bootstrap, topic, 1) == [20], STEP, "the copy to B")
    ok(mirror_cmd(b, "--remove", "--mirror", "dr", "--topic", topic))  # failover to B: LMO 20
    produce_idempotent(b.bootstrap, topic, [f"b{i}" for i in range(10)], 0)  # the new primary
    produce_idempotent(a.bootstrap, topic, [f"stale{i}" for i in range(5)], 0)  # A diverges

    # A mirrors back from B: the same topic id, so a failback to B's LMO for A.
    cfg = tmp_path / "back.properties"
    cfg.write_text(f"bootstrap.servers={b.bootstrap}\n")
    ok(mirror_cmd(a, "--create", "--mirror", "back", "--mirror-config", str(cfg)))
    out = ok(mirror_cmd(a, "--add", "--mirror", "back", "--topic", topic))
    assert "restarting events-0 at offset 20 (5 offset(s) above it discarded)" in a.log()
    # Issue 15 point 7: the command's output says it too, per partition and in total.
    assert "truncated to (partition:offset) 0:20; discarded above it (partition:offsets) 0:5, " \
        "5 in total" in out, out
    wait_until(lambda: watermarks_of(a.bootstrap, topic, 1) == watermarks_of(b.bootstrap, topic, 1),
               STEP, "A to catch up with B")
    assert read_everything(a.bootstrap, topic, "read_uncommitted", 1) == \
        read_everything(b.bootstrap, topic, "read_uncommitted", 1)
    values = read_partitions(a.bootstrap, topic, 1, "read_uncommitted")
    assert values == [f"a{i}" for i in range(20)] + [f"b{i}" for i in range(10)]
    # Only the delta was copied: A's own batches below the LMO are untouched (their producer
    # ids are A's, >= 0), the batches above it came from B (rewritten, <= -2).
    below, above = [], []
    for batch in segment_batches(a, topic, 0):
        (base,) = struct.unpack_from(">q", batch, 0)
        (pid,) = struct.unpack_from(">q", batch, PID_AT)
        (below if base < 20 else above).append(pid)
    assert below and all(p >= 0 for p in below), below
    assert above and all(p <= -2 for p in above), above

    # While A mirrors events from B, B cannot mirror it back from A: that would be a loop.
    r = mirror_cmd(b, "--add", "--mirror", "dr", "--topic", topic)
    assert r.returncode == 1 and "loop" in r.stderr, r.stderr

    # Second round: fail over to A, write there, and B mirrors from A again from A's LMO.
    ok(mirror_cmd(a, "--remove", "--mirror", "back", "--topic", topic))
    produce_idempotent(a.bootstrap, topic, [f"a2-{i}" for i in range(7)], 0)
    ok(mirror_cmd(b, "--add", "--mirror", "dr", "--topic", topic))
    wait_until(lambda: watermarks_of(b.bootstrap, topic, 1) == watermarks_of(a.bootstrap, topic, 1),
               STEP, "B to catch up with A")
    assert read_everything(b.bootstrap, topic, "read_uncommitted", 1) == \
        read_everything(a.bootstrap, topic, "read_uncommitted", 1)
    assert read_partitions(b.bootstrap, topic, 1, "read_uncommitted")[-7:] == \
        [f"a2-{i}" for i in range(7)]
    assert "restarting events-0 at offset 30 (0 offset(s) above it discarded)" in b.log()
