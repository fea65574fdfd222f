"""Every client against one shared broker: admin create, produce with every codec the client
has (keys, headers, null keys, tombstones, explicit timestamps), consume by assignment from
earliest / latest / a timestamp, 1 MB records accepted and refused, and cross-client reads.

Codecs a client lacks (kept out of the matrix, and checked to really be missing in
test_documented_codec_gaps so the matrix cannot silently shrink):
  kafkajs 2.2.4       snappy, lz4, zstd (only gzip is built in; codec packages not installed)
  @platformatic/kafka zstd (zlib.zstdCompressSync does not exist in Node 20); it also cannot
                      read kafka-python's snappy (xerial framing; it decodes raw snappy only)
"""
import time

import pytest

import clients
from mirra_testlib import wait_until
from records import (assert_same_records, expected_records, now_ms, sample_records,
                     unique_topic)

CLIENTS = list(clients.ALL)
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
DEFAULT_MESSAGE_MAX_BYTES = 1048588  # the broker's message.max.bytes default (Kafka's)


def client(name, broker):
    return clients.ALL[name](broker.bootstrap)


def create(c, broker, topic, partitions=2, configs=None):
    """Creates a topic with the client's own admin API; kcat has none, so its topics are
    auto-created by a metadata request (the broker runs with num.partitions=2), and a topic
    that needs configs is created with confluent-kafka's admin instead."""
    if c.name == "kcat":
        if configs:
            clients.ConfluentKafka(broker.bootstrap).create_topic(topic, partitions, configs)
        else:
            assert partitions == 2, "kcat topics get num.partitions=2"
            c.create_topic(topic)
            wait_until(lambda: c.partitions(topic) == partitions and _leaders(c, topic), 10,
                       f"auto-created {topic} to have {partitions} partitions with leaders")
    else:
        c.create_topic(topic, partitions, configs)


def _leaders(kcat, topic):
    md = kcat.metadata(topic)
    t = [t for t in md["topics"] if t["topic"] == topic][0]
    return all(p.get("leader", -1) >= 0 and "error" not in p for p in t["partitions"])


def consume_all(c, topic, expected, partitions=2, big=False):
    out = []
    for p in range(partitions):
        n = sum(1 for r in expected if r["partition"] == p)
        out += c.consume(topic, p, "earliest", n, big=big)
    return out


def high_watermark(broker, topic, partition):
    import confluent_kafka
    c = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "unused"})
    try:
        return c.get_watermark_offsets(confluent_kafka.TopicPartition(topic, partition),
                                       timeout=10)[1]
    finally:
        c.close()


def produce_checked(c, topic, records, codec="none", big=False):
    t0 = now_ms()
    results = c.produce(topic, records, codec, big)
    t1 = now_ms()
    return expected_records(records, results), (t0 - 1, t1 + 1)


# --- admin ---------------------------------------------------------------------------------

def test_acl_apis_answer_security_disabled(broker):
    """Without an authorizer the ACL APIs are advertised and answer SECURITY_DISABLED, as
    Kafka's broker does: kafka-python's admin gets that error, not an unsupported API."""
    from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,
                             ACLResourcePatternType, KafkaAdminClient, ResourcePattern,
                             ResourcePatternFilter, ResourceType)
    from kafka.errors import SecurityDisabledError
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=10000)
    try:
        topic = ResourcePattern(ResourceType.TOPIC, "acl-topic", ACLResourcePatternType.LITERAL)
        acl = ACL("User:alice", "*", ACLOperation.READ, ACLPermissionType.ALLOW, topic)
        created = admin.create_acls([acl])
        assert created["succeeded"] == [], created
        assert [(a, e) for a, e in created["failed"]] == [(acl, SecurityDisabledError)], created
        every = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                          ResourcePatternFilter(ResourceType.ANY, None,
                                                ACLResourcePatternType.ANY))
        with pytest.raises(SecurityDisabledError):
            admin.describe_acls(every)
        deleted = admin.delete_acls([every])
        assert [(matching, err) for _, matching, err in deleted] == \
            [([], SecurityDisabledError)], deleted
    finally:
        admin.close()


@pytest.mark.parametrize("name", CLIENTS)
def test_create_topic(broker, name):
    c = client(name, broker)
    topic = unique_topic(f"create-{name}")
    want = 2 if name == "kcat" else 3
    create(c, broker, topic, want)
    assert c.partitions(topic) == want, f"{name}: metadata after create"
    # a neutral second opinion from another client
    assert clients.ConfluentKafka(broker.bootstrap).partitions(topic) == want
    if name != "kcat":
        with pytest.raises(Exception) as e:
            c.create_topic(topic, want)
        assert "exist" in str(e.value).lower(), f"{name}: second create: {e.value}"


