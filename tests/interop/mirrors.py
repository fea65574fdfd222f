"""`mirra mirror` and watermark helpers shared by the mirroring tests: a source is anything with
a `bootstrap` attribute (a `mirra server` Broker, librdkafka's MockCluster), a destination is a
Broker."""
import json

import confluent_kafka
from confluent_kafka import TopicPartition

from mirra_testlib import run_mirra

ZERO_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA"  # Uuid::zero() in Kafka's base64


def ok(r):
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def describe(dst):
    """`mirra mirror --describe --json`: one row per mirrored partition."""
    return json.loads(ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--describe",
                                   "--json")))


def watermarks_of(bootstrap, topic, partitions, isolation="read_uncommitted"):
    """The high watermark of each partition (the LSO for read_committed)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "wm",
                                  "isolation.level": isolation})
    try:
        return [c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                for p in range(partitions)]
    finally:
        c.close()


def caught_up(src, dst, topic, partitions):
    """Every partition MIRRORING with lag 0: the destination's log end and the source high
    watermark the mirror saw both equal the source's high watermark now."""
    ends = watermarks_of(src.bootstrap, topic, partitions)
    rows = {r["partition"]: r for r in describe(dst) if r["topic"] == topic}
    return len(rows) == partitions and all(
        rows[p]["state"] == "MIRRORING" and rows[p]["destinationLogEndOffset"] == ends[p]
        and rows[p]["sourceHighWatermark"] == ends[p] and rows[p]["lag"] == 0
        for p in range(partitions))


def topic_id(broker, topic):
    """("TopicId: ...", "PartitionCount: N") of `mirra topics --describe`."""
    out = ok(run_mirra("topics", "--bootstrap-server", broker.bootstrap, "--describe",
                       "--topic", topic))
    first = out.splitlines()[0].split("\t")
    return first[1], first[2]


def start_mirror(src, dst, tmp_path, topic, name="dr"):
    """`mirra mirror --create` of mirror `name` from `src` on `dst`, then `--add --topic`."""
    cfg = tmp_path / f"{name}.properties"
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\n")
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--create", "--mirror", name,
                 "--mirror-config", str(cfg)))
    out = ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--add", "--mirror", name,
                       "--topic", topic))
    assert f'Topic "{topic}"' in out, out
