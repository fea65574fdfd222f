"""One consumer-group member for the failover story (test_mirroring_failover_story.py), as a
process the test can SIGKILL: python3-confluent-kafka or kafka-python (python3-kafka); its
kafkajs twin is node/failover_consumer.js, with the same arguments and output.

    failover_consumer.py CLIENT BOOTSTRAP GROUP TOPIC OUT COMMIT_EVERY RATE

Subscribes to TOPIC in GROUP (from the earliest offset when the group has none), and appends to
OUT one JSON line per event, written before the next step so that a SIGKILL loses nothing
already done:
    {"ev": "rec", "p": partition, "o": offset}       a record consumed (processed)
    {"ev": "commit", "offsets": {partition: next}}  a synchronous commit that succeeded
    {"ev": "commit_failed", "error": str}
After every COMMIT_EVERY records it commits, for each partition read since its last commit,
the offset after the last record read there (never on a timer: the records read after the last
commit are exactly the ones a successor re-reads). RATE caps the records read per second (0: no
cap), so that a consumer can lag behind its producer as real ones do; it is a pace, not a
synchronisation. Fetches are small (FETCH_BYTES per partition).
"""
import json
import sys
import time

# Small fetches per partition, so that a paced consumer moves between the partitions rather than
# spending seconds on one partition's backlog.
FETCH_BYTES = 2048


class Log:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1)

    def write(self, **ev):
        self.f.write(json.dumps(ev) + "\n")
        self.f.flush()


class Pace:
    """At most `rate` calls of wait() per second (0: no limit)."""

    def __init__(self, rate):
        self.gap = 1.0 / rate if rate > 0 else 0.0
        self.next = time.monotonic()

    def wait(self):
        if self.gap:
            now = time.monotonic()
            if self.next > now:
                time.sleep(self.next - now)
            self.next = max(self.next, now) + self.gap


def run_confluent(bootstrap, group, topic, log, commit_every, pace):
    import confluent_kafka as ck
    c = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                     "enable.auto.commit": False, "auto.offset.reset": "earliest",
                     "enable.partition.eof": False, "fetch.wait.max.ms": 100,
                     "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
                     "max.partition.fetch.bytes": FETCH_BYTES})
    c.subscribe([topic])
    pending, n = {}, 0
    while True:
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error() is not None:
            log.write(ev="error", error=str(m.error()))
            continue
        pace.wait()
        log.write(ev="rec", p=m.partition(), o=m.offset())
        pending[m.partition()] = m.offset() + 1
        n += 1
        if n % commit_every == 0:
            offsets = [ck.TopicPartition(topic, p, o) for p, o in sorted(pending.items())]
            try:
                res = c.commit(offsets=offsets, asynchronous=False)
                bad = [str(tp.error) for tp in res if tp.error is not None]
                if bad:
                    log.write(ev="commit_failed", error="; ".join(bad))
                else:
                    log.write(ev="commit", offsets=dict(pending))
                    pending = {}
            except ck.KafkaException as e:
                log.write(ev="commit_failed", error=str(e))


def run_kafka_python(bootstrap, group, topic, log, commit_every, pace):
    import kafka
    from kafka.structs import OffsetAndMetadata, TopicPartition
    c = kafka.KafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                            enable_auto_commit=False, auto_offset_reset="earliest",
                            fetch_max_wait_ms=100, session_timeout_ms=6000,
                            heartbeat_interval_ms=500, max_poll_interval_ms=60000,
                            max_partition_fetch_bytes=FETCH_BYTES)
    c.subscribe([topic])
    pending, n = {}, 0
    while True:
        for records in c.poll(timeout_ms=200, max_records=50).values():
            for r in records:
                pace.wait()
                log.write(ev="rec", p=r.partition, o=r.offset)
                pending[r.partition] = r.offset + 1
                n += 1
                if n % commit_every:
                    continue
                offsets = {TopicPartition(topic, p): OffsetAndMetadata(o, "")
                           for p, o in pending.items()}
                try:
                    c.commit(offsets)
                    log.write(ev="commit", offsets=dict(pending))
                    pending = {}
                except kafka.errors.KafkaError as e:
                    log.write(ev="commit_failed", error=str(e))


def main(argv):
    client, bootstrap, group, topic, out, commit_every, rate = argv
    run = {"confluent-kafka": run_confluent, "kafka-python": run_kafka_python}[client]
    run(bootstrap, group, topic, Log(out), int(commit_every), Pace(float(rate)))


if __name__ == "__main__":
    main(sys.argv[1:])
