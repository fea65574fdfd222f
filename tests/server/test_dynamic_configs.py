"""Dynamic broker configs and deprecated configs of `mirra server`, through real clients
(python3-confluent-kafka, python3-kafka) and the raw codec of raw_admin.py for
IncrementalAlterConfigs (neither client in the image offers it).

- Per-broker configs (issue 15, point 11): AlterConfigs and IncrementalAlterConfigs on the
  broker resource "<node id>" change the dynamic keys Mirra applies at run time (the topic
  defaults), win over the cluster-wide default (resource ""), are described with source
  DYNAMIC_BROKER_CONFIG, survive a restart, and refuse read-only keys per key with Kafka's
  INVALID_REQUEST "Cannot update these configs dynamically".
- Deprecated configs (point 12): message.format.version and the other keys Kafka 3.x still
  accepts are accepted, stored and ignored with one WARN line each time they are set; the
  topic keys of later Kafka versions are accepted too.

Every change is read back through another API; waits are on log lines, never on sleeps.
"""
import kafka.admin
import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic

from mirra_testlib import Broker, stop_cleanly
from raw_admin import describe_configs_raw, incremental_alter

TIMEOUT = 10.0  # seconds for any single admin call or delivery
NODE_ID = 1
INVALID_CONFIG, INVALID_REQUEST = 40, 42
SET, DELETE = 0, 1
TOPIC, BROKER = 2, 4
THIS_BROKER, CLUSTER = (BROKER, str(NODE_ID)), (BROKER, "")
DYNAMIC_BROKER = ConfigSource.DYNAMIC_BROKER_CONFIG.value
DYNAMIC_DEFAULT = ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG.value


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path, {"node.id": NODE_ID, "log.message.format.version": "2.8"}).start()
    b.admin = AdminClient({"bootstrap.servers": b.bootstrap})
    yield b
    stop_cleanly(b)


def create_topic(broker, name, config=None):
    futures = broker.admin.create_topics(
        [NewTopic(name, num_partitions=1, replication_factor=1, config=config or {})])
    futures[name].result(TIMEOUT)


def describe(broker, kind, name):
    res = ConfigResource(kind, name)
    return broker.admin.describe_configs([res])[res].result(TIMEOUT)


def alter(broker, resource, changes, validate_only=False):
    """IncrementalAlterConfigs of one resource -> (error, message)"""
    return incremental_alter(broker.port, [(*resource, changes)], validate_only)[resource]


def produce_one_by_one(broker, topic, count):
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0})
    for i in range(count):
        p.produce(topic, value=f"v{i}".encode())
        p.flush(TIMEOUT)  # one batch per record, so segments move per record
    assert len(p) == 0


def test_per_broker_configs_apply_win_and_persist(broker):
    create_topic(broker, "per-broker")
    # validate_only checks and changes nothing.
    assert alter(broker, THIS_BROKER, [("log.segment.bytes", SET, "200")], True) == (0, None)
    assert describe(broker, "broker", str(NODE_ID))["log.segment.bytes"].source \
        == ConfigSource.DEFAULT_CONFIG.value
    # The per-broker value wins over the cluster-wide one, even when that is set after it.
    mark = broker.mark()
    assert alter(broker, THIS_BROKER, [("log.retention.ms", SET, "111111"),
                                      ("log.segment.bytes", SET, "200")]) == (0, None)
    broker.wait_for(r"broker 1 config: log\.retention\.ms=111111, log\.segment\.bytes=200",
                    start=mark)
    assert alter(broker, CLUSTER, [("log.retention.ms", SET, "222222")]) == (0, None)
    # Both are described as this broker's own value (the cluster-wide one comes back below).
    broker_configs = describe(broker, "broker", str(NODE_ID))
    topic_configs = describe(broker, "topic", "per-broker")
    for retention in (broker_configs["log.retention.ms"], topic_configs["retention.ms"]):
        assert (retention.value, retention.source) == ("111111", DYNAMIC_BROKER)
    # Applied to the existing log: with 200-byte segments four one-record batches roll.
    produce_one_by_one(broker, "per-broker", 4)
    assert len(list((broker.data_dir / "per-broker-0").glob("*.log"))) >= 2
    # kafka-python's AlterConfigs (legacy: the request's set replaces the node's set) and
    # DescribeConfigs on the broker resource.
    kp = kafka.admin.KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    try:
        (resp,) = kp.alter_configs([kafka.admin.ConfigResource(
            "BROKER", str(NODE_ID), {"log.retention.ms": "333333"})]).resources
        assert resp[0] == 0, resp
        (resp,) = kp.describe_configs([kafka.admin.ConfigResource(
            "BROKER", str(NODE_ID), {"log.retention.ms": None, "log.segment.bytes": None})])
    finally:
        kp.close()
    entries = {e[0]: (e[1], e[3]) for e in resp.resources[0][4]}
    assert entries["log.retention.ms"] == ("333333", DYNAMIC_BROKER)
    assert entries["log.segment.bytes"][1] != DYNAMIC_BROKER  # replaced away
    # A restart reads them back from the metadata log.
    broker.restart()
    configs = describe(broker, "broker", str(NODE_ID))
    assert (configs["log.retention.ms"].value, configs["log.retention.ms"].source) \
        == ("333333", DYNAMIC_BROKER)
    assert describe(broker, "topic", "per-broker")["retention.ms"].value == "333333"
    # Removing the per-broker key falls back to the cluster-wide default.
    assert alter(broker, THIS_BROKER, [("log.retention.ms", DELETE, None)]) == (0, None)
    retention = describe(broker, "topic", "per-broker")["retention.ms"]
    assert (retention.value, retention.source) == ("222222", DYNAMIC_DEFAULT)
    assert describe_configs_raw(broker.port, BROKER, str(NODE_ID), ["log.retention.ms"])[2] \
        ["log.retention.ms"][:2] == ("222222", DYNAMIC_DEFAULT)


