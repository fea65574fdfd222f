"""Throttling a mirror from either side (docs/quotas.md, docs/mirroring-design.md §10), with two
real `mirra server` processes:
- the destination's mirror.replication.throttled.rate holds a catch-up at the rate (4-6 MB/s
  under 5 MB/s), a higher rate set at run time speeds it up without a restart, and only the
  partitions listed in the topic's mirror.replication.throttled.replicas are held back;
- a client-id quota on the source, set for the documented client id of one mirror's fetcher,
  slows that mirror and no other.
Progress is read from the destination's high watermarks (records of a known size); waits are
bounded polls, never sleeps."""
import threading
import time

import confluent_kafka
import confluent_kafka.admin
from confluent_kafka import TopicPartition

from mirra_testlib import wait_until
from mirroring import describe_json, ok, start_mirror
from mirra_testlib import run_mirra
from raw_admin import alter_client_quotas, incremental_alter

MB = 1_000_000
RECORD = 10_000  # bytes per record value
BROKER, TOPIC_RESOURCE, SET = 4, 2, 0  # config resource types; IncrementalAlterConfigs' SET
DST_NODE = 1  # the destination broker's node.id (the default)


def produce(broker, topic, partition, nbytes, client_id="loader"):
    p = confluent_kafka.Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 20,
                                  "client.id": client_id})
    value = b"m" * RECORD
    for _ in range(nbytes // RECORD):
        while True:
            try:
                p.produce(topic, value, partition=partition)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    assert p.flush(60) == 0


def create_topic(broker, topic, partitions):
    a = confluent_kafka.admin.AdminClient({"bootstrap.servers": broker.bootstrap})
    a.create_topics([confluent_kafka.admin.NewTopic(topic, partitions, 1)])[topic].result(30)


def set_broker_config(broker, key, value):
    res = (BROKER, "")
    assert incremental_alter(broker.port, [(*res, [(key, SET, value)])])[res] == (0, None)


def set_topic_config(broker, topic, key, value):
    res = (TOPIC_RESOURCE, topic)
    assert incremental_alter(broker.port, [(*res, [(key, SET, value)])])[res] == (0, None)


class Progress:
    """Samples the records on the destination per partition in the background."""

    def __init__(self, broker, topic, partitions):
        self.samples = []  # (monotonic time, [end offset per partition])
        self.stop = threading.Event()
        self.c = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap,
                                           "group.id": "progress"})
        self.tps = [TopicPartition(topic, p) for p in range(partitions)]
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop.is_set():
            ends = [self.c.get_watermark_offsets(tp, timeout=10)[1] for tp in self.tps]
            self.samples.append((time.monotonic(), ends))
            self.stop.wait(0.1)

    def close(self):
        self.stop.set()
        self.t.join(30)
        self.c.close()

    def latest(self, partition):
        return self.samples[-1][1][partition] if self.samples else 0

    def rate(self, partition, start, end):
        """Bytes per second mirrored into `partition` between the samples nearest start and end."""
        inside = [(t, e[partition]) for t, e in self.samples if start <= t <= end]
        assert len(inside) >= 2, f"no samples between {start} and {end}"
        (t0, e0), (t1, e1) = inside[0], inside[-1]
        return (e1 - e0) * RECORD / (t1 - t0)


def throttle_row(dst, mirror):
    """The mirror's throttling as describe --json shows it; a mirror never throttled and
    without a cap has no row."""
    rows = [r for r in describe_json(dst) if r.get("type") == "throttle" and r["mirror"] == mirror]
    assert len(rows) <= 1, rows
    return rows[0] if rows else {"throttledRate": -1, "destinationThrottledMs": 0,
                                 "sourceThrottledMs": 0}


