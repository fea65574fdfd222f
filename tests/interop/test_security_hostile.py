"""Hostile and broken input before authentication, on raw sockets (tests/pylib/raw_sasl.py):
oversized frames (above sasl.server.max.receive.size), other APIs before or instead of the SASL
exchange, unknown mechanisms, garbage tokens under both framings, plaintext bytes into a TLS
listener and a TLS ClientHello into plaintext ones.

Each case gets Kafka's answer (if any) and its connection closed, and nothing else changes: a
connection authenticated before the cases keeps being served, a new one authenticates, and a
real client (confluent-kafka over SASL_PLAINTEXT) works right after."""
import os
import ssl
import struct

import pytest

from auth_probes import probe
from mirra_testlib import Broker, connect, frame, in_use, request, stop_cleanly
from raw_sasl import (SASL_SERVER_MAX_RECEIVE_SIZE, authenticate, find_coordinator_v0,
                      handshake, login_plain, metadata_brokers, metadata_v0, plain_token,
                      produce_v3, raw_token, read_until_closed)
from secconf import Security

PASSWORD = "alice-secret"
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        f'user_alice="{PASSWORD}";')
ENABLED = ["PLAIN", "SCRAM-SHA-256"]
UNSUPPORTED_SASL_MECHANISM, SASL_AUTHENTICATION_FAILED = 33, 58


@pytest.fixture(scope="module")
def hostile_broker(tmp_path_factory, certs):
    b = Broker(tmp_path_factory.mktemp("sasl-hostile"), {
        "sasl.enabled.mechanisms": ",".join(ENABLED),
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "ssl.keystore.type": "PEM", "ssl.keystore.location": certs.server_keystore_pem,
    }, name="sasl-hostile-broker",
        listeners={"PLAINTEXT": "PLAINTEXT", "SASL_PLAINTEXT": "SASL_PLAINTEXT", "SSL": "SSL"})
    b.start()
    yield b
    stop_cleanly(b)


@pytest.fixture(scope="module")
def survivor(hostile_broker):
    """An authenticated connection opened before any hostile one: it must stay usable."""
    s = login_plain(hostile_broker.ports["SASL_PLAINTEXT"], "alice", PASSWORD)
    yield s
    s.close()


_corr = iter(range(1000, 10 ** 9))


@pytest.fixture
def broker(hostile_broker, survivor):
    b = in_use(hostile_broker)
    yield b
    # after every case: only the hostile connection was closed
    in_use(b)
    port = b.ports["SASL_PLAINTEXT"]
    assert metadata_brokers(survivor, next(_corr)), "the earlier authenticated connection"
    with login_plain(port, "alice", PASSWORD) as s:
        assert metadata_brokers(s, next(_corr)), "a new authenticated connection"
    o = probe("confluent-kafka", b.bootstrap_of("SASL_PLAINTEXT"),
              Security("SASL_PLAINTEXT", "PLAIN", "alice", PASSWORD))
    assert o.ok, f"confluent-kafka after the hostile case: {o.text}"


def sasl(b):
    return connect(b.ports["SASL_PLAINTEXT"])


def assert_closed_silently(s, what):
    closed, data = read_until_closed(s)
    assert closed, f"{what}: connection still open"
    assert data == b"", f"{what}: answered {data[:64]!r} before closing"


# --- oversized frames ------------------------------------------------------------------------

def test_oversized_first_frame(broker):
    with sasl(broker) as s:
        s.sendall(struct.pack(">i", SASL_SERVER_MAX_RECEIVE_SIZE + 1) + b"\0" * 4096)
        assert_closed_silently(s, "a first frame above sasl.server.max.receive.size")


def test_oversized_raw_token_after_v0_handshake(broker):
    with sasl(broker) as s:
        assert handshake(s, "PLAIN", version=0)[0] == 0
        s.sendall(struct.pack(">i", SASL_SERVER_MAX_RECEIVE_SIZE + 1) + b"\0" * 4096)
        assert_closed_silently(s, "a raw token above sasl.server.max.receive.size")


def test_oversized_sasl_authenticate(broker):
    with sasl(broker) as s:
        assert handshake(s, "PLAIN")[0] == 0
        body = b"\0" * (SASL_SERVER_MAX_RECEIVE_SIZE + 16)
        try:
            s.sendall(request(36, 0, 2, struct.pack(">i", len(body)) + body))
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed while we were still sending: what we want
        assert_closed_silently(s, "a SaslAuthenticate above sasl.server.max.receive.size")


# --- other APIs before or instead of authentication ------------------------------------------

@pytest.mark.parametrize("api", ["metadata", "produce", "find_coordinator"])
def test_api_before_handshake(broker, api):
    req = {"metadata": metadata_v0, "produce": produce_v3,
           "find_coordinator": find_coordinator_v0}[api](7)
    with sasl(broker) as s:
        s.sendall(req)
        assert_closed_silently(s, f"{api} before SaslHandshake")


