"""The authorization matrix (issue 17, points 4 and 5) on one broker with an authorizer.

The broker has a SASL_PLAINTEXT listener with PLAIN users admin (a super user), alice and bob,
and a PLAINTEXT listener whose principal, User:ANONYMOUS, is given ALTER on the cluster (by the
admin, through kafka-python's create_acls) so that `mirra acls` can manage ACLs over it.

For every API Mirra serves (authz_matrix.ROWS, which must cover the ApiVersions list): alice,
with no ACL, is refused with Kafka's error for the API (or sees nothing, for the APIs that
filter); so is bob, who then passes the first checks and fails the next one with its error as
ACLs are added with `mirra acls`, and succeeds once he has them all; admin succeeds without
any ACL. Then the authorizer's rules through real requests: a DENY wins over literal, prefixed
and wildcard ALLOWs, super users pass even a DENY, READ/WRITE imply DESCRIBE and ALTER_CONFIGS
implies DESCRIBE_CONFIGS but a DENY implies nothing, User:* and host rules, and the idempotent
producer's "WRITE on any topic" (KIP-679). Real clients (confluent-kafka, kafka-python, kcat)
report the refusals as their own authorization errors, and `mirra mirror --command-config`
drives the mirror permissions.

Requests no real client sends are written by tests/pylib/msg_codec.py (from the repository's
message definitions) on sockets authenticated by raw_sasl.login_plain.
"""
import json
import re
import subprocess
import time

import pytest

import authz_matrix as m
from authz_matrix import CLUSTER_AUTHZ, ROWS, TOPIC_AUTHZ, Names, error_codes
from clients import KCAT
from mirra_testlib import Broker, connect, in_use, run_mirra, stop_cleanly, wait_until
from msg_codec import Connection
from raw_sasl import login_plain

PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
        + " ".join(f'user_{u}="{p}"' for u, p in PASSWORDS.items()) + ";")
SETTINGS = {
    "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
    "sasl.enabled.mechanisms": "PLAIN",
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:admin",
    "num.partitions": 1,
    "group.initial.rebalance.delay.ms": 0,
}
SASL = "SASL_PLAINTEXT"
ACL_DEADLINE = 10.0  # seconds for an ACL change to take effect (Kafka's are asynchronous too)


