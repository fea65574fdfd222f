"""`mirra mirror --create/--list/--delete` against a real `mirra server`: the mirror admin RPCs
are advertised, mirrors persist across a restart, bad names and configs get one clear line, and
a secret given at creation is refused (until TLS and SASL are built) without ever being echoed or
reaching the broker's log; a mirror's configs
are read and changed through DescribeConfigs / IncrementalAlterConfigs; the later KIP-1279
spellings (--start, --stop, --recover) do what --add, --remove and --resume do, between two
real brokers."""
import json
import re
import struct

import pytest

from conftest import TIMEOUT, Broker, assert_one_line_error, mirra
from mirra_testlib import make_broker, request, round_trip, wait_until  # noqa: F401 (fixture)
from raw_admin import describe_configs_raw, incremental_alter

SECRET = "pa55-w0rd-never-shown"


@pytest.fixture
def server(tmp_path):
    s = Broker(tmp_path, timeout=TIMEOUT).start()
    yield s
    assert s.stop() == 0, s.log()


def mirror(server, *args):
    return mirra("mirror", "--bootstrap-server", server.bootstrap, *args)


def ok(r):
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def listed(server):
    lines = [line.split() for line in ok(mirror(server, "--list")).splitlines() if line.strip()]
    assert lines[0] == ["MIRROR", "SOURCE-BOOTSTRAP-SERVERS", "SOURCE-CLUSTER-ID", "TOPICS"]
    return {row[0]: row[1:] for row in lines[1:]}


