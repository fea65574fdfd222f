"""Share group membership (KIP-932) against a real broker process, over the wire with the
suite's raw codec (tests/pylib/msg_codec.py, driven by src/protocol/messages/*.msg): no client
installable here sends ShareGroupHeartbeat v1 and ShareGroupDescribe v1 but librdkafka's
preview share consumer, and it sends only the happy path.

Covered: ApiVersions advertising 76 v1 and 77 v1; join, heartbeat and assignment by topic id
(two members on a two-partition topic, then a third sharing a partition); describe with topic
names; leave; fencing; session expiry (group.share.session.timeout.ms lowered with its
minimum, as in Kafka); group-type conflicts both ways; ListGroups' type filter (v5) and older
versions; DeleteGroups; FindCoordinator's share key.
"""
import time
import uuid

import pytest
from msg_codec import Connection
from mirra_testlib import connect

HEARTBEAT, DESCRIBE = 76, 77
CREATE_TOPICS, JOIN_GROUP, DESCRIBE_GROUPS, LIST_GROUPS = 19, 11, 15, 16
DELETE_GROUPS, FIND_COORDINATOR, API_VERSIONS, OFFSET_COMMIT = 42, 10, 18, 8
INCREMENTAL_ALTER_CONFIGS, GROUP_RESOURCE = 44, 32

NONE, INVALID_REQUEST, UNKNOWN_MEMBER_ID, INCONSISTENT_GROUP_PROTOCOL = 0, 42, 25, 23
NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, FENCED_MEMBER_EPOCH = 68, 69, 110

