"""The sync tasks' status in `mirra mirror --describe` (docs/mirroring.md "Watch it",
docs/mirroring-design.md §8, §12), between two real `mirra server` processes: every kind runs each
`mirror.metadata.refresh.interval.ms` and shows its last success; with the source stopped the
kinds that work from the source's Metadata (topics, configs, partitions) show its error and count
failures, apart from the partitions' own errors; with the source back the errors clear. Every
wait is a bounded poll of a condition, never a sleep."""
import re
import time

import confluent_kafka

from mirra_testlib import run_mirra, wait_until
from mirroring import describe, describe_sync, ok, start_mirror

STEP = 30  # seconds: the bound of each wait
KINDS = ("topics", "configs", "partitions", "groups", "share-groups", "acls")
NEED_METADATA = ("topics", "configs", "partitions")


def kinds(dst):
    return {r["kind"]: r for r in describe_sync(dst) if r["type"] == "sync" and r["mirror"] == "dr"}


def every_kind(dst, cond):
    k = kinds(dst)
    return set(k) == set(KINDS) and all(cond(name, k[name]) for name in KINDS)


def test_sync_status_per_kind_follows_the_source(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker({"mirror.metadata.refresh.interval.ms": 500}, name="destination")
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", "synced"))
    p = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap})
    p.produce("synced", value=b"one")
    assert p.flush(STEP) == 0
    start_mirror(src, dst, tmp_path, "synced")

    # Rounds run and succeed, kind by kind.
    wait_until(lambda: every_kind(dst, lambda _, r: r["runs"] >= 1 and r["lastSuccessMs"] > 0),
               STEP, "a first sync round")
    first = kinds(dst)
    wait_until(lambda: every_kind(dst, lambda n, r: r["runs"] >= first[n]["runs"] + 2
                                  and r["lastSuccessMs"] > first[n]["lastSuccessMs"]),
               STEP, "two more rounds")
    for name, r in kinds(dst).items():
        assert r["failures"] == 0 and r["lastError"] is None and r["lastErrorCode"] == 0, r
        assert r["lastRunMs"] >= r["lastSuccessMs"] and r["lastDurationUs"] >= 0, r
    assert [r["partition"] for r in describe(dst)] == [0]  # the partition rows as before
    table = ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--describe"))
    assert "\nSync of mirror dr\n" in table, table
    for name in KINDS:
        assert re.search(rf"\n{name}\s+\d+\s+0\s+\d+\.\ds ago\s+-\s", table), table

    # The source stops: the kinds that need its Metadata fail, each on its own.
    stopped_at = int(time.time() * 1000)
    assert src.stop() == 0

    def failing():
        k = kinds(dst)
        return all(k[n]["failures"] >= 1 and k[n]["lastError"] is not None
                   and k[n]["lastErrorMs"] >= stopped_at for n in NEED_METADATA)
    wait_until(failing, STEP, "the sync kinds failing with the source down")
    k = kinds(dst)
    for name in NEED_METADATA:
        assert "Metadata" in k[name]["lastError"] and k[name]["lastErrorCode"] != 0, k[name]
    table = ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--describe"))
    assert re.search(r"\ntopics\s+\d+\s+[1-9]\d*\s+\S+ ago\s+the source's Metadata failed", table), \
        table
    # The data path's own errors stay on the partition rows.
    assert [r["partition"] for r in describe(dst)] == [0]

    # The source is back: the next good round clears the errors; the failures stay counted.
    back_at = int(time.time() * 1000)
    src.start()
    wait_until(lambda: every_kind(dst, lambda _, r: r["lastError"] is None
                                  and r["lastSuccessMs"] >= back_at), STEP,
               "the sync kinds working again")
    k = kinds(dst)
    for name in NEED_METADATA:
        assert k[name]["failures"] >= 1, k[name]
