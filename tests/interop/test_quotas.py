"""Client quotas against real clients (docs/quotas.md): python3-confluent-kafka and kafkajs
producers and a confluent-kafka consumer held to their byte rates while an unthrottled client on
the same broker is not slowed; Kafka's precedence between entities; a quota raised or removed at
run time takes effect within two windows; request_percentage holding a client that floods cheap
requests and ignores throttle times (the broker's muting). Quotas are set with
AlterClientQuotas through the test suite's raw codec; the CLI is tested in
tests/cli/test_configs.py.

Rates are measured from the clients' own delivery and consumption times, over a 10 s span that
starts once the quota's window has filled. The broker keeps quota.window.num=2 samples of a
second (Kafka's key; the default is 11). Kafka's rate lets a client's window fill at once and
again each time a full sample expires, so a throttled client moves in bursts of up to
(quota.window.num - 1) windows' worth, one per quota.window.num windows; a span holds one burst
more or less depending on where it starts. With eleven samples that is 10 MB either way in a 10 s
span; with two it is 1 MB, a tenth of the span's bytes, which 0.8-1.2 of the quota allows.
Waits are bounded polls, never sleeps."""
import struct
import threading
import time

import confluent_kafka
import confluent_kafka.admin
import pytest

from clients import KafkaJS
from mirra_testlib import connect, read_response, request, wait_until
from raw_admin import alter_client_quotas, describe_client_quotas

MB = 1_000_000
QUOTA = 1 * MB  # bytes per second
RECORD = 1000  # bytes per record value
SPAN = 10.0  # seconds over which a rate is averaged
LOW, HIGH = 0.8, 1.2
WINDOWS = 2  # quota.window.num of the test broker (samples of 1 s)
WARMUP = 4.0  # seconds before the span starts: the quota window (2 s) has filled


def set_quota(broker, entity, values):
    """entity: [(type, name or None)]; values: {key: value or None (remove)}."""
    results = alter_client_quotas(broker.port, [(entity, list(values.items()))])
    assert results == [(0, None)], results


class Deliveries:
    """Delivery times and sizes, and throttle events, of one producer or consumer."""

    def __init__(self):
        self.lock = threading.Lock()
        self.events = []  # (monotonic time, bytes)
        self.throttles = []

    def add(self, nbytes):
        with self.lock:
            self.events.append((time.monotonic(), nbytes))

    def rate(self, start, end):
        with self.lock:
            total = sum(n for t, n in self.events if start <= t < end)
        return total / (end - start)


def confluent_producer(broker, client_id, seconds, out, stop=None):
    """Produces RECORD-byte records to `quotas` as fast as the broker lets it for `seconds`."""
    p = confluent_kafka.Producer({
        "bootstrap.servers": broker.bootstrap, "client.id": client_id, "linger.ms": 5,
        "throttle_cb": lambda ev: out.throttles.append(ev.throttle_time)})
    value = b"x" * RECORD

    def delivered(err, msg):
        assert err is None, err
        out.add(len(msg.value()))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (stop and stop.is_set()):
        try:
            p.produce("quotas", value, callback=delivered)
        except BufferError:  # the local queue is full: the broker is holding us back
            p.poll(0.05)
            continue
        p.poll(0)
    p.flush(30)


def produce_all(p, count):
    """`count` RECORD-byte records to `quotas`, waiting whenever the local queue is full; all
    delivered."""
    value = b"v" * RECORD
    for _ in range(count):
        while True:
            try:
                p.produce("quotas", value)
                break
            except BufferError:  # the local queue is full: the broker is holding us back
                p.poll(0.05)
        p.poll(0)
    assert p.flush(60) == 0


def run_in_thread(target, *args):
    t = threading.Thread(target=target, args=args, daemon=True)
    t.start()
    return t


@pytest.fixture
def quota_broker(make_broker):
    b = make_broker({"num.partitions": 1, "quota.window.num": WINDOWS}, name="quotas")
    a = confluent_kafka.admin.AdminClient({"bootstrap.servers": b.bootstrap})
    a.create_topics([confluent_kafka.admin.NewTopic("quotas", 1, 1)])["quotas"].result(30)
    return b