class Env:
    """The module's broker and the admin's helpers: raw calls as any user, resources made as
    the admin, ACLs through `mirra acls` over the PLAINTEXT listener."""

    def __init__(self, broker, tmp_path):
        self.broker = broker
        self.tmp = tmp_path

    @property
    def sasl_bootstrap(self):
        return self.broker.bootstrap_of(SASL)

    def connect(self, who):
        return Connection(login_plain(self.broker.ports[SASL], who, PASSWORDS[who]))

    def call(self, who, key, version, body, retry=m.RETRIABLE, deadline=m.RETRY_DEADLINE):
        """One request as `who` on a new connection; a coordinator still loading is retried."""
        end = time.monotonic() + deadline
        while True:
            with self.connect(who) as c:
                resp = c.call(key, version, body)
            if not set(error_codes(resp)) & set(retry) or time.monotonic() > end:
                return resp
            time.sleep(0.05)  # polling interval while a coordinator loads

    def admin_ok(self, key, version, body, ok=(0,), what=""):
        resp = self.call("admin", key, version, body, retry=m.RETRIABLE | m.ADMIN_RETRIABLE)
        assert set(error_codes(resp)) <= set(ok), (what, resp)
        return resp

    # --- resources ----------------------------------------------------------------------------

    def create_topic(self, name, partitions=1):
        self.admin_ok(19, 7, {"topics": [{"name": name, "num_partitions": partitions,
                                          "replication_factor": 1}]}, ok=(0, 36), what=name)

    def produce(self, topic, values, partition=0):
        self.admin_ok(0, 9, {"acks": -1, "timeout_ms": 10000, "topic_data": [
            {"name": topic, "partition_data": [{"index": partition,
                                                "records": m.batch(values)}]}]}, what=topic)

    def commit(self, group, topic, offset):
        self.admin_ok(8, 9, {"group_id": group, "generation_id_or_member_epoch": -1,
                             "member_id": "", "topics": [{"name": topic, "partitions": [
                                 {"partition_index": 0, "committed_offset": offset,
                                  "committed_metadata": ""}]}]}, what=group)

    def init_producer_id(self, txn):
        r = self.admin_ok(22, 4, {"transactional_id": txn, "transaction_timeout_ms": 60000},
                          what=txn)
        return r["producer_id"], r["producer_epoch"]

    def add_partition(self, n, topic):
        self.admin_ok(24, 3, {"v3_and_below_transactional_id": n.txn,
                              "v3_and_below_producer_id": n.pid,
                              "v3_and_below_producer_epoch": n.epoch,
                              "v3_and_below_topics": [{"name": topic, "partitions": [0]}]},
                      what=n.txn)

    def add_offsets(self, n, group):
        self.admin_ok(25, 4, {"transactional_id": n.txn, "producer_id": n.pid,
                              "producer_epoch": n.epoch, "group_id": group}, what=n.txn)

    def create_mirror(self, name, source=m.DEAD_SOURCE):
        self.admin_ok(94, 0, {"mirror_name": name, "configs": [
            {"name": "bootstrap.servers", "value": source}]}, what=name)

    # --- what the admin sees (a refused call changed nothing) ---------------------------------

    def offsets(self, topic):
        """(log start, log end) of partition 0."""
        def at(ts):
            r = self.admin_ok(2, 9, {"replica_id": -1, "topics": [{"name": topic, "partitions": [
                {"partition_index": 0, "timestamp": ts}]}], "timeout_ms": 5000}, what=topic)
            return r["topics"][0]["partitions"][0]["offset"]
        return at(-2), at(-1)

    def partition_count(self, topic):
        """Partitions of `topic`, None if it does not exist."""
        r = self.admin_ok(3, 12, {"topics": [{"name": topic}], "allow_auto_topic_creation": False},
                          ok=(0, 3), what=topic)
        (t,) = r["topics"]
        return None if t["error_code"] == 3 else len(t["partitions"])

    def committed(self, group, topic):
        r = self.admin_ok(9, 8, {"groups": [{"group_id": group, "topics": [
            {"name": topic, "partition_indexes": [0]}]}]}, what=group)
        return r["groups"][0]["topics"][0]["partitions"][0]["committed_offset"]

    def mirrors(self):
        return {x["name"] for x in self.admin_ok(98, 0, {})["mirrors"]}

    def acls_named(self, name):
        r = self.admin_ok(29, 3, {"resource_type_filter": 1, "resource_name_filter": name,
                                  "pattern_type_filter": 1, "principal_filter": None,
                                  "host_filter": None, "operation": 1, "permission_type": 1})
        return r["resources"]

    # --- ACLs ---------------------------------------------------------------------------------

    def acls(self, *args):
        r = run_mirra("acls", "--bootstrap-server", self.broker.bootstrap, *args)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r.stdout

    def grant(self, principal, grants, deny=False, host=None, pattern=None):
        for op, resource, name in grants:
            self.acls(*self._acl_args("--add", principal, op, resource, name, deny, host,
                                      pattern))

    def revoke(self, principal, grants, deny=False, host=None, pattern=None):
        for op, resource, name in grants:
            self.acls(*self._acl_args("--remove", principal, op, resource, name, deny, host,
                                      pattern), "--force")

    @staticmethod
    def _acl_args(action, principal, op, resource, name, deny, host, pattern):
        who = "--deny-principal" if deny else "--allow-principal"
        args = [action, who, principal, "--operation", op, resource]
        if name is not None:
            args.append(name)
        if host is not None:
            args += ["--deny-host" if deny else "--allow-host", host]
        if pattern is not None:
            args += ["--resource-pattern-type", pattern]
        return args


@pytest.fixture(scope="module")
def authz_broker(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("authz"), SETTINGS, name="authz-broker",
               listeners={"PLAINTEXT": "PLAINTEXT", SASL: SASL})
    b.start()
    yield b
    stop_cleanly(b)


