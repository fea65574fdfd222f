"""The broker's HTTP /metrics endpoint (http.listeners) against real clients: the Prometheus
text a broker writes after serving confluent-kafka producers and consumers is accepted by
Prometheus' own checker (promtool); its figures match the traffic the test made (records and
bytes per topic, per-partition offsets and sizes, requests and their latency histogram, errors
the broker is known to answer, connections, process figures); its partition gauges survive a
restart; and the HTTP listener withstands hostile clients (unknown paths, other methods, bodies,
huge headers, half-sent requests, more connections than its limit) without hurting /metrics or
Kafka. A metrics endpoint that lies or that a stray client can wedge is worse than none, so
every figure is checked against what the clients saw, not only for being present.

Waits are bounded polls or socket timeouts, never sleeps."""
import re
import socket
import struct
import subprocess
import time
import urllib.request

import confluent_kafka
import confluent_kafka.admin
import pytest

from mirra_testlib import connect, read_response, request, wait_closed, wait_until
from prometheus_text import http_port, one, parse, values
from share_raw import alter_share_offsets

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"
TOPIC = "metered"
COUNTS = {0: 600, 1: 400}   # records produced to each partition of TOPIC
VALUE = b"m" * 100
ILLEGAL_SASL_STATE = 34
PROMPT = 5.0               # seconds a scrape may take while hostile clients are about
HTTP_IDLE = 10.0           # seconds after which the server closes an idle HTTP connection
HTTP_MAX_CONNECTIONS = 64


# --- scraping and parsing ----------------------------------------------------------------------

def scrape(broker, timeout=PROMPT):
    url = f"http://127.0.0.1:{http_port(broker)}/metrics"
    with urllib.request.urlopen(url, timeout=timeout) as r:
        assert r.status == 200
        assert r.headers["Content-Type"] == PROMETHEUS_TEXT
        return r.read().decode()


def scrape_or_none(broker):
    try:
        return scrape(broker)
    except OSError:  # refused, reset or timed out (urllib's URLError is an OSError)
        return None


def per_partition(samples, name):
    return {int(l["partition"]): v for n, l, v in samples if n == name and l["topic"] == TOPIC}


def gauge(broker, name, **labels):
    return one(parse(scrape(broker)), name, **labels)


# --- Kafka traffic -----------------------------------------------------------------------------

def create_topic(broker):
    admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([confluent_kafka.admin.NewTopic(TOPIC, len(COUNTS), 1)])[TOPIC].result(30)


def produce(broker, counts):
    p = confluent_kafka.Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
    failed = []
    for partition, n in counts.items():
        for _ in range(n):
            p.produce(TOPIC, VALUE, partition=partition,
                      on_delivery=lambda err, msg: err and failed.append(err))
            p.poll(0)
    assert p.flush(30) == 0 and not failed, failed[:5]


def consumer(broker, **conf):
    # confluent-kafka 1.7 insists on a group.id; with assign() and no commits it is unused.
    return confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "unused",
                                     "enable.auto.commit": False, **conf})


def consume_all(broker, counts):
    """Reads every record of TOPIC from the beginning; asserts the count per partition."""
    c = consumer(broker)
    c.assign([confluent_kafka.TopicPartition(TOPIC, p, confluent_kafka.OFFSET_BEGINNING)
              for p in counts])
    got, deadline = dict.fromkeys(counts, 0), time.monotonic() + 30
    try:
        while got != counts and time.monotonic() < deadline:
            for m in c.consume(1000, timeout=0.5):
                assert m.error() is None, m.error()
                got[m.partition()] += 1
    finally:
        c.close()
    assert got == counts


def fetch_out_of_range(broker):
    """A consumer fetching far past the log end with auto.offset.reset=error: the broker answers
    the partition with OFFSET_OUT_OF_RANGE, which librdkafka reports."""
    c = consumer(broker, **{"auto.offset.reset": "error"})
    c.assign([confluent_kafka.TopicPartition(TOPIC, 0, 1_000_000)])
    m, deadline = None, time.monotonic() + 30
    try:
        while m is None and time.monotonic() < deadline:
            m = c.poll(0.2)
    finally:
        c.close()
    assert m is not None, "no answer to a fetch past the log end"
    assert m.error() is not None and "out of range" in m.error().str().lower(), m.error()


