"""librdkafka 2.15.1's share consumer (tests/share_client/share_consumer, built from the npm
package's source tree) against a real Mirra broker: share groups as a real client uses them
(ShareGroupHeartbeat, ShareFetch, ShareAcknowledge, Metadata by topic id). The group starts at
the earliest offset through its GROUP config (IncrementalAlterConfigs, resource type 32), as
librdkafka's own share tests set it. Records are produced by confluent-kafka."""
import queue

import pytest
from confluent_kafka import Producer

from share_consumer import FAST_MEMBERSHIP, ShareConsumer, consume, earliest, topic_with

IDLE = 15000  # ms without records before a driver gives up: only reached when a test fails


@pytest.fixture(scope="module")
def mirra(make_broker_module):
    return make_broker_module


@pytest.fixture(scope="module")
def make_broker_module(tmp_path_factory):
    from mirra_testlib import Broker, stop_cleanly
    b = Broker(tmp_path_factory.mktemp("share"), FAST_MEMBERSHIP, name="share-broker")
    b.start()
    yield b
    stop_cleanly(b, what="while serving share consumers")


def keys(run):
    return sorted(r["key"] for r in run.records)


def expected(n):
    return sorted(f"key-{i}" for i in range(n))


def test_every_record_once_and_accepted_ones_never_again(mirra):
    topic_with(mirra, "sc-once", 2, 20)
    earliest(mirra, "once")
    run = consume(mirra.bootstrap, "once", "sc-once", "--commit", "sync", "--max-records", 20,
                  "--idle-ms", IDLE)
    run.assert_clean()
    assert keys(run) == expected(20)
    assert {r["delivery_count"] for r in run.records} == {1}
    # A new member of the group gets only records produced since.
    p = Producer({"bootstrap.servers": mirra.bootstrap})
    p.produce("sc-once", key=b"key-new", value=b"new", partition=0)
    assert p.flush(15) == 0
    again = consume(mirra.bootstrap, "once", "sc-once", "--commit", "sync", "--max-records", 1,
                    "--idle-ms", IDLE)
    again.assert_clean()
    assert keys(again) == ["key-new"]


def test_released_records_come_back_and_rejected_ones_do_not(mirra):
    topic_with(mirra, "sc-release", 1, 6)
    earliest(mirra, "release")
    run = consume(mirra.bootstrap, "release", "sc-release", "--release-first-delivery",
                  "--reject-offsets", "4", "--commit", "sync", "--max-records", 11,
                  "--idle-ms", IDLE)
    run.assert_clean()
    first = [r for r in run.records if r["delivery_count"] == 1]
    second = [r for r in run.records if r["delivery_count"] == 2]
    assert sorted(r["offset"] for r in first) == list(range(6))
    # Offset 4 is rejected at its first delivery (the reject list comes before the release rule).
    assert sorted(r["offset"] for r in second) == [0, 1, 2, 3, 5], run.records


def test_a_crashed_members_records_come_back(mirra):
    topic_with(mirra, "sc-crash", 1, 5)
    earliest(mirra, "crash")
    crashed = consume(mirra.bootstrap, "crash", "sc-crash", "-X",
                      "share.acknowledgement.mode=explicit", "--no-ack-exit", "--max-records", 1,
                      "--idle-ms", IDLE)
    assert crashed.returncode == 0, crashed.stderr
    held = {r["offset"] for r in crashed.records}
    assert held
    run = consume(mirra.bootstrap, "crash", "sc-crash", "--commit", "sync", "--max-records", 5,
                  "--idle-ms", IDLE)
    run.assert_clean()
    assert sorted(r["offset"] for r in run.records) == list(range(5))
    for r in run.records:
        assert r["delivery_count"] == (2 if r["offset"] in held else 1), r


def test_several_members_share_the_records(mirra):
    topic_with(mirra, "sc-members", 2, 0)
    earliest(mirra, "members")
    arrived = queue.Queue()
    members = [ShareConsumer(mirra.bootstrap, "members", "sc-members", "--commit", "sync",
                             "--idle-ms", 60000, sink=arrived) for _ in range(3)]
    p = Producer({"bootstrap.servers": mirra.bootstrap})
    for i in range(60):
        p.produce("sc-members", key=f"key-{i}".encode(), value=b"v", partition=i % 2)
    assert p.flush(15) == 0
    got = [arrived.get(timeout=60) for _ in range(60)]
    for m in members:
        m.stop()
    runs = [m.finish() for m in members]
    for r in runs:
        r.assert_clean(reason="signal")
    assert sorted(r["key"] for r in got) == expected(60)
    assert all(r["delivery_count"] == 1 for r in got), got


def test_kill_9_loses_no_acknowledgement_and_no_record(make_broker):
    """Acknowledged records are written to __share_group_state before they are answered: after
    kill -9 and a restart, none comes back, and every other record (never handed out, or held
    by a member at the time of the kill) is still delivered."""
    b = make_broker({"group.share.min.session.timeout.ms": "1000",
                     "group.share.session.timeout.ms": "3000",
                     "group.share.min.heartbeat.interval.ms": "500",
                     "group.share.heartbeat.interval.ms": "500"}, name="share-kill")
    topic_with(b, "sc-kill", 2, 40)
    earliest(b, "kill")
    # Small polls, so that the run stops part of the way through (whole polls are acknowledged).
    acked = consume(b.bootstrap, "kill", "sc-kill", "-X", "max.poll.records=5", "--commit", "sync",
                    "--max-records", 15, "--idle-ms", IDLE)
    acked.assert_clean()
    done = {(r["partition"], r["offset"]) for r in acked.records}
    assert 15 <= len(done) < 40, len(done)
    # A member holds records, unacknowledged, as the broker dies.
    held = consume(b.bootstrap, "kill", "sc-kill", "-X", "share.acknowledgement.mode=explicit",
                   "-X", "max.poll.records=5", "--no-ack-exit", "--max-records", 1,
                   "--idle-ms", IDLE)
    assert held.records and not {(r["partition"], r["offset"]) for r in held.records} & done
    b.kill()
    b.start()
    # Everything else, once: the driver stops when no record came for 5 s.
    rest = consume(b.bootstrap, "kill", "sc-kill", "--commit", "sync", "--max-records", 40,
                   "--idle-ms", 5000)
    rest.assert_clean(reason="idle")
    got = [(r["partition"], r["offset"]) for r in rest.records]
    assert len(got) == len(set(got)), got
    assert not set(got) & done, sorted(set(got) & done)
    everything = {(i % 2, i // 2) for i in range(40)}
    assert set(got) | done == everything
