"""Share-group offset administration over real sockets with the suite's raw codec:
DescribeShareGroupOffsets (90, v0-1), AlterShareGroupOffsets (91) and DeleteShareGroupOffsets
(92), which librdkafka does not send. The start offsets they set are checked by what a share
member then acquires, and across a broker restart (they are in __share_group_state)."""
import pytest
from msg_codec import Connection

from mirra_testlib import connect
from share_raw import API_VERSIONS, Member, acquired, create_topic, produce

DESCRIBE_OFFSETS, ALTER_OFFSETS, DELETE_OFFSETS = 90, 91, 92
HEARTBEAT, LIST_GROUPS, DELETE_GROUPS, OFFSET_COMMIT = 76, 16, 42, 8
NONE, UNKNOWN_TOPIC_OR_PARTITION, INVALID_GROUP_ID, INVALID_REQUEST = 0, 3, 24, 42
NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND = 68, 69


def call(port, key, version, body):
    with Connection(connect(port)) as c:
        return c.call(key, version, body)


def describe_offsets(port, group, topics=None, version=1):
    """The group's entry; `topics`: {name: [partitions]} or None for all."""
    asked = None if topics is None else [{"topic_name": t, "partitions": ps}
                                         for t, ps in topics.items()]
    r = call(port, DESCRIBE_OFFSETS, version, {"groups": [{"group_id": group, "topics": asked}]})
    return r["groups"][0]


def start_offsets(group_entry):
    """{(topic, partition): (start offset, lag or None)} of a described group."""
    return {(t["topic_name"], p["partition_index"]): (p["start_offset"], p.get("lag"))
            for t in group_entry["topics"] for p in t["partitions"]}


def alter(port, group, topic, offsets):
    parts = [{"partition_index": p, "start_offset": o} for p, o in offsets.items()]
    return call(port, ALTER_OFFSETS, 0,
                {"group_id": group, "topics": [{"topic_name": topic, "partitions": parts}]})


def partition_errors(alter_response):
    return {(t["topic_name"], p["partition_index"]): p["error_code"]
            for t in alter_response["responses"] for p in t["partitions"]}


def delete_offsets(port, group, topics):
    return call(port, DELETE_OFFSETS, 0,
                {"group_id": group, "topics": [{"topic_name": t} for t in topics]})


def share_groups(port):
    r = call(port, LIST_GROUPS, 5, {"states_filter": [], "types_filter": ["share"]})
    return {g["group_id"]: g["group_state"] for g in r["groups"]}


def commit_consumer_offset(port, group, topic):
    """An admin commit (generation -1): `group` becomes a consumer group's id."""
    r = call(port, OFFSET_COMMIT, 8, {
        "group_id": group, "generation_id_or_member_epoch": -1, "member_id": "",
        "group_instance_id": None, "topics": [{"name": topic, "partitions": [{
            "partition_index": 0, "committed_offset": 1, "committed_leader_epoch": -1,
            "committed_metadata": ""}]}]})
    assert r["topics"][0]["partitions"][0]["error_code"] == NONE, r


def join(port, group, topic, member="m-1"):
    r = call(port, HEARTBEAT, 1, {"group_id": group, "member_id": member, "member_epoch": 0,
                                  "rack_id": None, "subscribed_topic_names": [topic]})
    assert r["error_code"] == NONE, r
    return r


def leave(port, group, member="m-1"):
    r = call(port, HEARTBEAT, 1, {"group_id": group, "member_id": member, "member_epoch": -1,
                                  "rack_id": None, "subscribed_topic_names": None})
    assert r["error_code"] == NONE, r


def test_the_offset_admin_apis_are_advertised(broker):
    r = call(broker.port, API_VERSIONS, 3, {"client_software_name": "pytest",
                                            "client_software_version": "1"})
    ranges = {a["api_key"]: (a["min_version"], a["max_version"]) for a in r["api_keys"]}
    assert ranges[DESCRIBE_OFFSETS] == (0, 1)
    assert ranges[ALTER_OFFSETS] == (0, 0)
    assert ranges[DELETE_OFFSETS] == (0, 0)


def test_alter_creates_the_group_and_consumption_starts_there(broker):
    port = broker.port
    topic_id = create_topic(port, "share-adm-alter")
    produce(broker.bootstrap, "share-adm-alter", 10)
    r = alter(port, "adm-a", "share-adm-alter", {0: 4})
    assert r["error_code"] == NONE, r
    assert partition_errors(r) == {("share-adm-alter", 0): NONE}
    assert bytes(r["responses"][0]["topic_id"]) == bytes(topic_id)
    assert share_groups(port)["adm-a"] == "Empty"
    assert start_offsets(describe_offsets(port, "adm-a")) == {("share-adm-alter", 0): (4, 6)}
    # v0 has no lag.
    assert start_offsets(describe_offsets(port, "adm-a", version=0)) == {
        ("share-adm-alter", 0): (4, None)}
    m = Member(port, topic_id, group="adm-a")
    assert acquired(m.fetch()) == [(4, 9, 1)]  # nothing below the start offset
    m.fetch(max_records=0, acks=[(4, 9, [1])])
    assert start_offsets(describe_offsets(port, "adm-a")) == {("share-adm-alter", 0): (10, 0)}