@pytest.fixture(scope="module")
def env(authz_broker, tmp_path_factory):
    """The broker, with User:ANONYMOUS (the PLAINTEXT listener) allowed to manage ACLs: granted
    by the super user through a real client's CreateAcls."""
    from kafka.admin import (ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType,
                             KafkaAdminClient, ResourcePattern, ResourceType)
    admin = KafkaAdminClient(bootstrap_servers=authz_broker.bootstrap_of(SASL),
                             security_protocol=SASL, sasl_mechanism="PLAIN",
                             sasl_plain_username="admin", sasl_plain_password="admin-secret",
                             request_timeout_ms=15000)
    try:
        acl = ACL(principal="User:ANONYMOUS", host="*", operation=ACLOperation.ALTER,
                  permission_type=ACLPermissionType.ALLOW,
                  resource_pattern=ResourcePattern(ResourceType.CLUSTER, "kafka-cluster",
                                                   ACLResourcePatternType.LITERAL))
        result = admin.create_acls([acl])
        assert result["succeeded"] == [acl] and not result["failed"], result
    finally:
        admin.close()
    return Env(authz_broker, tmp_path_factory.mktemp("authz-env"))


@pytest.fixture
def e(env):
    in_use(env.broker)
    return env


# --- the matrix ---------------------------------------------------------------------------------

def advertised(env):
    """{key: (min, max)} from ApiVersions v3, asked as alice (it needs no ACL)."""
    with env.connect("alice") as c:
        r = c.call(18, 3, {"client_software_name": "pytest", "client_software_version": "1"})
    assert r["error_code"] == 0, r
    return {a["api_key"]: (a["min_version"], a["max_version"]) for a in r["api_keys"]}


def test_every_served_api_has_a_row(e):
    served = set(advertised(e)) - set(m.NO_ACL_APIS)
    rows = {r.key for r in ROWS}
    assert not served - rows, f"APIs without a row: {sorted(served - rows)}"
    assert not rows - served, f"rows of APIs not served: {sorted(rows - served)}"


def check(e, row, who, n, expect):
    """Calls `row` as `who` on n's resources. `expect`: an error code every error of the answer
    must equal, "ok" (row.ok), or None for the row's own verify()."""
    resp = e.call(who, row.key, row.version, row.request(n))
    codes = error_codes(resp)
    if row.verify is not None:
        return row.verify(who, resp, n, expect == "ok")
    if expect == "ok":
        if row.ok is m.NOT_AUTHZ:
            assert not set(codes) & m.AUTHZ_ERRORS, (row.name, who, resp)
        else:
            assert set(codes) <= row.ok, (row.name, who, resp)
        return resp
    # The refused resource's error (a top-level error code of 0 around it is fine).
    assert set(codes) - {0} == {expect}, (row.name, who, expect, resp)
    return resp


def eventually(e, row, who, n, expect):
    """check() until it passes or ACL_DEADLINE passes (an ACL change takes effect then)."""
    last = []

    def attempt():
        try:
            check(e, row, who, n, expect)
            return True
        except AssertionError as err:
            last[:] = [err]
            return False
    try:
        wait_until(attempt, ACL_DEADLINE, f"{row.name} as {who} to give {expect}")
    except AssertionError:
        raise last[0] if last else AssertionError(row.name)


