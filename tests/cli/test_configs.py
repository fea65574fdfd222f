"""`mirra configs` (kafka-configs.sh's options) against a real `mirra server`: topic and broker
configs (DescribeConfigs with synonyms, IncrementalAlterConfigs SET and DELETE), client quotas
(DescribeClientQuotas, AlterClientQuotas) for users, client ids, both, and their defaults, and
the option refusals, one line each.

The quota tests (test_quotas_*) need the broker's DescribeClientQuotas and AlterClientQuotas
handlers (issue 18); they are written against Kafka's behaviour and fail on a broker without
them."""
import re
import socket

from conftest import TIMEOUT, assert_one_line_error, mirra
from msg_codec import Connection

INVALID_REQUEST = 42


def configs(server, *args):
    return mirra("configs", "--bootstrap-server", server.bootstrap, *args)


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert r.stderr == "", r.stderr
    return r.stdout


def lines(server, *args):
    return ok(configs(server, "--describe", *args)).splitlines()


def entry(line):
    """'  k=v sensitive=false synonyms={S:k=v, ...}' -> (k, v, sensitive, [synonyms])."""
    m = re.fullmatch(r"  ([^=]+)=(.*) sensitive=(true|false) synonyms=\{(.*)\}", line)
    assert m, line
    synonyms = m.group(4).split(", ") if m.group(4) else []
    return m.group(1), m.group(2), m.group(3) == "true", synonyms


def topic_entries(server, topic, *extra):
    out = lines(server, "--entity-type", "topics", "--entity-name", topic, *extra)
    assert out[0] == f"{'All' if extra else 'Dynamic'} configs for topic {topic} are:", out
    return [entry(x) for x in out[1:]]


# --- topics ----------------------------------------------------------------------------------

def test_topic_configs_are_described_altered_and_deleted(server):
    ok(mirra("topics", "--bootstrap-server", server.bootstrap, "--create", "--topic", "t1",
             "--config", "retention.ms=3600000"))
    ok(mirra("topics", "--bootstrap-server", server.bootstrap, "--create", "--topic", "t2"))

    got = topic_entries(server, "t1")
    assert [(k, v, s) for k, v, s, _ in got] == [("retention.ms", "3600000", False)]
    # The synonyms, most specific first: the topic's own value, then what it falls back to.
    assert got[0][3][0] == "DYNAMIC_TOPIC_CONFIG:retention.ms=3600000", got
    assert len(got[0][3]) >= 2 and not got[0][3][1].startswith("DYNAMIC_TOPIC_CONFIG"), got

    topic = ["--entity-type", "topics", "--entity-name", "t1"]
    assert ok(configs(server, "--alter", *topic, "--add-config",
                      "cleanup.policy=[compact,delete],segment.ms=600000")) \
        == "Completed updating config for topic t1.\n"
    assert [(k, v) for k, v, _, _ in topic_entries(server, "t1")] == [
        ("cleanup.policy", "compact,delete"), ("retention.ms", "3600000"),
        ("segment.ms", "600000")]

    assert ok(configs(server, "--alter", *topic, "--delete-config", "retention.ms,segment.ms")) \
        == "Completed updating config for topic t1.\n"
    assert [k for k, _, _, _ in topic_entries(server, "t1")] == ["cleanup.policy"]
    # Both in one run: SET and DELETE operations of one request.
    ok(configs(server, "--alter", *topic, "--add-config", "retention.ms=1000",
               "--delete-config", "cleanup.policy"))
    assert [(k, v) for k, v, _, _ in topic_entries(server, "t1")] == [("retention.ms", "1000")]

    # --all: every config, the defaults with their source.
    everything = topic_entries(server, "t1", "--all")
    by_key = {k: (v, syn) for k, v, _, syn in everything}
    assert by_key["retention.ms"][0] == "1000"
    assert by_key["cleanup.policy"][0] == "delete"
    assert by_key["cleanup.policy"][1][0].startswith("DEFAULT_CONFIG:"), by_key["cleanup.policy"]
    assert [k for k, _, _, _ in everything] == sorted(by_key)

    # Without a name: every topic, one block each.
    out = lines(server, "--entity-type", "topics")
    assert [x for x in out if not x.startswith("  ")] == [
        "Dynamic configs for topic t1 are:", "Dynamic configs for topic t2 are:"]