@pytest.mark.parametrize("name", [n for n in CLIENTS if n != "kcat"])
def test_delete_and_recreate_topic(broker, name):
    c = client(name, broker)
    ck = clients.ConfluentKafka(broker.bootstrap)
    topic = unique_topic(f"del-{name}")
    c.create_topic(topic, 2)
    old = [{"partition": p, "key": "old", "value": f"old-{i}", "headers": [], "timestamp": None}
           for p in (0, 1) for i in range(3)]
    expected_records(old, ck.produce(topic, old))
    c.delete_topic(topic)
    wait_until(lambda: not ck.topic_exists(topic), 10, f"{topic} to disappear from metadata")
    c.create_topic(topic, 1)
    assert c.partitions(topic) == 1
    new = [{"partition": 0, "key": "new", "value": "new-0", "headers": [], "timestamp": None}]
    t0 = now_ms()
    expected = expected_records(new, ck.produce(topic, new))
    assert expected[0]["offset"] == 0, f"{name}: the re-created topic starts at {expected}"
    assert_same_records(expected, c.consume(topic, 0, "earliest", 1),
                        f"{name}: re-created topic", (t0 - 1, now_ms() + 1))


# --- produce / consume with every codec ------------------------------------------------------

@pytest.mark.parametrize("name,codec", [(n, c) for n in CLIENTS for c in CODECS
                                        if c in clients.ALL[n].codecs])
def test_roundtrip_codec(broker, name, codec):
    c = client(name, broker)
    topic = unique_topic(f"rt-{name}-{codec}")
    create(c, broker, topic)
    records = sample_records(f"{name}-{codec}", timestamps=c.sets_timestamp,
                             null_key_and_value=c.null_key_and_value, empty=c.empty)
    expected, window = produce_checked(c, topic, records, codec)
    for p in (0, 1):
        offs = [r["offset"] for r in expected if r["partition"] == p]
        assert offs == list(range(len(offs))), f"partition {p}: offsets {offs} on a new topic"
    assert_same_records(expected, consume_all(c, topic, expected),
                        f"{name} {codec}: consumed vs produced", window)


def test_documented_codec_gaps(broker):
    """The codecs left out of the matrix above are really unusable in those clients (a client
    upgrade that adds one should add it to the matrix)."""
    topic = unique_topic("gaps")
    clients.ConfluentKafka(broker.bootstrap).create_topic(topic, 1)
    rec = [{"partition": 0, "key": "k", "value": "v", "headers": [], "timestamp": None}]
    for name, codec in (("kafkajs", "snappy"), ("platformatic", "zstd")):
        c = client(name, broker)
        assert codec in c.lacks and codec not in c.codecs
        try:
            res = c.produce(topic, rec, codec)
        except clients.ClientError as e:
            res = [{"error": str(e)}]
        assert "error" in res[0], f"{name} produced with {codec}: {res}; add it to the matrix"
    # platformatic cannot read kafka-python's (xerial-framed) snappy, which others read
    records = sample_records("gap", partitions=1, per_partition=3, null_key_and_value=False)
    expected = expected_records(records, client("kafka-python", broker).produce(topic, records,
                                                                                 "snappy"))
    assert_same_records(expected, client("confluent-kafka", broker).consume(topic, 0, "earliest", 3),
                        "kafka-python snappy read by confluent-kafka")
    with pytest.raises(clients.ClientError, match="snappy|unreachable"):
        client("platformatic", broker).consume(topic, 0, "earliest", 3, timeout=8)


# --- consume positions -----------------------------------------------------------------------

def _three(tag, base_ts, first, ts=True):
    return [{"partition": 0, "key": f"{tag}-{i}", "value": f"{tag}-late-{i}",
             "headers": [["n", str(i)]], "timestamp": base_ts + i * 1000 if ts else None}
            for i in range(first, first + 3)]


@pytest.mark.parametrize("name", CLIENTS)
def test_consume_from_latest(broker, name):
    c = client(name, broker)
    topic = unique_topic(f"latest-{name}")
    create(c, broker, topic)
    base = now_ms() - 600_000
    early = [{"partition": 0, "key": f"e{i}", "value": f"early-{i}", "headers": [],
              "timestamp": base + i if c.sets_timestamp else None} for i in range(4)]
    expected_records(early, c.produce(topic, early))
    late = _three("latest", base + 10_000, 4, c.sets_timestamp)
    produced = {}

    def on_ready(position):
        assert position == 4, f"{name}: latest resolved to {position}, the log end is 4"
        t0 = now_ms()
        # produced by the same client, while the consumer waits at the end
        produced["expected"] = expected_records(late, c.produce(topic, late))
        produced["window"] = (t0 - 1, now_ms() + 1)

    got = c.consume_latest(topic, 0, 3, on_ready)
    assert "expected" in produced, f"{name}: consumer never reported its position"
    assert_same_records(produced["expected"], got, f"{name}: consumed from latest",
                        produced["window"])