@pytest.mark.parametrize("row", ROWS, ids=[r.slug for r in ROWS])
def test_matrix(e, row):
    versions = advertised(e)
    assert row.key in versions, f"{row.name}: API {row.key} is not advertised"
    lo, hi = versions[row.key]
    assert lo <= row.version <= hi, f"{row.name}: v{row.version} outside {lo}-{hi}"
    names = {who: Names(row.slug, who) for who in ("alice", "bob", "admin")}
    if row.setup is not None:
        for n in names.values():
            row.setup(e, n)

    refused = row.refused  # None: the row filters (its verify() checks what alice sees)
    for who in ("alice", "bob"):
        check(e, row, who, names[who], refused)
        if row.intact is not None:
            row.intact(e, names[who])

    bob = names["bob"]
    granted = []
    try:
        for grants, error in row.partial:
            new = [g for g in grants(bob) if g not in granted]
            e.grant("User:bob", new)
            granted += new
            eventually(e, row, "bob", bob, error)
        new = [g for g in row.grants(bob) if g not in granted]
        e.grant("User:bob", new)
        granted += new
        eventually(e, row, "bob", bob, "ok")
    finally:
        e.revoke("User:bob", granted)

    check(e, row, "admin", names["admin"], "ok")
    for mirror in e.mirrors():  # the row's mirrors (of a dead source) go, to keep the log quiet
        if mirror.startswith(f"az-m-{row.slug}-"):
            e.admin_ok(104, 0, {"mirror_name": mirror}, what=mirror)


# --- the authorizer's rules through real requests ------------------------------------------------

def produce_errors(e, who, topic):
    return set(error_codes(e.call(who, 0, 9, {"acks": -1, "timeout_ms": 10000, "topic_data": [
        {"name": topic, "partition_data": [{"index": 0, "records": m.batch([b"v"])}]}]})))


def wait_errors(e, fn, expected, what):
    wait_until(lambda: fn() == expected, ACL_DEADLINE, f"{what} to give {expected}")


def test_deny_wins_over_literal_prefixed_and_wildcard_allows(e):
    for t in ("az-deny-open", "az-deny-secret", "az-other"):
        e.create_topic(t)
    allow_prefix = [("Write", "--topic", "az-deny-")]
    allow_all = [("Write", "--topic", "*")]
    allow_literal = [("Write", "--topic", "az-deny-secret")]
    deny = [("Write", "--topic", "az-deny-secret")]
    deny_admin = [("All", "--topic", "az-deny-")]
    try:
        e.grant("User:bob", allow_prefix, pattern="prefixed")
        wait_errors(e, lambda: produce_errors(e, "bob", "az-deny-open"), {0}, "prefixed ALLOW")
        assert produce_errors(e, "bob", "az-deny-secret") == {0}
        assert produce_errors(e, "bob", "az-other") == {TOPIC_AUTHZ}
        assert produce_errors(e, "alice", "az-deny-open") == {TOPIC_AUTHZ}

        e.grant("User:bob", deny, deny=True)
        wait_errors(e, lambda: produce_errors(e, "bob", "az-deny-secret"), {TOPIC_AUTHZ},
                    "literal DENY over prefixed ALLOW")
        assert produce_errors(e, "bob", "az-deny-open") == {0}

        e.grant("User:bob", allow_all + allow_literal)
        wait_errors(e, lambda: produce_errors(e, "bob", "az-other"), {0}, "wildcard ALLOW")
        assert produce_errors(e, "bob", "az-deny-secret") == {TOPIC_AUTHZ}, "DENY must win"

        # A super user passes before any ACL is looked at, even a DENY naming it.
        e.grant("User:admin", deny_admin, deny=True, pattern="prefixed")
        assert produce_errors(e, "admin", "az-deny-secret") == {0}

        # DENY for every user on a prefix: alice and bob alike, whatever bob's ALLOWs.
        e.grant("User:*", [("Write", "--topic", "az-deny-o")], deny=True, pattern="prefixed")
        wait_errors(e, lambda: produce_errors(e, "bob", "az-deny-open"), {TOPIC_AUTHZ},
                    "prefixed DENY for User:*")
        e.revoke("User:*", [("Write", "--topic", "az-deny-o")], deny=True, pattern="prefixed")
        wait_errors(e, lambda: produce_errors(e, "bob", "az-deny-open"), {0},
                    "the DENY removed")
    finally:
        e.revoke("User:bob", allow_prefix, pattern="prefixed")
        e.revoke("User:bob", allow_all + allow_literal)
        e.revoke("User:bob", deny, deny=True)
        e.revoke("User:admin", deny_admin, deny=True, pattern="prefixed")
    wait_errors(e, lambda: produce_errors(e, "bob", "az-other"), {TOPIC_AUTHZ}, "ACLs removed")


