"""The authorization matrix of test_authorization.py: one row per API Mirra serves (issue 17,
Kafka's KafkaApis checks; docs/mirroring-design.md §9 for the mirroring APIs), each with the
ACLs a principal needs, the error a principal without them gets, the request (built from the
names of the resources the principal works on) and what an authorized caller gets.

Every principal works on resources of its own (`Names`: topic, group, transactional id,
mirror), made by the admin beforehand (`Row.setup`), so that a row's calls by alice, bob and
admin do not depend on each other's order or effects, and a refusal is never explained by a
missing resource.
"""
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from kafka.record.default_records import DefaultRecordBatchBuilder

TOPIC_AUTHZ, GROUP_AUTHZ, CLUSTER_AUTHZ, TXN_AUTHZ = 29, 30, 31, 53
AUTHZ_ERRORS = {TOPIC_AUTHZ, GROUP_AUTHZ, CLUSTER_AUTHZ, TXN_AUTHZ}
RETRIABLE = {14, 15}  # COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE
# The admin's set-up calls also retry a topic or a transaction not ready yet:
# UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, CONCURRENT_TRANSACTIONS.
ADMIN_RETRIABLE = {3, 6, 51}
RETRY_DEADLINE = 10.0  # seconds
NOT_AUTHZ = None      # Row.ok: any answer but an authorization error
MIRROR_RESOURCE = 64  # Mirra's config resource type of a mirror
TOPIC, BROKER = 2, 4  # config resource types
DEAD_SOURCE = "127.0.0.1:9"  # a mirror source nobody listens on


@dataclass
class Names:
    """The resources principal `who` uses in row `slug`; pid/epoch once setup made them."""
    slug: str
    who: str
    pid: int = -1
    epoch: int = -1
    topic_id: object = None  # set by s_topic_id

    def _n(self, kind):
        return f"az-{kind}-{self.slug}-{self.who}"

    @property
    def topic(self):
        return self._n("t")

    @property
    def group(self):
        return self._n("g")

    @property
    def txn(self):
        return self._n("x")

    @property
    def mirror(self):
        return self._n("m")


ERROR_FIELDS = {"error_code", "partition_error_code"}  # AddPartitionsToTxn's is the latter


def error_codes(resp):
    """Every error code of a request's resources anywhere in a decoded response (not the last
    errors DescribeMirrors reports, nor CreateTopics' topic_config_error_code)."""
    out = []
    if isinstance(resp, dict):
        for k, v in resp.items():
            if k in ERROR_FIELDS:
                out.append(v)
            else:
                out += error_codes(v)
    elif isinstance(resp, list):
        for v in resp:
            out += error_codes(v)
    return out


def batch(values, pid=-1, epoch=-1, transactional=False):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=transactional,
                                  producer_id=pid, producer_epoch=epoch,
                                  base_sequence=0 if pid >= 0 else -1, batch_size=1 << 20)
    for i, v in enumerate(values):
        b.append(i, timestamp=int(time.time() * 1000), key=None, value=v, headers=[])
    return bytes(b.build())


# ACL grants as `mirra acls` options: (operation, resource option, resource name or None).
def on_topic(op):
    return lambda n: [(op, "--topic", n.topic)]


def on_group(op):
    return lambda n: [(op, "--group", n.group)]


def on_txn(op):
    return lambda n: [(op, "--transactional-id", n.txn)]


def on_cluster(op):
    return lambda n: [(op, "--cluster", None)]


def both(*fs):
    return lambda n: [g for f in fs for g in f(n)]


@dataclass
class Row:
    """One API (or one way of calling it). `grants(n)` gives a principal everything it needs;
    `partial` is a list of (grants(n), error): ACLs that pass the first checks only, applied in
    turn before `grants`, and the error each leaves. `refused`: alice's error. `ok`: the error
    codes an authorized caller may get (NOT_AUTHZ: anything but an authorization error).
    `setup(env, n)` prepares n's resources as the admin. `verify(who, resp, n, authorized)`,
    when given, replaces the error-code checks (the APIs that filter rather than refuse).
    `intact(env, n)` checks, as the admin, that a refused call changed nothing."""
    name: str
    key: int
    version: int
    request: Callable
    grants: Callable
    refused: Optional[int]
    ok: Optional[set] = field(default_factory=lambda: {0})
    setup: Optional[Callable] = None
    partial: list = field(default_factory=list)
    verify: Optional[Callable] = None
    intact: Optional[Callable] = None

    @property
    def slug(self):
        return "".join(c if c.isalnum() else "-" for c in self.name.lower()).strip("-")


