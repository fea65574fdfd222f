"""`mirra share-groups` (kafka-share-groups.sh) against a real broker with real share consumers
(librdkafka 2.15.1's, tests/share_client/share_consumer via share_consumer.py): listing,
describing start offsets and lag, members and state while a consumer runs, resetting start
offsets (a dry run changes nothing, --execute moves where the next consumer starts, refused
while a member is active), deleting a topic's offsets and the group, and the errors (bad
arguments, a consumer group's id, unknown groups and topics). Every wait is a bounded poll of
a condition (mirra_testlib.wait_until), never a sleep."""
import pytest
from confluent_kafka import Consumer, TopicPartition

from mirra_testlib import Broker, assert_one_line_error, run_mirra, stop_cleanly, wait_until
from mirra_testlib import succeeded as ok
from mirra_testlib import table_rows as rows
from share_consumer import FAST_MEMBERSHIP, ShareConsumer, consume, earliest, topic_with

IDLE = 15000  # ms without records before a driver gives up: only reached when a test fails
WAIT = 30     # s: the bound of every poll below


@pytest.fixture(scope="module")
def mirra(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("share-cli"), FAST_MEMBERSHIP, name="share-cli-broker")
    b.start()
    yield b
    stop_cleanly(b, what="while serving mirra share-groups")


def share_groups(broker, *args):
    return run_mirra("share-groups", "--bootstrap-server", broker.bootstrap, *[str(a) for a in args])


def start_offsets(broker, group, topic):
    """{partition: (START-OFFSET, LAG)} of `topic` from `--describe` (the default view)."""
    out = ok(share_groups(broker, "--describe", "--group", group))
    return {int(r[2]): (r[3], r[4]) for r in rows(out) if r[1] == topic}


def state(broker, group):
    """(STATE, #MEMBERS) from `--describe --state`."""
    out = ok(share_groups(broker, "--describe", "--group", group, "--state"))
    [row] = rows(out)
    assert row[0] == group, out
    return row[-4], int(row[-1])


def produce(broker, topic, n, partitions):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(n):
        p.produce(topic, key=f"more-{i}".encode(), value=b"v", partition=i % partitions)
    assert p.flush(15) == 0


def consumed(broker, group, topic, n):
    """A share consumer of `group` that receives `n` records, acknowledges them and leaves."""
    run = consume(broker.bootstrap, group, topic, "--commit", "sync", "--max-records", n,
                  "--idle-ms", IDLE)
    run.assert_clean()
    return run


def test_list_and_describe_a_group_while_it_consumes_and_after(mirra):
    topic_with(mirra, "cli-a", 2, 10)
    earliest(mirra, "cli-g")
    consumed(mirra, "cli-g", "cli-a", 10)
    assert "cli-g" in ok(share_groups(mirra, "--list")).split()
    # The member has left: the group is Empty, and every record is done.
    wait_until(lambda: state(mirra, "cli-g") == ("Empty", 0), WAIT, "cli-g to be Empty")
    assert ["cli-g", "Empty"] in rows(ok(share_groups(mirra, "--list", "--state")))
    assert ["cli-g", "Empty"] in rows(ok(share_groups(mirra, "--list", "--state", "empty")))
    assert "cli-g" not in ok(share_groups(mirra, "--list", "--state", "Stable"))
    assert start_offsets(mirra, "cli-g", "cli-a") == {0: ("5", "0"), 1: ("5", "0")}
    # Records produced since are the group's lag.
    produce(mirra, "cli-a", 4, 2)
    wait_until(lambda: start_offsets(mirra, "cli-g", "cli-a") == {0: ("5", "2"), 1: ("5", "2")},
               WAIT, "a lag of 2 records per partition")

    member = ShareConsumer(mirra.bootstrap, "cli-g", "cli-a", "--commit", "sync",
                           "--idle-ms", 60000)
    try:
        def one_member_with_both_partitions():
            out = ok(share_groups(mirra, "--describe", "--group", "cli-g", "--members"))
            r = rows(out)
            return len(r) == 1 and r[0][4] == "2" and r[0][5:] == ["cli-a(0,1)"] and r
        [row] = wait_until(one_member_with_both_partitions, WAIT, "the member's assignment")
        assert row[0] == "cli-g" and row[3] == "rdkafka", row  # librdkafka's default client.id
        assert state(mirra, "cli-g") == ("Stable", 1)
        # Not while a member is active: its records would be reset under it.
        r = share_groups(mirra, "--reset-offsets", "--group", "cli-g", "--topic", "cli-a",
                         "--to-earliest", "--execute")
        assert_one_line_error(r, "Share group 'cli-g' is not empty")
        r = share_groups(mirra, "--delete", "--group", "cli-g")
        assert r.returncode == 1 and "cli-g" in r.stderr, (r.stdout, r.stderr)
    finally:
        member.stop()
        member.finish().assert_clean(reason="signal")
    wait_until(lambda: start_offsets(mirra, "cli-g", "cli-a") == {0: ("7", "0"), 1: ("7", "0")},
               WAIT, "the member's records to be done")