def test_describe_names_what_is_not_there(broker):
    port = broker.port
    create_topic(port, "share-adm-desc")
    missing = describe_offsets(port, "adm-nobody")
    assert missing["error_code"] == GROUP_ID_NOT_FOUND and missing["topics"] == [], missing
    commit_consumer_offset(port, "adm-consumer", "share-adm-desc")
    other = describe_offsets(port, "adm-consumer")
    assert other["error_code"] == GROUP_ID_NOT_FOUND
    assert "not a share group" in other["error_message"]
    assert alter(port, "adm-d", "share-adm-desc", {0: 0})["error_code"] == NONE
    named = describe_offsets(port, "adm-d", {"share-adm-desc": [0, 7], "share-adm-none": [0]})
    errors = {(t["topic_name"], p["partition_index"]): (p["error_code"], p["start_offset"])
              for t in named["topics"] for p in t["partitions"]}
    assert errors == {("share-adm-desc", 0): (NONE, 0),
                      ("share-adm-desc", 7): (UNKNOWN_TOPIC_OR_PARTITION, -1),
                      ("share-adm-none", 0): (UNKNOWN_TOPIC_OR_PARTITION, -1)}


def test_alter_is_refused_for_a_group_with_members_and_for_bad_input(broker):
    port = broker.port
    create_topic(port, "share-adm-busy")
    join(port, "adm-busy", "share-adm-busy")
    r = alter(port, "adm-busy", "share-adm-busy", {0: 0})
    assert r["error_code"] == NON_EMPTY_GROUP, r
    assert partition_errors(r) == {("share-adm-busy", 0): NON_EMPTY_GROUP}
    leave(port, "adm-busy")
    assert alter(port, "adm-busy", "share-adm-busy", {0: 0})["error_code"] == NONE

    commit_consumer_offset(port, "adm-consumer-2", "share-adm-busy")
    r = alter(port, "adm-consumer-2", "share-adm-busy", {0: 0})
    assert r["error_code"] == GROUP_ID_NOT_FOUND, r
    assert "adm-consumer-2" not in share_groups(port)
    assert alter(port, "", "share-adm-busy", {0: 0})["error_code"] == INVALID_GROUP_ID

    r = alter(port, "adm-busy", "share-adm-busy", {0: -5, 3: 1})
    assert r["error_code"] == NONE, r
    assert partition_errors(r) == {("share-adm-busy", 0): INVALID_REQUEST,
                                   ("share-adm-busy", 3): UNKNOWN_TOPIC_OR_PARTITION}
    r = alter(port, "adm-busy", "share-adm-nothing", {0: 1})
    assert partition_errors(r) == {("share-adm-nothing", 0): UNKNOWN_TOPIC_OR_PARTITION}


def test_delete_offsets_forgets_whole_topics(broker):
    port = broker.port
    topic_id = create_topic(port, "share-adm-del")
    produce(broker.bootstrap, "share-adm-del", 5)
    assert alter(port, "adm-del", "share-adm-del", {0: 2})["error_code"] == NONE
    r = delete_offsets(port, "adm-del", ["share-adm-del", "share-adm-gone"])
    assert r["error_code"] == NONE, r
    assert {t["topic_name"]: t["error_code"] for t in r["responses"]} == {
        "share-adm-del": NONE, "share-adm-gone": UNKNOWN_TOPIC_OR_PARTITION}
    assert describe_offsets(port, "adm-del")["topics"] == []
    assert start_offsets(describe_offsets(port, "adm-del", {"share-adm-del": [0]})) == {
        ("share-adm-del", 0): (-1, -1)}
    # Started afresh at share.auto.offset.reset (latest): only records produced from now on.
    m = Member(port, topic_id, group="adm-del")
    assert acquired(m.fetch()) == []
    produce(broker.bootstrap, "share-adm-del", 2)
    assert acquired(m.fetch()) == [(5, 6, 1)]

    assert delete_offsets(port, "adm-none", ["share-adm-del"])["error_code"] == GROUP_ID_NOT_FOUND
    join(port, "adm-del", "share-adm-del")
    assert delete_offsets(port, "adm-del", ["share-adm-del"])["error_code"] == NON_EMPTY_GROUP
    leave(port, "adm-del")


def test_start_offsets_and_deletions_survive_a_restart(make_broker):
    b = make_broker(name="share-adm-restart")
    topic_id = create_topic(b.port, "share-adm-keep")
    produce(b.bootstrap, "share-adm-keep", 6)
    assert alter(b.port, "adm-keep", "share-adm-keep", {0: 3})["error_code"] == NONE
    assert alter(b.port, "adm-drop", "share-adm-keep", {0: 1})["error_code"] == NONE
    r = call(b.port, DELETE_GROUPS, 2, {"groups_names": ["adm-drop"]})
    assert r["results"][0]["error_code"] == NONE, r
    b.restart()
    # The group is back without members, and its start offset with it; the deleted one is not.
    assert share_groups(b.port) == {"adm-keep": "Empty"}
    assert start_offsets(describe_offsets(b.port, "adm-keep")) == {("share-adm-keep", 0): (3, 3)}
    assert describe_offsets(b.port, "adm-drop")["error_code"] == GROUP_ID_NOT_FOUND
    assert acquired(Member(b.port, topic_id, group="adm-keep").fetch()) == [(3, 5, 1)]


@pytest.mark.parametrize("version", [0, 1])
def test_describe_of_many_groups_answers_each(broker, version):
    port = broker.port
    create_topic(port, f"share-adm-many-{version}")
    group = f"adm-many-{version}"
    assert alter(port, group, f"share-adm-many-{version}", {0: 0})["error_code"] == NONE
    r = call(port, DESCRIBE_OFFSETS, version, {"groups": [
        {"group_id": group, "topics": None}, {"group_id": "adm-unknown", "topics": None}]})
    codes = {g["group_id"]: g["error_code"] for g in r["groups"]}
    assert codes == {group: NONE, "adm-unknown": GROUP_ID_NOT_FOUND}