@pytest.mark.parametrize("name", CLIENTS)
def test_consume_from_timestamp(broker, name):
    c = client(name, broker)
    topic = unique_topic(f"ts-{name}")
    create(c, broker, topic)
    if c.sets_timestamp:
        base = now_ms() - 1800_000
        records = [{"partition": 0, "key": f"k{i}", "value": f"ts-{i}", "headers": [],
                    "timestamp": base + i * 1000} for i in range(10)]
        expected, window = produce_checked(c, topic, records)
        query = base + 5000 - 500  # between records 4 and 5
    else:
        # kcat stamps the send time: two runs, and a query time strictly between them
        first = [{"partition": 0, "key": f"k{i}", "value": f"ts-{i}", "headers": [],
                  "timestamp": None} for i in range(5)]
        e1, w1 = produce_checked(c, topic, first)
        query = wait_until(lambda: now_ms() > w1[1] and now_ms(), 5, "the clock to move on")
        wait_until(lambda: now_ms() > query, 5, "the clock to pass the query time")
        second = [{"partition": 0, "key": f"k{i}", "value": f"ts-{i}", "headers": [],
                   "timestamp": None} for i in range(5, 10)]
        e2, w2 = produce_checked(c, topic, second)
        expected, window = e1 + e2, (query, w2[1])
    assert c.offset_for_time(topic, 0, query) == 5, f"{name}: offset for timestamp {query}"
    got = c.consume(topic, 0, {"timestamp": query}, 5)
    assert_same_records(expected[5:], got, f"{name}: consumed from timestamp {query}", window)


@pytest.mark.parametrize("name", CLIENTS)
def test_log_append_time(broker, name):
    """message.timestamp.type=LogAppendTime: the broker's clock replaces the producer's
    timestamps, and every client reads the broker's."""
    topic = unique_topic(f"lat-{name}")
    ck = clients.ConfluentKafka(broker.bootstrap)
    ck.create_topic(topic, 1, {"message.timestamp.type": "LogAppendTime"})
    old = now_ms() - 86400_000
    records = [{"partition": 0, "key": f"k{i}", "value": f"lat-{i}", "headers": [],
                "timestamp": old + i} for i in range(5)]
    t0 = now_ms()
    expected = expected_records(records, ck.produce(topic, records))
    window = (t0 - 1, now_ms() + 1)
    got = client(name, broker).consume(topic, 0, "earliest", 5)
    assert_same_records([dict(r, timestamp=None) for r in expected], got,
                        f"{name}: LogAppendTime timestamps", window)


def test_acks_zero(broker):
    """acks=0 (no Produce response at all) from librdkafka and kafka-python: every record
    lands, in order, and the connection keeps working for the next request."""
    ck = clients.ConfluentKafka(broker.bootstrap)
    kp = clients.KafkaPython(broker.bootstrap)
    topic = unique_topic("acks0")
    ck.create_topic(topic, 1)
    p = ck.producer("lz4", acks=0, **{"linger.ms": 0})
    for i in range(30):
        p.produce(topic, value=f"ck-{i}".encode(), partition=0)
        p.poll(0)
    assert p.flush(15) == 0
    kafka_p = kp.kafka.KafkaProducer(bootstrap_servers=broker.bootstrap, acks=0)
    for i in range(30):
        kafka_p.send(topic, value=f"kp-{i}".encode(), partition=0)
    kafka_p.flush(15)
    kafka_p.close(5)
    got = ck.consume(topic, 0, "earliest", 60)
    values = [r["value"] for r in got]
    assert [r["offset"] for r in got] == list(range(60)), [r["offset"] for r in got]
    assert values == [f"ck-{i}" for i in range(30)] + [f"kp-{i}" for i in range(30)], values