def test_confluent_producer_is_held_to_its_rate_and_others_are_not(quota_broker):
    set_quota(quota_broker, [("client-id", "held")], {"producer_byte_rate": QUOTA})
    held, free = Deliveries(), Deliveries()
    start = time.monotonic()
    threads = [run_in_thread(confluent_producer, quota_broker, "held", WARMUP + SPAN, held)]
    span_start = start + WARMUP
    # The unthrottled producer runs inside the measured span of the throttled one.
    wait_until(lambda: time.monotonic() >= span_start, WARMUP + 5, "the span to start")
    threads.append(run_in_thread(confluent_producer, quota_broker, "free", 3.0, free))
    for t in threads:
        t.join(WARMUP + SPAN + 60)
    rate = held.rate(span_start, span_start + SPAN)
    print(f"{rate / MB:.2f} MB/s under a 1 MB/s quota")
    assert LOW * QUOTA <= rate <= HIGH * QUOTA, f"{rate / MB:.2f} MB/s under a 1 MB/s quota"
    assert held.throttles and max(held.throttles) > 0, "librdkafka reported no throttling"
    assert not free.throttles, f"the unthrottled producer was throttled: {free.throttles[:5]}"
    free_start = free.events[0][0]
    free_rate = free.rate(free_start, free_start + 2.0)
    assert free_rate > 4 * QUOTA, f"the unthrottled producer managed only {free_rate / MB:.2f} MB/s"


def test_kafkajs_producer_is_held_to_its_rate(quota_broker):
    set_quota(quota_broker, [("client-id", "kafkajs-held")], {"producer_byte_rate": QUOTA})
    k = KafkaJS(quota_broker.bootstrap)
    rows = k._call({"op": "flood", "topic": "quotas", "clientId": "kafkajs-held",
                    "size": RECORD, "batch": 100, "seconds": WARMUP + SPAN},
                   timeout=WARMUP + SPAN + 60)
    sent = [(r["t"] / 1000.0, r["bytes"]) for r in rows if "bytes" in r]
    in_span = sum(n for t, n in sent if WARMUP <= t < WARMUP + SPAN)
    rate = in_span / SPAN
    print(f"{rate / MB:.2f} MB/s under a 1 MB/s quota")
    assert LOW * QUOTA <= rate <= HIGH * QUOTA, f"{rate / MB:.2f} MB/s under a 1 MB/s quota"


def test_confluent_consumer_is_held_to_its_rate(quota_broker):
    """A throttled fetch carries nothing, so each costs the consumer its throttle time: fetches
    of a tenth of the quota (batches of 50 kB, fetches of 100 kB) keep that to a tenth of a
    second. With librdkafka's defaults (batches and fetches of up to 1 MB, the whole window of
    a two-sample broker) every other fetch is throttled for a second and the consumer gets half
    its quota: Kafka's arithmetic over the same window gives the same."""
    # 40 MB to read, more than a 1 MB/s consumer gets through in the test.
    p = confluent_kafka.Producer({"bootstrap.servers": quota_broker.bootstrap, "linger.ms": 5,
                                  "batch.size": 50_000})
    produce_all(p, 40_000)
    set_quota(quota_broker, [("client-id", "reader")], {"consumer_byte_rate": QUOTA})
    got = Deliveries()
    c = confluent_kafka.Consumer({
        "bootstrap.servers": quota_broker.bootstrap, "client.id": "reader",
        "group.id": "quota-readers", "auto.offset.reset": "earliest",
        "enable.auto.commit": False, "max.partition.fetch.bytes": 100_000,
        "throttle_cb": lambda ev: got.throttles.append(ev.throttle_time)})
    c.subscribe(["quotas"])
    start = time.monotonic()
    try:
        while time.monotonic() < start + WARMUP + SPAN:
            for m in c.consume(num_messages=1000, timeout=0.2):
                assert m.error() is None, m.error()
                got.add(len(m.value()))
    finally:
        c.close()
    rate = got.rate(start + WARMUP, start + WARMUP + SPAN)
    print(f"{rate / MB:.2f} MB/s under a 1 MB/s quota")
    assert LOW * QUOTA <= rate <= HIGH * QUOTA, f"{rate / MB:.2f} MB/s under a 1 MB/s quota"
    assert got.throttles and max(got.throttles) > 0, "librdkafka reported no throttling"