# --- setups (run as the admin through env, see test_authorization.Env) ------------------------

def s_topic(env, n):
    env.create_topic(n.topic)


def s_records(env, n):
    env.create_topic(n.topic)
    env.produce(n.topic, [b"a", b"b", b"c"])


def s_group(env, n):
    """A group with an offset committed (an Empty group), on a topic with records."""
    s_records(env, n)
    env.commit(n.group, n.topic, 1)


def s_pid(env, n):
    n.pid, n.epoch = env.init_producer_id(n.txn)


def s_txn_partition(env, n):
    """An ongoing transaction holding n.topic's partition 0."""
    s_topic(env, n)
    s_pid(env, n)
    env.add_partition(n, n.topic)


def s_txn_offsets(env, n):
    """An ongoing transaction holding n.group's offsets."""
    s_records(env, n)
    s_pid(env, n)
    env.add_offsets(n, n.group)


def s_mirror(env, n):
    env.create_mirror(n.mirror)


def both_setups(*fs):
    def run(env, n):
        for f in fs:
            f(env, n)
    return run


# --- a refused call changed nothing (checked as the admin) ------------------------------------

def i_no_records(env, n):
    assert env.offsets(n.topic) == (0, 0), n.topic


def i_records_kept(env, n):
    assert env.offsets(n.topic) == (0, 3), n.topic


def i_no_topic(env, n):
    assert env.partition_count(n.topic) is None, n.topic


def i_one_partition(env, n):
    assert env.partition_count(n.topic) == 1, n.topic


def i_group_kept(env, n):
    assert env.committed(n.group, n.topic) == 1, n.group


def i_no_mirror(env, n):
    assert n.mirror not in env.mirrors()


def i_mirror_kept(env, n):
    assert n.mirror in env.mirrors()


def i_no_acl(env, n):
    assert not env.acls_named(acl_entry(n)["resource_name"])


# --- requests --------------------------------------------------------------------------------

def produce(n):
    return {"acks": -1, "timeout_ms": 10000, "topic_data": [
        {"name": n.topic, "partition_data": [{"index": 0, "records": batch([b"x"])}]}]}


def produce_txn(n):
    return {"transactional_id": n.txn, "acks": -1, "timeout_ms": 10000, "topic_data": [
        {"name": n.topic, "partition_data": [
            {"index": 0, "records": batch([b"t"], n.pid, n.epoch, transactional=True)}]}]}


def fetch(n):
    return {"replica_id": -1, "max_wait_ms": 0, "min_bytes": 0, "max_bytes": 1 << 20,
            "session_epoch": -1, "topics": [{"topic": n.topic, "partitions": [
                {"partition": 0, "fetch_offset": 0, "partition_max_bytes": 1 << 20}]}]}


def list_offsets(n):
    return {"replica_id": -1, "topics": [{"name": n.topic, "partitions": [
        {"partition_index": 0, "timestamp": -1}]}], "timeout_ms": 5000}


def metadata_named(n):
    return {"topics": [{"name": n.topic}], "allow_auto_topic_creation": False}


def offset_for_leader_epoch(n):
    return {"replica_id": -1, "topics": [{"topic": n.topic, "partitions": [
        {"partition": 0, "leader_epoch": 0}]}]}


def commit(n):
    return {"group_id": n.group, "generation_id_or_member_epoch": -1, "member_id": "",
            "topics": [{"name": n.topic, "partitions": [
                {"partition_index": 0, "committed_offset": 2, "committed_metadata": ""}]}]}


def offset_fetch(n):
    return {"groups": [{"group_id": n.group, "topics": [
        {"name": n.topic, "partition_indexes": [0]}]}]}


def offset_delete(n):
    return {"group_id": n.group, "topics": [{"name": n.topic, "partitions": [
        {"partition_index": 0}]}]}


def join(n):
    return {"group_id": n.group, "session_timeout_ms": 10000, "rebalance_timeout_ms": 10000,
            "member_id": "", "protocol_type": "consumer",
            "protocols": [{"name": "range", "metadata": b"\x00\x00\x00\x00\x00\x00"}]}