def test_api_instead_of_sasl_authenticate(broker):
    """Under v1 framing Kafka answers ILLEGAL_SASL_STATE before closing; Mirra, which has no
    generic per-API error answer, closes without one (docs/security.md)."""
    with sasl(broker) as s:
        assert handshake(s, "PLAIN")[0] == 0
        s.sendall(find_coordinator_v0(9))
        assert_closed_silently(s, "FindCoordinator instead of SaslAuthenticate")


def test_api_after_v0_handshake_is_a_raw_token(broker):
    """Under v0 framing every frame is a raw token: a Metadata request is a bad PLAIN token."""
    with sasl(broker) as s:
        assert handshake(s, "PLAIN", version=0)[0] == 0
        s.sendall(metadata_v0(9))
        assert_closed_silently(s, "Metadata as a raw PLAIN token")


@pytest.mark.parametrize("version", [0, 1])
def test_unknown_mechanism(broker, version):
    with sasl(broker) as s:
        err, mechanisms = handshake(s, "GSSAPI", version=version)
        assert (err, mechanisms) == (UNSUPPORTED_SASL_MECHANISM, ENABLED)
        closed, _ = read_until_closed(s)
        assert closed, "still open after UNSUPPORTED_SASL_MECHANISM"


# --- garbage tokens ---------------------------------------------------------------------------

GARBAGE = {
    "binary": os.urandom(64).replace(b"\0", b"\1"),
    "empty": b"",
    "two-fields": b"\0alice",
    "empty-password": b"\0alice\0",
    "other-authzid": b"bob\0alice\0" + PASSWORD.encode(),
    "scram-first-without-nonce": b"n,,n=alice",
    "long": b"\0" + b"a" * 100000 + b"\0x",
}


@pytest.mark.parametrize("mechanism", ENABLED)
@pytest.mark.parametrize("token", list(GARBAGE))
def test_garbage_sasl_authenticate(broker, mechanism, token):
    with sasl(broker) as s:
        assert handshake(s, mechanism)[0] == 0
        err, msg, _ = authenticate(s, GARBAGE[token])
        assert err == SASL_AUTHENTICATION_FAILED and msg, (err, msg)
        closed, _ = read_until_closed(s)
        assert closed, f"still open after a failed {mechanism} authentication"


@pytest.mark.parametrize("mechanism", ENABLED)
@pytest.mark.parametrize("token", ["binary", "two-fields", "other-authzid"])
def test_garbage_raw_v0_token(broker, mechanism, token):
    with sasl(broker) as s:
        assert handshake(s, mechanism, version=0)[0] == 0
        s.sendall(frame(GARBAGE[token]))
        assert_closed_silently(s, f"a garbage raw {mechanism} token")


def test_scram_garbage_final_message(broker):
    """A well-formed client-first (alice may have no SCRAM credential: then it fails there),
    then a garbage client-final."""
    with sasl(broker) as s:
        assert handshake(s, "SCRAM-SHA-256")[0] == 0
        err, msg, _ = authenticate(s, b"n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL")
        if err == 0:
            err, msg, _ = authenticate(s, b"c=biws,r=garbage,p=AAAA", corr=3)
        assert err == SASL_AUTHENTICATION_FAILED and msg, (err, msg)
        assert read_until_closed(s)[0]


def test_failures_do_not_tell_whether_the_user_exists(broker):
    messages = []
    for user in ("alice", "nobody"):
        with sasl(broker) as s:
            assert handshake(s, "PLAIN")[0] == 0
            err, msg, _ = authenticate(s, plain_token(user, "wrong-secret"))
            assert err == SASL_AUTHENTICATION_FAILED, (user, err, msg)
            assert "wrong-secret" not in (msg or ""), msg
            messages.append(msg)
    assert messages[0] == messages[1], messages


def test_raw_v0_plain_login_answers_an_empty_token(broker):
    """kafka-python's framing: SaslHandshake v0, raw PLAIN token, an empty token back."""
    with sasl(broker) as s:
        assert handshake(s, "PLAIN", version=0) == (0, ENABLED)
        assert raw_token(s, plain_token("alice", PASSWORD, authzid="alice")) == b""
        assert metadata_brokers(s, 5)


# --- TLS where it is not spoken, and the other way round --------------------------------------

def test_plaintext_bytes_to_tls_listener(broker):
    with connect(broker.ports["SSL"]) as s:
        s.sendall(metadata_v0(3))
        closed, data = read_until_closed(s)
        assert closed, "a TLS listener kept a plaintext connection open"
        assert data == b"" or data[:1] == b"\x15", f"not a TLS alert: {data[:32]!r}"


@pytest.mark.parametrize("listener", ["PLAINTEXT", "SASL_PLAINTEXT"])
def test_tls_client_hello_to_plaintext_listener(broker, listener):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    raw = connect(broker.ports[listener])
    with ctx.wrap_socket(raw, do_handshake_on_connect=False) as s:
        with pytest.raises((ssl.SSLError, ConnectionError)):
            s.do_handshake()  # a TimeoutError (the broker waiting for more) fails the test
