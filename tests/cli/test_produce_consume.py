"""`mirra produce` and `mirra consume` against librdkafka's mock cluster (3 brokers)."""
import pytest

from conftest import assert_one_line_error, mirra


def produce(mock, topic, text, *args):
    r = mirra("produce", "--bootstrap-server", mock.bootstrap, "--topic", topic, *args, input=text)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr
    return r


def consume(mock, topic, n, *args):
    r = mirra("consume", "--bootstrap-server", mock.bootstrap, "--topic", topic,
              "--max-messages", str(n), "--timeout-ms", "10000", *args)
    assert r.returncode == 0, r.stderr
    assert f"Processed a total of {n} messages" in r.stderr, r.stderr
    return r.stdout


def test_values_round_trip_in_order(mock):
    lines = [f"message {i}" for i in range(200)]
    produce(mock, "t1", "\n".join(lines) + "\n")
    assert consume(mock, "t1", 200, "--from-beginning").splitlines() == lines


@pytest.mark.parametrize("codec", ["none", "gzip", "snappy", "lz4", "zstd"])
def test_every_compression_codec(mock, codec):
    produce(mock, "t1", "a\nb\nc\n", "--compression-codec", codec)
    assert consume(mock, "t1", 3, "--from-beginning") == "a\nb\nc\n"


def test_keys_headers_and_null_values(mock):
    text = "h1:v1,h2:v2\tk1:value one\n" \
           "\tk2:NULL\n" \
           "h3:NULL\tNULL:v3\n"
    produce(mock, "t1", text, "--property", "parse.key=true", "--property", "key.separator=:",
            "--property", "parse.headers=true", "--property", "null.marker=NULL")
    out = consume(mock, "t1", 3, "--from-beginning", "--property", "print.key=true",
                  "--property", "print.headers=true", "--property", "key.separator=|")
    assert out.splitlines() == [
        "h1:v1,h2:v2|k1|value one",
        "NO_HEADERS|k2|null",
        "h3:null|null|v3",
    ]


def test_partition_offset_and_formats(mock):
    produce(mock, "t3", "x0\nx1\nx2\nx3\n", "--partition", "2")
    out = consume(mock, "t3", 2, "--partition", "2", "--offset", "2",
                  "--property", "print.offset=true", "--property", "print.partition=true",
                  "--property", "print.timestamp=true")
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[1:] for r in rows] == [["Partition:2", "Offset:2", "x2"],
                                     ["Partition:2", "Offset:3", "x3"]]
    assert all(r[0].startswith("CreateTime:") and int(r[0].split(":")[1]) > 0 for r in rows)
    # Nothing else went to the other partitions.
    for p in (0, 1):
        r = mirra("consume", "--bootstrap-server", mock.bootstrap, "--topic", "t3",
                  "--partition", str(p), "--offset", "earliest", "--timeout-ms", "1000")
        assert r.returncode == 0 and r.stdout == "", (p, r.stdout, r.stderr)


def test_keys_spread_like_kafkas_partitioner_and_all_partitions_are_read(mock):
    keys = [f"key-{i}" for i in range(30)]
    produce(mock, "t3", "".join(f"{k}\tv-{k}\n" for k in keys), "--property", "parse.key=true")
    out = consume(mock, "t3", 30, "--from-beginning", "--property", "print.key=true",
                  "--property", "print.partition=true")
    rows = [line.split("\t") for line in out.splitlines()]
    assert sorted(r[1] for r in rows) == sorted(keys)
    assert all(r[2] == "v-" + r[1] for r in rows)
    # The same key always lands on the same partition, and 30 keys use every partition.
    by_key = {r[1]: r[0] for r in rows}
    assert len(set(by_key.values())) == 3


def test_latest_is_the_default_start(mock):
    produce(mock, "t1", "old\n")
    r = mirra("consume", "--bootstrap-server", mock.bootstrap, "--topic", "t1",
              "--timeout-ms", "1000")
    assert r.returncode == 0 and r.stdout == "", r.stdout