def test_per_broker_refusals(broker):
    for key, value, code, words in [
            ("node.id", "5", INVALID_REQUEST, "Cannot update these configs dynamically"),
            ("num.io.threads", "4", INVALID_REQUEST, "Cannot update these configs dynamically"),
            ("no.such.key", "5", INVALID_CONFIG, "unknown broker config"),
            ("log.retention.ms", "later", INVALID_CONFIG, "log.retention.ms")]:
        for resource in (THIS_BROKER, CLUSTER):
            err, msg = alter(broker, resource, [(key, SET, value)])
            assert err == code and words in msg and key in msg, (resource, key, err, msg)
    # A refused key refuses the whole resource: nothing of it is applied.
    err, _ = alter(broker, THIS_BROKER, [("log.retention.ms", SET, "5000"), ("node.id", SET, "5")])
    assert err == INVALID_REQUEST
    assert describe(broker, "broker", str(NODE_ID))["log.retention.ms"].source != DYNAMIC_BROKER
    # Another node's resource is not this broker's to change.
    err, msg = alter(broker, (BROKER, "2"), [("log.retention.ms", SET, "5000")])
    assert err == INVALID_REQUEST and "unexpected broker id" in msg


def test_deprecated_configs_accepted_with_a_warning(broker):
    # The static one (server.properties or --override) is a deprecation warning, not "unknown".
    broker.wait_for(r"WARN.*log\.message\.format\.version: Deprecated")
    assert "unknown configuration key 'log.message.format.version'" not in broker.log()
    mark = broker.mark()
    create_topic(broker, "old-format", {"message.format.version": "3.0-IV1"})
    broker.wait_for(r"WARN.*topic old-format: message\.format\.version: Deprecated", start=mark)
    configs = describe(broker, "topic", "old-format")
    assert (configs["message.format.version"].value, configs["message.format.version"].source) \
        == ("3.0-IV1", ConfigSource.DYNAMIC_TOPIC_CONFIG.value)
    mark = broker.mark()
    changes = [("message.downconversion.enable", SET, "false"),
               ("message.timestamp.difference.max.ms", SET, "60000")]
    assert alter(broker, (TOPIC, "old-format"), changes) == (0, None)
    broker.wait_for(r"WARN.*topic old-format: message\.downconversion\.enable: Deprecated",
                    start=mark)
    broker.wait_for(r"WARN.*topic old-format: message\.timestamp\.difference\.max\.ms: Deprecated",
                    start=mark)
    assert describe(broker, "topic", "old-format")["message.downconversion.enable"].value == "false"
    # Still type-checked: a deprecated boolean takes true or false only.
    err, msg = alter(broker, (TOPIC, "old-format"), [("message.downconversion.enable", SET, "x")])
    assert err == INVALID_CONFIG and "message.downconversion.enable" in msg
    # The topic still takes writes.
    produce_one_by_one(broker, "old-format", 1)


def test_newer_kafka_topic_configs_accepted(broker):
    # Keys of Kafka 3.8 and 3.9 (compression levels, tiered-storage switches): accepted and
    # described like the other keys Mirra does not act on.
    newer = {"compression.zstd.level": "5", "compression.gzip.level": "6",
             "compression.lz4.level": "10", "remote.log.copy.disable": "false",
             "remote.log.delete.on.disable": "false"}
    create_topic(broker, "newer-keys", newer)
    configs = describe(broker, "topic", "newer-keys")
    assert {k: configs[k].value for k in newer} == newer
