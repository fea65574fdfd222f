"""Hostile and broken connections against a running broker that is serving a real client.

Each case must get the protocol's error or a closed connection, with a log line naming the
peer, while a confluent-kafka producer and consumer on their own connections keep getting
answers (bounded generously: the machine is shared, this is not a latency test)."""
import re
import struct
import threading
import time

import confluent_kafka
import pytest

from mirra_testlib import (Broker, closed_connection_log, connect, frame, in_use, local_address,
                           read_response, request, stop_cleanly, wait_closed)

REQUEST_MAX = 4 * 1024 * 1024   # socket.request.max.bytes of this broker
IDLE_MS = 2000                  # connections.max.idle.ms of this broker
NORMAL_BOUND = 20.0             # seconds a normal round trip may take at most


@pytest.fixture(scope="module")
def hostile_broker(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("hostile"),
               {"socket.request.max.bytes": REQUEST_MAX, "connections.max.idle.ms": IDLE_MS},
               name="hostile-broker").start()
    yield b
    stop_cleanly(b)


@pytest.fixture
def broker(hostile_broker):
    return in_use(hostile_broker)


class NormalClient:
    """A producer and an assigned consumer that stay connected across the hostile cases."""

    def __init__(self, bootstrap, topic):
        self.topic = topic
        self.n = 0
        self.p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                           "linger.ms": 0, "message.timeout.ms": 15000})
        self.c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "unused",
                                           "enable.auto.commit": False,
                                           "fetch.wait.max.ms": 100})
        self.c.assign([confluent_kafka.TopicPartition(topic, 0, 0)])

    def round_trip(self, what):
        """Produces one record and reads it back; fails if that takes over NORMAL_BOUND."""
        start = time.monotonic()
        value = f"{what}-{self.n}".encode()
        self.n += 1
        done = []
        self.p.produce(self.topic, value=value, partition=0,
                       on_delivery=lambda err, msg: done.append((err, msg.offset())))
        assert self.p.flush(NORMAL_BOUND) == 0 and done, f"{what}: produce not answered"
        err, offset = done[0]
        assert err is None, f"{what}: produce failed: {err}"
        while time.monotonic() - start < NORMAL_BOUND:
            m = self.c.poll(0.1)
            if m is None:
                continue
            assert m.error() is None, f"{what}: consumer error {m.error()}"
            if m.value() == value:
                assert m.offset() == offset
                return time.monotonic() - start
        raise AssertionError(f"{what}: record produced at {offset} not consumed within "
                             f"{NORMAL_BOUND}s")

    def close(self):
        self.c.close()


@pytest.fixture(scope="module")
def normal(hostile_broker):
    from clients import ConfluentKafka
    ConfluentKafka(hostile_broker.bootstrap).create_topic("normal", 1)
    c = NormalClient(hostile_broker.bootstrap, "normal")
    c.round_trip("warm-up")
    yield c
    c.close()


# --- raw frames ----------------------------------------------------------------------------

def hostile(key, version, corr, body=b"", flexible=False):
    return request(key, version, corr, body, client="hostile", flexible=flexible)


def metadata_v1(corr, topics=("normal",)):
    body = struct.pack(">i", len(topics)) + b"".join(
        struct.pack(">h", len(t)) + t.encode() for t in topics)
    return hostile(3, 1, corr, body)


def api_versions(version, corr):
    """ApiVersions with an empty body; v3+ (and any unknown version above, as in Kafka) use
    request header v2, whose tagged-field section is one zero byte here."""
    return hostile(18, version, corr, flexible=version >= 3)


def peer_log(broker, peer, pattern, mark):
    """The broker logged closing this peer's connection, with the reason."""
    broker.wait_for(closed_connection_log(peer, pattern), start=mark)


# --- cases -----------------------------------------------------------------------------------

CLOSING_CASES = {
    # name: (bytes sent, log pattern)
    "http_garbage": (b"GET / HTTP/1.1\r\nHost: mirra\r\n\r\n", r"exceeds the limit"),
    "random_garbage": (frame(b"\xde\xad\xbe\xef" * 3), r"request header|unknown API key"),
    "huge_length": (struct.pack(">i", 2**31 - 1), r"exceeds the limit"),
    "just_over_max": (struct.pack(">i", REQUEST_MAX + 1) + b"\0" * 1024, r"exceeds the limit"),
    "unknown_api_key": (hostile(9999, 0, 7), r"unknown API key 9999"),
    "unsupported_metadata_version": (hostile(3, 99, 8, b"\0\0\0\0"),
                                     r"Metadata \(key 3\) v99 is outside"),
    "unsupported_produce_version": (hostile(0, 77, 9), r"Produce \(key 0\) v77 is outside"),
    "bad_body": (hostile(3, 1, 10, b"\x7f\xff\xff\xff"), r"Metadata v1 correlation id 10"),
}