def topic_errors(e, who, key, version, body_of, topic):
    resp = e.call(who, key, version, body_of(Names("", who)) | body_topic(key, topic))
    # The topic's own answers: Fetch's top-level error_code is 0 whenever the request as a
    # whole is fine, whatever its partitions say.
    if isinstance(resp, dict):
        resp = {k: v for k, v in resp.items() if k != "error_code"}
    return set(error_codes(resp))


def body_topic(key, topic):
    """The topic-naming part of the requests the implication test sends."""
    if key == 2:
        return {"topics": [{"name": topic, "partitions": [{"partition_index": 0,
                                                           "timestamp": -1}]}]}
    if key == 1:
        return {"topics": [{"topic": topic, "partitions": [
            {"partition": 0, "fetch_offset": 0, "partition_max_bytes": 1 << 20}]}]}
    if key == 32:
        return {"resources": [{"resource_type": m.TOPIC, "resource_name": topic,
                               "configuration_keys": None}]}
    if key == 3:
        return {"topics": [{"name": topic}]}
    raise AssertionError(f"no topic body for API {key}")


LIST_OFFSETS = (2, 9, m.list_offsets)
FETCH = (1, 12, m.fetch)
DESCRIBE_CONFIGS = (32, 4, lambda n: {})
METADATA = (3, 12, m.metadata_named)


@pytest.mark.parametrize("op", ["Read", "Write", "Delete", "Alter"])
def test_allow_implies_describe(e, op):
    topic = f"az-implied-{op.lower()}"
    e.create_topic(topic)
    grants = [(op, "--topic", topic)]
    assert topic_errors(e, "bob", *LIST_OFFSETS, topic) == {TOPIC_AUTHZ}
    try:
        e.grant("User:bob", grants)
        wait_errors(e, lambda: topic_errors(e, "bob", *LIST_OFFSETS, topic), {0},
                    f"{op} implying DESCRIBE (ListOffsets)")
        assert topic_errors(e, "bob", *METADATA, topic) == {0}
    finally:
        e.revoke("User:bob", grants)


def test_alter_configs_implies_describe_configs_and_deny_implies_nothing(e):
    topic = "az-implied-configs"
    e.create_topic(topic)
    e.produce(topic, [b"x"])
    alter = [("AlterConfigs", "--topic", topic)]
    describe = [("Describe", "--topic", topic)]
    deny_read = [("Read", "--topic", topic)]
    try:
        assert topic_errors(e, "bob", *DESCRIBE_CONFIGS, topic) == {TOPIC_AUTHZ}
        e.grant("User:bob", alter)
        wait_errors(e, lambda: topic_errors(e, "bob", *DESCRIBE_CONFIGS, topic), {0},
                    "ALTER_CONFIGS implying DESCRIBE_CONFIGS")
        assert topic_errors(e, "bob", *LIST_OFFSETS, topic) == {TOPIC_AUTHZ}, \
            "ALTER_CONFIGS does not imply DESCRIBE"
        # A DENY READ does not deny DESCRIBE: ListOffsets passes, Fetch does not.
        e.grant("User:bob", describe)
        e.grant("User:bob", deny_read, deny=True)
        wait_errors(e, lambda: topic_errors(e, "bob", *FETCH, topic), {TOPIC_AUTHZ},
                    "DENY READ")
        assert topic_errors(e, "bob", *LIST_OFFSETS, topic) == {0}
    finally:
        e.revoke("User:bob", alter + describe)
        e.revoke("User:bob", deny_read, deny=True)


