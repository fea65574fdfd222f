"""Secure links to the source (issue 17 point 6): a source `mirra server` with a SASL_SSL
listener (PLAIN; SCRAM-SHA-512 once the broker stores SCRAM users) and an SSL listener that
requires a client certificate; one destination with two mirrors side by side, one per listener,
both copying at identical offsets. A wrong source password shows in `mirra mirror --describe`
and recovers once the mirror's config is fixed; the secrets appear in no API answer, no log
line of either broker and no file under the destination's data directory; a destination
restarted with another password.encoder.secret reports the link as failed, not a crash; and
`mirra topics --list --command-config` works over SASL_SSL. Certificates are made here with the
openssl command line. Every wait is a bounded poll of a condition, never a sleep."""
import subprocess

import confluent_kafka

from mirra_testlib import assert_one_line_error, request, round_trip, run_mirra, wait_until
from mirroring import describe, ok, read_everything, watermarks_of
from raw_admin import describe_configs_raw, incremental_alter

STEP = 30  # seconds: the bound of each wait
MIRROR_RESOURCE, SET = 64, 0
PARTITIONS = 3
PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
# Every secret of the test, each distinctive enough that finding it anywhere is a leak.
SOURCE_PASSWORD = "src-pw-7f3a9c41"
WRONG_PASSWORD = "wrong-pw-2b8e6d13"
KEY_PASSWORD = "key-pw-5c1d0e77"
ENCODER_SECRET = "encoder-secret-9a4b2f66"
OTHER_ENCODER_SECRET = "encoder-secret-other-31c8"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d):
    """ca.crt; server-keystore.pem (CN=localhost, SAN DNS:localhost and IP:127.0.0.1);
    client-keystore.pem (CN=mirror, its key encrypted with KEY_PASSWORD). EC P-256: quick."""
    d.mkdir(exist_ok=True)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=test-ca", cwd=d)
    (d / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for name, subject in (("server", "/CN=localhost"), ("client", "/O=Mirra/CN=mirror")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile", "san.ext",
                cwd=d)
    openssl("pkcs8", "-topk8", "-in", "client.key", "-out", "client-encrypted.key",
            "-passout", f"pass:{KEY_PASSWORD}", cwd=d)
    (d / "server-keystore.pem").write_text((d / "server.key").read_text()
                                           + (d / "server.crt").read_text())
    (d / "client-keystore.pem").write_text((d / "client-encrypted.key").read_text()
                                           + (d / "client.crt").read_text())
    return d


def jaas(password):
    return f'{PLAIN_MODULE} required username="mirror" password="{password}";'


def listener_port(broker, name):
    m = broker.wait_for(rf"listening on {name}://127\.0\.0\.1:(\d+)", timeout=STEP,
                        start=broker.run_mark)
    return int(m.group(1))


def produce(bootstrap, topic, count, tag):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 2})
    for i in range(count):
        p.produce(topic, key=f"k{i}".encode(), value=f"{tag}-{i}".encode(),
                  partition=i % PARTITIONS)
    assert p.flush(STEP) == 0


def mirror(dst, *args):
    return run_mirra("mirror", "--bootstrap-server", dst.bootstrap, *args)


def rows(dst, topic):
    return {r["partition"]: r for r in describe(dst) if r["topic"] == topic}


def in_sync(src, dst, topic):
    ends = watermarks_of(src.bootstrap, topic, PARTITIONS)
    r = rows(dst, topic)
    return len(r) == PARTITIONS and all(
        r[p]["state"] == "MIRRORING" and r[p]["destinationLogEndOffset"] == ends[p]
        for p in range(PARTITIONS))


def alter(dst, name, changes):
    key = (MIRROR_RESOURCE, name)
    return incremental_alter(dst.port, [(*key, changes)])[key]


def broker_output(b):
    """What the broker itself logged (the test's own marker lines hold its command line)."""
    return "\n".join(l for l in b.log().splitlines() if not l.startswith("----- "))


