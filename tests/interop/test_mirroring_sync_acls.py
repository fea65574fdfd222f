"""The ACL sync between two real `mirra server` processes with authorizers
(docs/mirroring-design.md §8): the source's ACLs that `mirror.acl.include` takes appear on the
destination; one removed at the source goes from the destination; ACLs made on the destination
are never touched, one the filter does not take is never copied; the acls row of
`mirra mirror --describe` counts the changes; once the topic is failed over the ACLs stay as
they are. Both brokers make User:ANONYMOUS (every PLAINTEXT client, the mirror's link included)
a super user, so the test and the mirror may administer them. The destination syncs every
500 ms; every wait is a bounded poll of a condition, never a sleep."""
import confluent_kafka

from mirra_testlib import run_mirra, wait_until
from mirroring import describe_sync, ok

STEP = 30  # seconds: the bound of each wait
BROKER = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",
    "mirror.metadata.refresh.interval.ms": 500,
}
ALICE_READ = "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)"
BOB_WRITE = "(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)"
OPS_DESCRIBE = "(principal=User:ops, host=*, operation=DESCRIBE, permissionType=ALLOW)"


def acls(broker, *args):
    return ok(run_mirra("acls", "--bootstrap-server", broker.bootstrap, *args))


def listed(broker):
    """`mirra acls --list` as {resource pattern line: [entry lines]}."""
    out, current = {}, None
    for line in acls(broker, "--list").splitlines():
        if line.startswith("Current ACLs for resource"):
            current = line
            out[current] = []
        elif line.startswith("\t") and current is not None:
            out[current].append(line.strip())
    return out


def entries(broker, resource_type, name, pattern="LITERAL"):
    key = (f"Current ACLs for resource `ResourcePattern(resourceType={resource_type}, "
           f"name={name}, patternType={pattern})`:")
    return sorted(listed(broker).get(key, []))


def acls_row(dst):
    rows = [r for r in describe_sync(dst) if r["type"] == "sync" and r["kind"] == "acls"]
    assert len(rows) == 1, rows
    return rows[0]


def mirror_orders(src, dst, tmp_path, acl_include):
    """Mirror "dr" of `src` on `dst` with mirror.acl.include=`acl_include`, topic orders added."""
    cfg = tmp_path / "dr.properties"
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\nmirror.acl.include={acl_include}\n")
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--create", "--mirror", "dr",
                 "--mirror-config", str(cfg)))
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--add", "--mirror", "dr",
                 "--topic", "orders"))


def test_source_acls_follow_local_ones_stay(make_broker, tmp_path):
    src = make_broker(BROKER, name="source")
    dst = make_broker(BROKER, name="destination")
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", "orders"))
    p = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap})
    p.produce("orders", value=b"one")
    assert p.flush(STEP) == 0

    acls(src, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic",
         "orders")
    acls(src, "--add", "--allow-principal", "User:bob", "--operation", "Write", "--topic",
         "orders-", "--resource-pattern-type", "prefixed")
    acls(src, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--group",
         "billing")
    acls(src, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic",
         "secret")  # not taken by the filter
    acls(dst, "--add", "--allow-principal", "User:ops", "--operation", "Describe", "--topic",
         "orders")  # made on the destination

    mirror_orders(src, dst, tmp_path, "orders.*,billing")

    wait_until(lambda: entries(dst, "TOPIC", "orders") == sorted([ALICE_READ, OPS_DESCRIBE])
               and entries(dst, "TOPIC", "orders-", "PREFIXED") == [BOB_WRITE]
               and entries(dst, "GROUP", "billing") == [ALICE_READ], STEP,
               "the source's ACLs on the destination")
    assert entries(dst, "TOPIC", "secret") == []
    row = acls_row(dst)
    assert row["changedTotal"] == 3 and row["lookedAt"] == 3 and row["lastError"] is None, row

    # Removed at the source: removed here; the destination's own ACL stays.
    acls(src, "--remove", "--allow-principal", "User:alice", "--operation", "Read", "--topic",
         "orders", "--force")
    wait_until(lambda: entries(dst, "TOPIC", "orders") == [OPS_DESCRIBE], STEP,
               "alice's READ gone from the destination")
    # Removed on the destination by hand: the next round creates it again (the source has it).
    acls(dst, "--remove", "--allow-principal", "User:alice", "--operation", "Read", "--group",
         "billing", "--force")
    wait_until(lambda: entries(dst, "GROUP", "billing") == [ALICE_READ], STEP,
               "billing's ACL back on the destination")

    # Failed over: the sync stops and the ACLs stay as they are for the new primary.
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--remove", "--mirror", "dr",
                 "--topic", "orders"))
    runs = acls_row(dst)["runs"]
    acls(src, "--remove", "--allow-principal", "User:bob", "--operation", "Write", "--topic",
         "orders-", "--resource-pattern-type", "prefixed", "--force")
    wait_until(lambda: acls_row(dst)["runs"] >= runs + 3, STEP, "three rounds after failover")
    assert entries(dst, "TOPIC", "orders-", "PREFIXED") == [BOB_WRITE]
    assert entries(dst, "TOPIC", "orders") == [OPS_DESCRIBE]


def test_a_destination_without_authorizer_shows_why(make_broker, tmp_path):
    src = make_broker(BROKER, name="source")
    dst = make_broker({"mirror.metadata.refresh.interval.ms": 500}, name="destination")
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", "orders"))
    acls(src, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic",
         "orders")
    mirror_orders(src, dst, tmp_path, ".*")
    wait_until(lambda: acls_row(dst)["failures"] >= 1, STEP, "the acls kind to fail")
    row = acls_row(dst)
    assert row["lastErrorCode"] == 54 and "authorizer.class.name" in row["lastError"], row
    table = ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--describe"))
    assert "authorizer.class.name" in table, table
    # The data path goes on.
    kinds = {r["kind"]: r for r in describe_sync(dst) if r["type"] == "sync"}
    assert kinds["topics"]["lastError"] is None, kinds
