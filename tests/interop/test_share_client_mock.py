"""The share consumer driver (tests/share_client/share_consumer: librdkafka 2.15.1's share
consumer, KIP-932) against librdkafka's own mock cluster, which serves share groups
(tests/share_client/mock_share_cluster): the driver is proven here before Mirra serves share
groups, so a failure of the share-group tests against Mirra is Mirra's.

Each record is checked by (partition, offset, key, value, delivery count). "Not delivered again"
is checked without waiting for nothing to happen: after a run, more records are produced and a
new member of the same group must receive exactly those; a record still available would come
first (a share-partition delivers from its start offset up). Every wait is bounded by the
driver's own stop (--max-records; --idle-ms only as a bound on a failing run) or a process exit."""
import queue
import subprocess

import pytest

from mirra_testlib import wait_until
from share_consumer import SHARE_CONSUMER, MockShareCluster, ShareConsumer, consume

IDLE = 20000  # ms: a run that receives nothing for this long has failed


@pytest.fixture
def mock(request):
    m = MockShareCluster(**getattr(request, "param", {}))
    yield m
    m.close()


def key(r):
    return (r["partition"], r["offset"])


def received(run, mock, numbers, delivery_count=1):
    """`run` received exactly the records `numbers`, each once, with this delivery count."""
    got = sorted(run.records, key=key)
    want = sorted((mock.record(i) for i in numbers), key=key)
    assert [key(r) for r in got] == [key(r) for r in want], (got, want)
    for r, w in zip(got, want):
        assert {k: r[k] for k in w} == w
        assert r["delivery_count"] == delivery_count, r


def only_new_records_follow(mock, group):
    """Produces 2 records per partition; a new member of `group` receives those, and nothing else
    (it must read every partition to get them, and a fetch returns a partition's records from its
    start offset up, so a record still available there would come along)."""
    n = 2 * mock.partitions
    new = mock.produce(n)
    run = consume(mock.bootstrap, group, mock.topic, "--max-records", n, "--idle-ms", IDLE)
    run.assert_clean()
    received(run, mock, new)


@pytest.mark.parametrize("mock", [{"records": 30, "partitions": 3, "brokers": 3}], indirect=True)
@pytest.mark.parametrize("mode,commit", [("implicit", "sync"), ("implicit", "async"),
                                         ("explicit", "none"), ("explicit", "sync"),
                                         ("explicit", "async")])
def test_every_record_once(mock, mode, commit):
    """Partitions on 3 brokers; accepted (implicitly or explicitly; acknowledgements sent with
    the next fetch, by commit_sync or commit_async) records are delivered once. (Implicit mode
    without a commit: test_implicit_mode_close_releases_the_last_batch.)"""
    group = f"once-{mode}-{commit}"
    run = consume(mock.bootstrap, group, mock.topic, "-X", f"share.acknowledgement.mode={mode}",
                  "--commit", commit, "--max-records", 30, "--idle-ms", IDLE)
    run.assert_clean()
    received(run, mock, range(30))
    assert {r["ack"] for r in run.records} == {"implicit" if mode == "implicit" else "accept"}
    if commit == "sync":  # commit_sync reports each partition's outcome
        acked = [e for e in run.events if e["event"] == "ack_commit"]
        assert acked and all(e["code"] == 0 for e in acked), run.events
    only_new_records_follow(mock, group)


@pytest.mark.parametrize("mock", [{"records": 9, "partitions": 3, "brokers": 3}], indirect=True)
def test_implicit_mode_close_releases_the_last_batch(mock):
    """librdkafka 2.15.1 accepts a poll's records in implicit mode only at the next poll or
    commit, not at the close: without --commit, the last batch is released by the close (which
    ends the share sessions) and comes back, delivery count 2. The earlier batches stay accepted.
    (Each batch comes from one broker: 3 brokers, 3 batches at least.)"""
    run = consume(mock.bootstrap, "implicit-close", mock.topic, "--max-records", 9,
                  "--idle-ms", IDLE)
    run.assert_clean()
    received(run, mock, range(9))
    last = max(r["batch"] for r in run.records)
    assert last > 1, run.records
    released = sorted(key(r) for r in run.records if r["batch"] == last)

    new = mock.produce(3)
    again = consume(mock.bootstrap, "implicit-close", mock.topic, "--max-records",
                    3 + len(released), "--idle-ms", IDLE)
    again.assert_clean()
    assert sorted(key(r) for r in again.records if r["delivery_count"] == 2) == released
    assert sorted(key(r) for r in again.records if r["delivery_count"] == 1) == sorted(
        key(mock.record(i)) for i in new)


@pytest.mark.parametrize("mock", [{"records": 10, "partitions": 2}], indirect=True)
def test_released_records_come_back(mock):
    """Each record released at its first delivery comes back once, with delivery count 2."""
    run = consume(mock.bootstrap, "release", mock.topic, "--release-first-delivery",
                  "--max-records", 20, "--idle-ms", IDLE)
    run.assert_clean()
    first = [r for r in run.records if r["delivery_count"] == 1]
    second = [r for r in run.records if r["delivery_count"] == 2]
    assert {r["ack"] for r in first} == {"release"} and {r["ack"] for r in second} == {"accept"}
    assert sorted(map(key, first)) == sorted(map(key, second)) == sorted(
        key(mock.record(i)) for i in range(10))
    only_new_records_follow(mock, "release")


