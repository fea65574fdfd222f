"""The five real clients against a broker with all four kinds of listener (PLAINTEXT, SSL with
client certificates required, SASL_PLAINTEXT, SASL_SSL; one broker for the module):

  - each client produces and consumes over SASL_SSL with SCRAM-SHA-512 and with PLAIN, over
    SSL with a client certificate and over SASL_PLAINTEXT with SCRAM-SHA-256, and reads back
    exactly the records it wrote (partition, offset, key, value, headers, timestamp);
  - Metadata over each listener advertises that listener's own endpoint;
  - a wrong password, a client certificate from an untrusted CA, no client certificate, and a
    broker certificate the client does not trust each fail with the client's own kind of
    error (auth_probes.py), and the same client with good settings succeeds right after;
  - named listeners (listener.security.protocol.map) and a PKCS12 keystore, on a second broker.

SCRAM users are made with `mirra configs --alter --entity-type users` over the PLAINTEXT
listener (the scram_users fixture: the SCRAM cases fail, not skip, while that is missing)."""
import json
import re

import pytest

import clients
from auth_probes import probe
from mirra_testlib import Broker, in_use, run_mirra, stop_cleanly, wait_until
from records import assert_same_records, expected_records, now_ms, sample_records, unique_topic
from secconf import Security