def test_reset_offsets_dry_run_then_execute(mirra):
    topic_with(mirra, "cli-r", 1, 10)
    earliest(mirra, "cli-reset")
    consumed(mirra, "cli-reset", "cli-r", 10)
    wait_until(lambda: state(mirra, "cli-reset")[0] == "Empty", WAIT, "cli-reset to be Empty")
    assert start_offsets(mirra, "cli-reset", "cli-r") == {0: ("10", "0")}
    # A dry run (the default) prints the plan and changes nothing.
    for scenario, new in ((["--to-offset", 3], "3"), (["--to-earliest"], "0"),
                          (["--to-latest"], "10"), (["--to-offset", 99], "10"),
                          (["--to-datetime", "2000-01-01T00:00:00.000"], "0")):
        out = ok(share_groups(mirra, "--reset-offsets", "--group", "cli-reset", "--topic",
                              "cli-r", *scenario))
        assert rows(out) == [["cli-reset", "cli-r", "0", new]], (scenario, out)
    out = ok(share_groups(mirra, "--reset-offsets", "--group", "cli-reset", "--all-topics",
                          "--to-offset", 4, "--dry-run"))
    assert rows(out) == [["cli-reset", "cli-r", "0", "4"]], out
    assert start_offsets(mirra, "cli-reset", "cli-r") == {0: ("10", "0")}
    # --execute moves the start offset; the next consumer gets the records from there.
    out = ok(share_groups(mirra, "--reset-offsets", "--group", "cli-reset", "--topic", "cli-r:0",
                          "--to-offset", 3, "--execute"))
    assert rows(out) == [["cli-reset", "cli-r", "0", "3"]], out
    assert start_offsets(mirra, "cli-reset", "cli-r") == {0: ("3", "7")}
    run = consumed(mirra, "cli-reset", "cli-r", 7)
    assert sorted(r["offset"] for r in run.records) == list(range(3, 10))
    # A group that does not exist yet is created with the start offsets.
    ok(share_groups(mirra, "--reset-offsets", "--group", "cli-new", "--topic", "cli-r",
                    "--to-offset", 8, "--execute"))
    assert "cli-new" in ok(share_groups(mirra, "--list")).split()
    assert start_offsets(mirra, "cli-new", "cli-r") == {0: ("8", "2")}
    run = consumed(mirra, "cli-new", "cli-r", 2)
    assert sorted(r["offset"] for r in run.records) == [8, 9]