@pytest.mark.parametrize("mock", [{"records": 8, "partitions": 2}], indirect=True)
def test_rejected_records_are_not_delivered_again(mock):
    """Rejected records (by partition:offset and by bare offset) are archived."""
    run = consume(mock.bootstrap, "reject", mock.topic, "--reject-offsets", "0:1,2",
                  "--max-records", 8, "--idle-ms", IDLE)
    run.assert_clean()
    received(run, mock, range(8))
    rejected = {key(r) for r in run.records if r["ack"] == "reject"}
    assert rejected == {(0, 1), (0, 2), (1, 2)}
    only_new_records_follow(mock, "reject")


@pytest.mark.parametrize("mock", [{"records": 4, "delivery_limit": 3}], indirect=True)
def test_delivery_limit_archives_a_record_released_every_time(mock):
    """With a delivery limit of 3, a record released at each delivery comes 3 times, then never."""
    run = consume(mock.bootstrap, "limit", mock.topic, "--release-offsets", "1",
                  "--max-records", 6, "--idle-ms", IDLE)
    run.assert_clean()
    counts = sorted(r["delivery_count"] for r in run.records if r["offset"] == 1)
    assert counts == [1, 2, 3], run.records
    assert sorted(r["offset"] for r in run.records if r["offset"] != 1) == [0, 2, 3]
    only_new_records_follow(mock, "limit")


@pytest.mark.parametrize("mock", [{"records": 12, "partitions": 2, "session_timeout_ms": 2000}],
                         indirect=True)
def test_crashed_member_records_come_back(mock):
    """A member that exits without acknowledging or closing (--no-ack-exit) loses its records'
    locks with its connection; the next member gets them again, delivery count 2. The crashed
    member keeps its partitions until its group session times out (2 s here), so the next
    member receives all partitions' records only then."""
    crashed = consume(mock.bootstrap, "crash", mock.topic, "-X",
                      "share.acknowledgement.mode=explicit", "--no-ack-exit", "--max-records", 1,
                      "--idle-ms", IDLE)
    assert crashed.returncode == 0, crashed.stderr
    names = [e["event"] for e in crashed.events]
    assert "exit_without_ack" in names and "stopped" not in names, crashed.events
    assert crashed.records and {r["ack"] for r in crashed.records} == {"none"}
    held = {key(r) for r in crashed.records}

    run = consume(mock.bootstrap, "crash", mock.topic, "--commit", "sync", "--max-records", 12,
                  "--idle-ms", IDLE)
    run.assert_clean()
    assert sorted(map(key, run.records)) == sorted(key(mock.record(i)) for i in range(12))
    for r in run.records:
        assert r["delivery_count"] == (2 if key(r) in held else 1), r
    only_new_records_follow(mock, "crash")


@pytest.mark.parametrize("mock", [{"partitions": 4, "brokers": 2}], indirect=True)
def test_two_members_share_the_records(mock):
    """Two members of one group: between them every record arrives, none twice.

    The mock ends every share session on a broker whenever any connection to that broker
    closes (librdkafka 2.15.1's rd_kafka_mock_sharegrps_node_connection_closed), and a starting
    librdkafka client closes its bootstrap connections at once. So the records are produced
    only once both members have joined, and the members stop one after the other, each after
    committing every batch (a member's close would kill the other's session and so its
    pending acknowledgements)."""
    arrived = queue.Queue()
    members = [ShareConsumer(mock.bootstrap, "pair", mock.topic, "--commit", "sync", "--idle-ms",
                             60000, sink=arrived) for _ in range(2)]
    runs = []
    try:
        wait_until(lambda: mock.members("pair") == 2, 30, "both members to join")
        mock.produce(40)
        seen = set()
        while len(seen) < 40:
            try:
                seen.add(key(arrived.get(timeout=IDLE / 1000)))
            except queue.Empty:
                raise AssertionError(f"only {len(seen)} of 40 records within {IDLE} ms")
    finally:
        for m in members:
            m.stop()
            runs.append(m.finish())
    for run in runs:
        run.assert_clean(reason="signal")
    both = [r for run in runs for r in run.records]
    assert sorted(map(key, both)) == sorted(key(mock.record(i)) for i in range(40))
    assert {r["delivery_count"] for r in both} == {1}
    only_new_records_follow(mock, "pair")


@pytest.mark.parametrize("args,message", [
    ([], "are required"),
    (["--bootstrap", "x:1", "--group", "g", "--topic", "t", "--commit", "later"], "--commit"),
    (["--bootstrap", "x:1", "--group", "g", "--topic", "t", "--reject-offsets", "a"], "bad offset"),
    (["--bootstrap", "x:1", "--group", "g", "--topic", "t", "--release-first-delivery", "-X",
      "share.acknowledgement.mode=implicit"], "need share.acknowledgement.mode=explicit"),
    (["--bootstrap", "x:1", "--group", "g", "--topic", "t", "-X", "no.such.property=1"],
     "no.such.property"),
    (["--frobnicate"], "unknown option"),
])
def test_bad_arguments(args, message):
    """Bad arguments: exit 2 and one JSON error event naming the problem."""
    r = subprocess.run([SHARE_CONSUMER, *args], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and '"what":"arguments"' in lines[0] and message in lines[0], lines
