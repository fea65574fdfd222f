"""Admin APIs of `mirra server` driven by real clients: python3-confluent-kafka (librdkafka),
python3-kafka (kafka-python) and kcat, plus a small codec of this file's own for the APIs
those clients do not offer (IncrementalAlterConfigs, DeleteRecords, DescribeCluster,
DescribeLogDirs, DescribeTopicPartitions, OffsetForLeaderEpoch, broker "" configs).

Every check reads a value back through another API, so that a change that is answered but
not applied fails. Waits are on events (log lines, futures, kcat exiting), never on sleeps.
"""
import json
import os
import subprocess

import pytest

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewPartitions, NewTopic
import kafka.admin
import kafka.errors

from mirra_testlib import Broker, stop_cleanly
from raw_admin import Writer, call, describe_configs_raw, incremental_alter

TIMEOUT = 10.0  # seconds for any single admin call or delivery
NODE_ID = 1
# Kafka error codes the tests expect.
OFFSET_OUT_OF_RANGE, UNKNOWN_TOPIC, INVALID_PARTITIONS = 1, 3, 37
INVALID_REPLICA_ASSIGNMENT, INVALID_CONFIG, INVALID_REQUEST = 39, 40, 42
FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, UNSUPPORTED_ENDPOINT_TYPE = 74, 75, 115
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
TOPIC, BROKER = 2, 4


def delete_records(port, topic, offsets):
    """DeleteRecords v2: {partition: offset} -> {partition: (low_watermark, error)}"""
    w = Writer(True)
    w.array([topic], lambda w, t: w.string(t).array(
        sorted(offsets.items()), lambda w, p: w.int("i", p[0]).int("q", p[1]).tags()).tags())
    w.int("i", 5000).tags()
    r = call(port, 21, 2, True, w)
    r.int("i")
    out = {}

    def topic_result(r):
        r.string()
        for index, low, err in r.array(lambda r: (r.int("i"), r.int("q"), r.int("h"), r.tags())[:3]):
            out[index] = (low, err)
        r.tags()
    r.array(topic_result)
    r.tags()
    r.end()
    return out


def describe_cluster(port, version, endpoint_type=1, ops=False):
    w = Writer(True).int("?", ops)
    if version >= 1:
        w.int("b", endpoint_type)
    w.tags()
    r = call(port, 60, version, True, w)
    out = {"throttle": r.int("i"), "error": r.int("h"), "message": r.string()}
    if version >= 1:
        out["endpoint_type"] = r.int("b")
    out["cluster_id"] = r.string()
    out["controller"] = r.int("i")
    out["brokers"] = r.array(lambda r: (r.int("i"), r.string(), r.int("i"), r.string(), r.tags())[:4])
    out["ops"] = r.int("i")
    r.tags()
    r.end()
    return out


def describe_log_dirs(port, version, topics):
    """topics: None (all) or [(topic, [partitions])] -> (dir, {topic: {p: size}}, total, usable)"""
    flex = version >= 2
    w = Writer(flex)
    w.array(topics, lambda w, t: w.string(t[0]).array(t[1], lambda w, p: w.int("i", p)).tags())
    w.tags()
    r = call(port, 35, version, flex, w)
    r.int("i")
    if version >= 3:
        assert r.int("h") == 0

    def partition(r):
        out = (r.int("i"), r.int("q"), r.int("q"), r.int("?"))
        r.tags()
        return out

    def topic(r):
        name, parts = r.string(), r.array(partition)
        r.tags()
        assert all(lag == 0 and not future for _, _, lag, future in parts)
        return name, {p: size for p, size, _, _ in parts}

    def result(r):
        err, log_dir, ts = r.int("h"), r.string(), r.array(topic)
        total = usable = None
        if version >= 4:
            total, usable = r.int("q"), r.int("q")
        r.tags()
        assert err == 0
        return log_dir, dict(ts), total, usable
    (out,) = r.array(result)
    r.tags()
    r.end()
    return out


