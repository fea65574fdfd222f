"""The groups sync between two real `mirra server` processes (docs/mirroring-design.md §8): the
committed offsets of the source's consumer groups appear on the destination; an offset past
what the destination holds is clamped to its end; a group with members on the destination is
left to them until they leave; a reset on the source follows; one group whose commits the
destination refuses (MIRRA_FAILPOINTS, base/failpoint.h) shows its error while the other groups
and the data go on. The destination syncs every 500 ms; every wait is a bounded poll of a
condition, never a sleep."""
import confluent_kafka
from confluent_kafka import TopicPartition

from mirra_testlib import run_mirra, wait_until
from mirroring import caught_up, commit_offsets, committed_offsets, ok, start_mirror

STEP = 30  # seconds: the bound of each wait
PARTITIONS = 2
NONE = confluent_kafka.OFFSET_INVALID  # what committed() answers for "no committed offset"
BROKER = {"mirror.metadata.refresh.interval.ms": 500, "offsets.topic.num.partitions": 3,
          "group.initial.rebalance.delay.ms": 0}


def create_topic(broker, topic):
    ok(run_mirra("topics", "--bootstrap-server", broker.bootstrap, "--create", "--topic", topic,
                 "--partitions", str(PARTITIONS)))


def produce(bootstrap, topic, count):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 2})
    for i in range(count):
        p.produce(topic, value=f"r-{i}".encode(), partition=i % PARTITIONS)
    assert p.flush(STEP) == 0


def commit(broker, group, offsets, topic="orders"):
    commit_offsets(broker, group, offsets, topic)


def committed(broker, group, topic="orders"):
    return committed_offsets(broker, group, topic, PARTITIONS)


def consumer_group_commits(broker, group, offsets, topic="orders"):
    """A real consumer group: a member joins, reads, commits `offsets` and leaves (the group
    stays, Empty, protocol type "consumer")."""
    c = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    try:
        c.subscribe([topic])
        wait_until(lambda: c.poll(0.1) is not None and len(c.assignment()) == PARTITIONS, STEP,
                   f"{group} to be assigned every partition and read")
        tps = [TopicPartition(topic, p, o) for p, o in offsets.items()]
        for tp in c.commit(offsets=tps, asynchronous=False):
            assert tp.error is None, tp
    finally:
        c.close()


def synced(dst, group, expected):
    return lambda: committed(dst, group) == expected


def test_group_offsets_follow_the_source_and_active_groups_are_left_alone(make_broker, tmp_path):
    src = make_broker(BROKER, name="source")
    dst = make_broker(BROKER, name="destination")
    create_topic(src, "orders")
    produce(src.bootstrap, "orders", 40)
    start_mirror(src, dst, tmp_path, "orders")
    wait_until(lambda: caught_up(src, dst, "orders", PARTITIONS), STEP, "orders mirrored")

    # A consumer group's commits, and an offsets-only group's, appear with the same offsets.
    consumer_group_commits(src, "app", {0: 7, 1: 4})
    commit(src, "tool", {0: 2})
    wait_until(synced(dst, "app", {0: 7, 1: 4}), STEP, "app's offsets on the destination")
    wait_until(synced(dst, "tool", {0: 2, 1: NONE}), STEP, "tool's offsets on the destination")
    out = ok(run_mirra("groups", "--bootstrap-server", dst.bootstrap, "--describe", "--group",
                       "app"))
    assert "orders" in out, out

    # An offset past what the destination holds (20 per partition) points at its end instead.
    commit(src, "ahead", {0: 1000, 1: 5})
    wait_until(synced(dst, "ahead", {0: 20, 1: 5}), STEP, "ahead's offsets clamped")

    # A group with a member on the destination is left to it.
    mark = dst.mark()
    live = confluent_kafka.Consumer({"bootstrap.servers": dst.bootstrap, "group.id": "live",
                                     "enable.auto.commit": False,
                                     "auto.offset.reset": "earliest"})
    live.subscribe(["orders"])
    try:
        wait_until(lambda: live.poll(0.1) is not None and len(live.assignment()) == PARTITIONS,
                   STEP, "the destination's live member to be assigned")
        commit(src, "live", {0: 3, 1: 3})
        dst.wait_for(r"group live has members on the destination", timeout=STEP, start=mark)
        commit(src, "fence", {0: 1})  # synced in a round after live was seen
        wait_until(synced(dst, "fence", {0: 1, 1: NONE}), STEP, "fence's offsets")
        assert committed(dst, "live") == {0: NONE, 1: NONE}
    finally:
        live.close()
    # Once its member has left, the group is synced like the others.
    wait_until(synced(dst, "live", {0: 3, 1: 3}), STEP, "live's offsets once it is empty")

    # A reset on the source (backwards) follows.
    ok(run_mirra("groups", "--bootstrap-server", src.bootstrap, "--reset-offsets", "--group",
                 "app", "--topic", "orders", "--to-earliest", "--execute"))
    wait_until(synced(dst, "app", {0: 0, 1: 0}), STEP, "app's reset on the destination")


def test_one_refused_group_stops_alone(make_broker, tmp_path):
    src = make_broker(BROKER, name="source")
    dst = make_broker(BROKER, name="destination",
                      env={"MIRRA_FAILPOINTS": "mirror.sync.group_commit.blocked=KAFKA_STORAGE_ERROR"})
    create_topic(src, "orders")
    produce(src.bootstrap, "orders", 20)
    mark = dst.mark()
    start_mirror(src, dst, tmp_path, "orders")
    wait_until(lambda: caught_up(src, dst, "orders", PARTITIONS), STEP, "orders mirrored")
    commit(src, "blocked", {0: 5, 1: 5})
    commit(src, "fine", {0: 6, 1: 6})
    wait_until(synced(dst, "fine", {0: 6, 1: 6}), STEP, "fine's offsets")
    dst.wait_for(r"the offsets of group blocked are not synced: .*mirror\.sync\.group_commit",
                 timeout=STEP, start=mark)
    dst.wait_for(r"the groups sync failed: 1 of 2 groups failed; the first, blocked",
                 timeout=STEP, start=mark)

    # The data and the other groups go on.
    produce(src.bootstrap, "orders", 20)
    wait_until(lambda: caught_up(src, dst, "orders", PARTITIONS), STEP, "the new records")
    commit(src, "fine", {0: 15, 1: 16})
    wait_until(synced(dst, "fine", {0: 15, 1: 16}), STEP, "fine's new offsets")
    assert committed(dst, "blocked") == {0: NONE, 1: NONE}
    # Logged once, not every round.
    assert len([l for l in dst.log(mark).splitlines()
                if "the offsets of group blocked are not synced" in l]) == 1