def test_topic_config_refusals(server):
    ok(mirra("topics", "--bootstrap-server", server.bootstrap, "--create", "--topic", "t1"))
    topic = ["--alter", "--entity-type", "topics", "--entity-name", "t1"]
    # kafka-configs.sh refuses to delete a config the topic does not set.
    assert_one_line_error(configs(server, *topic, "--delete-config", "retention.ms"),
                          "mirra configs:", "Invalid config(s): retention.ms")
    # The broker's refusals: an unknown key, a bad value, an unknown topic.
    assert_one_line_error(configs(server, *topic, "--add-config", "no.such.config=1"),
                          "mirra configs:", "no.such.config")
    assert_one_line_error(configs(server, *topic, "--add-config", "retention.ms=soon"),
                          "mirra configs:", "retention.ms")
    assert_one_line_error(configs(server, "--alter", "--entity-type", "topics", "--entity-name",
                                  "nope", "--add-config", "retention.ms=1"),
                          "mirra configs:", "nope")
    assert_one_line_error(configs(server, "--describe", "--entity-type", "topics",
                                  "--entity-name", "nope"), "mirra configs:", "nope")
    # Nothing changed.
    assert topic_entries(server, "t1") == []


# --- brokers ---------------------------------------------------------------------------------

def test_broker_configs_default_and_per_broker(server):
    out = lines(server, "--entity-type", "brokers")
    headers = [x for x in out if not x.startswith("  ")]
    assert len(headers) == 2 and headers[1] == "Default configs for brokers in the cluster are:"
    m = re.fullmatch(r"Dynamic configs for broker (\d+) are:", headers[0])
    assert m, headers
    node = m.group(1)

    default = ["--entity-type", "brokers", "--entity-default"]
    assert lines(server, *default) == ["Default configs for brokers in the cluster are:"]
    assert ok(configs(server, "--alter", *default, "--add-config",
                      "log.retention.ms=7200000,log.cleanup.policy=[compact,delete]")) \
        == "Completed updating default config for brokers in the cluster.\n"
    got = [entry(x) for x in lines(server, *default)[1:]]
    assert [(k, v) for k, v, _, _ in got] == [("log.cleanup.policy", "compact,delete"),
                                              ("log.retention.ms", "7200000")]
    assert got[1][3][0] == "DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=7200000", got
    # A topic without its own value now takes the cluster-wide default.
    ok(mirra("topics", "--bootstrap-server", server.bootstrap, "--create", "--topic", "t1"))
    by_key = {k: (v, syn) for k, v, _, syn in topic_entries(server, "t1", "--all")}
    assert by_key["retention.ms"][0] == "7200000", by_key["retention.ms"]

    # The broker's own entry: its dynamic configs only (the cluster-wide ones are not its own).
    broker = ["--entity-type", "brokers", "--entity-name", node]
    assert lines(server, *broker) == [f"Dynamic configs for broker {node} are:"]
    everything = lines(server, *broker, "--all")
    assert everything[0] == f"All configs for broker {node} are:"
    assert any(x.startswith("  log.retention.ms=7200000 ") for x in everything), everything

    assert ok(configs(server, "--alter", *default, "--delete-config", "log.retention.ms")) \
        == "Completed updating default config for brokers in the cluster.\n"
    assert [entry(x)[0] for x in lines(server, *default)[1:]] == ["log.cleanup.policy"]
    assert_one_line_error(configs(server, "--alter", *default, "--delete-config",
                                  "log.retention.ms"), "Invalid config(s): log.retention.ms")
    # Refusals: a name that is not a broker id (here), another broker's id (the broker).
    assert_one_line_error(configs(server, "--describe", "--entity-type", "brokers",
                                  "--entity-name", "one"), "must be a broker id")
    assert_one_line_error(configs(server, "--describe", "--entity-type", "brokers",
                                  "--entity-name", str(int(node) + 100)), "mirra configs:")
    assert_one_line_error(configs(server, "--alter", *default, "--add-config", "no.such=1"),
                          "no.such")