def test_everyone_and_host_rules(e):
    topic = "az-hosts"
    e.create_topic(topic)
    e.produce(topic, [b"x"])
    read = [("Read", "--topic", topic)]
    try:
        # User:* lets alice read; bob too.
        e.grant("User:*", read)
        wait_errors(e, lambda: topic_errors(e, "alice", *FETCH, topic), {0}, "User:* READ")
        assert topic_errors(e, "bob", *FETCH, topic) == {0}
        e.revoke("User:*", read)
        wait_errors(e, lambda: topic_errors(e, "alice", *FETCH, topic), {TOPIC_AUTHZ},
                    "User:* removed")

        # An ALLOW from another host does not count; one from the client's address does.
        e.grant("User:bob", read, host="10.1.2.3")
        time_limit = time.monotonic() + 1.0
        while time.monotonic() < time_limit:  # it must stay refused while the ACL is there
            assert topic_errors(e, "bob", *FETCH, topic) == {TOPIC_AUTHZ}
        e.grant("User:bob", read, host="127.0.0.1")
        wait_errors(e, lambda: topic_errors(e, "bob", *FETCH, topic), {0}, "ALLOW from 127.0.0.1")

        # A DENY from another host does not deny; one from the client's address does.
        e.grant("User:bob", read, deny=True, host="10.9.9.9")
        assert topic_errors(e, "bob", *FETCH, topic) == {0}
        e.grant("User:bob", read, deny=True, host="127.0.0.1")
        wait_errors(e, lambda: topic_errors(e, "bob", *FETCH, topic), {TOPIC_AUTHZ},
                    "DENY from 127.0.0.1")
    finally:
        e.revoke("User:*", read)
        for host in ("10.1.2.3", "127.0.0.1"):
            e.revoke("User:bob", read, host=host)
        for host in ("10.9.9.9", "127.0.0.1"):
            e.revoke("User:bob", read, deny=True, host=host)


def test_idempotent_producer_with_write_on_any_topic(e):
    """KIP-679: InitProducerId without a transactional id passes with WRITE on any topic."""
    body = {"transactional_id": None, "transaction_timeout_ms": 60000}
    codes = lambda: set(error_codes(e.call("bob", 22, 4, body)))  # noqa: E731
    assert codes() == {CLUSTER_AUTHZ}
    grants = [("Write", "--topic", "az-kip679")]
    try:
        e.grant("User:bob", grants)
        wait_errors(e, codes, {0}, "WRITE on a topic allowing an idempotent producer")
    finally:
        e.revoke("User:bob", grants)


# --- real clients -----------------------------------------------------------------------------

def confluent_conf(e, who, **more):
    return {"bootstrap.servers": e.sasl_bootstrap, "security.protocol": "sasl_plaintext",
            "sasl.mechanisms": "PLAIN", "sasl.username": who, "sasl.password": PASSWORDS[who],
            **more}


def confluent_produce(e, who, topic):
    """The delivery report's error (None when delivered) of one record."""
    from confluent_kafka import Producer
    p = Producer(confluent_conf(e, who, **{"message.timeout.ms": 10000}))
    reports = []
    p.produce(topic, value=b"v", on_delivery=lambda err, msg: reports.append(err))
    p.flush(15)
    assert len(reports) == 1, reports
    return reports[0]


def confluent_consume(e, who, topic):
    """(records, error codes) of a consumer assigned partition 0 from offset 0, polled until it
    has a record or a TOPIC_AUTHORIZATION_FAILED, or 15 s have passed. The group is never
    joined (assign()), but librdkafka still looks up its coordinator."""
    from confluent_kafka import Consumer, KafkaError, TopicPartition
    c = Consumer(confluent_conf(e, who, **{"group.id": consumer_group(who),
                                           "enable.auto.commit": False}))
    records, errors = [], []
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not records and not consume_refused(errors):
            msg = c.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                errors.append(msg.error().code())
            else:
                records.append(msg.value())
    finally:
        c.close()
    return records, errors


def consume_refused(errors):
    from confluent_kafka import KafkaError
    return bool({KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.GROUP_AUTHORIZATION_FAILED}
                & set(errors))


def consumer_group(who):
    return f"az-assign-only-{who}"