def files_holding(root, secret):
    needle = secret.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def start_pair(make_broker, tmp_path):
    certs = make_certs(tmp_path / "certs")
    src = make_broker({
        "listeners": "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0",
        "ssl.keystore.location": certs / "server-keystore.pem",
        "ssl.truststore.location": certs / "ca.crt",
        "listener.name.ssl.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_ssl.plain.sasl.jaas.config":
            f'{PLAIN_MODULE} required user_mirror="{SOURCE_PASSWORD}";',
    }, name="source")
    dst = make_broker({"password.encoder.secret": ENCODER_SECRET,
                       "mirror.failed.retry.initial.backoff.ms": 200,
                       "mirror.failed.retry.max.backoff.ms": 1000}, name="destination")
    return certs, src, dst


def create_mirrors(certs, src, dst, tmp_path):
    sasl_port, ssl_port = listener_port(src, "SASL_SSL"), listener_port(src, "SSL")
    via_sasl = tmp_path / "via-sasl.properties"
    via_sasl.write_text(f"bootstrap.servers=127.0.0.1:{sasl_port}\n"
                        "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
                        f"sasl.jaas.config={jaas(SOURCE_PASSWORD)}\n"
                        f"ssl.truststore.location={certs / 'ca.crt'}\n")
    via_ssl = tmp_path / "via-ssl.properties"
    via_ssl.write_text(f"bootstrap.servers=127.0.0.1:{ssl_port}\nsecurity.protocol=ssl\n"
                       f"ssl.keystore.location={certs / 'client-keystore.pem'}\n"
                       f"ssl.key.password={KEY_PASSWORD}\n"
                       f"ssl.truststore.location={certs / 'ca.crt'}\n")
    for name, cfg, topic in (("viasasl", via_sasl, "orders"), ("viassl", via_ssl, "payments")):
        ok(mirror(dst, "--create", "--mirror", name, "--mirror-config", str(cfg)))
        out = ok(mirror(dst, "--add", "--mirror", name, "--topic", topic))
        assert f'Topic "{topic}"' in out, out
    return sasl_port