# --- 1 MB records ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", CLIENTS)
def test_large_records(broker, name):
    c = client(name, broker)
    ts = now_ms() - 60_000 if c.sets_timestamp else None
    one = lambda n, tag: [{"partition": 0, "key": tag, "value": (tag + "-") * (n // (len(tag) + 1)),
                           "headers": [["size", str(n)]], "timestamp": ts}]
    # default topic: a 1,000,000-byte value fits the 1048588-byte batch limit ...
    topic = unique_topic(f"big-{name}")
    create(c, broker, topic)
    ok = one(1_000_000, "fits")
    expected, window = produce_checked(c, topic, ok, big=True)
    assert_same_records(expected, c.consume(topic, 0, "earliest", 1, big=True),
                        f"{name}: 1 MB record under the default limit", window)
    # ... a 1,100,000-byte one does not (the client's own limit is raised: the broker refuses)
    too_big = one(1_100_000, "refused")
    res = c.produce(topic, too_big, big=True)
    assert "error" in res[0], f"{name}: a {1_100_000}-byte record was accepted over " \
                              f"message.max.bytes={DEFAULT_MESSAGE_MAX_BYTES}: {res}"
    assert any(s in res[0]["error"].lower() for s in ("too large", "too_large", "larger than",
                                                      "toolarge")), res[0]["error"]
    assert high_watermark(broker, topic, 0) == 1, f"{name}: the refused record is in the log"
    # a topic with max.message.bytes raised takes 2 MB
    topic2 = unique_topic(f"big2-{name}")
    create(c, broker, topic2, 1, {"max.message.bytes": "3000000"})
    two = one(2_000_000, "raised")
    expected, window = produce_checked(c, topic2, two, big=True)
    assert_same_records(expected, c.consume(topic2, 0, "earliest", 1, big=True),
                        f"{name}: 2 MB record with max.message.bytes=3000000", window)
    # ... and still refuses what exceeds the raised limit
    res = c.produce(topic2, one(3_200_000, "over"), big=True)
    assert "error" in res[0], f"{name}: a 3,200,000-byte record was accepted over " \
                              f"max.message.bytes=3000000: {res}"
    assert high_watermark(broker, topic2, 0) == 1, f"{name}: the refused record is in the log"
    # with the client's default (1 MB) fetch sizes too: the first batch is returned even when
    # it is larger than the fetch limits (KIP-74, Fetch v3+)
    assert_same_records(expected, c.consume(topic2, 0, "earliest", 1),
                        f"{name}: 2 MB record read with default fetch sizes", window)


# --- cross-client ----------------------------------------------------------------------------

CROSS = [(p, codec) for p in CLIENTS for codec in CODECS
         if codec != "none" and codec in clients.ALL[p].codecs]


@pytest.mark.parametrize("producer,codec", CROSS, ids=[f"{p}-{c}" for p, c in CROSS])
def test_cross_client(broker, producer, codec):
    """Produced by one client with `codec`, read back by every other client that has it."""
    p = client(producer, broker)
    topic = unique_topic(f"x-{producer}-{codec}")
    create(p, broker, topic)
    records = sample_records(f"x-{producer}-{codec}", per_partition=6,
                             timestamps=p.sets_timestamp, null_key_and_value=p.null_key_and_value,
                             empty=p.empty)
    expected, window = produce_checked(p, topic, records, codec)
    readers = [n for n in CLIENTS if n != producer and codec in clients.ALL[n].read_codecs
               and (producer, codec) not in clients.ALL[n].cannot_read]
    assert len(readers) >= 2, f"{codec}: too few readers {readers}"
    failures = []
    for name in readers:
        try:
            assert_same_records(expected, consume_all(client(name, broker), topic, expected),
                                f"{producer} ({codec}) -> {name}", window)
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)


def test_comparison_detects_differences():
    """The record-for-record comparison used above fails on any single-field difference."""
    recs = sample_records("cmp", partitions=1, per_partition=3)
    expected = expected_records(recs, [{"partition": 0, "offset": i} for i in range(3)])
    assert_same_records(expected, [dict(r) for r in expected], "identical")
    mutations = {
        "offset": lambda r: dict(r, offset=r["offset"] + 10),
        "key": lambda r: dict(r, key="other"),
        "value": lambda r: dict(r, value=None),
        "headers": lambda r: dict(r, headers=list(reversed(r["headers"])) or [["x", "y"]]),
        "timestamp": lambda r: dict(r, timestamp=r["timestamp"] + 1),
        "partition": lambda r: dict(r, partition=1),
    }
    for field, mutate in mutations.items():
        got = [dict(r) for r in expected]
        got[0] = mutate(got[0])
        with pytest.raises(AssertionError, match=field):
            assert_same_records(expected, got, f"mutated {field}")
    with pytest.raises(AssertionError, match="2 records consumed"):
        assert_same_records(expected, expected[:2], "one missing")
    stamped = [dict(r, timestamp=None) for r in expected]
    with pytest.raises(AssertionError, match="outside"):
        assert_same_records(stamped, [dict(r, timestamp=5) for r in expected], "window", (10, 20))