@pytest.mark.parametrize("name", sorted(CLOSING_CASES))
def test_bad_input_closes_only_that_connection(broker, normal, name):
    data, pattern = CLOSING_CASES[name]
    mark = broker.mark()
    s = connect(broker.port)
    peer = local_address(s)
    with s:
        # a valid request first: answered before the connection is closed
        s.sendall(metadata_v1(1))
        assert struct.unpack(">i", read_response(s)[:4])[0] == 1, f"{name}: correlation id"
        s.sendall(data)
        normal.round_trip(name)  # another connection is served meanwhile
        assert wait_closed(s), f"{name}: connection still open"
    peer_log(broker, peer, pattern, mark)
    normal.round_trip(name + "-after")


def test_unsupported_api_versions_version_gets_kip511_answer(broker, normal):
    s = connect(broker.port)
    with s:
        s.sendall(api_versions(99, 42))
        resp = read_response(s)
        corr, error = struct.unpack(">ih", resp[:6])
        assert (corr, error) == (42, 35), f"ApiVersions v99: corr {corr} error {error}"
        # the connection stays usable at a version it knows
        s.sendall(api_versions(0, 43))
        corr, error = struct.unpack(">ih", read_response(s)[:6])
        assert (corr, error) == (43, 0)
    normal.round_trip("kip511")


def test_truncated_frame_then_close(broker, normal):
    mark = broker.mark()
    s = connect(broker.port)
    peer = local_address(s)
    with s:
        req = metadata_v1(5)
        s.sendall(req[: len(req) - 4])
        normal.round_trip("truncated")
    peer_log(broker, peer, r"truncated frame", mark)
    normal.round_trip("truncated-after")


def test_slow_loris_is_closed_while_others_are_served(broker, normal):
    """A frame trickled one byte at a time (announcing more than will ever come) does not
    count as activity: the connection is closed after connections.max.idle.ms. The trickle's
    pace is the scenario itself, not a synchronisation."""
    mark = broker.mark()
    req = metadata_v1(6)
    trickle = struct.pack(">i", 4096) + req[4:]
    s = connect(broker.port)
    peer = local_address(s)
    served = []
    with s:
        closed = False
        start = time.monotonic()
        for i in range(len(trickle)):
            try:
                s.sendall(trickle[i:i + 1])
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            if i == 3:
                served.append(normal.round_trip("slow-loris"))
            if wait_closed(s, timeout=0.15):
                closed = True
                break
        if not closed:
            closed = wait_closed(s, timeout=IDLE_MS / 1000 * 3)
        elapsed = time.monotonic() - start
    assert served, "the normal client was not exercised during the trickle"
    assert closed, f"slow-loris connection still open after {elapsed:.1f}s"
    assert elapsed >= IDLE_MS / 1000 * 0.9, f"closed after {elapsed:.1f}s, before the idle limit"
    peer_log(broker, peer, r"idle for %d ms" % IDLE_MS, mark)
    normal.round_trip("slow-loris-after")


def test_many_hostile_connections_at_once(broker, normal):
    """All the closing cases on parallel connections, and the normal client in the middle."""
    mark = broker.mark()
    socks = []
    for name, (data, _) in sorted(CLOSING_CASES.items()):
        s = connect(broker.port)
        peer = local_address(s)
        socks.append((name, s, peer))
    errors = []

    def send(name, s):
        try:
            s.sendall(CLOSING_CASES[name][0])
        except OSError as e:
            errors.append(f"{name}: {e}")

    threads = [threading.Thread(target=send, args=(n, s)) for n, s, _ in socks]
    for t in threads:
        t.start()
    normal.round_trip("parallel")
    for t in threads:
        t.join(10)
    for name, s, peer in socks:
        with s:
            assert wait_closed(s), f"{name}: still open"
        peer_log(broker, peer, CLOSING_CASES[name][1], mark)
    assert not errors, errors
    normal.round_trip("parallel-after")


# --- memory held by requests being read (queued.max.request.bytes) --------------------------