# --- option refusals (checked before any request) ------------------------------------------

def test_bad_arguments_are_one_line_errors(server):
    def refused(*args, fragment):
        assert_one_line_error(configs(server, *args), "mirra configs:", fragment)

    refused("--alter", "--entity-type", "users", "--entity-name", "alice", "--entity-default",
            "--add-config", "producer_byte_rate=1", fragment="--entity-name / --entity-default")
    refused("--alter", "--entity-type", "clients", "--entity-name", "app1",
            fragment="--alter needs --add-config or --delete-config")
    refused("--describe", "--entity-type", "ips", fragment="--entity-type 'ips' is not supported")
    refused("--alter", "--entity-type", "clients", "--entity-name", "app1", "--add-config",
            "retention.ms=1", fragment="'retention.ms' is not a quota config")
    refused("--alter", "--entity-type", "clients", "--entity-name", "app1", "--add-config",
            "producer_byte_rate=fast", fragment="is not a number")
    refused("--alter", "--entity-type", "users", "--entity-default", "--add-config",
            "SCRAM-SHA-256=[password=x]", fragment="--entity-default is not allowed for users")
    refused("--alter", "--entity-type", "topics", "--entity-default", "--add-config",
            "retention.ms=1", fragment="--entity-default is not allowed for topics")
    refused("--alter", "--entity-type", "users", "--entity-type", "topics", "--entity-name", "a",
            "--entity-name", "b", "--add-config", "x=1",
            fragment="only users and clients may be given together")
    refused("--describe", "--entity-type", "users", "--all",
            fragment="--all goes with --describe of topics or brokers")
    refused("--alter", "--describe", "--entity-type", "topics", fragment="exactly one of")
    refused("--alter", "--entity-type", "topics", "--add-config", "retention.ms=1",
            fragment="--alter needs --entity-name")


# --- client quotas (need the broker's DescribeClientQuotas / AlterClientQuotas handlers) -----

USER_CLIENT = ["--entity-type", "users", "--entity-name", "alice",
               "--entity-type", "clients", "--entity-name", "app1"]


def test_quotas_user_and_client_id_set_described_deleted(server):
    assert ok(configs(server, "--alter", *USER_CLIENT, "--add-config",
                      "producer_byte_rate=1048576,request_percentage=50")) \
        == "Completed updating config for user alice.\n"
    want = ("Quota configs for user-principal 'alice', client-id 'app1' are "
            "producer_byte_rate=1048576.0, request_percentage=50.0")
    assert lines(server, *USER_CLIENT) == [want]
    # The pairs are read in order: clients first names the same entity.
    assert lines(server, "--entity-type", "clients", "--entity-name", "app1",
                 "--entity-type", "users", "--entity-name", "alice") == [want]
    # A type without a name matches any entity of it; strict, so the user alone has none.
    assert lines(server, "--entity-type", "users", "--entity-type", "clients") == [want]
    assert lines(server, "--entity-type", "users", "--entity-name", "alice") == []
    assert lines(server, "--entity-type", "clients") == []

    ok(configs(server, "--alter", *USER_CLIENT, "--delete-config", "request_percentage"))
    assert lines(server, *USER_CLIENT) == [
        "Quota configs for user-principal 'alice', client-id 'app1' are "
        "producer_byte_rate=1048576.0"]
    assert_one_line_error(configs(server, "--alter", *USER_CLIENT, "--delete-config",
                                  "consumer_byte_rate"),
                          "Invalid config(s): consumer_byte_rate")
    ok(configs(server, "--alter", *USER_CLIENT, "--delete-config", "producer_byte_rate"))
    assert lines(server, *USER_CLIENT) == []

    # Quotas are in the metadata log: they survive a restart.
    ok(configs(server, "--alter", "--entity-type", "clients", "--entity-name", "app2",
               "--add-config", "consumer_byte_rate=20000000"))
    server.restart()
    assert lines(server, "--entity-type", "clients", "--entity-name", "app2") == [
        "Quota configs for client-id 'app2' are consumer_byte_rate=2.0E7"]