def test_two_secure_mirrors_side_by_side_and_no_secret_anywhere(make_broker, tmp_path):
    certs, src, dst = start_pair(make_broker, tmp_path)
    for topic in ("orders", "payments"):
        ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", topic,
                     "--partitions", str(PARTITIONS)))
        produce(src.bootstrap, topic, 60, "first")
    sasl_port = create_mirrors(certs, src, dst, tmp_path)
    for topic in ("orders", "payments"):
        wait_until(lambda: in_sync(src, dst, topic), STEP, f"{topic} mirrored over TLS")
        assert read_everything(dst.bootstrap, topic, "read_uncommitted", PARTITIONS) == \
            read_everything(src.bootstrap, topic, "read_uncommitted", PARTITIONS)

    # The tools over SASL_SSL, with Kafka's client properties file.
    client = tmp_path / "client.properties"
    client.write_text("security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
                      f"sasl.jaas.config={jaas(SOURCE_PASSWORD)}\n"
                      f"ssl.truststore.location={certs / 'ca.crt'}\n")
    listed = ok(run_mirra("topics", "--bootstrap-server", f"127.0.0.1:{sasl_port}", "--list",
                          "--command-config", str(client)))
    assert {"orders", "payments"} <= set(listed.split()), listed
    client.write_text(client.read_text().replace(SOURCE_PASSWORD, WRONG_PASSWORD))
    r = run_mirra("topics", "--bootstrap-server", f"127.0.0.1:{sasl_port}", "--list",
                  "--command-config", str(client))
    assert_one_line_error(r, "SASL authentication failed")
    assert WRONG_PASSWORD not in r.stderr + r.stdout

    # A wrong source password shows in describe; the other mirror goes on.
    assert alter(dst, "viasasl", [("sasl.jaas.config", SET, jaas(WRONG_PASSWORD))]) == (0, None)
    produce(src.bootstrap, "orders", 30, "while-wrong")
    produce(src.bootstrap, "payments", 30, "while-wrong")
    wait_until(lambda: in_sync(src, dst, "payments"), STEP, "payments on while orders fails")

    def refused():
        return any("SASL authentication failed" in (r.get("lastError") or "")
                   for r in rows(dst, "orders").values())
    wait_until(refused, STEP, "the wrong password in describe")
    assert alter(dst, "viasasl", [("sasl.jaas.config", SET, jaas(SOURCE_PASSWORD))]) == (0, None)
    wait_until(lambda: in_sync(src, dst, "orders"), STEP, "orders recovered once fixed")

    # No secret in an API answer, a log line or a file of the destination.
    secrets = (SOURCE_PASSWORD, WRONG_PASSWORD, KEY_PASSWORD)
    answers = [ok(mirror(dst, "--describe", "--json")), ok(mirror(dst, "--describe")),
               ok(mirror(dst, "--list"))]
    answers.append(round_trip(dst.port, request(99, 0, 5, b"\x00\x00", flexible=True)).decode(
        "latin-1"))  # DescribeMirrors, every mirror, as raw bytes
    for name in ("viasasl", "viassl"):
        err, msg, configs = describe_configs_raw(dst.port, MIRROR_RESOURCE, name)
        assert err == 0, msg
        for key in ("sasl.jaas.config", "ssl.key.password"):
            assert configs[key][0] is None, (name, key, configs[key])
        answers.append(repr(configs))
    for secret in secrets + (ENCODER_SECRET,):
        for text in answers:
            assert secret not in text
        assert secret not in broker_output(dst)
        assert secret not in broker_output(src)
    assert dst.stop() == 0  # the snapshot and the metadata log written out
    for secret in secrets + (ENCODER_SECRET,):
        assert files_holding(dst.data_dir, secret) == [], secret

    # Another password.encoder.secret: the links fail with a clear reason, the broker runs.
    dst.overrides["password.encoder.secret"] = OTHER_ENCODER_SECRET
    dst.start()

    def cannot_decrypt(topic):
        errors = [r.get("lastError") or "" for r in rows(dst, topic).values()]
        return errors and all("password.encoder.secret" in e and r"cannot decrypt" in e
                              for e in errors)
    wait_until(lambda: cannot_decrypt("orders") and cannot_decrypt("payments"), STEP,
               "both mirrors failed on the secret")
    assert {r["state"] for r in rows(dst, "orders").values()} == {"FAILED"}
    # Setting the secrets again (stored under the new encoder secret) repairs each mirror.
    assert alter(dst, "viasasl", [("sasl.jaas.config", SET, jaas(SOURCE_PASSWORD))]) == (0, None)
    assert alter(dst, "viassl", [("ssl.key.password", SET, KEY_PASSWORD)]) == (0, None)
    ok(mirror(dst, "--resume", "--mirror", "viasasl", "--topic", "orders"))
    ok(mirror(dst, "--resume", "--mirror", "viassl", "--topic", "payments"))
    produce(src.bootstrap, "orders", 10, "after-rotation")
    for topic in ("orders", "payments"):
        wait_until(lambda: in_sync(src, dst, topic), STEP, f"{topic} after the new secret")
    for secret in secrets + (OTHER_ENCODER_SECRET,):
        assert secret not in broker_output(dst)


def test_a_mirror_with_secrets_needs_the_broker_secret(make_broker, tmp_path):
    dst = make_broker(name="destination")
    cfg = tmp_path / "m.properties"
    cfg.write_text("bootstrap.servers=127.0.0.1:1\nsecurity.protocol=SASL_SSL\n"
                   f"sasl.username=mirror\nsasl.password={SOURCE_PASSWORD}\n")
    r = mirror(dst, "--create", "--mirror", "m", "--mirror-config", str(cfg))
    assert_one_line_error(r, "sasl.password is a secret", "set password.encoder.secret")
    assert SOURCE_PASSWORD not in r.stderr and SOURCE_PASSWORD not in broker_output(dst)
    # Without secrets (TLS trusting a CA file), no broker secret is needed.
    cfg.write_text("bootstrap.servers=127.0.0.1:1\nsecurity.protocol=SSL\n"
                   "ssl.truststore.location=/nonexistent/ca.pem\n")
    ok(mirror(dst, "--create", "--mirror", "m", "--mirror-config", str(cfg)))
    assert "m" in ok(mirror(dst, "--list")).split()