def config_file(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def advertised_keys(port):
    """API keys of an ApiVersions v0 answer."""
    resp = round_trip(port, request(18, 0, 1))
    _, err, n = struct.unpack_from(">ihi", resp)
    assert err == 0
    return {struct.unpack_from(">h", resp, 10 + 6 * i)[0] for i in range(n)}


def test_create_list_delete_and_restart(server, tmp_path):
    assert {94, 98, 104} <= advertised_keys(server.port)
    # Credentials without SASL are refused (the connection would not use them); the secret
    # stays out of the answer and the log.
    sasl = config_file(tmp_path, "sasl.properties",
                       "bootstrap.servers=src1:9092\nsecurity.protocol=PLAINTEXT\n"
                       f"sasl.username=mirror\nsasl.password={SECRET}\n")
    r = mirror(server, "--create", "--mirror", "dr", "--mirror-config", sasl)
    assert_one_line_error(r, "sasl.password needs security.protocol SASL_PLAINTEXT or SASL_SSL")
    assert SECRET not in r.stderr
    cfg = config_file(tmp_path, "dr.properties",
                      "# the source\nbootstrap.servers=src1:9092,src2:9092\n"
                      "security.protocol=PLAINTEXT\n")
    out = ok(mirror(server, "--create", "--mirror", "dr", "--mirror-config", cfg))
    assert 'Created mirror "dr"' in out
    ok(mirror(server, "--create", "--mirror", "second", "--mirror-config",
              config_file(tmp_path, "b.properties", "bootstrap.servers=other:1\n")))
    assert listed(server) == {"dr": ["src1:9092,src2:9092", "-", "0"],
                              "second": ["other:1", "-", "0"]}
    assert_one_line_error(mirror(server, "--create", "--mirror", "dr", "--mirror-config", cfg),
                          "mirror 'dr' already exists")

    server.restart()
    assert set(listed(server)) == {"dr", "second"}
    out = ok(mirror(server, "--delete", "--mirror", "second"))
    assert 'Deleted mirror "second"' in out
    assert set(listed(server)) == {"dr"}
    assert_one_line_error(mirror(server, "--delete", "--mirror", "second"),
                          "mirror 'second' does not exist")
    server.restart()
    assert set(listed(server)) == {"dr"}
    assert SECRET not in server.log()


def test_bad_names_and_configs(server, tmp_path):
    good = config_file(tmp_path, "good.properties", "bootstrap.servers=h:1\n")
    assert_one_line_error(mirror(server, "--create", "--mirror", "bad name", "--mirror-config",
                                 good), "mirror name 'bad name' is not valid")
    cases = [
        ("security.protocol=TLS\nbootstrap.servers=h:1\n", "security.protocol"),
        ("security.protocol=SASL_SSL\nbootstrap.servers=h:1\n",
         "security.protocol=SASL_SSL needs credentials"),
        ("bootstrap.servers=h:1\nssl.truststore.location=/ca.pem\n",
         "ssl.truststore.location needs security.protocol SSL or SASL_SSL"),
        ("bootstrap.servers=h:1\nno.such=1\n", "unknown mirror config 'no.such'"),
        ("security.protocol=SSL\n", "bootstrap.servers is required"),
        ("bootstrap.servers=h:1\nmirror.fetch.max.bytes=0\n", "mirror.fetch.max.bytes"),
    ]
    for i, (text, says) in enumerate(cases):
        cfg = config_file(tmp_path, f"bad{i}.properties", text)
        assert_one_line_error(mirror(server, "--create", "--mirror", "m", "--mirror-config", cfg),
                              says)
    assert listed(server) == {}
    assert_one_line_error(mirror(server, "--create", "--mirror", "m", "--mirror-config",
                                 str(tmp_path / "missing.properties")), "cannot read")
    assert_one_line_error(mirror(server, "--create", "--mirror", "m"), "--mirror-config")
    assert_one_line_error(mirror(server, "--list", "--create"), "exactly one of")
    assert_one_line_error(mirror(server, "--delete"), "--mirror is required")
    assert_one_line_error(mirra("mirror", "--list"), "--bootstrap-server")


MIRROR_RESOURCE = 64  # Mirra's config resource type for mirrors (docs/mirroring-design.md §7)
SET, DELETE, APPEND = 0, 1, 2
INVALID_CONFIG, UNKNOWN_MIRROR = 40, 137
INT, LIST, PASSWORD = 3, 7, 9  # DescribeConfigs config types
DYNAMIC, DEFAULT = 1, 5  # config sources: set on the resource, or the default


def test_mirror_configs_through_describe_and_alter_configs(server, tmp_path):
    """§7: a mirror's configs are read and changed with DescribeConfigs and
    IncrementalAlterConfigs on the mirror resource; secrets read back as null, values are
    checked as CreateMirror checks them, and the changes last across a restart."""
    ok(mirror(server, "--create", "--mirror", "dr", "--mirror-config",
              config_file(tmp_path, "dr.properties", "bootstrap.servers=127.0.0.1:1\n")))
    key = (MIRROR_RESOURCE, "dr")

    def configs():
        err, msg, out = describe_configs_raw(server.port, *key)
        assert err == 0, msg
        return out

    c = configs()
    assert c["bootstrap.servers"][:2] == ("127.0.0.1:1", DYNAMIC)
    assert c["bootstrap.servers"][3] == LIST
    assert c["mirror.fetch.max.bytes"][:2] == ("1048576", DEFAULT)
    assert c["mirror.fetch.max.bytes"][3] == INT
    assert c["sasl.password"][3] == PASSWORD

    def alter(changes, validate_only=False):
        return incremental_alter(server.port, [(*key, changes)], validate_only)[key]

    assert alter([("mirror.fetch.max.bytes", SET, "2097152"),
                  ("bootstrap.servers", APPEND, "127.0.0.1:2")]) == (0, None)
    assert alter([("mirror.fetch.max.wait.ms", SET, "100")], validate_only=True) == (0, None)
    err, msg = alter([("mirror.fetch.max.bytes", SET, "0")])
    assert err == INVALID_CONFIG and "mirror.fetch.max.bytes" in msg, msg
    err, msg = alter([("bootstrap.servers", DELETE, None)])
    assert err == INVALID_CONFIG and "bootstrap.servers is required" in msg, msg
    err, msg = alter([("no.such.key", SET, "1")])
    assert err == INVALID_CONFIG and "no.such.key" in msg, msg
    # Credentials the source connection would not use (no SASL): refused, the secret not echoed.
    err, msg = alter([("sasl.password", SET, SECRET)])
    assert err == INVALID_CONFIG and "sasl.password" in msg and SECRET not in msg, msg
    err, msg = incremental_alter(server.port, [(MIRROR_RESOURCE, "nope", [])])[
        (MIRROR_RESOURCE, "nope")]
    assert err == UNKNOWN_MIRROR, msg
    assert describe_configs_raw(server.port, MIRROR_RESOURCE, "nope")[0] == UNKNOWN_MIRROR

    server.restart()
    c = configs()
    assert c["mirror.fetch.max.bytes"][:2] == ("2097152", DYNAMIC)
    assert c["mirror.fetch.max.wait.ms"][:2] == ("500", DEFAULT)  # validate_only changed nothing
    assert c["bootstrap.servers"][0] == "127.0.0.1:1,127.0.0.1:2"
    assert listed(server) == {"dr": ["127.0.0.1:1,127.0.0.1:2", "-", "0"]}
    assert SECRET not in server.log()


# --- the later KIP-1279 spellings: --start, --stop, --recover ----------------------------------

STEP = 30  # seconds: the bound of each wait


def describe_rows(dst, topic):
    rows = json.loads(ok(mirror(dst, "--describe", "--json")))
    return {r["partition"]: r for r in rows if "type" not in r and r["topic"] == topic}


def make_topic_with_records(src, topic, count):
    ok(mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", topic))
    ok(mirra("produce", "--bootstrap-server", src.bootstrap, "--topic", topic,
             input="".join(f"{topic}-{i}\n" for i in range(count))))


def create_mirror(src, dst, tmp_path):
    ok(mirror(dst, "--create", "--mirror", "dr", "--mirror-config",
              config_file(tmp_path, "dr.properties", f"bootstrap.servers={src.bootstrap}\n")))


def copied(dst, topic, count):
    r = describe_rows(dst, topic)
    return (len(r) == 1 and r[0]["state"] == "MIRRORING"
            and r[0]["destinationLogEndOffset"] == count)


def same_answer(out, topic, other_topic, other_out):
    """Two commands' stdout, equal once the topic names (and ids) are aside."""
    def strip(text, name):
        return re.sub(r"id [A-Za-z0-9_-]{22}", "id ID", text.replace(f'"{name}"', '"T"'))
    return strip(out, topic) == strip(other_out, other_topic)


def test_start_and_stop_are_add_and_remove(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    for t in ("started", "added"):
        make_topic_with_records(src, t, 5)
    create_mirror(src, dst, tmp_path)

    started = ok(mirror(dst, "--start", "--mirror", "dr", "--topic", "started"))
    added = ok(mirror(dst, "--add", "--mirror", "dr", "--topic", "added"))
    assert 'Topic "started"' in started and 'is mirrored by "dr"' in started, started
    assert same_answer(started, "started", "added", added), (started, added)
    wait_until(lambda: copied(dst, "started", 5) and copied(dst, "added", 5), STEP,
               "both topics copied")
    # Adding a topic the mirror already has is a no-op under either name.
    again = mirror(dst, "--start", "--mirror", "dr", "--topic", "started")
    assert again.returncode == 0 and "mirrored by" in again.stdout, (again.stdout, again.stderr)

    stopped = ok(mirror(dst, "--stop", "--mirror", "dr", "--topic", "started"))
    removed = ok(mirror(dst, "--remove", "--mirror", "dr", "--topic", "added"))
    assert "failed over and is writable" in stopped and "0:5" in stopped, stopped
    assert same_answer(stopped, "started", "added", removed), (stopped, removed)
    for t in ("started", "added"):
        row = describe_rows(dst, t)[0]
        assert row["state"] == "STOPPED" and row["lastMirroredOffset"] == 5, row
        ok(mirra("produce", "--bootstrap-server", dst.bootstrap, "--topic", t, input="mine\n"))
    assert_one_line_error(mirror(dst, "--stop", "--mirror", "dr", "--topic", "nope"),
                          "not in mirror dr")


def test_recover_is_resume_for_a_failed_partition(make_broker, tmp_path):
    src = make_broker(name="source")
    # The first append of each topic fails and, with a single attempt allowed, leaves the
    # partition FAILED for the operator; the failpoint is spent after that.
    dst = make_broker({"mirror.failed.retry.max.attempts": 1}, name="destination",
                      env={"MIRRA_FAILPOINTS": "mirror.append.recovered-0=KAFKA_STORAGE_ERROR*1;"
                                               "mirror.append.resumed-0=KAFKA_STORAGE_ERROR*1"})
    for t in ("recovered", "resumed"):
        make_topic_with_records(src, t, 4)
    create_mirror(src, dst, tmp_path)
    for t in ("recovered", "resumed"):
        ok(mirror(dst, "--add", "--mirror", "dr", "--topic", t))
    for t in ("recovered", "resumed"):
        wait_until(lambda: describe_rows(dst, t)[0]["state"] == "FAILED", STEP, f"{t}-0 FAILED")
        dst.wait_for(rf"{t}-0 is FAILED .* waits for the operator", timeout=STEP)
        assert describe_rows(dst, t)[0]["destinationLogEndOffset"] == 0

    recovered = ok(mirror(dst, "--recover", "--mirror", "dr", "--topic", "recovered"))
    resumed = ok(mirror(dst, "--resume", "--mirror", "dr", "--topic", "resumed"))
    assert "mirrored again" in recovered, recovered
    assert same_answer(recovered, "recovered", "resumed", resumed), (recovered, resumed)
    for t in ("recovered", "resumed"):
        wait_until(lambda: copied(dst, t, 4), STEP, f"{t}-0 recovered")
        row = describe_rows(dst, t)[0]
        assert row["retries"] == 0 and row["lastError"] is None, row
    # Nothing to recover now: both spellings refuse alike.
    assert_one_line_error(mirror(dst, "--recover", "--mirror", "dr", "--topic", "recovered"),
                          "neither paused nor failed")
    assert_one_line_error(mirror(dst, "--resume", "--mirror", "dr", "--topic", "resumed"),
                          "neither paused nor failed")


def test_help_and_errors_name_both_spellings():
    out = ok(mirra("mirror", "--help"))
    for a, b in (("--add", "--start"), ("--remove", "--stop"), ("--resume", "--recover")):
        assert re.search(rf"{a}, ?{b}\b", out), (a, b, out)
    r = mirra("mirror", "--bootstrap-server", "localhost:1", "--start", "--stop", "--mirror", "m",
              "--topic", "t")
    assert_one_line_error(r, "exactly one of", "--start", "--stop", "--recover")
    assert_one_line_error(mirra("mirror", "--bootstrap-server", "localhost:1", "--recover",
                                "--topic", "t"), "--mirror is required", "--recover")