def test_destination_rate_holds_a_catch_up_and_changes_at_run_time(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    create_topic(src, "bulk", 2)
    start_mirror(src, dst, tmp_path, "bulk")
    wait_until(lambda: len([r for r in describe_json(dst) if "type" not in r]) == 2, 30,
               "the mirror topic on the destination")
    set_broker_config(dst, "mirror.replication.throttled.rate", str(5 * MB))
    set_topic_config(dst, "bulk", "mirror.replication.throttled.replicas", f"0:{DST_NODE}")
    progress = Progress(dst, "bulk", 2)
    try:
        produce(src, "bulk", 1, 20 * MB)
        produced = time.monotonic()
        produce(src, "bulk", 0, 100 * MB)
        # Partition 1 is not listed: it is not held back.
        wait_until(lambda: progress.latest(1) == 20 * MB // RECORD, 30,
                   "the unthrottled partition to catch up")
        unthrottled_done = time.monotonic() - produced
        assert progress.latest(0) * RECORD < 60 * MB, \
            "the throttled partition was not held back"
        # The throttled one keeps to 5 MB/s (a first second's burst aside).
        start = time.monotonic() + 2.0
        wait_until(lambda: time.monotonic() >= start + 10.0, 20, "ten seconds of catch-up")
        slow = progress.rate(0, start, start + 10.0)
        assert 4 * MB <= slow <= 6 * MB, f"{slow / MB:.2f} MB/s under a 5 MB/s cap"
        row = throttle_row(dst, "dr")
        assert row["throttledRate"] == 5 * MB and row["destinationThrottledMs"] > 5000, row
        # Raised at run time: faster without a restart.
        set_broker_config(dst, "mirror.replication.throttled.rate", str(20 * MB))
        raised = time.monotonic()
        wait_until(lambda: progress.latest(0) == 100 * MB // RECORD, 60,
                   "the throttled partition to catch up after the raise")
        left = progress.rate(0, raised + 0.5, time.monotonic())
        assert left > 1.3 * slow, f"{left / MB:.2f} MB/s after raising the cap to 20 MB/s"
        assert unthrottled_done < 10, f"the unlisted partition took {unthrottled_done:.1f} s"
    finally:
        progress.close()


def test_a_source_client_id_quota_slows_that_mirror_only(make_broker, tmp_path):
    # Three samples of a second (Kafka's key; the default is eleven): a new fetcher's first
    # burst is two seconds' worth instead of ten, so eight seconds show the quota's rate.
    src = make_broker({"quota.window.num": 3}, name="source")
    dst = make_broker(name="destination")
    for topic in ("slowed", "other"):
        create_topic(src, topic, 1)
    # docs/quotas.md: fetcher 0 of mirror "slow" on destination broker 1.
    quota = [([("client-id", f"mirra-mirror-slow-b{DST_NODE}-f0")],
              [("consumer_byte_rate", float(MB))])]
    assert alter_client_quotas(src.port, quota) == [(0, None)]
    start_mirror(src, dst, tmp_path, "slowed", name="slow")
    start_mirror(src, dst, tmp_path, "other", name="fast")
    slowed, other = Progress(dst, "slowed", 1), Progress(dst, "other", 1)
    try:
        produce(src, "slowed", 0, 30 * MB)
        produce(src, "other", 0, 30 * MB)
        t0 = time.monotonic()
        wait_until(lambda: other.latest(0) == 30 * MB // RECORD, 30,
                   "the other mirror to catch up")
        fast_s = time.monotonic() - t0
        # The slowed mirror is far behind and keeps to about its 1 MB/s quota.
        assert slowed.latest(0) * RECORD < 20 * MB
        start = time.monotonic()
        wait_until(lambda: time.monotonic() >= start + 8.0, 20, "eight seconds of the slow mirror")
        rate = slowed.rate(0, start, start + 8.0)
        assert 0.5 * MB <= rate <= 1.5 * MB, f"{rate / MB:.2f} MB/s under a 1 MB/s source quota"
        assert throttle_row(dst, "slow")["sourceThrottledMs"] > 0
        assert throttle_row(dst, "fast")["sourceThrottledMs"] == 0
        assert fast_s < 15
    finally:
        slowed.close()
        other.close()
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--describe", "--mirror", "slow"))