def throttled_while_producing(broker, client_id, nbytes):
    """Produces `nbytes` at once; True when the broker asked for a throttle."""
    out = Deliveries()
    p = confluent_kafka.Producer({
        "bootstrap.servers": broker.bootstrap, "client.id": client_id, "linger.ms": 5,
        "throttle_cb": lambda ev: out.throttles.append(ev.throttle_time)})
    produce_all(p, nbytes // RECORD)
    # The last answer's throttle is reported by the next poll.
    p.poll(0.5)
    return any(t > 0 for t in out.throttles)


def test_precedence_follows_kafkas_order(quota_broker):
    """Plaintext clients are user ANONYMOUS. 3 MB at once is 3 MB/s over the padded window
    (1 s): over a 100 KB/s quota, far under a 1 GB/s one."""
    slow, fast = {"producer_byte_rate": 100_000}, {"producer_byte_rate": 1_000_000_000}
    set_quota(quota_broker, [("client-id", None)], slow)  # 8: default client id
    assert throttled_while_producing(quota_broker, "app-a", 3 * MB)
    set_quota(quota_broker, [("client-id", "app-b")], fast)  # 7 beats 8
    assert not throttled_while_producing(quota_broker, "app-b", 3 * MB)
    set_quota(quota_broker, [("user", None)], slow)  # 6 beats 7
    assert throttled_while_producing(quota_broker, "app-b", 3 * MB)
    set_quota(quota_broker, [("user", None), ("client-id", "app-c")], fast)  # 4 beats 6
    assert not throttled_while_producing(quota_broker, "app-c", 3 * MB)
    set_quota(quota_broker, [("user", "ANONYMOUS")], slow)  # 3 beats 4
    assert throttled_while_producing(quota_broker, "app-c", 3 * MB)
    set_quota(quota_broker, [("user", "ANONYMOUS"), ("client-id", "app-d")], fast)  # 1 beats 3
    assert not throttled_while_producing(quota_broker, "app-d", 3 * MB)
    err, msg, entries = describe_client_quotas(quota_broker.port, [("user", 2, None)])
    assert err == 0, msg
    assert ({"user": "ANONYMOUS", "client-id": "app-d"}, fast) in entries


@pytest.mark.parametrize("change", ["raised", "removed"])
def test_a_quota_changed_at_run_time_takes_effect_within_two_windows(quota_broker, change):
    set_quota(quota_broker, [("client-id", "changing")], {"producer_byte_rate": QUOTA})
    out, stop = Deliveries(), threading.Event()
    t = run_in_thread(confluent_producer, quota_broker, "changing", 120.0, out, stop)
    start = time.monotonic()
    try:
        # Past the first burst, whose throttle can be several windows long (librdkafka pipelines
        # a few requests before the first answer; a muted connection stays muted whatever the
        # quota becomes), to a throttle of the steady state, at most about a window.
        wait_until(lambda: time.monotonic() >= start + WARMUP and out.throttles, 60,
                   "the producer to be throttled")
        seen = len(out.throttles)
        wait_until(lambda: len(out.throttles) > seen, 10, "a throttle of the steady state")
        changed = time.monotonic()
        new_value = 1000 * QUOTA if change == "raised" else None
        set_quota(quota_broker, [("client-id", "changing")], {"producer_byte_rate": new_value})
        # Within two windows (2 s) it runs far above the old quota.
        wait_until(lambda: out.rate(time.monotonic() - 1.0, time.monotonic()) > 4 * QUOTA,
                   2.0 + 1.0, f"the producer to speed up once its quota was {change}")
        assert time.monotonic() - changed <= 3.0
    finally:
        stop.set()
        t.join(60)


def api_versions_loop(port, client_id, seconds):
    """ApiVersions v3, one at a time, ignoring throttle times: (answers, largest throttle)."""
    body = b"\x06mirra\x060.1.0\x00"  # compact client software name and version, no tags
    answered, largest, corr = 0, 0, 0
    with connect(port) as s:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            corr += 1
            s.sendall(request(18, 3, corr, body, client=client_id, flexible=True))
            data = read_response(s, timeout=seconds + 10)
            (got_corr,) = struct.unpack_from(">i", data, 0)
            assert got_corr == corr
            # v3 body: error_code int16, api_keys compact array, throttle_time_ms int32, tags.
            answered += 1
            largest = max(largest, _api_versions_throttle(data[4:]))
    return answered, largest


def _api_versions_throttle(body):
    from mirra_testlib import read_uvarint
    pos = 2
    n, pos = read_uvarint(body, pos)
    for _ in range(n - 1):
        pos += 6
        tags, pos = read_uvarint(body, pos)
        assert tags == 0
    (throttle,) = struct.unpack_from(">i", body, pos)
    return throttle


def test_request_percentage_holds_a_flooding_client(quota_broker):
    """0.05% of a thread: half a millisecond of the broker's time per second, which a client
    sending ApiVersions back to back uses up within a few hundred requests."""
    set_quota(quota_broker, [("client-id", "flooder")], {"request_percentage": 0.05})
    free, _ = api_versions_loop(quota_broker.port, "calm", 3.0)
    held, largest = api_versions_loop(quota_broker.port, "flooder", 3.0)
    assert largest > 0, "no throttle time in the flooder's answers"
    assert held * 4 < free, f"the flooder got {held} answers in 3 s, an unthrottled client {free}"