HOG_FRAME = 16 * 1024 * 1024        # socket.request.max.bytes of the hog broker
QUEUED_MAX = 2 * HOG_FRAME          # its queued.max.request.bytes
HOGS = 10
HOG_SENT = HOG_FRAME - 256 * 1024   # each hog sends all of its request but the last 256 KiB
RSS_SLACK = 12 * 1024 * 1024        # the broker's own allocations while serving, besides requests


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS in /proc/{pid}/status")


def test_partly_received_requests_hold_bounded_memory(tmp_path):
    """Connections that send most of a large request and then wait must not make the broker
    buffer them all: memory held by requests is bounded by queued.max.request.bytes and the
    other connections wait without being read (back-pressure). Once the hogs close, a normal
    client is served."""
    b = Broker(tmp_path, {"socket.request.max.bytes": HOG_FRAME,
                          "queued.max.request.bytes": QUEUED_MAX},
               name="hog-broker").start()
    from clients import ConfluentKafka
    ConfluentKafka(b.bootstrap).create_topic("normal", 1)
    normal = NormalClient(b.bootstrap, "normal")
    try:
        normal.round_trip("before-hogs")
        base = rss_bytes(b.proc.pid)
        payload = struct.pack(">i", HOG_FRAME) + hostile(0, 9, 1)[4:] + b"\0" * HOG_SENT
        hogs = [connect(b.port, timeout=None) for _ in range(HOGS)]
        sent = []

        def send(s):
            try:
                s.sendall(payload[:4 + HOG_SENT])
                sent.append(s)
            except OSError:
                pass  # closed at the end of the test while blocked

        for s in hogs:
            threading.Thread(target=send, args=(s,), daemon=True).start()
        # The broker's peak RSS while the hogs send: sampled until every hog's bytes left the
        # client (into the broker or the kernel's socket buffers) and 2 s more for the broker
        # to read what it will, or 15 s at most.
        peak, start, all_sent_at = base, time.monotonic(), None
        while time.monotonic() - start < 15:
            peak = max(peak, rss_bytes(b.proc.pid))
            if all_sent_at is None and len(sent) == HOGS:
                all_sent_at = time.monotonic()
            if all_sent_at is not None and time.monotonic() - all_sent_at > 2:
                break
            time.sleep(0.02)  # sampling interval
        grew = peak - base
        print(f"broker RSS {base >> 20} MiB before the hogs, peak {peak >> 20} MiB")
        for s in hogs:
            s.close()
        assert grew < QUEUED_MAX + RSS_SLACK, (
            f"RSS grew by {grew >> 20} MiB with {HOGS} partly sent requests of "
            f"{HOG_FRAME >> 20} MiB (queued.max.request.bytes {QUEUED_MAX >> 20} MiB)")
        normal.round_trip("after-hogs")
    finally:
        normal.close()
        stop_cleanly(b)


def test_garbage_connections_do_not_flood_the_log(tmp_path):
    """One warning per bad connection, rate-limited (base/log_limit.h: a burst of 20, then one
    per 5 s): a burst of garbage connections writes a bounded number of lines, and the dropped
    ones are counted in a later summary line."""
    burst, refill_s, n = 20, 5.0, 150
    b = Broker(tmp_path, name="garbage-broker").start()
    try:
        mark = b.mark()
        start = time.monotonic()
        for _ in range(n):
            with connect(b.port) as s:
                s.sendall(b"GET / HTTP/1.1\r\nHost: mirra\r\n\r\n")
                assert wait_closed(s), "garbage connection still open"
        elapsed = time.monotonic() - start
        rx = re.compile(closed_connection_log(None, r"exceeds the limit"))
        written = sum(1 for line in b.log(mark).splitlines() if rx.search(line))
        assert 0 < written <= burst + elapsed / refill_s + 1, (
            f"{written} warnings for {n} garbage connections in {elapsed:.1f}s")
        # Later garbage gets a line again, preceded by the count of those dropped.
        summary = r"suppressed (\d+) similar messages \(closing a connection\)"
        deadline = time.monotonic() + refill_s * 3
        while not re.search(summary, b.log(mark)):
            assert time.monotonic() < deadline, "no summary of the suppressed warnings"
            with connect(b.port) as s:
                s.sendall(b"GET / HTTP/1.1\r\n\r\n")
                assert wait_closed(s)
            time.sleep(0.1)  # pace of the later garbage (the scenario, not a synchronisation)
        assert sum(int(c) for c in re.findall(summary, b.log(mark))) >= 1
    finally:
        stop_cleanly(b)