def sasl_handshake_on_plaintext(broker):
    """SaslHandshake v1 on a PLAINTEXT listener: a top-level ILLEGAL_SASL_STATE answer."""
    with connect(broker.port) as s:
        s.sendall(request(17, 1, 1, struct.pack(">h", 5) + b"PLAIN"))
        corr, err = struct.unpack_from(">ih", read_response(s))
    assert (corr, err) == (1, ILLEGAL_SASL_STATE)


@pytest.fixture
def metered(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0"}, name="metrics")
    create_topic(b)
    return b


def served_traffic(broker):
    produce(broker, COUNTS)
    consume_all(broker, COUNTS)
    fetch_out_of_range(broker)
    sasl_handshake_on_plaintext(broker)


def assert_still_serving(broker):
    """/metrics answers and a producer's records land (the log end of partition 0 moves)."""
    assert broker.running(), broker.tail()
    before = gauge(broker, "mirra_partition_log_end_offset", topic=TOPIC, partition="0")
    produce(broker, {0: 5})
    assert gauge(broker, "mirra_partition_log_end_offset", topic=TOPIC, partition="0") \
        == before + 5


# --- raw HTTP ----------------------------------------------------------------------------------

def http_raw(broker, data, timeout=PROMPT):
    """Sends `data` on a new connection and reads the answer until the server closes (every
    request here asks for that with Connection: close, or is refused, which closes):
    (status, {header: value}, body)."""
    got = b""
    with socket.create_connection(("127.0.0.1", http_port(broker)), timeout=timeout) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before reading all of it: read the answer
        try:
            while chunk := s.recv(65536):
                got += chunk
        except ConnectionResetError:
            pass  # a reset after the answer (unread bytes of ours at the server's close)
    head, sep, body = got.partition(b"\r\n\r\n")
    assert sep, f"no complete HTTP answer: {got[:300]!r}"
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def get(path, extra=b""):
    return (b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + extra +
            b"\r\n")


# --- tests -------------------------------------------------------------------------------------

def test_promtool_accepts_the_text_after_traffic(metered):
    served_traffic(metered)
    text = scrape(metered)
    # Every family the traffic fills is there with samples, so promtool sees all kinds of lines.
    for family in ("mirra_requests_total", "mirra_request_errors_total",
                   "mirra_request_duration_seconds_bucket", "mirra_topic_bytes_out_total",
                   "mirra_partition_log_end_offset", "process_open_fds"):
        assert re.search(rf"^{family}[{{ ]", text, re.M), f"no {family} sample:\n{text}"
    r = subprocess.run(["/usr/bin/promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, f"promtool exit {r.returncode}:\n{r.stdout}{r.stderr}\n---\n{text}"


def test_share_groups_have_their_families_and_promtool_accepts_them(metered):
    produce(metered, COUNTS)
    assert alter_share_offsets(metered.port, "metered-queue", TOPIC, {0: 100})["error_code"] == 0
    text = scrape(metered)
    s = parse(text)
    assert one(s, "mirra_share_group_members", group="metered-queue") == 0
    assert one(s, "mirra_share_group_state", group="metered-queue", state="Empty") == 1
    assert one(s, "mirra_share_group_start_offset", group="metered-queue", topic=TOPIC,
               partition="0") == 100
    assert one(s, "mirra_share_group_lag", group="metered-queue", topic=TOPIC,
               partition="0") == COUNTS[0] - 100
    r = subprocess.run(["/usr/bin/promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, f"promtool exit {r.returncode}:\n{r.stdout}{r.stderr}"


def test_values_match_the_traffic(metered):
    t0 = time.time()
    served_traffic(metered)
    s = parse(scrape(metered))
    n = sum(COUNTS.values())
    assert one(s, "mirra_topic_records_in_total", topic=TOPIC) == n
    bytes_in = one(s, "mirra_topic_bytes_in_total", topic=TOPIC)
    assert bytes_in >= n * len(VALUE)
    log_end = per_partition(s, "mirra_partition_log_end_offset")
    assert log_end == COUNTS
    assert per_partition(s, "mirra_partition_high_watermark") == log_end
    assert per_partition(s, "mirra_partition_last_stable_offset") == log_end
    assert per_partition(s, "mirra_partition_log_start_offset") == dict.fromkeys(COUNTS, 0)
    assert per_partition(s, "mirra_partition_offline") == dict.fromkeys(COUNTS, 0)
    sizes = per_partition(s, "mirra_partition_log_size_bytes")
    assert all(v > 0 for v in sizes.values()), sizes
    # Nothing but the produced batches is in the logs (no compaction, no retention yet).
    assert sum(sizes.values()) == bytes_in, (sizes, bytes_in)
    # The consumer read every record, so every batch went out whole at least once.
    assert one(s, "mirra_topic_bytes_out_total", topic=TOPIC) >= bytes_in
    assert one(s, "mirra_partitions") == len(values(s, "mirra_partition_log_end_offset"))

    produce_requests = values(s, "mirra_requests_total", api="Produce")
    assert sum(produce_requests) >= 1
    for api in ("Produce", "Fetch", "Metadata"):
        buckets = [(l["le"], v) for n_, l, v in s
                   if n_ == "mirra_request_duration_seconds_bucket" and l["api"] == api]
        count = one(s, "mirra_request_duration_seconds_count", api=api)
        assert count == sum(values(s, "mirra_requests_total", api=api)) > 0, api
        assert buckets[-1] == ("+Inf", count), (api, buckets[-1])
        assert [v for _, v in buckets] == sorted(v for _, v in buckets), (api, buckets)
        assert one(s, "mirra_request_duration_seconds_sum", api=api) >= 0

    # Counted errors: the answer's top-level error code, and each partition's in Produce and
    # Fetch (not the per-topic ones of admin APIs). The two this test caused:
    assert one(s, "mirra_request_errors_total", api="SaslHandshake",
               error="ILLEGAL_SASL_STATE") == 1
    assert one(s, "mirra_request_errors_total", api="Fetch", error="OFFSET_OUT_OF_RANGE") >= 1
    assert values(s, "mirra_request_errors_total", api="Produce") == [], "a clean produce erred"

    assert 0 < one(s, "process_open_fds") < one(s, "process_max_fds")
    assert one(s, "process_resident_memory_bytes") > 0
    assert one(s, "process_virtual_memory_bytes") >= one(s, "process_resident_memory_bytes")
    assert one(s, "process_cpu_seconds_total") > 0
    # Generous: the figure comes from the boot time, which can drift from the wall clock.
    assert t0 - 10 <= one(s, "process_start_time_seconds") <= time.time() + 10


def test_connections_gauge_follows_kafka_clients(metered):
    produce(metered, {0: 1})  # a real client came and went
    # A listener without connections shows 0 (an alert on == 0 must be able to fire).
    conns = lambda: one(parse(scrape(metered)), "mirra_connections",  # noqa: E731
                        listener="PLAINTEXT")
    wait_until(lambda: conns() == 0, 15, "no Kafka connections once the producer is gone")
    held = [connect(metered.port) for _ in range(3)]
    try:
        for i, s in enumerate(held):  # answered, so the broker has each of them
            s.sendall(request(18, 0, i))
            read_response(s)
        assert conns() == 3
    finally:
        for s in held:
            s.close()
    wait_until(lambda: conns() == 0, 15, "the gauge to drop once the connections closed")


def test_partition_gauges_survive_a_restart(metered):
    produce(metered, COUNTS)
    names = ("mirra_partition_log_start_offset", "mirra_partition_log_end_offset",
             "mirra_partition_high_watermark", "mirra_partition_last_stable_offset",
             "mirra_partition_log_size_bytes")
    before = parse(scrape(metered))
    assert metered.stop() == 0, metered.tail()
    metered.start()  # a new HTTP port (0 again): http_port reads this run's line
    after = parse(scrape(metered))
    for name in names:
        assert per_partition(after, name) == per_partition(before, name), name
    assert per_partition(after, "mirra_partition_log_end_offset") == COUNTS
    assert one(after, "mirra_partitions") == one(before, "mirra_partitions")
    # Counters are the process's own: they restart from zero or carry on, nothing else.
    produce(metered, {0: 10})
    again = parse(scrape(metered))
    assert one(again, "mirra_topic_records_in_total", topic=TOPIC) in (10, sum(COUNTS.values()) + 10)
    assert per_partition(again, "mirra_partition_log_end_offset") == {0: COUNTS[0] + 10,
                                                                      1: COUNTS[1]}


def test_head_answers_headers_only(metered):
    status, headers, body = http_raw(
        metered, b"HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (status, headers["Content-Type"], body) == (200, PROMETHEUS_TEXT, b"")
    assert int(headers["Content-Length"]) > 0  # the length a GET would get


def test_bad_requests_get_their_status(metered):
    status, _, _ = http_raw(metered, get(b"/nope"))
    assert status == 404
    status, headers, _ = http_raw(metered, b"POST /metrics HTTP/1.1\r\nHost: x\r\n"
                                           b"Content-Length: 5\r\n\r\nhello")
    assert (status, headers.get("Allow")) == (405, "GET, HEAD")
    status, _, _ = http_raw(metered, get(b"/metrics", b"Content-Length: 5\r\n") + b"hello")
    assert status == 413
    status, _, _ = http_raw(metered, get(b"/metrics", b"Transfer-Encoding: chunked\r\n")
                            + b"5\r\nhello\r\n0\r\n\r\n")
    assert status == 413
    status, _, _ = http_raw(metered, get(b"/metrics", b"X-Big: " + b"a" * 100_000 + b"\r\n"))
    assert status == 431
    assert_still_serving(metered)


def test_stalled_clients_do_not_hold_up_others(metered):
    stalled = []
    try:
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", http_port(metered)), timeout=PROMPT)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0")  # and nothing more
            stalled.append(s)
        start = time.monotonic()
        scrape(metered)
        assert time.monotonic() - start < PROMPT
        assert_still_serving(metered)
        # The idle timeout closes them: not at once, and not much after HTTP_IDLE.
        for s in stalled:
            assert wait_closed(s, HTTP_IDLE + 5), "a stalled HTTP connection was left open"
        assert time.monotonic() - start >= HTTP_IDLE - 2
    finally:
        for s in stalled:
            s.close()


def test_more_connections_than_the_limit(metered):
    flood = []
    try:
        for _ in range(200):
            flood.append(socket.create_connection(("127.0.0.1", http_port(metered)),
                                                  timeout=PROMPT))
        assert len(flood) > HTTP_MAX_CONNECTIONS
        assert metered.running(), metered.tail()
        produce(metered, {1: 5})  # the Kafka listener does not care
    finally:
        for s in flood:
            s.close()
    wait_until(lambda: scrape_or_none(metered), 20, "a scrape once the flood is gone",
               interval=0.2)
    assert_still_serving(metered)
    # Idle HTTP connections do not hold up a clean shutdown.
    idle = [socket.create_connection(("127.0.0.1", http_port(metered)), timeout=PROMPT)
            for _ in range(10)]
    try:
        start = time.monotonic()
        assert metered.stop() == 0, metered.tail()
        assert time.monotonic() - start < PROMPT
    finally:
        for s in idle:
            s.close()


def test_versions_mirra_does_not_serve_share_one_series(metered):
    """ApiVersions above its range gets the KIP-511 answer (UNSUPPORTED_VERSION) and Metadata
    outside its range closes the connection; both count as errors, under version
    "unsupported", so a client sending made-up versions cannot make a series per number."""
    for version in (100, 200, 300):
        with connect(metered.port) as s:
            s.sendall(request(18, version, 1, b"", flexible=True))
            read_response(s)
    with connect(metered.port) as s:
        s.sendall(request(3, 99, 1, b""))
        assert wait_closed(s), "Metadata v99 did not close the connection"
    samples = parse(scrape(metered))
    assert one(samples, "mirra_requests_total", api="ApiVersions", version="unsupported") == 3
    assert one(samples, "mirra_requests_total", api="Metadata", version="unsupported") == 1
    assert not values(samples, "mirra_requests_total", api="ApiVersions", version="100")
    assert one(samples, "mirra_request_errors_total", api="ApiVersions",
               error="UNSUPPORTED_VERSION") == 3
    assert one(samples, "mirra_request_errors_total", api="Metadata",
               error="UNSUPPORTED_VERSION") == 1


def test_a_scraper_keeps_its_connection_and_the_start_time_holds(metered):
    """Prometheus reuses its connection between scrapes; it detects restarts by changes of
    process_start_time_seconds, which must therefore stay put while the process runs."""
    with socket.create_connection(("127.0.0.1", http_port(metered)), timeout=PROMPT) as s:
        starts = []
        for _ in range(3):
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = s.recv(65536)
                assert chunk, "the server closed a keep-alive connection"
                head += chunk
            head, _, body = head.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200"), head
            length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))
            while len(body) < length:
                body += s.recv(65536)
            starts.append(one(parse(body.decode()), "process_start_time_seconds"))
    assert len(set(starts)) == 1, starts