def member_of(n):
    return {"group_id": n.group, "generation_id": 1, "member_id": "az-nobody"}


def leave(n):
    return {"group_id": n.group, "members": [{"member_id": "az-nobody"}]}


def share_join(n):
    return {"group_id": n.group, "member_id": "az-share-member", "member_epoch": 0,
            "rack_id": None, "subscribed_topic_names": [n.topic]}


def s_topic_id(env, n):
    """n's topic, created now, and its id (the share data path names topics by id)."""
    resp = env.admin_ok(19, 7, {"topics": [{"name": n.topic, "num_partitions": 1,
                                            "replication_factor": 1}]}, what=n.topic)
    n.topic_id = resp["topics"][0]["topic_id"]


def share_fetch(n):
    return {"group_id": n.group, "member_id": "az-share-member", "share_session_epoch": 0,
            "max_wait_ms": 0, "max_bytes": 1 << 20, "max_records": 10, "batch_size": 10,
            "topics": [{"topic_id": n.topic_id, "partitions": [{"partition_index": 0}]}]}


def share_acknowledge(n):
    return {"group_id": n.group, "member_id": "az-share-member", "share_session_epoch": 1,
            "topics": [{"topic_id": n.topic_id, "partitions": [{
                "partition_index": 0, "acknowledgement_batches": [
                    {"first_offset": 0, "last_offset": 0, "acknowledge_types": [1]}]}]}]}


def s_share_group(env, n):
    """A share group with one member subscribed to n's topic."""
    s_topic(env, n)
    env.admin_ok(76, 1, share_join(n), what=n.group)


def alter_share_offsets(n):
    return {"group_id": n.group, "topics": [{"topic_name": n.topic, "partitions": [
        {"partition_index": 0, "start_offset": 0}]}]}


def s_share_offsets(env, n):
    """n's topic, and a share group (without members) with a start offset on it."""
    s_topic(env, n)
    env.admin_ok(91, 0, alter_share_offsets(n), what=n.group)


def txn_offset_commit(n):
    return {"transactional_id": n.txn, "group_id": n.group, "producer_id": n.pid,
            "producer_epoch": n.epoch, "topics": [{"name": n.topic, "partitions": [
                {"partition_index": 0, "committed_offset": 1, "committed_metadata": ""}]}]}


def add_partitions(n):
    return {"v3_and_below_transactional_id": n.txn, "v3_and_below_producer_id": n.pid,
            "v3_and_below_producer_epoch": n.epoch,
            "v3_and_below_topics": [{"name": n.topic, "partitions": [0]}]}


def add_offsets(n):
    return {"transactional_id": n.txn, "producer_id": n.pid, "producer_epoch": n.epoch,
            "group_id": n.group}


def end_txn(n):
    return {"transactional_id": n.txn, "producer_id": n.pid, "producer_epoch": n.epoch,
            "committed": False}


def markers(n):
    return {"markers": [{"producer_id": 4242, "producer_epoch": 0, "transaction_result": False,
                         "topics": [{"name": n.topic, "partition_indexes": [0]}],
                         "coordinator_epoch": 0}]}


def configs_of(type_, name):
    return lambda n: {"resources": [{"resource_type": type_, "resource_name": name(n),
                                     "configuration_keys": None}]}


def alter_configs_of(type_, name, key, value):
    return lambda n: {"resources": [{"resource_type": type_, "resource_name": name(n), "configs": [
        {"name": key, "value": value}]}], "validate_only": True}


def incremental_of(type_, name, key, value, validate_only=True):
    return lambda n: {"resources": [{"resource_type": type_, "resource_name": name(n), "configs": [
        {"name": key, "config_operation": 0, "value": value}]}], "validate_only": validate_only}


def acl_entry(n):
    return {"resource_type": 2, "resource_name": f"az-acl-{n.who}", "resource_pattern_type": 3,
            "principal": "User:nobody", "host": "*", "operation": 3, "permission_type": 3}


def acl_filter(n):
    f = acl_entry(n)
    return {"resource_type_filter": 2, "resource_name_filter": f["resource_name"],
            "pattern_type_filter": 3, "principal_filter": None, "host_filter": None,
            "operation": 1, "permission_type": 1}


def mirror_topics(n):
    return {"mirror_name": n.mirror, "topic_names": [f"az-src-{n.who}"], "topic_patterns": []}