def describe_topic_partitions(port, topics, limit, cursor=None):
    """-> ([(error, name, [(error, index, leader, epoch, replicas, isr)])], next_cursor)"""
    w = Writer(True)
    w.array(topics, lambda w, t: w.string(t).tags()).int("i", limit)
    if cursor is None:
        w.b += b"\xff"  # null struct
    else:
        w.b += b"\x01"
        w.string(cursor[0]).int("i", cursor[1]).tags()
    w.tags()
    r = call(port, 75, 0, True, w)
    r.int("i")

    def ints(r):
        return r.array(lambda r: r.int("i"))

    def partition(r):
        out = (r.int("h"), r.int("i"), r.int("i"), r.int("i"), ints(r), ints(r))
        assert ints(r) == [] and ints(r) == [] and ints(r) == []  # ELR, last known ELR, offline
        r.tags()
        return out

    def topic(r):
        err, name, _id, internal = r.int("h"), r.string(), r.uuid(), r.int("?")
        parts = r.array(partition)
        r.int("i")
        r.tags()
        assert not internal
        return err, name, parts
    topics_out = r.array(topic)
    next_cursor = None
    if r.int("b") == 1:
        next_cursor = (r.string(), r.int("i"))
        r.tags()
    r.tags()
    r.end()
    return topics_out, next_cursor


def offset_for_leader_epoch(port, topic, partitions):
    """OffsetForLeaderEpoch v4: [(partition, current_epoch, epoch)] -> {p: (err, epoch, end)}"""
    w = Writer(True).int("i", -1)
    w.array([topic], lambda w, t: w.string(t).array(
        partitions, lambda w, p: w.int("i", p[0]).int("i", p[1]).int("i", p[2]).tags()).tags())
    w.tags()
    r = call(port, 23, 4, True, w)
    r.int("i")
    out = {}

    def topic_result(r):
        r.string()
        for err, p, epoch, end in r.array(
                lambda r: (r.int("h"), r.int("i"), r.int("i"), r.int("q"), r.tags())[:4]):
            out[p] = (err, epoch, end)
        r.tags()
    r.array(topic_result)
    r.tags()
    r.end()
    return out


# --- fixtures and helpers ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("admin"),
               {"node.id": NODE_ID, "log.retention.hours": 100}).start()
    yield b
    stop_cleanly(b)


def admin(broker):
    """One AdminClient per broker, kept alive: futures fail when their client is destroyed."""
    if getattr(broker, "admin", None) is None:
        broker.admin = AdminClient({"bootstrap.servers": f"127.0.0.1:{broker.port}"})
    return broker.admin


def create_topic(broker, name, partitions=1, config=None):
    futures = admin(broker).create_topics(
        [NewTopic(name, num_partitions=partitions, replication_factor=1, config=config or {})])
    futures[name].result(TIMEOUT)


def produce(broker, topic, count, partition=0):
    p = Producer({"bootstrap.servers": f"127.0.0.1:{broker.port}", "linger.ms": 0})
    for i in range(count):
        p.produce(topic, value=f"v{i}".encode(), partition=partition)
        p.flush(TIMEOUT)  # one batch per record, so offsets and segments move per record
    assert len(p) == 0


def describe_topic(broker, name):
    res = ConfigResource("topic", name)
    return admin(broker).describe_configs([res])[res].result(TIMEOUT)


