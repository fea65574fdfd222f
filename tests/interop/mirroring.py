"""What the mirroring interop tests share: running `mirra` admin commands, starting a mirror,
waiting for it to catch up, and the comparisons of a source with its destination (the records
every consumer reads, and the batches on disk byte for byte)."""
import json
import struct

import confluent_kafka
import confluent_kafka.admin
from confluent_kafka import TopicPartition

from records import read_to_end
from mirra_testlib import run_mirra, wait_until

PARTITIONS = 8
STEP = 30  # seconds: the bound of each wait
TXN = {"transaction.state.log.num.partitions": 3, "offsets.topic.num.partitions": 3}
PID_AT, CRC_AT = 43, 17  # producer id (8 bytes) and CRC (4 bytes) in a v2 batch


# fill_with_open_transaction(): records of the transaction it leaves open on partition 0, and
# committed records on each of partitions 0 and 1.
OPEN = 6
COMMITTED = 10



ZERO_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid::zero() in Kafka's base64


def ok(r):
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def start_mirror(src, dst, tmp_path, topic, name="dr"):
    cfg = tmp_path / f"{name}.properties"
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\n")
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--create", "--mirror", name,
                 "--mirror-config", str(cfg)))
    out = ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--add", "--mirror", name,
                       "--topic", topic))
    assert f'Topic "{topic}"' in out


def describe_json(dst):
    """Every row of `mirra mirror --describe --json`: the partitions, then the sync rows."""
    return json.loads(ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--describe",
                                   "--json")))


def describe(dst):
    """The partition rows (the ones without a "type")."""
    return [r for r in describe_json(dst) if "type" not in r]


def describe_sync(dst):
    """The sync tasks' rows (docs/mirroring.md "Watch it"): "type" "sync", one per mirror and
    kind (topics, configs, partitions, groups, acls, share-groups), and "syncGroup", one per group
    with something to say (its "kind": groups or share-groups)."""
    return [r for r in describe_json(dst) if r.get("type") in ("sync", "syncGroup")]


def commit_offsets(broker, group, offsets, topic):
    """An admin commit of {partition: offset} (no membership: an offsets-only group)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                                  "enable.auto.commit": False})
    try:
        tps = [TopicPartition(topic, p, o) for p, o in offsets.items()]
        for tp in c.commit(offsets=tps, asynchronous=False):
            assert tp.error is None, tp
    finally:
        c.close()


def committed_offsets(broker, group, topic, partitions):
    """{partition: committed offset} of `group` (OFFSET_INVALID where it has none)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                                  "enable.auto.commit": False})
    try:
        got = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
        return {tp.partition: tp.offset for tp in got}
    finally:
        c.close()


def watermarks_of(bootstrap, topic, partitions, isolation="read_uncommitted"):
    """The high watermark of each partition (the LSO for read_committed)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "wm",
                                  "isolation.level": isolation})
    try:
        return [c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                for p in range(partitions)]
    finally:
        c.close()


def caught_up(src, dst, topic, partitions=PARTITIONS):
    """Every partition MIRRORING with lag 0 and the destination's log end at the source's
    high watermark."""
    ends = watermarks_of(src.bootstrap, topic, partitions)
    rows = {r["partition"]: r for r in describe(dst) if r["topic"] == topic}
    return len(rows) == partitions and all(
        rows[p]["state"] == "MIRRORING" and rows[p]["destinationLogEndOffset"] == ends[p]
        and rows[p]["sourceHighWatermark"] == ends[p] and rows[p]["lag"] == 0
        for p in range(partitions))


def read_everything(bootstrap, topic, isolation, partitions=PARTITIONS):
    """Every record a consumer with `isolation` reads from offset 0 to the end it sees:
    {(partition, offset): (key, value, headers, timestamp)}."""
    return {(m.partition(), m.offset()): (m.key(), m.value(), m.headers(), m.timestamp())
            for m in read_to_end(bootstrap, topic, partitions, isolation, STEP)}


def segment_batches(broker, topic, partition):
    """Every batch of a partition's segment files, in offset order (Kafka's on-disk format:
    the batches back to back)."""
    out = []
    for path in sorted((broker.data_dir / f"{topic}-{partition}").glob("*.log")):
        data, pos = path.read_bytes(), 0
        while pos + 12 <= len(data):
            _, length = struct.unpack_from(">qi", data, pos)
            out.append(data[pos:pos + 12 + length])
            pos += 12 + length
    return out


def assert_same_batches(src, dst, topic, partitions=PARTITIONS):
    """The destination's batches are the source's, byte for byte, except the producer id
    (rewritten to -(p+2)) and the CRC; returns how many batches were compared."""
    mirrored = compared = 0
    for p in range(partitions):
        a, b = segment_batches(src, topic, p), segment_batches(dst, topic, p)
        assert len(a) == len(b), (p, len(a), len(b))
        for x, y in zip(a, b):
            assert len(x) == len(y)
            (pid,) = struct.unpack_from(">q", x, PID_AT)
            (mirrored_pid,) = struct.unpack_from(">q", y, PID_AT)
            assert mirrored_pid == (-(pid + 2) if pid >= 0 else -1), (pid, mirrored_pid)
            mask = lambda b: b[:CRC_AT] + b[CRC_AT + 4:PID_AT] + b[PID_AT + 8:]
            assert mask(x) == mask(y), f"partition {p}: batch at {struct.unpack_from('>q', x)[0]}"
            mirrored += pid >= 0
            compared += 1
    assert mirrored > 0  # idempotent and transactional batches were there to rewrite
    return compared


def topic_id(broker, topic):
    """("TopicId: ...", "PartitionCount: N") of `mirra topics --describe`."""
    out = ok(run_mirra("topics", "--bootstrap-server", broker.bootstrap, "--describe",
                       "--topic", topic))
    first = out.splitlines()[0].split("\t")
    return first[1], first[2]


def fill_with_open_transaction(src, topic):
    """COMMITTED committed records on each of partitions 0 and 1 of `topic`, then OPEN records
    of a transaction left open on partition 0: a mirror copies up to the source's last stable
    offset, so partition 0 keeps a lag of OPEN. Returns the transactional producer (abort it
    at the end)."""
    txn = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap,
                                    "transactional.id": "metrics-open"})
    txn.init_transactions(STEP)
    txn.begin_transaction()
    for i in range(2 * COMMITTED):
        txn.produce(topic, value=f"committed-{i}".encode(), partition=i % 2)
    txn.commit_transaction(STEP)
    txn.begin_transaction()
    for i in range(OPEN):
        txn.produce(topic, value=f"open-{i}".encode(), partition=0)
    assert txn.flush(STEP) == 0  # on the source's log, never committed
    return txn


def mirror_held_by_open_transaction(src, dst, tmp_path, topic):
    """`topic` made on `src` with 2 partitions, filled by fill_with_open_transaction() and
    mirrored into `dst` as mirror "dr"; returns once the mirror stands still: partition 0 OPEN
    records behind (below the open transaction), partition 1 caught up. Returns the
    transactional producer (abort it at the end)."""
    admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": src.bootstrap})
    admin.create_topics([confluent_kafka.admin.NewTopic(topic, 2, 1)])[topic].result(STEP)
    txn = fill_with_open_transaction(src, topic)
    start_mirror(src, dst, tmp_path, topic)
    # Copied up to the source's LSO, and the last fetch has seen the source's high watermark.
    wait_until(lambda: {(r["partition"], r["lag"]) for r in describe(dst)} ==
               {(0, OPEN), (1, 0)}, STEP, "the mirror to stop below the open transaction")
    return txn
