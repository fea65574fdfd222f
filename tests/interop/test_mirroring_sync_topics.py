"""The topics sync between two real `mirra server` processes (docs/mirroring-design.md §8,
issue 16 points 2 and 3): a topic created later on the source that matches a pattern the mirror
was given is added and mirrored at the same offsets, one that does not match is not; a source
topic deleted, and one deleted and created again, go FAILED for good with the reason in
`mirra mirror --describe` while the other topics keep mirroring; the failed topic's data stays
readable on the destination, survives a restart as FAILED, and can be failed over. Every wait
is a bounded poll of a condition, never a sleep."""
import confluent_kafka
import confluent_kafka.admin

from mirra_testlib import run_mirra, wait_until
from mirroring import ok, watermarks_of
from raw_admin import incremental_alter
from test_mirroring_ops import MIRROR_RESOURCE, SET, create_topic, in_sync, mirror, produce, rows

STEP = 30  # seconds: the bound of each wait
SYNC = {"mirror.metadata.refresh.interval.ms": 500}


def topics_on(broker):
    admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": broker.bootstrap})
    return set(admin.list_topics(timeout=STEP).topics)


def values(bootstrap, topic):
    """Every value of partition 0, in offset order."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "read",
                                  "enable.auto.commit": False})
    try:
        tp = confluent_kafka.TopicPartition(topic, 0, 0)
        end = c.get_watermark_offsets(tp, timeout=STEP)[1]
        c.assign([tp])
        out = []
        while len(out) < end:
            m = c.poll(STEP)
            assert m is not None, f"{topic}: read {len(out)} of {end}"
            assert m.error() is None, m.error()
            out.append(m.value())
        return out
    finally:
        c.close()


def failed_with(dst, topic, reason):
    r = rows(dst, topic)
    return bool(r) and all(p["state"] == "FAILED" and reason in (p["lastError"] or "")
                           for p in r.values())


def test_new_topics_follow_the_pattern_and_deleted_ones_fail(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker(SYNC, name="destination")
    for t, n in (("orders-a", 2), ("keep", 1), ("gone", 1), ("again", 1)):
        create_topic(src, t, n)
        produce(src.bootstrap, t, n, 10, "first")
    cfg = tmp_path / "dr.properties"
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\n")
    ok(mirror(dst, "--create", "--mirror", "dr", "--mirror-config", str(cfg)))
    ok(mirror(dst, "--add", "--mirror", "dr", "--topic", "orders-.*"))
    ok(mirror(dst, "--add", "--mirror", "dr", "--topic", "keep", "--topic", "gone",
              "--topic", "again"))
    wait_until(lambda: all(in_sync(src, dst, t, n) for t, n in
                           (("orders-a", 2), ("keep", 1), ("gone", 1), ("again", 1))),
               STEP, "the first topics mirrored")

    # A change of the mirror's configs (a new runner and sync) keeps the remembered pattern.
    key = (MIRROR_RESOURCE, "dr")
    assert incremental_alter(dst.port, [(*key, [("mirror.fetch.max.wait.ms", SET, "100")])])[key] \
        == (0, None)
    dst.wait_for(r"mirror dr: configs changed; reconnecting", timeout=STEP)

    # New topics: the non-matching one first, so that the sync round that adds the matching
    # one has seen both.
    create_topic(src, "other", 1)
    produce(src.bootstrap, "other", 1, 5, "other")
    create_topic(src, "orders-new", 3)
    produce(src.bootstrap, "orders-new", 3, 30, "new")
    wait_until(lambda: in_sync(src, dst, "orders-new", 3), STEP, "the new topic mirrored")
    assert watermarks_of(dst.bootstrap, "orders-new", 3) == \
        watermarks_of(src.bootstrap, "orders-new", 3)
    assert "other" not in topics_on(dst)
    assert not rows(dst, "other")
    dst.wait_for(r"mirror dr: added topic orders-new", timeout=STEP)

    # Deleted, and deleted then created again (another topic id, other records).
    old_again = values(dst.bootstrap, "again")
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--delete", "--topic", "gone"))
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--delete", "--topic", "again"))
    create_topic(src, "again", 1)
    produce(src.bootstrap, "again", 1, 25, "second life")
    wait_until(lambda: failed_with(dst, "gone", "topic gone was deleted on the source"), STEP,
               "the deleted topic FAILED")
    wait_until(lambda: failed_with(dst, "again",
                                   "topic again was deleted and recreated on the source"),
               STEP, "the recreated topic FAILED")
    table = ok(mirror(dst, "--describe"))
    assert "topic gone was deleted on the source" in table, table
    assert "topic again was deleted and recreated on the source (id " in table, table

    # The others keep mirroring.
    produce(src.bootstrap, "keep", 1, 10, "after")
    produce(src.bootstrap, "orders-a", 2, 10, "after")
    wait_until(lambda: in_sync(src, dst, "keep", 1) and in_sync(src, dst, "orders-a", 2), STEP,
               "the other topics after the failures")
    # The failed topics' data is still there, and the recreated topic's records never came.
    assert values(dst.bootstrap, "gone") == [f"first-{i}".encode() for i in range(10)]
    assert values(dst.bootstrap, "again") == old_again
    assert "again" in topics_on(dst) and "gone" in topics_on(dst)

    # For good: a restart keeps them FAILED and does not retry them.
    dst.restart()
    wait_until(lambda: in_sync(src, dst, "keep", 1), STEP, "mirroring after the restart")
    assert failed_with(dst, "gone", "deleted on the source")
    assert failed_with(dst, "again", "deleted and recreated on the source")
    assert all(p["retries"] <= 1 for t in ("gone", "again") for p in rows(dst, t).values())

    # And a failed topic can be failed over: writable, its data kept.
    ok(mirror(dst, "--remove", "--mirror", "dr", "--topic", "gone"))
    assert rows(dst, "gone")[0]["state"] == "STOPPED"
    produce(dst.bootstrap, "gone", 1, 1, "local")
    assert values(dst.bootstrap, "gone")[-1] == b"local-0"
    assert len(values(dst.bootstrap, "gone")) == 11
