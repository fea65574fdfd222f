"""Writes that must not reach a partition (issue 15, points 1 and 2): WriteTxnMarkers from a
client is refused outright (CLUSTER_AUTHORIZATION_FAILED per partition, nothing appended, one
log line rather than one per request); a mirror topic refuses a client's produce, DeleteRecords
and markers while the source keeps writing, and ends up with the source's records at the
source's offsets; and a failback ends the transactions open on the topic it truncates, so the
producer's commit_transaction() fails instead of reporting records the truncation dropped, and
the topic afterwards holds exactly its new source's batches. Every wait is a bounded poll."""
import struct

import confluent_kafka
import pytest

from mirra_testlib import run_mirra, wait_until
from mirroring import (PID_AT, STEP, TXN, caught_up, ok, read_everything, segment_batches,
                       start_mirror, watermarks_of)
from raw_admin import Writer, call

WRITE_TXN_MARKERS, DELETE_RECORDS = 27, 21
CLUSTER_AUTHORIZATION_FAILED, READ_ONLY_TOPIC = 31, 134
CRC_AT = 17
REFUSAL_LINE = "refused WriteTxnMarkers"


def write_txn_markers(port, topic, partitions, producer_id=4242, commit=True):
    """WriteTxnMarkers v0 for one made-up producer -> {partition: error code}."""
    w = Writer(False)
    w.array([0], lambda w, _: w.int("q", producer_id).int("h", 0).int("?", commit).array(
        [topic], lambda w, t: w.string(t).array(partitions, lambda w, p: w.int("i", p)))
        .int("i", 0))
    r = call(port, WRITE_TXN_MARKERS, 0, False, w)
    out = {}

    def marker(r):
        assert r.int("q") == producer_id
        r.array(lambda r: (r.string(), r.array(
            lambda r: out.__setitem__(r.int("i"), r.int("h")))))
    r.array(marker)
    r.end()
    return out


def delete_records(port, topic, partition, offset):
    """DeleteRecords v0 for one partition -> (low watermark, error code)."""
    w = Writer(False)
    w.array([topic], lambda w, t: w.string(t).array(
        [partition], lambda w, p: w.int("i", p).int("q", offset)))
    w.int("i", 5000)
    r = call(port, DELETE_RECORDS, 0, False, w)
    r.int("i")  # throttle
    [(_, [result])] = r.array(lambda r: (r.string(), r.array(
        lambda r: (r.int("i"), r.int("q"), r.int("h")))))
    r.end()
    return result[1], result[2]


def advertised_keys(port):
    """The API keys ApiVersions v0 lists."""
    r = call(port, 18, 0, False, Writer(False))
    assert r.int("h") == 0
    keys = r.array(lambda r: (r.int("h"), r.int("h"), r.int("h"))[0])
    r.end()
    return keys


def produce(bootstrap, topic, values, partition=0):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True,
                                  "linger.ms": 2})
    for v in values:
        p.produce(topic, value=v.encode(), partition=partition)
    assert p.flush(STEP) == 0


def create_topic(broker, topic, partitions=1):
    ok(run_mirra("topics", "--bootstrap-server", broker.bootstrap, "--create", "--topic", topic,
                 "--partitions", str(partitions)))


def test_write_txn_markers_from_a_client_is_refused(make_broker):
    b = make_broker(TXN)
    create_topic(b, "t", 2)
    produce(b.bootstrap, "t", ["r0", "r1"])
    def log_state():
        return watermarks_of(b.bootstrap, "t", 2), [segment_batches(b, "t", p) for p in (0, 1)]
    before = log_state()
    for commit in (True, False, True, True):
        assert write_txn_markers(b.port, "t", [0, 1], commit=commit) == \
            {0: CLUSTER_AUTHORIZATION_FAILED, 1: CLUSTER_AUTHORIZATION_FAILED}
    assert log_state() == before  # nothing appended
    # Said in the log, once for the burst, not once per request.
    assert b.log().count(REFUSAL_LINE) == 1, b.log()
    # Still advertised, as Kafka advertises it.
    assert WRITE_TXN_MARKERS in advertised_keys(b.port)


def mask(batch):
    """A batch without its CRC and producer id, which the mirror rewrites."""
    return batch[:CRC_AT] + batch[CRC_AT + 4:PID_AT] + batch[PID_AT + 8:]


def assert_mirrored_from(source, mirror, topic, partitions, since=0):
    """The mirror's batches at or above offset `since` are the source's (producer ids rewritten
    -(p+2) for the source's own), and every record reads the same at the same offset."""
    assert read_everything(mirror.bootstrap, topic, "read_uncommitted", partitions) == \
        read_everything(source.bootstrap, topic, "read_uncommitted", partitions)
    for p in range(partitions):
        def tail(broker):
            return [b for b in segment_batches(broker, topic, p)
                    if struct.unpack_from(">q", b, 0)[0] >= since]
        theirs, ours = tail(source), tail(mirror)
        assert [struct.unpack_from(">q", b, 0)[0] for b in ours] == \
            [struct.unpack_from(">q", b, 0)[0] for b in theirs], p
        for x, y in zip(theirs, ours):
            (pid,) = struct.unpack_from(">q", x, PID_AT)
            (mirrored,) = struct.unpack_from(">q", y, PID_AT)
            assert mirrored == (-(pid + 2) if pid >= 0 else pid), (p, pid, mirrored)
            assert mask(x) == mask(y), (p, struct.unpack_from(">q", x, 0)[0])