def kcat(*args):
    proc = subprocess.run(["kcat", *args], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# --- configs ----------------------------------------------------------------------------------

def test_describe_topic_configs_sources_and_synonyms(broker):
    create_topic(broker, "cfg-describe", config={"retention.ms": "3600000"})
    configs = describe_topic(broker, "cfg-describe")
    retention = configs["retention.ms"]
    assert retention.value == "3600000"
    assert retention.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert not retention.is_read_only and not retention.is_sensitive
    # The synonyms: the override, then the broker's log.retention.hours (static, in ms).
    syn = list(retention.synonyms.values())
    assert [(s.name, s.value, s.source) for s in syn[:2]] == [
        ("retention.ms", "3600000", ConfigSource.DYNAMIC_TOPIC_CONFIG.value),
        ("log.retention.hours", str(100 * 3600000), ConfigSource.STATIC_BROKER_CONFIG.value)]
    assert configs["cleanup.policy"].value == "delete"
    assert configs["cleanup.policy"].source == ConfigSource.DEFAULT_CONFIG.value
    # kafka-python (DescribeConfigs v2) sees the same.
    kp = kafka.admin.KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{broker.port}")
    try:
        (resp,) = kp.describe_configs([kafka.admin.ConfigResource("TOPIC", "cfg-describe",
                                                                  {"retention.ms": None})],
                                      include_synonyms=True)
    finally:
        kp.close()
    (err, _msg, _type, name, entries) = resp.resources[0]
    assert (err, name) == (0, "cfg-describe")
    assert [(e[0], e[1], e[3]) for e in entries] == [("retention.ms", "3600000", 1)]


def test_describe_configs_errors(broker):
    err, msg, configs = describe_configs_raw(broker.port, TOPIC, "no-such-topic")
    assert (err, configs) == (UNKNOWN_TOPIC, {}) and "no-such-topic" in msg
    err, msg, _ = describe_configs_raw(broker.port, BROKER, "7")
    assert err == INVALID_REQUEST and "7" in msg
    err, msg, _ = describe_configs_raw(broker.port, 8, "x")  # BROKER_LOGGER
    assert err == INVALID_REQUEST and "resource type 8" in msg


def test_describe_configs_key_filter_and_documentation(broker):
    create_topic(broker, "cfg-doc")
    err, _, configs = describe_configs_raw(broker.port, TOPIC, "cfg-doc",
                                           keys=["segment.bytes", "no.such.key"], documentation=True)
    assert err == 0 and list(configs) == ["segment.bytes"]
    value, source, read_only, ctype, doc = configs["segment.bytes"]
    assert (value, source, read_only, ctype) == ("1073741824", 5, False, 3)  # DEFAULT, INT
    assert doc


def test_alter_configs_replaces_the_override_set(broker):
    create_topic(broker, "cfg-alter", config={"segment.ms": "100000"})
    res = ConfigResource("topic", "cfg-alter", set_config={"retention.ms": "7200000"})
    admin(broker).alter_configs([res])[res].result(TIMEOUT)
    configs = describe_topic(broker, "cfg-alter")
    assert configs["retention.ms"].value == "7200000"
    assert configs["retention.ms"].source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    assert configs["segment.ms"].source == ConfigSource.DEFAULT_CONFIG.value  # not given: removed
    broker.wait_for(r"topic cfg-alter: config retention\.ms=7200000, segment\.ms=\(default\)")
    # validate_only: checked, not applied.
    res = ConfigResource("topic", "cfg-alter", set_config={"retention.ms": "1"})
    admin(broker).alter_configs([res], validate_only=True)[res].result(TIMEOUT)
    assert describe_topic(broker, "cfg-alter")["retention.ms"].value == "7200000"
    # kafka-python (AlterConfigs v1) with a bad value: INVALID_CONFIG naming the key.
    kp = kafka.admin.KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{broker.port}")
    try:
        resp = kp.alter_configs([kafka.admin.ConfigResource("TOPIC", "cfg-alter",
                                                            {"retention.ms": "soon"})])
        (err, msg, _, name) = resp.resources[0]
        assert (err, name) == (INVALID_CONFIG, "cfg-alter") and "retention.ms" in msg
        resp = kp.alter_configs([kafka.admin.ConfigResource("TOPIC", "cfg-alter",
                                                            {"max.message.bytes": "2000"})])
        assert resp.resources[0][0] == 0
    finally:
        kp.close()
    configs = describe_topic(broker, "cfg-alter")
    assert configs["max.message.bytes"].value == "2000"
    # retention.ms was not given again: back to the broker's log.retention.hours.
    assert configs["retention.ms"].source == ConfigSource.STATIC_BROKER_CONFIG.value


def test_incremental_alter_configs_list_operations(broker):
    create_topic(broker, "cfg-incr")
    key = (TOPIC, "cfg-incr")

    def policy():
        return describe_topic(broker, "cfg-incr")["cleanup.policy"]

    assert incremental_alter(broker.port, [(*key, [("cleanup.policy", APPEND, "compact")])])[key][0] == 0
    assert policy().value == "delete,compact"
    assert incremental_alter(broker.port, [(*key, [("cleanup.policy", SUBTRACT, "delete")])])[key][0] == 0
    assert policy().value == "compact"
    assert incremental_alter(broker.port, [(*key, [("retention.ms", SET, "60000")])])[key][0] == 0
    configs = describe_topic(broker, "cfg-incr")
    assert configs["cleanup.policy"].value == "compact"  # untouched by the SET of another key
    assert configs["retention.ms"].value == "60000"
    assert incremental_alter(broker.port, [(*key, [("cleanup.policy", DELETE, None)])])[key][0] == 0
    assert policy().value == "delete" and policy().source == ConfigSource.DEFAULT_CONFIG.value
    err, msg = incremental_alter(broker.port, [(*key, [("retention.ms", APPEND, "5")])])[key]
    assert err == INVALID_CONFIG and "retention.ms" in msg
    err, _ = incremental_alter(broker.port, [(*key, [("no.such.config", SET, "1")])])[key]
    assert err == INVALID_CONFIG
    err, _ = incremental_alter(broker.port, [(TOPIC, "nope", [("retention.ms", SET, "1")])])[(TOPIC, "nope")]
    assert err == UNKNOWN_TOPIC
    assert describe_topic(broker, "cfg-incr")["retention.ms"].value == "60000"


def test_broker_configs_describe(broker):
    res = ConfigResource("broker", str(NODE_ID))
    configs = admin(broker).describe_configs([res])[res].result(TIMEOUT)
    assert configs["node.id"].value == str(NODE_ID)
    assert configs["node.id"].source == ConfigSource.STATIC_BROKER_CONFIG.value
    assert configs["node.id"].is_read_only
    assert configs["num.partitions"].source == ConfigSource.DEFAULT_CONFIG.value
    assert configs["log.retention.ms"].value == str(100 * 3600000)
    assert configs["log.retention.ms"].source == ConfigSource.STATIC_BROKER_CONFIG.value
    assert configs["log.retention.hours"].value == "100"
    assert not configs["log.segment.bytes"].is_read_only
    # kafka-python sends broker resources to that broker (DescribeConfigs v2).
    kp = kafka.admin.KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{broker.port}")
    try:
        (resp,) = kp.describe_configs([kafka.admin.ConfigResource("BROKER", str(NODE_ID))])
    finally:
        kp.close()
    entries = {e[0]: e for e in resp.resources[0][4]}
    assert entries["log.dirs"][1].endswith("data") and entries["log.dirs"][3] == 4


def test_broker_default_configs_apply_to_topics(broker):
    create_topic(broker, "cfg-broker-default")
    create_topic(broker, "cfg-broker-override", config={"retention.ms": "5000"})
    mark = broker.mark()
    key = (BROKER, "")
    changes = [("log.retention.ms", SET, "123456"), ("log.segment.bytes", SET, "200")]
    assert incremental_alter(broker.port, [(*key, changes)])[key] == (0, None)
    broker.wait_for(r"cluster-wide broker config: log\.retention\.ms=123456, log\.segment\.bytes=200",
                    start=mark)
    configs = describe_topic(broker, "cfg-broker-default")
    assert configs["retention.ms"].value == "123456"
    assert configs["retention.ms"].source == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value
    assert describe_topic(broker, "cfg-broker-override")["retention.ms"].value == "5000"
    err, _, defaults = describe_configs_raw(broker.port, BROKER, "")
    assert err == 0 and {k: v[:2] for k, v in defaults.items()} == {
        "log.retention.ms": ("123456", 3), "log.segment.bytes": ("200", 3)}
    # The new default reaches the existing logs: with 200-byte segments (instead of 1 GiB)
    # four one-record batches take more than one segment.
    produce(broker, "cfg-broker-default", 4)
    part_dir = broker.data_dir / "cfg-broker-default-0"
    assert len(list(part_dir.glob("*.log"))) >= 2, sorted(os.listdir(part_dir))
    # Refusals: a non-dynamic key, an unknown key, a bad value (per-broker configs:
    # test_dynamic_configs.py).
    for changes, code in [([("node.id", SET, "5")], INVALID_REQUEST),
                          ([("log.retention.hours", SET, "5")], INVALID_REQUEST),
                          ([("no.such.key", SET, "5")], INVALID_CONFIG),
                          ([("log.retention.ms", SET, "later")], INVALID_CONFIG)]:
        err, msg = incremental_alter(broker.port, [(*key, changes)])[key]
        assert err == code and changes[0][0] in msg, (changes, err, msg)
    # AlterConfigs on the default replaces the set: log.segment.bytes goes back.
    assert alter_configs_raw(broker.port, BROKER, "", {"log.retention.ms": "654321"}) == (0, None)
    err, _, defaults = describe_configs_raw(broker.port, BROKER, "")
    assert {k: v[0] for k, v in defaults.items()} == {"log.retention.ms": "654321"}
    assert describe_topic(broker, "cfg-broker-default")["segment.bytes"].value == "1073741824"
    # Back to no dynamic defaults for the other tests.
    assert incremental_alter(broker.port, [(*key, [("log.retention.ms", DELETE, None)])])[key][0] == 0
    assert describe_configs_raw(broker.port, BROKER, "")[2] == {}


def alter_configs_raw(port, type_, name, configs):
    """AlterConfigs v2 -> (error, message)"""
    w = Writer(True)
    w.array([(type_, name)], lambda w, r: w.int("b", r[0]).string(r[1]).array(
        sorted(configs.items()), lambda w, c: w.string(c[0]).string(c[1]).tags()).tags())
    w.int("?", False).tags()
    r = call(port, 33, 2, True, w)
    r.int("i")
    (out,) = r.array(lambda r: (r.int("h"), r.string(), r.int("b"), r.string(), r.tags())[:2])
    r.tags()
    r.end()
    return out


# --- partitions and records -------------------------------------------------------------------

def test_create_partitions(broker):
    create_topic(broker, "grow")
    a = admin(broker)
    a.create_partitions([NewPartitions("grow", 3)], validate_only=True)["grow"].result(TIMEOUT)
    assert len(a.list_topics("grow", timeout=TIMEOUT).topics["grow"].partitions) == 1
    a.create_partitions([NewPartitions("grow", 3)])["grow"].result(TIMEOUT)
    assert len(a.list_topics("grow", timeout=TIMEOUT).topics["grow"].partitions) == 3
    meta = json.loads(kcat("-L", "-J", "-b", f"127.0.0.1:{broker.port}", "-t", "grow"))
    assert sorted(p["partition"] for p in meta["topics"][0]["partitions"]) == [0, 1, 2]
    produce(broker, "grow", 1, partition=2)  # the new partition takes writes
    with pytest.raises(Exception, match="INVALID_PARTITIONS|partition"):
        a.create_partitions([NewPartitions("grow", 2)])["grow"].result(TIMEOUT)
    with pytest.raises(Exception, match="INVALID_REPLICA_ASSIGNMENT|broker 2"):
        a.create_partitions([NewPartitions("grow", 4, replica_assignment=[[2]])])["grow"].result(TIMEOUT)
    # kafka-python (CreatePartitions v1, to the controller) with an assignment naming this node;
    # it raises on a topic error.
    kp = kafka.admin.KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{broker.port}")
    try:
        resp = kp.create_partitions({"grow": kafka.admin.NewPartitions(5, [[NODE_ID], [NODE_ID]])})
        assert [tuple(e[:2]) for e in resp.topic_errors] == [("grow", 0)]
        with pytest.raises(kafka.errors.UnknownTopicOrPartitionError):
            kp.create_partitions({"nope": kafka.admin.NewPartitions(2)})
    finally:
        kp.close()
    assert len(a.list_topics("grow", timeout=TIMEOUT).topics["grow"].partitions) == 5


def test_delete_records(broker):
    create_topic(broker, "trim", partitions=2)
    produce(broker, "trim", 10)
    got = delete_records(broker.port, "trim", {0: 4})
    assert got == {0: (4, 0)}
    out = kcat("-C", "-b", f"127.0.0.1:{broker.port}", "-t", "trim", "-p", "0", "-o", "beginning",
               "-e", "-q", "-f", "%o\n")
    assert out.split() == [str(o) for o in range(4, 10)]
    assert delete_records(broker.port, "trim", {0: 2}) == {0: (4, 0)}  # never goes back
    assert delete_records(broker.port, "trim", {0: 11}) == {0: (-1, OFFSET_OUT_OF_RANGE)}
    assert delete_records(broker.port, "trim", {0: -1, 1: -1, 7: 0}) == {
        0: (10, 0), 1: (0, 0), 7: (-1, UNKNOWN_TOPIC)}
    assert delete_records(broker.port, "nope", {0: 0}) == {0: (-1, UNKNOWN_TOPIC)}


def test_offset_for_leader_epoch(broker):
    create_topic(broker, "epochs")
    produce(broker, "epochs", 3)
    got = offset_for_leader_epoch(broker.port, "epochs", [(0, -1, 0), (0, 0, 0)])
    assert got[0] == (0, 0, 3)
    assert offset_for_leader_epoch(broker.port, "epochs", [(0, -1, 9)])[0] == (0, -1, -1)
    assert offset_for_leader_epoch(broker.port, "epochs", [(0, 1, 0)])[0][0] == UNKNOWN_LEADER_EPOCH
    assert offset_for_leader_epoch(broker.port, "epochs", [(4, -1, 0)])[4] == (UNKNOWN_TOPIC, -1, -1)


# --- cluster, log dirs, topic partitions -------------------------------------------------------

def test_describe_cluster(broker):
    cluster_id = admin(broker).list_topics(timeout=TIMEOUT).cluster_id
    for version in (0, 1):
        got = describe_cluster(broker.port, version, ops=True)
        assert (got["error"], got["cluster_id"], got["controller"]) == (0, cluster_id, NODE_ID)
        assert got["brokers"] == [(NODE_ID, "127.0.0.1", broker.port, None)]
        assert got["ops"] & (1 << 8) and got["ops"] & (1 << 11)  # DESCRIBE, ALTER_CONFIGS
    assert describe_cluster(broker.port, 1)["ops"] == -2**31  # not asked for
    got = describe_cluster(broker.port, 1, endpoint_type=2)
    assert got["error"] == UNSUPPORTED_ENDPOINT_TYPE and got["message"]


def test_describe_log_dirs(broker):
    create_topic(broker, "dirs", partitions=2)
    produce(broker, "dirs", 5, partition=1)
    log_dir, topics, total, usable = describe_log_dirs(broker.port, 4, None)
    assert log_dir == str(broker.data_dir)
    assert topics["dirs"][0] == 0 and topics["dirs"][1] > 0
    assert total > 0 and 0 < usable <= total
    _, topics, _, _ = describe_log_dirs(broker.port, 1, [("dirs", [1]), ("nope", [0])])
    assert topics == {"dirs": {1: topics["dirs"][1]}}
    assert describe_log_dirs(broker.port, 2, [])[1] == {}


def test_describe_topic_partitions_pages(broker):
    create_topic(broker, "pages-a", partitions=3)
    create_topic(broker, "pages-b", partitions=2)
    topics, cursor = describe_topic_partitions(broker.port, ["pages-b", "pages-a", "zz-missing"], 2)
    assert [(e, n, [p[1] for p in ps]) for e, n, ps in topics] == [(0, "pages-a", [0, 1])]
    assert cursor == ("pages-a", 2)
    assert topics[0][2][0][2:] == (NODE_ID, 0, [NODE_ID], [NODE_ID])
    topics, cursor = describe_topic_partitions(broker.port, ["pages-b", "pages-a", "zz-missing"], 2, cursor)
    assert [(e, n, [p[1] for p in ps]) for e, n, ps in topics] == [
        (0, "pages-a", [2]), (0, "pages-b", [0])]
    assert cursor == ("pages-b", 1)
    topics, cursor = describe_topic_partitions(broker.port, ["pages-b", "pages-a", "zz-missing"], 2, cursor)
    assert [(e, n, [p[1] for p in ps]) for e, n, ps in topics] == [
        (0, "pages-b", [1]), (UNKNOWN_TOPIC, "zz-missing", [])]
    assert cursor is None
    # Every topic (empty list), from a cursor; a cursor outside the list is refused.
    topics, _ = describe_topic_partitions(broker.port, [], 100, ("pages-b", 0))
    assert [n for _, n, _ in topics][0] == "pages-b"
    topics, _ = describe_topic_partitions(broker.port, ["pages-a"], 10, ("pages-b", 0))
    assert [(e, n) for e, n, _ in topics] == [(INVALID_REQUEST, "pages-a")]
