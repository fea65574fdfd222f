"""Data survives the broker: a clean restart (SIGTERM, exit 0) and a kill -9 in the middle of
an acks=all stream to a topic that fsyncs every append (flush.messages=1)."""
import collections
import threading

import confluent_kafka

import clients
from mirra_testlib import wait_until
from records import assert_same_records, expected_records, now_ms, sample_records


def log_end_offsets(bootstrap, topic, partitions):
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "unused"})
    try:
        return [c.get_watermark_offsets(confluent_kafka.TopicPartition(topic, p), timeout=10)
                for p in range(partitions)]
    finally:
        c.close()


def test_restart_keeps_every_record_and_offset(make_broker):
    b = make_broker(name="restart")
    ck = clients.ConfluentKafka(b.bootstrap)
    topic = "durable"
    ck.create_topic(topic, 3)
    expected = []
    base = now_ms() - 7200_000
    for round_, codec in enumerate(("none", "zstd", "gzip", "lz4")):
        recs = sample_records(f"r{round_}", partitions=3, per_partition=25,
                              base_ts=base + round_ * 100_000)
        expected += expected_records(recs, ck.produce(topic, recs, codec))
    before = log_end_offsets(b.bootstrap, topic, 3)
    assert [hi for _, hi in before] == [100, 100, 100], before
    port = b.port

    b.restart()  # SIGTERM must end it with exit code 0
    assert b.port == port
    # The topic's 3 partitions, plus __consumer_offsets if a client's group lookup created it.
    b.wait_for(r"opened \d+ partition\(s\) of \d+ topic", start=b.run_mark)

    after = log_end_offsets(b.bootstrap, topic, 3)
    assert after == before, f"(log start, log end) per partition before {before}, after {after}"
    kp = clients.KafkaPython(b.bootstrap)  # another client reads it back
    consumed = []
    for p in range(3):
        consumed += kp.consume(topic, p, "earliest", 100)
    assert_same_records(expected, consumed, "after a clean restart")
    # appends continue at the old log end
    more = [{"partition": p, "key": "after", "value": f"after-{p}", "headers": [],
             "timestamp": None} for p in range(3)]
    res = ck.produce(topic, more)
    assert [r.get("offset") for r in res] == [100, 100, 100], res


def test_kill9_loses_no_acknowledged_record(make_broker):
    b = make_broker(name="kill9")
    topic = "fsync-each"
    clients.ConfluentKafka(b.bootstrap).create_topic(topic, 1, {"flush.messages": "1"})

    # No retries: a record is sent once, so an acknowledged record can only be in the log once
    # (with retries, a batch written before the kill but not acknowledged could be resent).
    producer = confluent_kafka.Producer({
        "bootstrap.servers": b.bootstrap, "acks": "all", "enable.idempotence": False,
        "linger.ms": 2, "message.send.max.retries": 0, "message.timeout.ms": 60000,
        "reconnect.backoff.ms": 50, "reconnect.backoff.max.ms": 200,
        "socket.timeout.ms": 10000})
    acked = {}      # record number -> offset
    failed = {}     # record number -> error
    lock = threading.Lock()
    stop = threading.Event()
    sent = [0]

    def on_delivery(err, msg):
        n = int(msg.value().split(b"-")[1])
        with lock:
            if err is None:
                acked[n] = msg.offset()
            else:
                failed[n] = str(err)

    def stream():
        n = 0
        while not stop.is_set():
            with lock:
                outstanding = n - len(acked) - len(failed)
            if outstanding >= 100:  # keep the stream going without piling up a huge queue
                producer.poll(0.01)
                continue
            producer.produce(topic, key=str(n).encode(), value=f"rec-{n:07d}".encode(),
                             on_delivery=on_delivery)
            n += 1
            sent[0] = n
            producer.poll(0)
        producer.flush(60)

    t = threading.Thread(target=stream, daemon=True)
    t.start()
    try:
        wait_until(lambda: len(acked) >= 300, 60, "300 acknowledged records before the kill")
        assert b.kill() == -9
        at_kill = len(acked)
        b.start()
        wait_until(lambda: len(acked) >= at_kill + 300, 60,
                   "300 more acknowledged records after the restart")
    finally:
        stop.set()
        t.join(90)
    assert not t.is_alive(), "producer did not finish"
    assert len(acked) + len(failed) == sent[0], \
        f"{sent[0]} sent, {len(acked)} acknowledged, {len(failed)} failed: reports missing"

    print(f"kill9: {sent[0]} sent, {len(acked)} acked, {len(failed)} failed, at kill {at_kill}")
    lo, hi = log_end_offsets(b.bootstrap, topic, 1)[0]
    assert lo == 0
    log = [m["value"] for m in clients.ConfluentKafka(b.bootstrap).consume(
        topic, 0, "earliest", hi)]
    assert len(log) == hi, f"log end {hi} but {len(log)} records read"
    numbers = [int(v.split("-")[1]) for v in log]
    problems = []
    # every acknowledged record is in the log, at the offset it was acknowledged with
    for n, off in sorted(acked.items()):
        if off >= len(numbers) or numbers[off] != n:
            problems.append(f"record {n} acknowledged at offset {off}, the log has "
                            f"{numbers[off] if off < len(numbers) else 'nothing'} there")
    # exactly once for acknowledged ones, at most once for the others; in send order
    dups = sorted(n for n, k in collections.Counter(numbers).items() if k > 1)
    if dups:
        problems.append(f"records in the log more than once: {dups[:10]}")
    if numbers != sorted(numbers):
        bad = next(i for i in range(1, len(numbers)) if numbers[i] < numbers[i - 1])
        problems.append(f"log out of send order at offset {bad}: {numbers[bad - 1]} then {numbers[bad]}")
    unknown = sorted(set(numbers) - set(range(sent[0])))
    if unknown:
        problems.append(f"records never sent are in the log: {unknown[:10]}")
    # no gap: every offset up to the last acknowledged one holds a record (checked by the
    # offsets above and len(log) == hi); acked offsets grow with the record number
    offs = [off for _, off in sorted(acked.items())]
    if offs != sorted(offs):
        problems.append("acknowledged offsets are not in send order")
    assert not problems, (f"{sent[0]} sent, {len(acked)} acked ({at_kill} before the kill), "
                          f"{len(failed)} failed, log end {hi}:\n" + "\n".join(problems[:15]))
