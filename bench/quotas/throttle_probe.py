"""The quota benchmark's throttle probe (bench/quotas/run.sh): does a client under the run's
quotas get throttled? mirra_load_gen sets no librdkafka throttle or stats callback, so it cannot
say; this client can. It produces RECORDS records of 1 KiB to TOPIC (1 partition, acks=1) and
consumes them back, as CLIENT_ID, with librdkafka's throttle_cb (through confluent-kafka)
counting every response that carried a throttle time above 0.

Usage: throttle_probe.py BOOTSTRAP TOPIC RECORDS CLIENT_ID [control]
Prints one line: mode=probe client=... records=... produce_throttled=N consume_throttled=N
throttled=N max_throttle_ms=M produce_s=... consume_s=...; exits 1 on a delivery error or when
the records do not all come back within the deadline. With `control` (a run under a small
quota, to show that throttling is seen), the consumer stops at its first throttled response:
a fetch over its quota gets no records until the whole window's rate is back under the quota,
which would take ten seconds or more.
"""

import os
import sys
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition

DEADLINE_S = 120  # per direction; a throttled control run takes a few seconds


class Throttles:
    def __init__(self):
        self.count = 0
        self.max_ms = 0

    def __call__(self, event):
        if event.throttle_time > 0:
            self.count += 1
            self.max_ms = max(self.max_ms, int(event.throttle_time * 1000))


def produce(bootstrap, topic, records, client):
    throttles = Throttles()
    errors = []

    def on_delivery(err, _msg):
        if err is not None:
            errors.append(err)

    p = Producer({"bootstrap.servers": bootstrap, "client.id": client, "acks": 1,
                  "linger.ms": 5, "throttle_cb": throttles, "on_delivery": on_delivery})
    pool = os.urandom(1024 + 4096)
    start = time.monotonic()
    for i in range(records):
        while True:
            try:
                p.produce(topic, pool[i % 4096:i % 4096 + 1024], partition=0)
                break
            except BufferError:
                p.poll(0.05)
        if i % 1000 == 0:
            p.poll(0)
    left = p.flush(DEADLINE_S)
    if left or errors:
        sys.exit(f"throttle_probe: produce: {left} undelivered, errors: {errors[:3]}")
    return throttles, time.monotonic() - start


def consume(bootstrap, topic, records, client, control):
    throttles = Throttles()
    c = Consumer({"bootstrap.servers": bootstrap, "client.id": client,
                  "group.id": "bench-throttle-probe", "enable.auto.commit": False,
                  "throttle_cb": throttles})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    start = time.monotonic()
    got = 0
    while got < records and time.monotonic() - start < DEADLINE_S:
        if control and throttles.count:
            break
        for m in c.consume(num_messages=1000, timeout=1.0):
            if m.error() is None:
                got += 1
            elif m.error().code() != KafkaError._PARTITION_EOF:
                sys.exit(f"throttle_probe: consume: {m.error()}")
    seconds = time.monotonic() - start
    c.close()
    if got < records and not (control and throttles.count):
        sys.exit(f"throttle_probe: consume: {got} of {records} records in {DEADLINE_S} s")
    return throttles, seconds


def main():
    bootstrap, topic, records, client = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    control = sys.argv[5:] == ["control"]
    pt, ps = produce(bootstrap, topic, records, client)
    ct, cs = consume(bootstrap, topic, records, client, control)
    print(f"mode=probe client={client} topic={topic} records={records} "
          f"produce_throttled={pt.count} consume_throttled={ct.count} "
          f"throttled={pt.count + ct.count} max_throttle_ms={max(pt.max_ms, ct.max_ms)} "
          f"produce_s={ps:.3f} consume_s={cs:.3f}")


if __name__ == "__main__":
    main()