SETTINGS = {
    "offsets.topic.num.partitions": 1,
    "group.share.min.session.timeout.ms": 500,
    "group.share.session.timeout.ms": 3000,
    "group.share.min.heartbeat.interval.ms": 100,
    "group.share.heartbeat.interval.ms": 200,
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from mirra_testlib import Broker
    b = Broker(tmp_path_factory.mktemp("share"), SETTINGS, name="share-broker")
    b.start()
    yield b
    assert b.stop() == 0, b.tail()


@pytest.fixture
def conn(server):
    with Connection(connect(server.port)) as c:
        yield c


def topic(c, name, partitions):
    r = c.call(CREATE_TOPICS, 7, {"topics": [{"name": name, "num_partitions": partitions,
                                              "replication_factor": 1}]})
    assert r["topics"][0]["error_code"] == NONE, r
    return uuid.UUID(bytes=bytes(r["topics"][0]["topic_id"]))


def beat(c, group, member, epoch, topics=None):
    return c.call(HEARTBEAT, 1, {"group_id": group, "member_id": member, "member_epoch": epoch,
                                 "rack_id": None, "subscribed_topic_names": topics})


def partitions(r, topic_id):
    assert r["assignment"] is not None, r
    return sorted(p for tp in r["assignment"]["topic_partitions"]
                  if uuid.UUID(bytes=bytes(tp["topic_id"])) == topic_id for p in tp["partitions"])


def describe(c, group):
    r = c.call(DESCRIBE, 1, {"group_ids": [group], "include_authorized_operations": False})
    return r["groups"][0]


def listed(c, types, version=5):
    body = {"states_filter": [], "types_filter": types}
    return {g["group_id"]: g for g in c.call(LIST_GROUPS, version, body)["groups"]}


def until(condition, what, limit=15.0):
    """Polls `condition` (a wire call) until it holds; bounded."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_api_versions_advertise_share_group_apis(conn):
    keys = {a["api_key"]: a for a in conn.call(API_VERSIONS, 3, {})["api_keys"]}
    for key in (HEARTBEAT, DESCRIBE):
        assert (keys[key]["min_version"], keys[key]["max_version"]) == (1, 1)


def test_members_join_share_and_leave(conn):
    tid = topic(conn, "sg-t", 2)
    a = beat(conn, "sg1", "member-a", 0, ["sg-t"])
    assert a["error_code"] == NONE, a
    assert a["heartbeat_interval_ms"] == 200
    assert partitions(a, tid) == [0, 1]
    b = beat(conn, "sg1", "member-b", 0, ["sg-t"])
    assert b["member_epoch"] > a["member_epoch"] and len(partitions(b, tid)) == 1
    a2 = beat(conn, "sg1", "member-a", a["member_epoch"])
    assert a2["member_epoch"] == b["member_epoch"]
    assert partitions(a2, tid) + partitions(b, tid) in ([0, 1], [1, 0])

    c = beat(conn, "sg1", "member-c", 0, ["sg-t"])
    held = partitions(c, tid)
    for m, epoch in (("member-a", a2["member_epoch"]), ("member-b", b["member_epoch"])):
        r = beat(conn, "sg1", m, epoch)
        assert r["error_code"] == NONE and r["member_epoch"] == c["member_epoch"], r
        held += partitions(r, tid)
    assert sorted(set(held)) == [0, 1] and len(held) == 3  # one partition shared

    d = describe(conn, "sg1")
    assert d["error_code"] == NONE, d
    assert (d["group_state"], d["assignor_name"]) == ("Stable", "simple")
    assert {m["member_id"] for m in d["members"]} == {"member-a", "member-b", "member-c"}
    for m in d["members"]:
        assert [tp["topic_name"] for tp in m["assignment"]["topic_partitions"]] == ["sg-t"]

    for m in ("member-a", "member-b", "member-c"):
        left = beat(conn, "sg1", m, -1)
        assert (left["error_code"], left["member_epoch"]) == (NONE, -1), left
    assert describe(conn, "sg1")["group_state"] == "Empty"


def test_fencing_and_request_checks(conn):
    topic(conn, "sg-f", 1)
    a = beat(conn, "sg2", "member-a", 0, ["sg-f"])
    assert beat(conn, "sg2", "member-a", a["member_epoch"] + 5)["error_code"] == FENCED_MEMBER_EPOCH
    assert beat(conn, "sg2", "member-a", a["member_epoch"])["error_code"] == UNKNOWN_MEMBER_ID
    assert beat(conn, "sg2", "member-a", 0, ["sg-f"])["error_code"] == NONE  # rejoins
    assert beat(conn, "sg2", "x" * 37, 0, ["sg-f"])["error_code"] == INVALID_REQUEST
    assert beat(conn, "sg2", "", 0, ["sg-f"])["error_code"] == INVALID_REQUEST
    assert beat(conn, "no-such", "member-a", 3)["error_code"] == GROUP_ID_NOT_FOUND


def test_session_expiry(conn):
    topic(conn, "sg-e", 1)
    a = beat(conn, "sg3", "member-a", 0, ["sg-e"])
    assert a["error_code"] == NONE
    until(lambda: describe(conn, "sg3")["group_state"] == "Empty", "the member to expire")
    assert beat(conn, "sg3", "member-a", a["member_epoch"])["error_code"] == UNKNOWN_MEMBER_ID


def test_group_configs_set_the_heartbeat_interval_and_session_timeout(conn):
    """share.heartbeat.interval.ms and share.session.timeout.ms on the GROUP resource hold from
    the next heartbeat: the interval the member is told, and how soon it expires (well inside
    the broker's 3 s default, which this test's deadline would not wait for)."""
    topic(conn, "sg-cfg", 1)
    r = conn.call(INCREMENTAL_ALTER_CONFIGS, 1, {"resources": [{
        "resource_type": GROUP_RESOURCE, "resource_name": "sg-cfg-group", "configs": [
            {"name": "share.heartbeat.interval.ms", "config_operation": 0, "value": "150"},
            {"name": "share.session.timeout.ms", "config_operation": 0, "value": "600"}]}],
        "validate_only": False})
    assert r["responses"][0]["error_code"] == NONE, r
    a = beat(conn, "sg-cfg-group", "member-a", 0, ["sg-cfg"])
    assert a["error_code"] == NONE and a["heartbeat_interval_ms"] == 150, a
    until(lambda: describe(conn, "sg-cfg-group")["group_state"] == "Empty",
          "the member to expire after the group's session timeout", limit=2.5)


def test_group_type_conflicts(conn):
    topic(conn, "sg-c", 1)
    # A classic group (an admin commit makes one) refuses the share APIs ...
    r = conn.call(OFFSET_COMMIT, 8, {"group_id": "classic1", "generation_id_or_member_epoch": -1,
                                     "member_id": "", "topics": [{"name": "sg-c", "partitions": [
                                         {"partition_index": 0, "committed_offset": 0}]}]})
    assert r["topics"][0]["partitions"][0]["error_code"] == NONE, r
    r = beat(conn, "classic1", "member-a", 0, ["sg-c"])
    assert r["error_code"] == GROUP_ID_NOT_FOUND
    assert r["error_message"] == "Group classic1 is not a share group."
    assert describe(conn, "classic1")["error_code"] == GROUP_ID_NOT_FOUND
    # ... and a share group the classic ones.
    assert beat(conn, "share1", "member-a", 0, ["sg-c"])["error_code"] == NONE
    j = conn.call(JOIN_GROUP, 9, {"group_id": "share1", "session_timeout_ms": 10000,
                                  "rebalance_timeout_ms": 10000, "member_id": "",
                                  "protocol_type": "consumer",
                                  "protocols": [{"name": "range", "metadata": b""}]})
    assert (j["error_code"], j["member_id"]) == (INCONSISTENT_GROUP_PROTOCOL, "")
    dg = conn.call(DESCRIBE_GROUPS, 5, {"groups": ["share1"]})["groups"][0]
    assert (dg["error_code"], dg["group_state"]) == (NONE, "Dead")

    share = listed(conn, ["Share"])
    assert share["share1"]["group_type"] == "share" and "classic1" not in share
    assert share["share1"]["protocol_type"] == "share"
    assert "share1" not in listed(conn, ["classic"]) and "classic1" in listed(conn, ["classic"])
    assert {"share1", "classic1"} <= set(listed(conn, [], version=3))


def test_delete_groups(conn):
    topic(conn, "sg-d", 1)
    assert beat(conn, "sg4", "member-a", 0, ["sg-d"])["error_code"] == NONE
    delete = {"groups_names": ["sg4"]}
    assert conn.call(DELETE_GROUPS, 2, delete)["results"][0]["error_code"] == NON_EMPTY_GROUP
    assert beat(conn, "sg4", "member-a", -1)["error_code"] == NONE
    assert conn.call(DELETE_GROUPS, 2, delete)["results"][0]["error_code"] == NONE
    assert describe(conn, "sg4")["error_code"] == GROUP_ID_NOT_FOUND


def test_find_coordinator_share_key(conn, server):
    tid = topic(conn, "sg-k", 1)
    key_id = __import__("base64").urlsafe_b64encode(tid.bytes).decode().rstrip("=")
    r = conn.call(FIND_COORDINATOR, 6, {"key_type": 2,
                                        "coordinator_keys": [f"sg5:{key_id}:0", "sg5:bad"]})
    good, bad = r["coordinators"]
    assert (good["error_code"], good["port"]) == (NONE, server.port), good
    assert bad["error_code"] == INVALID_REQUEST