def test_leader_moves_between_produce_calls(mock):
    produce(mock, "t3", "before\n", "--partition", "0")
    mock.command("leader t3 0 2")
    produce(mock, "t3", "after\n", "--partition", "0")
    mock.command("leader t3 0 3")
    assert consume(mock, "t3", 2, "--partition", "0", "--offset", "earliest") == "before\nafter\n"


def test_acks_zero_and_one(mock):
    produce(mock, "t1", "zero\n", "--request-required-acks", "0")
    produce(mock, "t1", "one\n", "--request-required-acks", "1")
    assert consume(mock, "t1", 2, "--from-beginning") == "zero\none\n"


@pytest.mark.parametrize("args,fragments", [
    (["produce", "--topic", "t1"], ["--bootstrap-server is required"]),
    (["consume", "--topic", "t1"], ["--bootstrap-server is required"]),
    (["produce", "--bootstrap-server", "BOOT"], ["--topic is required"]),
    (["consume", "--bootstrap-server", "BOOT", "--topic", "t1", "--offset", "3"],
     ["The partition is required when offset is specified."]),
    (["consume", "--bootstrap-server", "BOOT", "--topic", "t1", "--partition", "0",
      "--offset", "soon"], ["offset value 'soon' is incorrect"]),
    (["consume", "--bootstrap-server", "BOOT", "--topic", "t1", "--partition", "0",
      "--offset", "1", "--from-beginning"], ["cannot be specified together"]),
    (["consume", "--bootstrap-server", "BOOT", "--topic", "t1", "--isolation-level", "dirty"],
     ["--isolation-level"]),
    (["produce", "--bootstrap-server", "BOOT", "--topic", "t1", "--compression-codec", "brotli"],
     ["unknown compression codec 'brotli'"]),
    (["produce", "--bootstrap-server", "BOOT", "--topic", "t1", "--request-required-acks", "2"],
     ["--request-required-acks"]),
    (["produce", "--bootstrap-server", "BOOT", "--topic", "t1", "--partition", "9"],
     ["partition 9 does not exist"]),
    (["consume", "--bootstrap-server", "BOOT", "--topic", "t1", "--partition", "9"],
     ["partition 9 does not exist"]),
    (["produce", "--bootstrap-server", "BOOT", "--topic", "t1", "--property", "novalue"],
     ["'novalue' is not of the form key=value"]),
    (["produce", "--bootstrap-server", "127.0.0.1:1", "--topic", "t1"],
     ["cannot reach any broker", "127.0.0.1:1"]),
    (["produce", "--bootstrap-server", "nonsense", "--topic", "t1"],
     ["invalid bootstrap server 'nonsense'"]),
    (["consume", "--bootstrap-server", "BOOT", "--topic", "t1", "--no-such-option"],
     ["--no-such-option"]),
])
def test_bad_arguments_fail_with_one_line(mock, args, fragments):
    args = [mock.bootstrap if a == "BOOT" else a for a in args]
    assert_one_line_error(mirra(*args, input=""), *fragments)


def test_unparseable_lines_fail_with_one_line(mock):
    r = mirra("produce", "--bootstrap-server", mock.bootstrap, "--topic", "t1",
              "--property", "parse.key=true", input="fine\tkey\nno separator here\n")
    assert_one_line_error(r, "No key separator found on line number 2", "'no separator here'")
    r = mirra("produce", "--bootstrap-server", mock.bootstrap, "--topic", "t1",
              "--property", "parse.headers=true", input="h1\tvalue\n")
    assert_one_line_error(r, "No header key separator found in pair 'h1'")


def test_unknown_topic_fails_with_one_line(mock):
    mock.command("topic-error ghost 3")
    r = mirra("consume", "--bootstrap-server", mock.bootstrap, "--topic", "ghost",
              "--timeout-ms", "1000")
    assert_one_line_error(r, "topic ghost", "does not host")