def test_a_mirror_topic_refuses_client_writes_while_it_mirrors(make_broker, tmp_path):
    src = make_broker(TXN, name="source")
    dst = make_broker(TXN, name="destination")
    topic = "guarded"
    create_topic(src, topic, 2)
    produce(src.bootstrap, topic, [f"s{i}" for i in range(10)])
    start_mirror(src, dst, tmp_path, topic)
    wait_until(lambda: caught_up(src, dst, topic, 2), STEP, "the mirror to catch up")

    # The reproduction: a COMMIT marker for a made-up producer from a plain client,
    # then the source writes on; the mirror must still end up with the source's records.
    markers = write_txn_markers(dst.port, topic, [0, 1])
    deleted = delete_records(dst.port, topic, 0, 5)
    refused = confluent_kafka.Producer({"bootstrap.servers": dst.bootstrap,
                                        "message.timeout.ms": 5000})
    reports = []
    refused.produce(topic, value=b"client", partition=1,
                    on_delivery=lambda err, _: reports.append(err))
    refused.flush(STEP)
    # One record per batch: a fetch at the destination's end (one past the injected marker)
    # then skips the source's record at the marker's offset instead of realigning on it.
    for i in range(5):
        produce(src.bootstrap, topic, [f"t{i}"], partition=i % 2)
    wait_until(lambda: caught_up(src, dst, topic, 2), STEP, "the mirror to catch up again")
    assert_mirrored_from(src, dst, topic, 2)

    assert markers == {0: CLUSTER_AUTHORIZATION_FAILED, 1: CLUSTER_AUTHORIZATION_FAILED}
    assert deleted == (-1, READ_ONLY_TOPIC)
    assert len(reports) == 1 and reports[0].code() == READ_ONLY_TOPIC, reports


def open_transaction(bootstrap, topic, count):
    """A transactional producer with `count` records of an open transaction on the topic."""
    txn = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "transactional.id": "left-open",
                                    "linger.ms": 2})
    txn.init_transactions(STEP)
    txn.begin_transaction()
    for i in range(count):
        txn.produce(topic, value=f"open-{i}".encode(), partition=0)
    assert txn.flush(STEP) == 0
    return txn


def test_failback_fences_a_transaction_left_open_on_the_old_primary(make_broker, tmp_path):
    a = make_broker(TXN, name="cluster-a")
    b = make_broker(TXN, name="cluster-b")
    topic = "orders"
    create_topic(a, topic)
    produce(a.bootstrap, topic, [f"a{i}" for i in range(20)])
    start_mirror(a, b, tmp_path, topic)
    wait_until(lambda: watermarks_of(b.bootstrap, topic, 1) == [20], STEP, "the copy to B")
    # On A, a transaction is left open; the topic fails over to B (B's LSO, 20, is its LMO).
    txn = open_transaction(a.bootstrap, topic, 50)
    ok(run_mirra("mirror", "--bootstrap-server", b.bootstrap, "--remove", "--mirror", "dr",
                 "--topic", topic))
    produce(b.bootstrap, topic, [f"b{i}" for i in range(10)])

    # A fails back: it mirrors the topic from B and truncates to 20, dropping the open
    # transaction's 50 records.
    cfg = tmp_path / "back.properties"
    cfg.write_text(f"bootstrap.servers={b.bootstrap}\n")
    ok(run_mirra("mirror", "--bootstrap-server", a.bootstrap, "--create", "--mirror", "back",
                 "--mirror-config", str(cfg)))
    ok(run_mirra("mirror", "--bootstrap-server", a.bootstrap, "--add", "--mirror", "back",
                 "--topic", topic))
    assert "restarting orders-0 at offset 20 (50 offset(s) above it discarded)" in a.log()
    # The producer was fenced before the truncation: its commit fails, as after any fence.
    with pytest.raises(confluent_kafka.KafkaException) as failed:
        txn.commit_transaction(STEP)
    error = failed.value.args[0]
    assert error.fatal() and error.code() in (confluent_kafka.KafkaError._FENCED,
                                              confluent_kafka.KafkaError.PRODUCER_FENCED), error
    assert "aborting the open transaction" in a.log()

    # A holds B's records at B's offsets, nothing else (no marker of the fenced producer).
    wait_until(lambda: watermarks_of(a.bootstrap, topic, 1) == watermarks_of(b.bootstrap, topic, 1)
               == [30], STEP, "A to catch up with B")
    assert_mirrored_from(b, a, topic, 1, since=20)
    values = [v[1].decode() for v in read_everything(a.bootstrap, topic, "read_committed",
                                                      1).values()]
    assert values == [f"a{i}" for i in range(20)] + [f"b{i}" for i in range(10)]