def test_confluent_kafka_producer_and_consumer(e):
    from confluent_kafka import KafkaError
    topic = "az-confluent"
    e.create_topic(topic)
    err = confluent_produce(e, "alice", topic)
    assert err is not None and err.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED, err
    assert confluent_produce(e, "admin", topic) is None
    records, errors = confluent_consume(e, "alice", topic)
    # librdkafka reports whichever refusal comes first: the group's coordinator lookup (30,
    # alice may not DESCRIBE the group) or the topic (29).
    assert not records and consume_refused(errors), errors

    grants = [("Write", "--topic", topic), ("Read", "--topic", topic),
              ("Read", "--group", consumer_group("bob"))]
    try:
        e.grant("User:bob", grants)
        wait_until(lambda: confluent_produce(e, "bob", topic) is None, ACL_DEADLINE,
                   "bob's record delivered")
        records, errors = confluent_consume(e, "bob", topic)
        assert records and not errors, (records, errors)
    finally:
        e.revoke("User:bob", grants)


def confluent_admin_error(future):
    """The KafkaError code a confluent-kafka AdminClient future fails with (None: it worked)."""
    from confluent_kafka import KafkaException
    try:
        future.result(timeout=15)
        return None
    except KafkaException as err:
        return err.args[0].code()


def test_confluent_kafka_admin_client(e):
    from confluent_kafka import KafkaError
    from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions, NewTopic
    e.create_topic("az-ca")
    e.produce("az-ca", [b"a"])
    e.commit("az-ca-group", "az-ca", 1)

    def admin(who):
        return AdminClient(confluent_conf(e, who))
    for who, topic_err, cluster_err in (("alice", KafkaError.TOPIC_AUTHORIZATION_FAILED,
                                         KafkaError.CLUSTER_AUTHORIZATION_FAILED),
                                        ("admin", None, None)):
        a = admin(who)
        (f,) = a.create_topics([NewTopic(f"az-ca-{who}", 1, 1)]).values()
        assert confluent_admin_error(f) == topic_err, who
        (f,) = a.create_partitions([NewPartitions("az-ca", 2 if who == "admin" else 3)]).values()
        assert confluent_admin_error(f) == topic_err, who
        (f,) = a.describe_configs([ConfigResource(ConfigResource.Type.BROKER, "1")]).values()
        assert confluent_admin_error(f) == cluster_err, who
        groups = {g.id for g in a.list_groups(timeout=15)}
        assert ("az-ca-group" in groups) == (who == "admin"), (who, groups)
    assert e.partition_count("az-ca-alice") is None and e.partition_count("az-ca") == 2


def test_kafka_python_admin(e):
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.errors import TopicAuthorizationFailedError

    def admin(who):
        return KafkaAdminClient(bootstrap_servers=e.sasl_bootstrap, security_protocol=SASL,
                                sasl_mechanism="PLAIN", sasl_plain_username=who,
                                sasl_plain_password=PASSWORDS[who], request_timeout_ms=15000)
    e.create_topic("az-kp-hidden")
    a = admin("alice")
    try:
        with pytest.raises(TopicAuthorizationFailedError):
            a.create_topics([NewTopic("az-kp-alice", 1, 1)])
        assert a.list_topics() == []
    finally:
        a.close()
    assert e.partition_count("az-kp-alice") is None
    root = admin("admin")
    try:
        root.create_topics([NewTopic("az-kp-admin", 1, 1)])
        assert {"az-kp-admin", "az-kp-hidden"} <= set(root.list_topics())
    finally:
        root.close()