def test_delete_offsets_then_the_group(mirra):
    topic_with(mirra, "cli-d1", 1, 4)
    topic_with(mirra, "cli-d2", 1, 4)
    earliest(mirra, "cli-del")
    consumed(mirra, "cli-del", ["cli-d1", "cli-d2"], 8)
    wait_until(lambda: state(mirra, "cli-del")[0] == "Empty", WAIT, "cli-del to be Empty")
    assert start_offsets(mirra, "cli-del", "cli-d1") == {0: ("4", "0")}
    out = ok(share_groups(mirra, "--delete-offsets", "--group", "cli-del", "--topic", "cli-d1"))
    assert rows(out, "TOPIC") == [["cli-d1", "Successful"]], out
    assert start_offsets(mirra, "cli-del", "cli-d1") == {}
    assert start_offsets(mirra, "cli-del", "cli-d2") == {0: ("4", "0")}
    # The group starts that topic again at share.auto.offset.reset (earliest).
    run = consumed(mirra, "cli-del", "cli-d1", 4)
    assert sorted(r["offset"] for r in run.records) == [0, 1, 2, 3]
    r = share_groups(mirra, "--delete-offsets", "--group", "cli-del", "--topic", "cli-nope")
    assert_one_line_error(r, "some offsets of share group 'cli-del' were not deleted")
    assert "cli-nope" in r.stdout and "Error:" in r.stdout, r.stdout

    wait_until(lambda: state(mirra, "cli-del")[0] == "Empty", WAIT, "cli-del to be Empty")
    out = ok(share_groups(mirra, "--delete", "--group", "cli-del"))
    assert out == "Deletion of requested share groups ('cli-del') was successful.\n", out
    assert "cli-del" not in ok(share_groups(mirra, "--list")).split()
    assert_one_line_error(share_groups(mirra, "--describe", "--group", "cli-del"),
                          "Share group 'cli-del' does not exist.")


def test_errors(mirra):
    topic_with(mirra, "cli-e", 1, 2)
    # A consumer group of that id: never described, reset or deleted as a share group.
    c = Consumer({"bootstrap.servers": mirra.bootstrap, "group.id": "cli-cg",
                  "enable.auto.commit": False})
    try:
        for tp in c.commit(offsets=[TopicPartition("cli-e", 0, 1)], asynchronous=False):
            assert tp.error is None, tp
    finally:
        c.close()
    not_share = "Group 'cli-cg' is not a share group."
    assert_one_line_error(share_groups(mirra, "--describe", "--group", "cli-cg"), not_share)
    assert_one_line_error(share_groups(mirra, "--reset-offsets", "--group", "cli-cg", "--topic",
                                       "cli-e", "--to-earliest"), not_share)
    assert_one_line_error(share_groups(mirra, "--delete", "--group", "cli-cg"), not_share)
    assert_one_line_error(share_groups(mirra, "--delete-offsets", "--group", "cli-cg", "--topic",
                                       "cli-e"), not_share)
    assert "cli-cg" not in ok(share_groups(mirra, "--list")).split()
    groups = run_mirra("groups", "--bootstrap-server", mirra.bootstrap, "--describe", "--group",
                       "cli-cg")
    assert groups.returncode == 0 and "cli-e" in groups.stdout, (groups.stdout, groups.stderr)

    assert_one_line_error(share_groups(mirra, "--describe", "--group", "cli-none"),
                          "Share group 'cli-none' does not exist.")
    assert_one_line_error(share_groups(mirra, "--reset-offsets", "--group", "cli-none", "--topic",
                                       "cli-no-topic", "--to-earliest"), "cli-no-topic")
    # Bad arguments fail before any request.
    for args, fragment in (
            ([], "exactly one action"),
            (["--list", "--describe"], "exactly one action"),
            (["--describe"], "--describe takes one of these options: --all-groups, --group"),
            (["--reset-offsets", "--group", "g", "--topic", "t"],
             "exactly one of --to-earliest, --to-latest, --to-offset, --to-datetime"),
            (["--reset-offsets", "--group", "g", "--topic", "t", "--to-latest", "--execute",
              "--dry-run"], "only accepts one of --execute and --dry-run"),
            (["--reset-offsets", "--group", "g", "--to-latest"], "exactly one of these scopes"),
            (["--reset-offsets", "--group", "g", "--topic", "t", "--to-datetime", "yesterday"],
             "is not of the form"),
            (["--delete-offsets", "--group", "g", "--topic", "t:0"], "takes whole topics"),
            (["--delete-offsets", "--group", "g"], "at least one --topic"),
            (["--list", "--state", "Rebalancing"], "Valid states are: Stable, Empty, Dead"),
            (["--describe", "--group", "g", "--members", "--state"], "at most one of")):
        assert_one_line_error(share_groups(mirra, *args), fragment)
    # kafka-consumer-groups.sh's other scenarios are not kafka-share-groups.sh's.
    r = share_groups(mirra, "--reset-offsets", "--group", "g", "--topic", "t", "--shift-by", 1)
    assert r.returncode != 0 and "--shift-by" in r.stderr, (r.returncode, r.stderr)