CLIENTS = list(clients.ALL)
PASSWORD = "alice-secret"
PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              f'user_alice="{PASSWORD}" user_bob="bob-secret";')
LISTENERS = {p: p for p in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")}

# mode -> (listener, Security without the paths of the test certificates)
MODES = {
    "sasl_ssl-scram512": ("SASL_SSL", Security("SASL_SSL", "SCRAM-SHA-512", "alice", PASSWORD)),
    "sasl_ssl-plain": ("SASL_SSL", Security("SASL_SSL", "PLAIN", "alice", PASSWORD)),
    "ssl-client-cert": ("SSL", Security("SSL")),
    "sasl_plaintext-scram256": ("SASL_PLAINTEXT",
                                Security("SASL_PLAINTEXT", "SCRAM-SHA-256", "alice", PASSWORD)),
}

# What each client reports when the broker refuses its SASL credentials.
SASL_REFUSED = {
    "kcat": r"SASL authentication error",
    "confluent-kafka": r"_AUTHENTICATION: .*SASL authentication error",
    # SaslHandshake v0 framing: the broker can only close the socket, during authentication
    "kafka-python": r"<authenticating>: KafkaConnectionError",
    "kafkajs": r"KafkaJSSASLAuthenticationError",
    "platformatic": r"PLT_KFK_AUTHENTICATION",
}
# ... when the broker refuses its certificate (or its lack of one) in the TLS handshake. Under
# TLS 1.3 the client finishes its side first and sees the broker's alert at its first read;
# @platformatic/kafka then reports only the closed connection. kafka-python sends its first
# request before reading; the broker reads and drops it before closing (a reset would drop the
# alert, and kafka-python saw only an SSLEOFError), so it too gets the alert.
CERT_REFUSED = {
    "kcat": r"SSL.*alert",
    "confluent-kafka": r"_(TRANSPORT|SSL): .*SSL.*alert",
    "kafka-python": r"SSLError: .*ALERT",
    "kafkajs": r"KafkaJSConnectionError ERR_SSL_\w*ALERT",
    "platformatic": r"PLT_KFK_NETWORK: Connection closed|ERR_SSL_\w*ALERT",
}
# ... when it does not trust the broker's certificate.
_NODE_UNTRUSTED = r"SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER"
BROKER_UNTRUSTED = {
    "kcat": r"certificate verify failed",
    "confluent-kafka": r"_(SSL|TRANSPORT): .*certificate verify failed",
    "kafka-python": r"SSLCertVerificationError",
    "kafkajs": r"KafkaJSConnectionError (" + _NODE_UNTRUSTED + ")",
    "platformatic": _NODE_UNTRUSTED,
}


def security(mode, certs):
    sec = MODES[mode][1]
    if sec.tls:
        sec = sec.but(ca=certs.ca_crt)
    if sec.protocol == "SSL":
        sec = sec.but(cert=certs.client_crt, key=certs.client_key)
    return sec


def tls_overrides(certs):
    return {"ssl.keystore.type": "PEM", "ssl.keystore.location": certs.server_keystore_pem,
            "ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca_crt}


@pytest.fixture(scope="module")
def secure_broker(tmp_path_factory, certs):
    b = Broker(tmp_path_factory.mktemp("secure"), {
        "num.partitions": 1, **tls_overrides(certs),
        "listener.name.ssl.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
    }, name="secure-broker", listeners=LISTENERS).start()
    yield b
    stop_cleanly(b)


@pytest.fixture
def broker(secure_broker):
    return in_use(secure_broker)


def add_scram_user(b, user, password, mechanisms=("SCRAM-SHA-256", "SCRAM-SHA-512")):
    for m in mechanisms:
        r = run_mirra("configs", "--bootstrap-server", b.bootstrap, "--alter",
                      "--entity-type", "users", "--entity-name", user,
                      "--add-config", f"{m}=[password={password}]")
        assert r.returncode == 0, f"mirra configs {m} for {user}: {r.stdout}{r.stderr}"
        # the command answers once the credential is committed; the first SCRAM login that
        # works shows it reached the listener (a bounded wait, not a sleep)
        listener = "SASL_PLAINTEXT"
        sec = Security("SASL_PLAINTEXT", m, user, password)
        wait_until(lambda: probe("confluent-kafka", b.bootstrap_of(listener), sec, 3).ok, 15,
                   f"{user} to log in with {m}")


@pytest.fixture(scope="module")
def scram_users(secure_broker):
    add_scram_user(secure_broker, "alice", PASSWORD)
    return secure_broker


def broker_for(mode, request):
    """The broker, with the SCRAM users made first when the mode needs them."""
    if "scram" in mode:
        request.getfixturevalue("scram_users")
    return in_use(request.getfixturevalue("secure_broker"))


# --- produce and consume over every kind of listener ------------------------------------------

@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", CLIENTS)
def test_produce_and_consume(request, certs, name, mode):
    b = broker_for(mode, request)
    listener = MODES[mode][0]
    topic = unique_topic(f"sec-{name}-{mode}")
    clients.ConfluentKafka(b.bootstrap).create_topic(topic, 1)  # over PLAINTEXT
    c = clients.ALL[name](b.bootstrap_of(listener), security(mode, certs))
    records = sample_records(f"{name}-{mode}", partitions=1, per_partition=6,
                             timestamps=c.sets_timestamp,
                             null_key_and_value=c.null_key_and_value, empty=c.empty)
    t0 = now_ms()
    results = c.produce(topic, records)
    window = (t0 - 1, now_ms() + 1)
    expected = expected_records(records, results)
    consumed = c.consume(topic, 0, "earliest", len(expected))
    assert_same_records(expected, consumed, f"{name} over {listener} ({mode})", window)
    # and a second opinion over PLAINTEXT: the records are where the client says
    plain = clients.ConfluentKafka(b.bootstrap).consume(topic, 0, "earliest", len(expected))
    assert_same_records(expected, plain, f"{name}'s records read over PLAINTEXT", window)


@pytest.mark.parametrize("mode", list(MODES))
def test_metadata_advertises_the_listener_used(request, certs, mode):
    b = broker_for(mode, request)
    listener = MODES[mode][0]
    kcat = clients.Kcat(b.bootstrap_of(listener), security(mode, certs))
    r = kcat._run(["-L", "-J"])
    assert r.returncode == 0, f"kcat -L over {listener}: {r.stderr[-2000:]}"
    brokers = json.loads(r.stdout)["brokers"]
    assert [x["name"] for x in brokers] == [b.bootstrap_of(listener)], brokers


# --- refusals: the client's own error, then the broker serves the same client again -----------

def assert_refused(name, outcome, pattern, what):
    assert not outcome.ok, f"{name}: {what} was accepted"
    assert re.search(pattern, outcome.text), \
        f"{name}: {what}: expected /{pattern}/ in what the client reported:\n{outcome.text}"


@pytest.mark.parametrize("mode", ["sasl_ssl-scram512", "sasl_ssl-plain",
                                  "sasl_plaintext-scram256"])
@pytest.mark.parametrize("name", CLIENTS)
def test_wrong_password_refused(request, certs, name, mode):
    b = broker_for(mode, request)
    where = b.bootstrap_of(MODES[mode][0])
    good = security(mode, certs)
    bad = probe(name, where, good.but(password="not-" + PASSWORD))
    assert_refused(name, bad, SASL_REFUSED[name], f"a wrong password ({mode})")
    unknown = probe(name, where, good.but(username="mallory"))
    assert_refused(name, unknown, SASL_REFUSED[name], f"an unknown user ({mode})")
    ok = probe(name, where, good)
    assert ok.ok, f"{name}: the right password after the wrong ones failed:\n{ok.text}"


TLS_CASES = {
    # case -> (change to the good SSL settings, expected errors)
    "client-cert-from-untrusted-ca": (lambda s, c: s.but(cert=c.rogue_crt, key=c.rogue_key),
                                      CERT_REFUSED),
    "no-client-cert": (lambda s, c: s.but(cert=None, key=None), CERT_REFUSED),
    "broker-cert-untrusted": (lambda s, c: s.but(ca=c.rogue_ca_crt), BROKER_UNTRUSTED),
}


@pytest.mark.parametrize("case", list(TLS_CASES))
@pytest.mark.parametrize("name", CLIENTS)
def test_tls_refused(broker, certs, name, case):
    where = broker.bootstrap_of("SSL")
    good = security("ssl-client-cert", certs)
    change, expected = TLS_CASES[case]
    assert_refused(name, probe(name, where, change(good, certs)), expected[name], case)
    ok = probe(name, where, good)
    assert ok.ok, f"{name}: the trusted client certificate after {case} failed:\n{ok.text}"


def test_sasl_ssl_with_untrusted_broker_cert_refused(broker, certs):
    """SASL_SSL verifies the broker before any credential is sent."""
    sec = security("sasl_ssl-plain", certs).but(ca=certs.rogue_ca_crt)
    assert_refused("kafkajs", probe("kafkajs", broker.bootstrap_of("SASL_SSL"), sec),
                   BROKER_UNTRUSTED["kafkajs"], "an untrusted broker certificate")


# --- named listeners and a PKCS12 keystore ----------------------------------------------------

def test_named_listeners_and_pkcs12_keystore(make_broker, certs):
    """CLIENT (SASL_SSL) and INTERNAL (SSL, client certificates required on that listener
    only) named in listener.security.protocol.map, the keystore a PKCS12 file."""
    b = make_broker({
        "ssl.keystore.type": "PKCS12", "ssl.keystore.location": certs.server_p12,
        "ssl.keystore.password": certs.p12_password,
        "ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca_crt,
        "listener.name.internal.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.client.plain.sasl.jaas.config": PLAIN_JAAS,
    }, name="named-listeners",
        listeners={"PLAINTEXT": "PLAINTEXT", "CLIENT": "SASL_SSL", "INTERNAL": "SSL"})
    sasl = Security("SASL_SSL", "PLAIN", "alice", PASSWORD, ca=certs.ca_crt)
    mtls = Security("SSL", ca=certs.ca_crt, cert=certs.client_crt, key=certs.client_key)
    for name in ("confluent-kafka", "kafkajs"):
        for listener, sec in (("CLIENT", sasl), ("INTERNAL", mtls)):
            o = probe(name, b.bootstrap_of(listener), sec)
            assert o.ok, f"{name} over {listener}: {o.text}"
    # client certificates are required on INTERNAL only
    assert_refused("confluent-kafka", probe("confluent-kafka", b.bootstrap_of("INTERNAL"),
                                            mtls.but(cert=None, key=None)),
                   CERT_REFUSED["confluent-kafka"], "no client certificate on INTERNAL")
    topic = unique_topic("named")
    c = clients.ConfluentKafka(b.bootstrap_of("CLIENT"), sasl)
    c.create_topic(topic, 1)
    records = sample_records("named", partitions=1, per_partition=4)
    expected = expected_records(records, c.produce(topic, records))
    back = clients.KafkaJS(b.bootstrap_of("INTERNAL"), mtls).consume(topic, 0, "earliest",
                                                                     len(expected))
    assert_same_records(expected, back, "written over CLIENT, read over INTERNAL")
    kcat = clients.Kcat(b.bootstrap_of("CLIENT"), sasl)
    r = kcat._run(["-L", "-J"])
    assert r.returncode == 0, r.stderr[-2000:]
    assert [x["name"] for x in json.loads(r.stdout)["brokers"]] == [b.bootstrap_of("CLIENT")]
