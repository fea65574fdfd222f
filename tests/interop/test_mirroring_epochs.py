"""A source that lost a log tail in an OS crash and then wrote as many new records (issue 16
point 7, docs/mirroring-design.md §2.4). Two real brokers, a mirrored topic; the source is
killed with SIGKILL and the tail of each partition's active segment cut off, as power loss
would take page-cache data that was never flushed; after the restart a producer writes as many
records as were lost, with other values, so the source's log ends where it ended before. The
destination must notice (the source's leader epoch moved with the unclean restart;
OffsetForLeaderEpoch says where the old epoch now ends), cut its own log there and copy the new
records: afterwards both hold the same record at every offset.

Every wait is a bounded poll of a condition."""
import struct

import confluent_kafka

from mirra_testlib import run_mirra, wait_until
from mirroring import STEP, caught_up, describe, ok, read_everything, start_mirror

PARTITIONS = 2
CHUNKS, CHUNK = 10, 20  # per partition: 200 records, flushed every 20 (10 batches or more)
KEPT_BATCHES = 6        # batches per partition the crash leaves on the source
END = CHUNKS * CHUNK    # where each partition's log ends, before the crash and after the rewrite


def produce(bootstrap, topic, tag, counts):
    """counts[p] records to each partition p, acks=1 as in the scenario, flushed every CHUNK
    records (so each partition gets several batches); returns {partition: [offsets]}."""
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": 1, "linger.ms": 5,
                                  "enable.idempotence": False})
    acked = {part: [] for part in range(PARTITIONS)}

    def delivered(err, msg):
        assert err is None, err
        acked[msg.partition()].append(msg.offset())

    for start in range(0, max(counts), CHUNK):
        for part, count in enumerate(counts):
            for i in range(start, min(start + CHUNK, count)):
                p.produce(topic, partition=part, value=f"{tag}-{part}-{i}".encode(),
                          on_delivery=delivered)
        assert p.flush(STEP) == 0
    return acked


def batch_boundaries(path):
    """(byte position, base offset) of each batch of a segment file, and its size."""
    data, pos, out = path.read_bytes(), 0, []
    while pos + 12 <= len(data):
        base, length = struct.unpack_from(">qi", data, pos)
        out.append((pos, base))
        pos += 12 + length
    return out, len(data)


def cut_tail(broker, topic, partition, kept_batches):
    """Truncates the partition's active segment after `kept_batches` batches (a batch
    boundary); returns the offset the log now ends at."""
    segments = sorted((broker.data_dir / f"{topic}-{partition}").glob("*.log"))
    assert len(segments) == 1, segments  # the whole log is the active segment
    boundaries, size = batch_boundaries(segments[0])
    assert len(boundaries) > kept_batches, (len(boundaries), kept_batches)
    at, end_offset = boundaries[kept_batches]
    with open(segments[0], "r+b") as f:
        f.truncate(at)
    assert at < size
    return end_offset


def test_source_that_lost_its_tail_and_wrote_anew_is_followed(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    topic = "epochs"
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", topic,
                 "--partitions", str(PARTITIONS)))
    produce(src.bootstrap, topic, "old", [END] * PARTITIONS)
    start_mirror(src, dst, tmp_path, topic)
    wait_until(lambda: caught_up(src, dst, topic, PARTITIONS), STEP, "the mirror to catch up")

    # The destination does not fetch while the source is down and rewrites: it then meets a
    # source whose log already ends where it ended before (without the pause it might see the
    # shorter log first, which OFFSET_OUT_OF_RANGE has always handled).
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--pause", "--mirror", "dr",
                 "--topic", topic))
    assert src.kill() == -9
    # kill -9 alone loses nothing: the page cache still holds what the process wrote, and the
    # restarted broker reads it back. Power loss or an OS crash loses what was never flushed
    # (Mirra, like Kafka, leaves flushing to the OS by default): cutting the file at a batch
    # boundary is what such a crash leaves on disk. A killed broker leaves no clean-shutdown
    # marker (it is removed at start-up); make sure, so the restart recovers as after a crash.
    (src.data_dir / ".mirra_cleanshutdown").unlink(missing_ok=True)
    ends = [cut_tail(src, topic, part, KEPT_BATCHES) for part in range(PARTITIONS)]
    src.start()
    acked = produce(src.bootstrap, topic, "new", [END - end for end in ends])
    for part in range(PARTITIONS):
        # Written where the crash cut the log, up to where it ended before.
        assert sorted(acked[part]) == list(range(ends[part], END)), (part, ends[part])
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--resume", "--mirror", "dr",
                 "--topic", topic))

    # One record more per partition: the destination, at END already, has caught up only once
    # it fetched after the resume.
    produce(src.bootstrap, topic, "last", [1] * PARTITIONS)
    wait_until(lambda: caught_up(src, dst, topic, PARTITIONS), STEP,
               "the mirror to catch up after the source's unclean restart")
    source = read_everything(src.bootstrap, topic, "read_uncommitted", PARTITIONS)
    mirrored = read_everything(dst.bootstrap, topic, "read_uncommitted", PARTITIONS)
    assert len(source) == PARTITIONS * (END + 1)
    differ = sorted(k for k in source if mirrored.get(k, (None, None))[1] != source[k][1])
    extra = sorted(set(mirrored) - set(source))
    assert not differ and not extra, \
        f"{len(differ)} offsets differ, first {[(k, mirrored.get(k, (0, 0))[1]) for k in differ[:5]]}"
    rows = [r for r in describe(dst) if r["topic"] == topic]
    assert len(rows) == PARTITIONS and all(r["state"] == "MIRRORING" and r["lag"] == 0
                                           for r in rows), rows
    assert dst.wait_for(r"the logs differ from \d+")
