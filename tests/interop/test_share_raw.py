"""Share groups' data path over real sockets with the suite's raw codec (tests/pylib/msg_codec.py,
driven by src/protocol/messages): what librdkafka's share consumer does not send or cannot
show. A share session dies with its TCP connection and gives its member's records back; Gap
and Renew acknowledgements; ShareFetch and ShareAcknowledge v2; the advertised versions.
Records are produced by a real client (confluent-kafka)."""
from msg_codec import Connection

from mirra_testlib import connect, wait_until
from share_raw import API_VERSIONS, SHARE_ACK, SHARE_FETCH, Member, acquired, create_topic, \
    partition0, produce


def test_the_share_apis_are_advertised_at_kafka_4_2_versions(broker):
    with Connection(connect(broker.port)) as c:
        r = c.call(API_VERSIONS, 3, {"client_software_name": "pytest",
                                     "client_software_version": "1"})
    ranges = {a["api_key"]: (a["min_version"], a["max_version"]) for a in r["api_keys"]}
    assert ranges[SHARE_FETCH] == (1, 2)
    assert ranges[SHARE_ACK] == (1, 2)


def test_a_closed_connection_gives_its_members_records_back(broker):
    topic_id = create_topic(broker.port, "share-raw-close")
    a, b = Member(broker.port, topic_id), Member(broker.port, topic_id)
    a.fetch()
    b.fetch()  # both sessions open before the records arrive (the group starts at the end)
    produce(broker.bootstrap, "share-raw-close", 5)
    assert acquired(a.fetch()) == [(0, 4, 1)]
    assert acquired(b.fetch()) == []
    a.conn.close()  # no ShareAcknowledge, no epoch -1: the socket just goes away
    got = wait_until(lambda: acquired(b.fetch()), 10, "a's records handed to b")
    assert got == [(0, 4, 2)]


def test_gap_and_accept_finish_records_and_reject_archives_them(broker):
    topic_id = create_topic(broker.port, "share-raw-gap")
    a, b = Member(broker.port, topic_id), Member(broker.port, topic_id)
    a.fetch()
    b.fetch()
    produce(broker.bootstrap, "share-raw-gap", 4)
    assert acquired(a.fetch()) == [(0, 3, 1)]
    # Offset 1 as a gap, 2 rejected, 0 and 3 accepted, in one batch of per-offset types.
    r = a.fetch(max_records=0, acks=[(0, 3, [1, 0, 3, 1])])
    assert partition0(r)["acknowledge_error_code"] == 0
    produce(broker.bootstrap, "share-raw-gap", 1)
    assert acquired(b.fetch()) == [(4, 4, 1)]  # nothing of 0-3 comes back


def test_one_fetch_reads_on_past_a_megabyte_while_records_are_wanted(broker):
    """The broker reads the log a piece (1 MiB) at a time, not the client's MaxBytes at once;
    a fetch wanting more records than a piece holds still gets them all in one answer."""
    topic_id = create_topic(broker.port, "share-raw-pieces")
    a = Member(broker.port, topic_id)
    a.fetch()
    produce(broker.bootstrap, "share-raw-pieces", 1500, size=2048)
    r = a.fetch(max_records=1500, max_bytes=50 << 20)
    offsets = [o for first, last, _ in acquired(r) for o in range(first, last + 1)]
    assert offsets == list(range(1500))
    assert len(partition0(r)["records"]) > 1500 * 2048


def test_renew_keeps_a_lock_and_v2_reports_the_lock_duration(make_broker):
    broker = make_broker({"group.share.min.record.lock.duration.ms": "1000",
                          "group.share.record.lock.duration.ms": "1000"}, name="share-renew")
    topic_id = create_topic(broker.port, "share-raw-renew")
    a, b = Member(broker.port, topic_id), Member(broker.port, topic_id)
    a.fetch(version=2)
    b.fetch(version=2)
    produce(broker.bootstrap, "share-raw-renew", 2)
    r = a.fetch(version=2)
    assert acquired(r) == [(0, 1, 1)]
    assert r["acquisition_lock_timeout_ms"] == 1000
    # Renewing with fetch fields set is malformed; with them zero it keeps the lock.
    bad = a.conn.call(SHARE_FETCH, 2, {
        "group_id": "g", "member_id": a.member_id, "share_session_epoch": a.epoch,
        "is_renew_ack": True, "max_wait_ms": 100, "topics": []})
    assert bad["error_code"] == 42  # INVALID_REQUEST
    r = a.acknowledge([(0, 1, [4])], version=2, is_renew_ack=True)
    assert r["error_code"] == 0 and r["acquisition_lock_timeout_ms"] == 1000
    assert r["responses"][0]["partitions"][0]["error_code"] == 0
    # Renewed again every 300 ms, the records stay with a past their first lock's end.
    for _ in range(5):
        assert a.acknowledge([(0, 1, [4])], version=2,
                             is_renew_ack=True)["responses"][0]["partitions"][0]["error_code"] == 0
        assert acquired(b.fetch(version=2, max_wait_ms=300)) == []
    assert a.acknowledge([(0, 1, [1])], version=2)["responses"][0]["partitions"][0][
        "error_code"] == 0
