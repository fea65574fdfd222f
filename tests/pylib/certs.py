"""Test certificates made with the `openssl` command line (OpenSSL 3), for TLS listeners and
clients on loopback.

`make_certs(directory)` writes, and returns as a `Certs`:
  - a CA (ca.crt, ca.key);
  - a server certificate signed by it for every name the tests dial: SAN DNS:localhost and
    IP:127.0.0.1 (server.crt, server.key), the PEM keystore Kafka's `ssl.keystore.type=PEM`
    wants (server-keystore.pem: the PKCS#8 private key, then the certificate chain) and a
    PKCS12 keystore of the same (server.p12, password `Certs.p12_password`);
  - a client certificate signed by the CA, subject /O=Mirra/OU=eng/CN=alice, whose RFC 2253
    name (Kafka's principal) is "CN=alice,OU=eng,O=Mirra" (client.crt, client.key);
  - an untrusted CA (rogue-ca.crt) and a certificate of its own (rogue.crt, rogue.key) with the
    same subject and SANs as the good ones, usable as a client or a server certificate: the
    only thing wrong with it is who signed it.

`certs` is a session-scoped pytest fixture of the same (a conftest.py imports it).
"""
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

P12_PASSWORD = "keystore-secret"
CLIENT_SUBJECT = "/O=Mirra/OU=eng/CN=alice"
CLIENT_PRINCIPAL = "CN=alice,OU=eng,O=Mirra"


@dataclass(frozen=True)
class Certs:
    dir: Path
    ca_crt: Path
    ca_key: Path
    server_crt: Path
    server_key: Path
    server_keystore_pem: Path  # key, then the chain (server certificate, CA)
    server_p12: Path
    p12_password: str
    client_crt: Path
    client_key: Path
    client_principal: str
    rogue_ca_crt: Path
    rogue_crt: Path
    rogue_key: Path


def _openssl(*args, cwd):
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"openssl {' '.join(args)} failed:\n{r.stderr}"
    return r.stdout


def _ca(d, name, cn):
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
             "-out", f"{name}.crt", "-days", "3650", "-subj", f"/CN={cn}",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)


def _signed(d, name, subject, ca, ext_lines):
    """<name>.key and <name>.crt with `subject`, signed by the CA <ca>.crt/<ca>.key."""
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
             "-out", f"{name}.csr", "-subj", subject, cwd=d)
    (d / f"{name}.ext").write_text("\n".join(ext_lines) + "\n")
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-out", f"{name}.crt", "-days", "825", "-sha256",
             "-extfile", f"{name}.ext", cwd=d)


SERVER_EXT = ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment",
              "extendedKeyUsage=serverAuth", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
CLIENT_EXT = ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment",
              "extendedKeyUsage=clientAuth"]
BOTH_EXT = ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment",
            "extendedKeyUsage=serverAuth,clientAuth", "subjectAltName=DNS:localhost,IP:127.0.0.1"]


def make_certs(directory):
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    _ca(d, "ca", "Mirra Test CA")
    _signed(d, "server", "/CN=localhost", "ca", SERVER_EXT)
    _signed(d, "client", CLIENT_SUBJECT, "ca", CLIENT_EXT)
    _ca(d, "rogue-ca", "Mirra Rogue CA")
    _signed(d, "rogue", CLIENT_SUBJECT, "rogue-ca", BOTH_EXT)
    # Kafka's PEM keystore: the private key first, then the certificate chain.
    (d / "server-keystore.pem").write_text((d / "server.key").read_text()
                                           + (d / "server.crt").read_text()
                                           + (d / "ca.crt").read_text())
    _openssl("pkcs12", "-export", "-inkey", "server.key", "-in", "server.crt",
             "-certfile", "ca.crt", "-name", "server", "-out", "server.p12",
             "-passout", f"pass:{P12_PASSWORD}", cwd=d)
    verified = _openssl("verify", "-CAfile", "ca.crt", "server.crt", "client.crt", cwd=d)
    assert verified.count(": OK") == 2, verified
    subject = _openssl("x509", "-in", "client.crt", "-noout", "-subject", "-nameopt", "RFC2253",
                       cwd=d)
    assert subject.strip() == f"subject={CLIENT_PRINCIPAL}", subject
    return Certs(dir=d, ca_crt=d / "ca.crt", ca_key=d / "ca.key", server_crt=d / "server.crt",
                 server_key=d / "server.key", server_keystore_pem=d / "server-keystore.pem",
                 server_p12=d / "server.p12", p12_password=P12_PASSWORD,
                 client_crt=d / "client.crt", client_key=d / "client.key",
                 client_principal=CLIENT_PRINCIPAL, rogue_ca_crt=d / "rogue-ca.crt",
                 rogue_crt=d / "rogue.crt", rogue_key=d / "rogue.key")


@pytest.fixture(scope="session")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))
