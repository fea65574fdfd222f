"""A client's security settings in one neutral form, translated into each client's own options
(clients.py passes them on): librdkafka's (kcat `-X`, confluent-kafka), kafka-python's keyword
arguments, and a JSON form the Node drivers turn into kafkajs' `ssl`/`sasl` and
@platformatic/kafka's `tls`/`sasl` options (tests/interop/node/common.js)."""
from dataclasses import dataclass, replace
from typing import Optional


@dataclass(frozen=True)
class Security:
    protocol: str = "PLAINTEXT"       # PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
    mechanism: Optional[str] = None   # PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
    username: Optional[str] = None
    password: Optional[str] = None
    ca: Optional[str] = None          # the CA the client trusts (PEM file)
    cert: Optional[str] = None        # the client's certificate (PEM file) ...
    key: Optional[str] = None         # ... and its private key (PKCS#8 PEM file)

    @property
    def tls(self):
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl(self):
        return self.protocol in ("SASL_PLAINTEXT", "SASL_SSL")

    def but(self, **changes):
        return replace(self, **changes)

    def __str__(self):
        what = [self.protocol]
        if self.sasl:
            what.append(f"{self.mechanism} as {self.username}")
        if self.cert:
            what.append(f"cert {self.cert}")
        return " ".join(what)

    def librdkafka(self):
        conf = {"security.protocol": self.protocol.lower()}
        if self.tls:
            conf["ssl.ca.location"] = str(self.ca)
            if self.cert:
                conf["ssl.certificate.location"] = str(self.cert)
                conf["ssl.key.location"] = str(self.key)
        if self.sasl:
            conf.update({"sasl.mechanisms": self.mechanism, "sasl.username": self.username,
                         "sasl.password": self.password})
        return conf

    def kafka_python(self):
        kw = {"security_protocol": self.protocol}
        if self.tls:
            kw["ssl_cafile"] = str(self.ca)
            if self.cert:
                kw.update(ssl_certfile=str(self.cert), ssl_keyfile=str(self.key))
        if self.sasl:
            kw.update(sasl_mechanism=self.mechanism, sasl_plain_username=self.username,
                      sasl_plain_password=self.password)
        return kw

    def node(self):
        return {k: (None if v is None else str(v)) for k, v in
                (("protocol", self.protocol), ("mechanism", self.mechanism),
                 ("username", self.username), ("password", self.password), ("ca", self.ca),
                 ("cert", self.cert), ("key", self.key))}


def librdkafka_conf(security):
    return {} if security is None else security.librdkafka()


def kafka_python_conf(security):
    return {} if security is None else security.kafka_python()
