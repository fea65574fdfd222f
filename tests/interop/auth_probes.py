"""One connection attempt of each real client with given security settings, reporting what the
client itself says: `probe(client, bootstrap, security)` -> Outcome(ok, errors), where errors
are the client's own error kinds and messages as text, so a test can check that a refused
client reports an authentication error (and not, say, a timeout) in its own terms:

  kcat             its stderr lines ("SASL authentication error: ...", "SSL handshake failed")
  confluent-kafka  every error_cb error as "<name>: <str>" ("_AUTHENTICATION: SASL ...")
  kafka-python     every error a BrokerConnection closed with, prefixed by the state it was in
                   ("<authenticating>: KafkaConnectionError: ..."): under its SaslHandshake v0
                   framing a refusal can only be a closed socket, so *when* it closed is what
                   tells an authentication failure; and any exception connect() raised (TLS)
  kafkajs          the error chain of admin.connect() + metadata (name/code/message:
                   KafkaJSSASLAuthenticationError, KafkaJSConnectionError ERR_SSL_...)
  platformatic     the same of Admin.metadata() (PLT_KFK_AUTHENTICATION, PLT_KFK_NETWORK, ...)
"""
import socket
import subprocess
import time
from dataclasses import dataclass, field

import clients
from secconf import kafka_python_conf, librdkafka_conf

PROBE_TIMEOUT = 8.0  # seconds a client gets to connect, authenticate and get metadata


@dataclass
class Outcome:
    ok: bool
    errors: list = field(default_factory=list)

    @property
    def text(self):
        return "\n".join(self.errors)


def _kcat(bootstrap, security, timeout):
    xargs = [a for k, v in librdkafka_conf(security).items() for a in ("-X", f"{k}={v}")]
    try:
        r = subprocess.run([clients.KCAT, "-b", bootstrap, *xargs, "-L", "-J",
                            "-m", str(int(min(timeout, 5)))], capture_output=True, text=True,
                           timeout=timeout + 10)
    except subprocess.TimeoutExpired as e:
        return Outcome(False, [f"kcat timed out: {e.stderr}"])
    return Outcome(r.returncode == 0, r.stderr.splitlines())


def _confluent(bootstrap, security, timeout):
    import confluent_kafka
    from confluent_kafka.admin import AdminClient
    errors = []
    conf = {"bootstrap.servers": bootstrap, **librdkafka_conf(security),
            "error_cb": lambda e: errors.append(f"{e.name()}: {e.str()}")}
    admin = AdminClient(conf)
    # librdkafka retries a refused connection until the timeout: stop at its first error
    deadline = time.monotonic() + timeout
    while True:
        try:
            admin.list_topics(timeout=min(1.0, max(0.1, deadline - time.monotonic())))
            return Outcome(True, errors)
        except confluent_kafka.KafkaException as e:
            admin.poll(0.1)  # delivers the error callbacks queued so far
            if errors or time.monotonic() >= deadline:
                return Outcome(False, errors + [f"list_topics: {e}"])


def _kafka_python(bootstrap, security, timeout):
    from kafka.conn import BrokerConnection
    from kafka.protocol.metadata import MetadataRequest

    class Recording(BrokerConnection):
        def close(self, error=None):
            if error is not None:
                closed.append(f"{self.state}: {type(error).__name__}: {error}")
            super().close(error)

    closed = []
    host, port = bootstrap.rsplit(":", 1)
    # api_version given: no version probing, the first request is the SASL handshake (v0)
    conn = Recording(host, int(port), socket.AF_INET, api_version=(1, 0, 0),
                     request_timeout_ms=int(timeout * 1000), **kafka_python_conf(security))
    try:
        if not conn.connect_blocking(timeout):
            return Outcome(False, closed or ["connect_blocking failed"])
        fut = conn.send(MetadataRequest[0]([]))
        deadline = time.monotonic() + timeout
        while not fut.is_done and time.monotonic() < deadline and not conn.disconnected():
            for resp, f in conn.recv():
                f.success(resp)
            time.sleep(0.02)  # polling interval of a non-blocking connection
        if fut.succeeded():
            return Outcome(True, closed)
        return Outcome(False, closed + [f"metadata: {fut.exception!r}"])
    except Exception as e:  # noqa: BLE001 - connect() raises TLS errors to its caller
        return Outcome(False, closed + [f"{type(e).__name__}: {e}"])
    finally:
        conn.close()


def _node(script, bootstrap, security, timeout):
    req = {"op": "probe", "brokers": [bootstrap], "retries": 0}
    if security is not None:
        req["security"] = security.node()
    lines = clients.NodeServer.get(script).start(req).all(timeout + 15)
    assert len(lines) == 1, lines
    if lines[0].get("ok"):
        return Outcome(True)
    return Outcome(False, [f"{e['name']} {e['code']}: {e['message']}" for e in lines[0]["failed"]])


PROBES = {
    "kcat": _kcat,
    "confluent-kafka": _confluent,
    "kafka-python": _kafka_python,
    "kafkajs": lambda b, s, t: _node("kafkajs.js", b, s, t),
    "platformatic": lambda b, s, t: _node("platformatic.js", b, s, t),
}


def probe(client, bootstrap, security, timeout=PROBE_TIMEOUT):
    return PROBES[client](bootstrap, security, timeout)