def test_quotas_default_entities(server):
    assert ok(configs(server, "--alter", "--entity-type", "users", "--entity-default",
                      "--add-config", "consumer_byte_rate=2048")) \
        == "Completed updating default config for users in the cluster.\n"
    assert ok(configs(server, "--alter", "--entity-type", "clients", "--entity-default",
                      "--add-config", "producer_byte_rate=1000")) \
        == "Completed updating default config for clients in the cluster.\n"
    ok(configs(server, "--alter", "--entity-type", "users", "--entity-name", "bob",
               "--entity-type", "clients", "--entity-default", "--add-config",
               "controller_mutation_rate=10"))

    assert lines(server, "--entity-type", "users", "--entity-default") == [
        "Quota configs for the default user-principal are consumer_byte_rate=2048.0"]
    assert lines(server, "--entity-type", "clients", "--entity-default") == [
        "Quota configs for the default client-id are producer_byte_rate=1000.0"]
    assert lines(server, "--entity-type", "users", "--entity-name", "bob",
                 "--entity-type", "clients", "--entity-default") == [
        "Quota configs for user-principal 'bob', the default client-id are "
        "controller_mutation_rate=10.0"]
    # The default first, a name second: still paired in order.
    ok(configs(server, "--alter", "--entity-type", "users", "--entity-default",
               "--entity-type", "clients", "--entity-name", "app3", "--add-config",
               "producer_byte_rate=7"))
    assert lines(server, "--entity-type", "clients", "--entity-name", "app3",
                 "--entity-type", "users", "--entity-default") == [
        "Quota configs for the default user-principal, client-id 'app3' are "
        "producer_byte_rate=7.0"]
    # Every user entity: the default here, and no SCRAM users.
    assert lines(server, "--entity-type", "users") == [
        "Quota configs for the default user-principal are consumer_byte_rate=2048.0"]

    ok(configs(server, "--alter", "--entity-type", "users", "--entity-default",
               "--delete-config", "consumer_byte_rate"))
    assert lines(server, "--entity-type", "users", "--entity-default") == []


def test_quotas_and_scram_for_one_user(server):
    # Mirra takes both kinds in one --alter of a user (kafka-configs.sh refuses the mix) and
    # describes both, the quota line first.
    ok(configs(server, "--alter", "--entity-type", "users", "--entity-name", "alice",
               "--add-config", "SCRAM-SHA-256=[iterations=8192,password=alice-secret],"
                               "producer_byte_rate=500"))
    assert lines(server, "--entity-type", "users", "--entity-name", "alice") == [
        "Quota configs for user-principal 'alice' are producer_byte_rate=500.0",
        "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192"]
    ok(configs(server, "--alter", "--entity-type", "users", "--entity-name", "alice",
               "--delete-config", "producer_byte_rate,SCRAM-SHA-256"))
    assert lines(server, "--entity-type", "users", "--entity-name", "alice") == []


def test_quotas_bad_values_are_refused_by_the_broker(server):
    # A byte rate must be a whole number: the broker answers INVALID_REQUEST.
    assert_one_line_error(configs(server, "--alter", *USER_CLIENT, "--add-config",
                                  "producer_byte_rate=1.5"), "mirra configs:")
    with Connection(socket.create_connection(("127.0.0.1", server.port), TIMEOUT)) as c:
        for key, value in (("producer_byte_rate", 1.5), ("no_such_quota", 1.0)):
            r = c.call(49, 1, {"entries": [{
                "entity": [{"entity_type": "user", "entity_name": "alice"}],
                "ops": [{"key": key, "value": value, "remove": False}]}],
                "validate_only": False})
            assert [e["error_code"] for e in r["entries"]] == [INVALID_REQUEST], (key, r)
    assert lines(server, *USER_CLIENT) == []