def kcat_topics(e, who):
    r = subprocess.run([KCAT, "-b", e.sasl_bootstrap, "-L", "-J", "-m", "10",
                        "-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=PLAIN",
                        "-X", f"sasl.username={who}", "-X", f"sasl.password={PASSWORDS[who]}"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return {t["topic"] for t in json.loads(r.stdout)["topics"]}


def test_kcat_metadata_hides_unauthorized_topics(e):
    e.create_topic("az-kcat")
    assert "az-kcat" not in kcat_topics(e, "alice")
    assert "az-kcat" in kcat_topics(e, "admin")
    grants = [("Describe", "--topic", "az-kcat")]
    try:
        e.grant("User:alice", grants)
        wait_until(lambda: "az-kcat" in kcat_topics(e, "alice"), ACL_DEADLINE,
                   "alice seeing az-kcat")
    finally:
        e.revoke("User:alice", grants)


# --- mirror permissions through `mirra mirror` -------------------------------------------------

def command_config(e, who):
    path = e.tmp / f"{who}.properties"
    path.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
                    f'required username="{who}" password="{PASSWORDS[who]}";\n')
    return str(path)


def mirror_cli(e, who, *args):
    return run_mirra("mirror", "--bootstrap-server", e.sasl_bootstrap, "--command-config",
                     command_config(e, who), *args)


REFUSED_LINE = re.compile(r"(?i)CLUSTER_AUTHORIZATION_FAILED|not authorized .*cluster")


def refused(r, what):
    """`mirra mirror` refused with CLUSTER_AUTHORIZATION_FAILED: exit code 1, one line."""
    assert r.returncode == 1, (what, r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and REFUSED_LINE.search(lines[0]), (what, r.stderr)


def succeeded(r, what):
    assert r.returncode == 0, (what, r.returncode, r.stdout, r.stderr)
    return r.stdout


def test_mirror_operations_need_cluster_action(e, make_broker):
    source = make_broker(name="authz-source")
    topic = "az-mirrored"
    with Connection(connect(source.port)) as c:  # the source has no authorizer
        r = c.call(19, 7, {"topics": [{"name": topic, "num_partitions": 1,
                                       "replication_factor": 1}]})
        assert error_codes(r) == [0], r
    cfg = e.tmp / "mirror.properties"
    cfg.write_text(f"bootstrap.servers={source.bootstrap}\n")
    mirror = "az-dr"
    changes = [("--create", "--mirror", mirror, "--mirror-config", str(cfg)),
               ("--add", "--mirror", mirror, "--topic", topic),
               ("--pause", "--mirror", mirror, "--topic", topic),
               ("--resume", "--mirror", mirror, "--topic", topic),
               ("--remove", "--mirror", mirror, "--topic", topic),
               ("--delete", "--mirror", mirror)]
    reads = [("--list",), ("--describe",)]

    # Nobody but the super user without ACLs.
    for who in ("alice", "bob"):
        for args in changes[:1] + reads:
            refused(mirror_cli(e, who, *args), (who, args))

    action = [("ClusterAction", "--cluster", None)]
    describe = [("Describe", "--cluster", None)]
    try:
        e.grant("User:bob", action)
        wait_until(lambda: mirror_cli(e, "bob", *changes[0]).returncode == 0, ACL_DEADLINE,
                   "bob creating the mirror with CLUSTER_ACTION")
        for args in changes[1:-1]:
            refused(mirror_cli(e, "alice", *args), ("alice", args))
            succeeded(mirror_cli(e, "bob", *args), ("bob", args))
            if args[0] == "--add":
                # CLUSTER_ACTION does not imply DESCRIBE: bob cannot list or describe yet.
                for r in reads:
                    refused(mirror_cli(e, "bob", *r), ("bob without DESCRIBE", r))
                e.grant("User:bob", describe)
                wait_until(lambda: mirror_cli(e, "bob", "--list").returncode == 0,
                           ACL_DEADLINE, "bob listing with DESCRIBE")
                assert mirror in succeeded(mirror_cli(e, "bob", "--list"), "list")
                assert topic in succeeded(mirror_cli(e, "bob", "--describe"), "describe")
                for r in reads:
                    refused(mirror_cli(e, "alice", *r), ("alice", r))
        refused(mirror_cli(e, "alice", *changes[-1]), ("alice", changes[-1]))
        # The failover above stops the topic; the mirror can go once it says so.
        wait_until(lambda: mirror_cli(e, "bob", *changes[-1]).returncode == 0, ACL_DEADLINE,
                   "bob deleting the mirror")
        assert mirror not in succeeded(mirror_cli(e, "admin", "--list"), "admin list")
    finally:
        e.revoke("User:bob", action + describe)
    stop_cleanly(source)
