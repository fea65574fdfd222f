"""`connections.max.reauth.ms` (KIP-368) with real clients, on a SASL_PLAINTEXT listener whose
sessions last 12 s:

  - kafkajs (SaslAuthenticate v1) and @platformatic/kafka (v2) learn the session lifetime and
    re-authenticate in-band (SaslHandshake + SaslAuthenticate on the same connection) before
    it ends: a producer sending one record a second for 20 s never fails, never reconnects
    more than its first connections, and authenticates more often than it connects;
  - librdkafka 2.0 (confluent-kafka) cannot re-authenticate: the broker closes its connection
    at expiry, it reconnects and authenticates anew, and every record still gets delivered.
Every record is read back over PLAINTEXT."""
import logging
import re
import time

import confluent_kafka
import pytest

import clients
from mirra_testlib import Broker, in_use, stop_cleanly
from records import read_to_end, unique_topic
from secconf import Security

REAUTH_MS = 12000
RUN_S = 20
PASSWORD = "alice-secret"
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        f'user_alice="{PASSWORD}";')
SEC = Security("SASL_PLAINTEXT", "PLAIN", "alice", PASSWORD)


@pytest.fixture(scope="module")
def reauth_broker(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("reauth"), {
        "num.partitions": 1, "connections.max.reauth.ms": REAUTH_MS,
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
    }, name="reauth-broker",
        listeners={"PLAINTEXT": "PLAINTEXT", "SASL_PLAINTEXT": "SASL_PLAINTEXT"})
    b.start()
    yield b
    stop_cleanly(b)


@pytest.fixture
def broker(reauth_broker):
    return in_use(reauth_broker)


def values_on(b, topic):
    """Every value on partition 0 of `topic`, up to its end, read over PLAINTEXT."""
    return [m.value().decode()
            for m in read_to_end(b.bootstrap, topic, 1, "read_uncommitted", 30)]


# client -> the count of its authentications in its stream op's counts
NODE_REAUTH = {"kafkajs": ("kafkajs.js", "authenticated"),
               "platformatic": ("platformatic.js", "handshakes")}


@pytest.mark.parametrize("name", list(NODE_REAUTH))
def test_node_client_reauthenticates_in_band(broker, name):
    script, authentications = NODE_REAUTH[name]
    topic = unique_topic(f"reauth-{name}")
    clients.ConfluentKafka(broker.bootstrap).create_topic(topic, 1)
    lines = clients.NodeServer.get(script).start({
        "op": "stream", "brokers": [broker.bootstrap_of("SASL_PLAINTEXT")],
        "security": SEC.node(), "topic": topic, "tag": name, "durationMs": RUN_S * 1000,
        "intervalMs": 1000}).all(RUN_S + 40)
    sent = [l for l in lines if "value" in l]
    counts = [l["counts"] for l in lines if "counts" in l][0]
    failed = [l for l in sent if "error" in l]
    assert not failed, f"{len(failed)} of {len(sent)} sends failed, first:\n{failed[0]['error']}"
    assert len(sent) >= RUN_S // 2, f"only {len(sent)} sends in {RUN_S} s"
    assert [l["offset"] for l in sent] == list(range(len(sent)))
    # a 12 s lifetime: kafkajs re-authenticates when less than 10 s are left, @platformatic/
    # kafka at 80% of it; both on the connections they opened at the start
    assert counts["connecting"] <= 3, f"{name} reconnected: {counts}"
    assert counts[authentications] >= counts["connecting"] + 2, \
        f"{name} did not re-authenticate in-band: {counts}"
    assert values_on(broker, topic) == [l["value"] for l in sent]


def test_librdkafka_is_disconnected_at_expiry_and_reconnects(broker):
    topic = unique_topic("reauth-librdkafka")
    clients.ConfluentKafka(broker.bootstrap).create_topic(topic, 1)
    logs, errors, delivered = [], [], {}

    class Grab(logging.Handler):
        def emit(self, rec):
            logs.append(rec.getMessage())

    log = logging.getLogger(f"interop.reauth.{id(logs)}")
    log.propagate = False
    log.setLevel(logging.DEBUG)
    log.addHandler(Grab())
    p = confluent_kafka.Producer({
        "bootstrap.servers": broker.bootstrap_of("SASL_PLAINTEXT"), **SEC.librdkafka(),
        "linger.ms": 0, "acks": "all", "enable.idempotence": False,
        "message.timeout.ms": 20000, "debug": "broker,security", "logger": log,
        "error_cb": lambda e: errors.append(f"{e.name()}: {e.str()}")})

    def report(err, msg):
        delivered[msg.value().decode()] = err

    start = time.monotonic()
    values = []
    for i in range(RUN_S):  # one record a second, serving the callbacks in between
        v = f"rdk-{i}"
        values.append(v)
        p.produce(topic, value=v.encode(), partition=0, on_delivery=report)
        while time.monotonic() < start + i + 1:
            p.poll(max(0.0, start + i + 1 - time.monotonic()))
    assert p.flush(30) == 0, "records still undelivered"
    bad = {v: str(e) for v, e in delivered.items() if e is not None}
    assert not bad and len(delivered) == len(values), f"delivery failures: {bad}"
    # the broker closed an authenticated connection, and librdkafka authenticated anew after
    close = [i for i, m in enumerate(logs) if re.search(r"(?i)disconnected|connection clos", m)]
    assert close, "librdkafka was never disconnected at session expiry:\n" + "\n".join(logs[-30:])
    again = [m for m in logs[close[0]:] if re.search(r"Send SASL \S+ frame", m)]
    assert again, "librdkafka did not authenticate again after the close:\n" \
        + "\n".join(logs[close[0]:][-30:])
    # delivered means acknowledged: each value is there, in order (a request retried after the
    # close may have been appended before it, so a duplicate is tolerated, not a loss)
    got = values_on(broker, topic)
    assert list(dict.fromkeys(got)) == values, f"read {got}"
