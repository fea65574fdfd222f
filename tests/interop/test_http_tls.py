"""https:// in http.listeners (docs/observability.md "TLS"): the HTTP listener with the
http.ssl.* keystore, read as a Kafka listener reads its ssl.* keys (a PEM keystore, or PKCS12
with its password), certificates made with openssl by the tests. A client that trusts the CA
gets /metrics and the JSON API over TLS, with basic auth too, at TLS 1.2 or 1.3 only; a
plain-HTTP request gets no answer; a missing or unreadable keystore stops start-up naming the key, and the keystore's
password is never logged."""
import base64
import http.client
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest

from mirra_testlib import run_mirra
from prometheus_text import http_port, parse

STEP = 30


def https_get(broker, certs, path="/metrics", auth=None):
    context = ssl.create_default_context(cafile=str(certs.ca_crt))
    req = urllib.request.Request(f"https://127.0.0.1:{http_port(broker, 'https')}{path}")
    if auth is not None:
        req.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    with urllib.request.urlopen(req, timeout=STEP, context=context) as r:
        return r.status, r.read().decode()


def test_pem_keystore_serves_metrics_over_tls(make_broker, certs):
    b = make_broker({"http.listeners": "https://127.0.0.1:0",
                     "http.ssl.keystore.type": "PEM",
                     "http.ssl.keystore.location": str(certs.server_keystore_pem)},
                    name="https-pem")
    status, body = https_get(b, certs)
    assert status == 200 and parse(body)
    status, body = https_get(b, certs, "/v1/topics")
    assert status == 200 and body.startswith('{"topics":')
    # Plain HTTP to the TLS port: no HTTP answer.
    conn = http.client.HTTPConnection("127.0.0.1", http_port(b, "https"), timeout=STEP)
    with pytest.raises((http.client.HTTPException, ConnectionError, OSError)):
        conn.request("GET", "/metrics")
        conn.getresponse()
    # A client that does not trust the broker's CA refuses it.
    context = ssl.create_default_context(cafile=str(certs.rogue_ca_crt))
    with pytest.raises(urllib.error.URLError) as refused:
        urllib.request.urlopen(f"https://127.0.0.1:{http_port(b, 'https')}/metrics",
                               timeout=STEP, context=context)
    assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)


def handshake_cipher(port, version, certs):
    """The cipher `openssl s_client -<version>` agrees on with the listener; "(NONE)" when the
    handshake fails. SECLEVEL=0 lets the client offer the old versions at all."""
    r = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", f"-{version}",
                        "-cipher", "DEFAULT:@SECLEVEL=0", "-CAfile", str(certs.ca_crt)],
                       input="", capture_output=True, text=True, timeout=STEP)
    for line in r.stdout.splitlines():
        if line.startswith("New, "):
            return line.split("Cipher is ")[1].strip()
    raise AssertionError(r.stdout + r.stderr)


def test_only_tls_1_2_and_1_3(make_broker, certs):
    b = make_broker({"http.listeners": "https://127.0.0.1:0",
                     "http.ssl.keystore.location": str(certs.server_keystore_pem)},
                    name="https-versions")
    port = http_port(b, "https")
    assert handshake_cipher(port, "tls1_1", certs) == "(NONE)"
    assert handshake_cipher(port, "tls1_2", certs) != "(NONE)"
    assert handshake_cipher(port, "tls1_3", certs) != "(NONE)"


def test_pkcs12_keystore_with_basic_auth(make_broker, certs):
    b = make_broker({"http.listeners": "https://127.0.0.1:0", "http.authentication": "basic",
                     "http.ssl.keystore.type": "PKCS12",
                     "http.ssl.keystore.location": str(certs.server_p12),
                     "http.ssl.keystore.password": certs.p12_password},
                    name="https-p12")
    r = run_mirra("configs", "--bootstrap-server", b.bootstrap, "--alter", "--entity-type",
                  "users", "--entity-name", "prom", "--add-config",
                  "SCRAM-SHA-256=[password=s3cret]")
    assert r.returncode == 0, r.stderr
    assert https_get(b, certs, auth="prom:s3cret")[0] == 200
    with pytest.raises(urllib.error.HTTPError) as refused:
        https_get(b, certs, auth="prom:wrong")
    assert refused.value.code == 401
    # The broker's own lines (the harness's header line shows the command it ran).
    logged = [line for line in b.log().splitlines() if not line.startswith("-----")]
    assert any("http.ssl.keystore.password=[hidden]" in line for line in logged)
    assert not any(certs.p12_password in line for line in logged)


@pytest.mark.parametrize("settings,named", [
    ({}, "http.ssl"),
    ({"http.ssl.keystore.location": "/nonexistent/keystore.pem"}, "/nonexistent/keystore.pem"),
    ({"http.ssl.keystore.type": "PKCS12", "http.ssl.keystore.password": "not-it"},
     "ssl.keystore"),
])
def test_a_bad_keystore_stops_start_up(make_broker, certs, settings, named):
    if settings.get("http.ssl.keystore.type") == "PKCS12":
        settings = {**settings, "http.ssl.keystore.location": str(certs.server_p12)}
    b = make_broker({"http.listeners": "https://127.0.0.1:0", **settings}, name="https-bad",
                    start=False)
    r = run_mirra("server", *b.command(0)[2:], timeout=STEP)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and named in out, out
    assert "not-it" not in out