# --- checks of the filtering APIs ------------------------------------------------------------

def v_metadata_all(who, resp, n, authorized):
    names = {t["name"] for t in resp["topics"]}
    assert not any(error_codes(resp["topics"])), resp["topics"]
    assert (n.topic in names) == authorized, (who, sorted(names))
    if who == "alice":  # no ACL at all: not even the internal topics
        assert not names, sorted(names)
    if who == "bob":  # bob sees the topic he may describe and nothing else
        assert names <= {n.topic}, sorted(names)


def v_list_groups(who, resp, n, authorized):
    assert resp["error_code"] == 0, resp
    groups = {g["group_id"] for g in resp["groups"]}
    assert (n.group in groups) == authorized, (who, sorted(groups))
    if who == "alice":
        assert not groups, sorted(groups)
    if who == "bob":
        assert groups <= {n.group}, sorted(groups)


def v_list_transactions(who, resp, n, authorized):
    assert resp["error_code"] == 0, resp
    ids = {t["transactional_id"] for t in resp["transaction_states"]}
    assert (n.txn in ids) == authorized, (who, sorted(ids))
    if who == "alice":
        assert not ids, sorted(ids)
    if who == "bob":
        assert ids <= {n.txn}, sorted(ids)


ALL_OPERATIONS = -2147483648


def v_describe_cluster(who, resp, n, authorized):
    """No ACL needed; the cluster's authorized operations only for a caller with DESCRIBE."""
    assert resp["error_code"] == 0, resp
    ops = resp["cluster_authorized_operations"]
    if not authorized:
        assert ops in (0, ALL_OPERATIONS), ops
    else:
        assert ops not in (0, ALL_OPERATIONS) and ops & (1 << 8), (who, bin(ops))


# --- the rows --------------------------------------------------------------------------------

def _rows():
    T, G, X, C = on_topic, on_group, on_txn, on_cluster
    topic_name = lambda n: n.topic  # noqa: E731
    return [
        # Data path.
        Row("Produce", 0, 9, produce, T("Write"), TOPIC_AUTHZ, setup=s_topic,
            intact=i_no_records),
        Row("Produce transactional", 0, 9, produce_txn, both(X("Write"), T("Write")), TXN_AUTHZ,
            setup=s_txn_partition, partial=[(X("Write"), TOPIC_AUTHZ)]),
        Row("Fetch", 1, 12, fetch, T("Read"), TOPIC_AUTHZ, setup=s_records),
        Row("ListOffsets", 2, 9, list_offsets, T("Describe"), TOPIC_AUTHZ, setup=s_records),
        Row("Metadata named topic", 3, 12, metadata_named, T("Describe"), TOPIC_AUTHZ,
            setup=s_topic),
        Row("Metadata all topics", 3, 12, lambda n: {"topics": None,
                                                     "allow_auto_topic_creation": False},
            T("Describe"), None, setup=s_topic, verify=v_metadata_all),
        Row("OffsetForLeaderEpoch", 23, 4, offset_for_leader_epoch, T("Describe"), TOPIC_AUTHZ,
            setup=s_records),
        Row("DescribeTopicPartitions", 75, 0, lambda n: {"topics": [{"name": n.topic}]},
            T("Describe"), TOPIC_AUTHZ, setup=s_topic),
        Row("DescribeProducers", 61, 0,
            lambda n: {"topics": [{"name": n.topic, "partition_indexes": [0]}]},
            T("Read"), TOPIC_AUTHZ, setup=s_records),
        # Topic administration.
        Row("CreateTopics", 19, 7, lambda n: {"topics": [
            {"name": n.topic, "num_partitions": 1, "replication_factor": 1}]},
            T("Create"), TOPIC_AUTHZ, intact=i_no_topic),
        Row("DeleteTopics", 20, 5, lambda n: {"topic_names": [n.topic], "timeout_ms": 10000},
            T("Delete"), TOPIC_AUTHZ, setup=s_topic, intact=i_one_partition),
        Row("CreatePartitions", 37, 3, lambda n: {"topics": [
            {"name": n.topic, "count": 2, "assignments": None}], "timeout_ms": 10000,
            "validate_only": False}, T("Alter"), TOPIC_AUTHZ, setup=s_topic,
            intact=i_one_partition),
        Row("DeleteRecords", 21, 2, lambda n: {"topics": [{"name": n.topic, "partitions": [
            {"partition_index": 0, "offset": 1}]}], "timeout_ms": 10000},
            T("Delete"), TOPIC_AUTHZ, setup=s_records, intact=i_records_kept),
        Row("DescribeConfigs topic", 32, 4, configs_of(TOPIC, topic_name),
            T("DescribeConfigs"), TOPIC_AUTHZ, setup=s_topic),
        Row("DescribeConfigs broker", 32, 4, configs_of(BROKER, lambda n: ""),
            C("DescribeConfigs"), CLUSTER_AUTHZ),
        Row("AlterConfigs topic", 33, 2,
            alter_configs_of(TOPIC, topic_name, "retention.ms", "3600000"),
            T("AlterConfigs"), TOPIC_AUTHZ, setup=s_topic),
        Row("AlterConfigs broker", 33, 2,
            alter_configs_of(BROKER, lambda n: "", "log.retention.ms", "3600000"),
            C("AlterConfigs"), CLUSTER_AUTHZ),
        Row("IncrementalAlterConfigs topic", 44, 1,
            incremental_of(TOPIC, topic_name, "retention.ms", "3600000"),
            T("AlterConfigs"), TOPIC_AUTHZ, setup=s_topic),
        Row("IncrementalAlterConfigs broker", 44, 1,
            incremental_of(BROKER, lambda n: "", "log.retention.ms", "3600000"),
            C("AlterConfigs"), CLUSTER_AUTHZ),
        Row("DescribeLogDirs", 35, 4, lambda n: {"topics": None}, C("Describe"), CLUSTER_AUTHZ),
        Row("DescribeCluster", 60, 1, lambda n: {"include_cluster_authorized_operations": True},
            C("Describe"), None, verify=v_describe_cluster),
        # Consumer groups.
        Row("FindCoordinator group", 10, 4, lambda n: {"key_type": 0,
                                                       "coordinator_keys": [n.group]},
            G("Describe"), GROUP_AUTHZ),
        Row("JoinGroup", 11, 9, join, G("Read"), GROUP_AUTHZ, ok={79}, setup=s_group),
        Row("SyncGroup", 14, 5, lambda n: {**member_of(n), "protocol_type": "consumer",
                                           "protocol_name": "range", "assignments": []},
            G("Read"), GROUP_AUTHZ, ok={25}, setup=s_group),
        Row("Heartbeat", 12, 4, member_of, G("Read"), GROUP_AUTHZ, ok={25}, setup=s_group),
        Row("LeaveGroup", 13, 5, leave, G("Read"), GROUP_AUTHZ, ok={0, 25}, setup=s_group),
        Row("OffsetCommit", 8, 9, commit, both(G("Read"), T("Read")), GROUP_AUTHZ,
            setup=s_records, partial=[(G("Read"), TOPIC_AUTHZ)]),
        Row("OffsetFetch", 9, 8, offset_fetch, both(G("Describe"), T("Describe")), GROUP_AUTHZ,
            setup=s_group, partial=[(G("Describe"), TOPIC_AUTHZ)]),
        Row("OffsetDelete", 47, 0, offset_delete, both(G("Delete"), T("Read")), GROUP_AUTHZ,
            setup=s_group, partial=[(G("Delete"), TOPIC_AUTHZ)]),
        Row("DescribeGroups", 15, 5, lambda n: {"groups": [n.group]}, G("Describe"),
            GROUP_AUTHZ, setup=s_group),
        Row("ListGroups", 16, 5, lambda n: {}, G("Describe"), None, setup=s_group,
            verify=v_list_groups),
        Row("DeleteGroups", 42, 2, lambda n: {"groups_names": [n.group]}, G("Delete"),
            GROUP_AUTHZ, setup=s_group, intact=i_group_kept),
        # Share groups (KIP-932): READ on the group and DESCRIBE on the subscribed topics;
        # a description needs DESCRIBE on the topics the members subscribe to.
        Row("ShareGroupHeartbeat", 76, 1, share_join, both(G("Read"), T("Describe")),
            GROUP_AUTHZ, setup=s_topic, partial=[(G("Read"), TOPIC_AUTHZ)]),
        Row("ShareGroupDescribe", 77, 1, lambda n: {"group_ids": [n.group],
                                                    "include_authorized_operations": True},
            both(G("Describe"), T("Describe")), GROUP_AUTHZ, setup=s_share_group,
            partial=[(G("Describe"), TOPIC_AUTHZ)]),
        # The share data path: READ on the group, then READ on each topic. ShareAcknowledge
        # without a session stops at the session (SHARE_SESSION_NOT_FOUND) after the group.
        Row("ShareFetch", 78, 1, share_fetch, both(G("Read"), T("Read")), GROUP_AUTHZ,
            setup=s_topic_id, partial=[(G("Read"), TOPIC_AUTHZ)]),
        Row("ShareAcknowledge", 79, 1, share_acknowledge, G("Read"), GROUP_AUTHZ, ok={122},
            setup=s_topic_id),
        # Share-group offsets: DESCRIBE, READ or DELETE on the group, then on each topic.
        Row("DescribeShareGroupOffsets", 90, 1, lambda n: {"groups": [{
            "group_id": n.group, "topics": [{"topic_name": n.topic, "partitions": [0]}]}]},
            both(G("Describe"), T("Describe")), GROUP_AUTHZ, setup=s_share_offsets,
            partial=[(G("Describe"), TOPIC_AUTHZ)]),
        Row("AlterShareGroupOffsets", 91, 0, alter_share_offsets, both(G("Read"), T("Read")),
            GROUP_AUTHZ, setup=s_topic, partial=[(G("Read"), TOPIC_AUTHZ)]),
        Row("DeleteShareGroupOffsets", 92, 0, lambda n: {"group_id": n.group, "topics": [
            {"topic_name": n.topic}]}, both(G("Delete"), T("Read")), GROUP_AUTHZ,
            setup=s_share_offsets, partial=[(G("Delete"), TOPIC_AUTHZ)]),
        Row("FindCoordinator share", 10, 6,
            lambda n: {"key_type": 2, "coordinator_keys": [f"{n.group}:AAAAAAAAAAAAAAAAAAAAAQ:0"]},
            C("ClusterAction"), CLUSTER_AUTHZ),
        # Transactions.
        Row("FindCoordinator transaction", 10, 4,
            lambda n: {"key_type": 1, "coordinator_keys": [n.txn]}, X("Describe"), TXN_AUTHZ),
        Row("InitProducerId transactional", 22, 4,
            lambda n: {"transactional_id": n.txn, "transaction_timeout_ms": 60000},
            X("Write"), TXN_AUTHZ),
        Row("InitProducerId idempotent", 22, 4,
            lambda n: {"transactional_id": None, "transaction_timeout_ms": 60000},
            C("IdempotentWrite"), CLUSTER_AUTHZ),
        Row("AddPartitionsToTxn", 24, 3, add_partitions, both(X("Write"), T("Write")),
            TXN_AUTHZ, setup=both_setups(s_topic, s_pid), partial=[(X("Write"), TOPIC_AUTHZ)]),
        Row("AddOffsetsToTxn", 25, 4, add_offsets, both(X("Write"), G("Read")), TXN_AUTHZ,
            setup=s_pid, partial=[(X("Write"), GROUP_AUTHZ)]),
        Row("TxnOffsetCommit", 28, 4, txn_offset_commit,
            both(X("Write"), G("Read"), T("Read")), TXN_AUTHZ, setup=s_txn_offsets,
            partial=[(X("Write"), GROUP_AUTHZ), (both(X("Write"), G("Read")), TOPIC_AUTHZ)]),
        Row("EndTxn", 26, 4, end_txn, X("Write"), TXN_AUTHZ, setup=s_txn_partition),
        Row("DescribeTransactions", 65, 0, lambda n: {"transactional_ids": [n.txn]},
            X("Describe"), TXN_AUTHZ, setup=s_pid),
        Row("ListTransactions", 66, 1, lambda n: {"state_filters": [], "producer_id_filters": []},
            X("Describe"), None, setup=s_pid, verify=v_list_transactions),
        # Mirra's coordinator writes its own markers: refused from every client, CLUSTER_ACTION
        # or not (src/server/handlers/write_txn_markers.cc).
        Row("WriteTxnMarkers", 27, 1, markers, C("ClusterAction"), CLUSTER_AUTHZ,
            ok={CLUSTER_AUTHZ}, setup=s_topic),
        # ACLs and SCRAM credentials.
        Row("DescribeAcls", 29, 3, lambda n: {**acl_filter(n), "pattern_type_filter": 1},
            C("Describe"), CLUSTER_AUTHZ),
        Row("CreateAcls", 30, 3, lambda n: {"creations": [acl_entry(n)]}, C("Alter"),
            CLUSTER_AUTHZ, intact=i_no_acl),
        Row("DeleteAcls", 31, 3, lambda n: {"filters": [acl_filter(n)]}, C("Alter"),
            CLUSTER_AUTHZ),
        Row("DescribeUserScramCredentials", 50, 0, lambda n: {"users": None}, C("Describe"),
            CLUSTER_AUTHZ),
        Row("AlterUserScramCredentials", 51, 0, lambda n: {"deletions": [
            {"name": f"az-nobody-{n.who}", "mechanism": 1}], "upsertions": []},
            C("Alter"), CLUSTER_AUTHZ, ok=NOT_AUTHZ),
        # Client quotas (docs/quotas.md): DESCRIBE_CONFIGS / ALTER_CONFIGS on the cluster.
        Row("DescribeClientQuotas", 48, 1, lambda n: {"components": [
            {"entity_type": "client-id", "match_type": 0, "match": f"az-{n.who}"}],
            "strict": False}, C("DescribeConfigs"), CLUSTER_AUTHZ),
        Row("AlterClientQuotas", 49, 1, lambda n: {"entries": [{"entity": [
            {"entity_type": "client-id", "entity_name": f"az-{n.who}"}], "ops": [
            {"key": "producer_byte_rate", "value": 1048576.0, "remove": False}]}],
            "validate_only": False}, C("AlterConfigs"), CLUSTER_AUTHZ),
        # Mirroring (docs/mirroring-design.md §9): changes need CLUSTER_ACTION, reads DESCRIBE.
        Row("CreateMirror", 94, 0, lambda n: {"mirror_name": n.mirror, "configs": [
            {"name": "bootstrap.servers", "value": DEAD_SOURCE}]},
            C("ClusterAction"), CLUSTER_AUTHZ, intact=i_no_mirror),
        Row("DeleteMirror", 104, 0, lambda n: {"mirror_name": n.mirror}, C("ClusterAction"),
            CLUSTER_AUTHZ, setup=s_mirror, intact=i_mirror_kept),
        Row("AddTopicsToMirror", 95, 0, mirror_topics, C("ClusterAction"), CLUSTER_AUTHZ,
            ok=NOT_AUTHZ, setup=s_mirror),
        Row("RemoveTopicsFromMirror", 96, 0, mirror_topics, C("ClusterAction"), CLUSTER_AUTHZ,
            ok=NOT_AUTHZ, setup=s_mirror),
        Row("PauseMirrorTopics", 102, 0, mirror_topics, C("ClusterAction"), CLUSTER_AUTHZ,
            ok=NOT_AUTHZ, setup=s_mirror),
        Row("ResumeMirrorTopics", 103, 0, mirror_topics, C("ClusterAction"), CLUSTER_AUTHZ,
            ok=NOT_AUTHZ, setup=s_mirror),
        Row("IncrementalAlterConfigs mirror", 44, 1,
            incremental_of(MIRROR_RESOURCE, lambda n: n.mirror, "mirror.fetch.max.wait.ms", "400",
                           validate_only=False),
            C("ClusterAction"), CLUSTER_AUTHZ, setup=s_mirror),
        Row("ListMirrors", 98, 0, lambda n: {"include_topics": True}, C("Describe"),
            CLUSTER_AUTHZ),
        Row("DescribeMirrors", 99, 0, lambda n: {"mirror_names": None}, C("Describe"),
            CLUSTER_AUTHZ),
        Row("DescribeConfigs mirror", 32, 4, configs_of(MIRROR_RESOURCE, lambda n: n.mirror),
            C("Describe"), CLUSTER_AUTHZ, setup=s_mirror),
        Row("LastMirroredOffsets", 105, 0, lambda n: {"source_cluster_id": "az-nowhere",
                                                      "topics": []},
            C("Describe"), CLUSTER_AUTHZ),
    ]


ROWS = _rows()

# APIs that need no ACL at all (Kafka's too): no row.
NO_ACL_APIS = {17: "SaslHandshake", 18: "ApiVersions", 36: "SaslAuthenticate"}
