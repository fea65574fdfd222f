"""Operating mirrors between two real `mirra server` processes (docs/mirroring-design.md §3, §5,
§7): pause and resume, a FAILED partition retried with exponential backoff and recovered by the
operator (failures injected with MIRRA_FAILPOINTS, base/failpoint.h: a storage error of one
partition's mirror appends), DeleteMirror refused while topics mirror, and kill -9 in the middle of
a failover. Every wait is a bounded poll of a condition, never a sleep."""
import re
import struct
import subprocess

import confluent_kafka

from mirra_testlib import MIRRA, assert_one_line_error, run_mirra, wait_until
from mirroring import PID_AT, describe, ok, start_mirror, watermarks_of
from raw_admin import incremental_alter

STEP = 30  # seconds: the bound of each wait
# The mirror config resource (docs/mirroring-design.md §7) and IncrementalAlterConfigs' SET.
MIRROR_RESOURCE, SET = 64, 0


def produce(bootstrap, topic, partitions, count, tag):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 2})
    for i in range(count):
        p.produce(topic, value=f"{tag}-{i}".encode(), partition=i % partitions)
    assert p.flush(STEP) == 0


def create_topic(broker, topic, partitions):
    ok(run_mirra("topics", "--bootstrap-server", broker.bootstrap, "--create", "--topic", topic,
                 "--partitions", str(partitions)))


def rows(dst, topic):
    return {r["partition"]: r for r in describe(dst) if r["topic"] == topic}


def in_sync(src, dst, topic, partitions, isolation="read_uncommitted"):
    """Every partition MIRRORING with the destination's log end at the source's (its LSO when
    a transaction is open there: the mirror reads read_committed)."""
    ends = watermarks_of(src.bootstrap, topic, partitions, isolation)
    r = rows(dst, topic)
    return len(r) == partitions and all(
        r[p]["state"] == "MIRRORING" and r[p]["destinationLogEndOffset"] == ends[p]
        for p in range(partitions))


def mirror(dst, *args):
    return run_mirra("mirror", "--bootstrap-server", dst.bootstrap, *args)


def test_pause_stops_fetching_and_resume_continues(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    for t in ("paused", "fence"):
        create_topic(src, t, 2)
        produce(src.bootstrap, t, 2, 10, "before")
    start_mirror(src, dst, tmp_path, "paused")
    ok(mirror(dst, "--add", "--mirror", "dr", "--topic", "fence"))
    wait_until(lambda: in_sync(src, dst, "paused", 2) and in_sync(src, dst, "fence", 2), STEP,
               "both topics mirrored")

    # The source's cluster id, as the mirror recorded it.
    probe = confluent_kafka.Consumer({"bootstrap.servers": src.bootstrap, "group.id": "x"})
    source_id = probe.list_topics(timeout=10).cluster_id
    probe.close()
    assert source_id and source_id in ok(mirror(dst, "--list")).splitlines()[1]

    assert "is paused" in ok(mirror(dst, "--pause", "--mirror", "dr", "--topic", "paused"))
    assert {r["state"] for r in rows(dst, "paused").values()} == {"PAUSED"}
    r = mirror(dst, "--pause", "--mirror", "dr", "--topic", "paused")
    assert_one_line_error(r, "paused already")
    # Writes to the paused topic, then to the fence: once the fence is copied, the mirror has
    # fetched after the paused topic's writes, and must have left them alone.
    produce(src.bootstrap, "paused", 2, 10, "while-paused")
    produce(src.bootstrap, "fence", 2, 10, "after")
    wait_until(lambda: in_sync(src, dst, "fence", 2), STEP, "the fence topic copied")
    assert sum(watermarks_of(dst.bootstrap, "paused", 2)) == 10
    assert {r["state"] for r in rows(dst, "paused").values()} == {"PAUSED"}
    # Still read-only while paused.
    r = run_mirra("produce", "--bootstrap-server", dst.bootstrap, "--topic", "paused",
                  input="x\n")
    assert r.returncode != 0 and "read-only" in r.stderr, r.stderr

    assert "mirrored again" in ok(mirror(dst, "--resume", "--mirror", "dr", "--topic", "paused"))
    wait_until(lambda: in_sync(src, dst, "paused", 2), STEP, "the paused topic to catch up")
    assert sum(watermarks_of(dst.bootstrap, "paused", 2)) == 20
    r = mirror(dst, "--resume", "--mirror", "dr", "--topic", "paused")
    assert_one_line_error(r, "neither paused nor failed")
    r = mirror(dst, "--pause", "--mirror", "dr", "--topic", "nope")
    assert_one_line_error(r, "not in mirror dr")


def retry_waits(dst, topic_partition, start):
    return [int(m.group(1)) for m in re.finditer(
        rf"{re.escape(topic_partition)} is FAILED \(attempt \d+ of \d+\); retrying in (\d+) ms",
        dst.log(start))]


def test_failed_partition_retries_with_backoff_and_the_operator_recovers_it(make_broker,
                                                                            tmp_path):
    src = make_broker(name="source")
    # auto-0 fails twice and then works; manual-0 fails three times, which exhausts
    # mirror.failed.retry.max.attempts and leaves it to the operator.
    dst = make_broker({"mirror.failed.retry.initial.backoff.ms": 300,
                       "mirror.failed.retry.max.attempts": 3}, name="destination",
                      env={"MIRRA_FAILPOINTS": "mirror.append.auto-0=KAFKA_STORAGE_ERROR*2;"
                                               "mirror.append.manual-0=KAFKA_STORAGE_ERROR*3"})
    for t in ("auto", "manual"):
        create_topic(src, t, 2)
        produce(src.bootstrap, t, 2, 20, t)
    mark = dst.mark()
    start_mirror(src, dst, tmp_path, "auto")
    ok(mirror(dst, "--add", "--mirror", "dr", "--topic", "manual"))

    # One partition's failure stops no other: partition 1 of both topics is copied.
    wait_until(lambda: all(rows(dst, t)[1]["lag"] == 0 and rows(dst, t)[1]["state"] == "MIRRORING"
                           for t in ("auto", "manual")), STEP, "the healthy partitions")
    wait_until(lambda: rows(dst, "manual")[0]["state"] == "FAILED"
               and rows(dst, "manual")[0]["retries"] == 3, STEP, "manual-0 to give up")
    failed = rows(dst, "manual")[0]
    assert "failpoint" in failed["lastError"] and failed["destinationLogEndOffset"] == 0, failed
    dst.wait_for(r"manual-0 is FAILED .* waits for the operator", timeout=STEP, start=mark)

    wait_until(lambda: in_sync(src, dst, "auto", 2), STEP, "auto-0 to recover by itself")
    waits = retry_waits(dst, "auto-0", mark)
    assert len(waits) == 2, waits
    # 300 ms, then 600 ms, each with +-20% jitter.
    assert 240 <= waits[0] <= 360 and 480 <= waits[1] <= 720, waits
    dst.wait_for(r"auto-0 recovered after 2 failed attempt\(s\)", timeout=STEP, start=mark)
    assert rows(dst, "auto")[0]["retries"] == 0 and rows(dst, "auto")[0]["lastError"] is None

    # A restart (without the failpoints now) keeps the FAILED state and its count: no
    # automatic retry comes back.
    dst.env = {}
    dst.restart()
    assert rows(dst, "manual")[0]["state"] == "FAILED"
    assert rows(dst, "manual")[0]["retries"] == 3
    assert "mirrored again" in ok(mirror(dst, "--resume", "--mirror", "dr", "--topic", "manual"))
    wait_until(lambda: in_sync(src, dst, "manual", 2), STEP, "manual-0 recovered by the operator")
    assert sum(watermarks_of(dst.bootstrap, "manual", 2)) == 20


def test_a_corrupt_source_batch_fails_its_partition_alone(make_broker, tmp_path):
    """§2 step 1: a source batch whose CRC does not match fails its partition alone, for good,
    with nothing of it appended. The producer-id rewrite patches the CRC rather than recomputing
    it, so it must not make the corrupt batch look whole."""
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    create_topic(src, "crc", 2)
    p = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap, "linger.ms": 2,
                                  "enable.idempotence": True})
    for i in range(20):
        p.produce("crc", value=f"crc-{i}".encode(), partition=i % 2)
    assert p.flush(STEP) == 0
    assert src.stop() == 0
    # One bit of the last record of partition 0's first batch, inside the CRC's range. After a
    # clean stop the source does not read its batches again: it serves this one as it is now.
    [segment] = sorted((src.data_dir / "crc-0").glob("*.log"))
    data = bytearray(segment.read_bytes())
    _, length = struct.unpack_from(">qi", data, 0)
    (pid,) = struct.unpack_from(">q", data, PID_AT)
    assert pid >= 0  # idempotent: the rewrite has a producer id to change
    data[12 + length - 1] ^= 1
    segment.write_bytes(bytes(data))
    src.start()
    mark = dst.mark()
    start_mirror(src, dst, tmp_path, "crc")

    def settled():
        r = rows(dst, "crc")
        return (len(r) == 2 and r[0]["state"] == "FAILED" and r[1]["state"] == "MIRRORING"
                and r[1]["lag"] == 0 and r[1]["destinationLogEndOffset"] == 10)
    wait_until(settled, STEP, "crc-0 FAILED while crc-1 is copied")
    failed = rows(dst, "crc")[0]
    assert "CRC-32C mismatch" in failed["lastError"], failed
    assert failed["destinationLogEndOffset"] == 0, failed
    dst.wait_for(r"crc-0 is FAILED .* waits for the operator", timeout=STEP, start=mark)


def test_altered_connection_settings_reconnect_that_mirror_only(make_broker, tmp_path):
    """§7: changing a mirror's bootstrap.servers (IncrementalAlterConfigs on the mirror
    resource) reconnects that mirror with it, once its loops have ended; another mirror of the
    same source goes on copying meanwhile."""
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    for t in ("moved", "steady"):
        create_topic(src, t, 2)
    start_mirror(src, dst, tmp_path, "moved", name="a")
    start_mirror(src, dst, tmp_path, "steady", name="b")

    def point_a_at(bootstrap):
        key = (MIRROR_RESOURCE, "a")
        changes = [("bootstrap.servers", SET, bootstrap)]
        assert incremental_alter(dst.port, [(*key, changes)])[key] == (0, None)

    # Nothing listens at 127.0.0.1:1: mirror a reconnects there and reaches nothing.
    mark = dst.mark()
    point_a_at("127.0.0.1:1")
    dst.wait_for(r"mirror a: configs changed; reconnecting", timeout=STEP, start=mark)
    dst.wait_for(r"mirror a: fetching from 127\.0\.0\.1:1 ", timeout=STEP, start=mark)
    produce(src.bootstrap, "moved", 2, 10, "moved")
    produce(src.bootstrap, "steady", 2, 10, "steady")
    wait_until(lambda: in_sync(src, dst, "steady", 2), STEP, "mirror b to copy on")
    wait_until(lambda: all(r["lastError"] and "127.0.0.1:1" in r["lastError"]
                           for r in rows(dst, "moved").values()),
               STEP, "mirror a to fail to reach 127.0.0.1:1")
    assert sum(watermarks_of(dst.bootstrap, "moved", 2)) == 0
    assert "mirror b: configs changed" not in dst.log(mark)

    point_a_at(src.bootstrap)  # back at the source: it catches up
    wait_until(lambda: in_sync(src, dst, "moved", 2), STEP, "mirror a to catch up")
    assert sum(watermarks_of(dst.bootstrap, "moved", 2)) == 10
    # §12: what it copied shows in the rates (of the whole seconds before now), caught up is
    # no time lag, and each partition has a fetch round trip.
    wait_until(lambda: all(r["bytesPerSecond"] > 0 and r["recordsPerSecond"] > 0
                           for r in rows(dst, "moved").values()), STEP, "the rates")
    assert all(r["lagMs"] == 0 and r["fetchLatencyMs"] >= 0 for r in rows(dst, "moved").values())


def test_delete_mirror_only_once_every_topic_failed_over(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    create_topic(src, "t", 1)
    produce(src.bootstrap, "t", 1, 5, "r")
    start_mirror(src, dst, tmp_path, "t")
    wait_until(lambda: in_sync(src, dst, "t", 1), STEP, "the copy")
    r = mirror(dst, "--delete", "--mirror", "dr")
    assert_one_line_error(r, "still mirrors topic t", "--remove")
    ok(mirror(dst, "--remove", "--mirror", "dr", "--topic", ".*"))
    assert 'Deleted mirror "dr"' in ok(mirror(dst, "--delete", "--mirror", "dr"))
    assert "dr" not in ok(mirror(dst, "--list"))
    desc = ok(run_mirra("topics", "--bootstrap-server", dst.bootstrap, "--describe",
                        "--topic", "t"))
    assert "mirror.name" not in desc, desc
    ok(run_mirra("produce", "--bootstrap-server", dst.bootstrap, "--topic", "t", input="own\n"))
    assert watermarks_of(dst.bootstrap, "t", 1) == [6]
    dst.restart()
    assert watermarks_of(dst.bootstrap, "t", 1) == [6]


def test_kill_in_the_middle_of_a_failover_is_finished_at_start_up(make_broker, tmp_path):
    src = make_broker(name="source")
    dst = make_broker(name="destination",
                      env={"MIRRA_FAILPOINTS": "mirror.failover.stopping=crash*1"})
    create_topic(src, "t", 2)
    # A transaction left open on the source: the destination holds its records above its LSO.
    txn = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap,
                                    "transactional.id": "open", "linger.ms": 2})
    txn.init_transactions(STEP)
    produce(src.bootstrap, "t", 2, 10, "committed")
    txn.begin_transaction()
    for i in range(4):
        txn.produce("t", value=f"open-{i}".encode(), partition=i % 2)
    txn.flush(STEP)
    start_mirror(src, dst, tmp_path, "t")
    wait_until(lambda: in_sync(src, dst, "t", 2, "read_committed"), STEP,
               "the copy up to the source's LSO")
    assert watermarks_of(dst.bootstrap, "t", 2) == [5, 5]
    assert watermarks_of(src.bootstrap, "t", 2) == [7, 7]

    # The CLI would retry against the dead broker: it is stopped once the broker is gone.
    cli = subprocess.Popen([MIRRA, "mirror", "--bootstrap-server", dst.bootstrap, "--remove",
                            "--mirror", "dr", "--topic", "t"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        dst.proc.wait(STEP)
    finally:
        cli.kill()
        cli.wait()
    assert dst.proc.returncode == 137, dst.tail()  # the failpoint's crash, after STOPPING
    dst.env = {}
    dst.start()
    # Partition 0 was STOPPING when it crashed: start-up finishes its failover. Partition 1 had
    # not begun, so it mirrors on until the operator repeats the (idempotent) command.
    dst.wait_for(r"failed over t-0: truncated to its LSO 5", timeout=STEP, start=dst.run_mark)
    r0 = rows(dst, "t")
    assert r0[0]["state"] == "STOPPED" and r0[0]["lastMirroredOffset"] == 5, r0
    assert r0[1]["state"] == "MIRRORING", r0
    out = ok(mirror(dst, "--remove", "--mirror", "dr", "--topic", "t"))
    assert "0:5, 1:5" in out, out
    assert watermarks_of(dst.bootstrap, "t", 2) == [5, 5]
    ok(run_mirra("produce", "--bootstrap-server", dst.bootstrap, "--topic", "t", input="own\n"))
    assert sum(watermarks_of(dst.bootstrap, "t", 2)) == 11
    txn.abort_transaction(STEP)


# --- issue 15: security the source connection cannot honour, and what describe and the ------
# --- admin outputs must not hide -----------------------------------------------------------

INVALID_CONFIG = 40
DELETE = 1


def crc32c(data):
    """CRC-32C (Castagnoli), as the metadata snapshot's checksum (docs/formats/metadata.md)."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def rename_stored_mirror_key(broker, old, new):
    """Rewrites a key of a stored MirrorRecord in the stopped broker's metadata snapshot, as a
    broker that accepted it before would have stored it (same length: the layout stays)."""
    assert len(old) == len(new)
    [snapshot] = sorted((broker.data_dir / "__cluster_metadata-0").glob("*.checkpoint"))
    data = bytearray(snapshot.read_bytes())
    at = data.find(old.encode())
    assert at > 0, "the mirror's config is not in the snapshot"
    data[at:at + len(old)] = new.encode()
    struct.pack_into(">I", data, 2, crc32c(bytes(data[6:])))
    snapshot.write_bytes(bytes(data))


def test_security_settings_the_source_connection_cannot_honour_are_refused(make_broker,
                                                                          tmp_path):
    """Issue 15 point 3: a mirror created with security.protocol=SASL_SSL and credentials was
    accepted and copied in plaintext without authenticating. Security settings the connection
    would not honour (sasl.* without SASL, ssl.* without TLS) and secrets the broker cannot
    store encrypted (no password.encoder.secret) are refused, naming the key, at create and
    alter; a mirror stored with such a config never runs in plaintext: its partitions are
    FAILED with the reason until its configs are fixed. (Secure links: test_mirroring_secure.)"""
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    create_topic(src, "sec", 1)
    produce(src.bootstrap, "sec", 1, 5, "before")
    cfg = tmp_path / "sasl.properties"
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\nsecurity.protocol=SASL_SSL\n"
                   "sasl.mechanism=PLAIN\nsasl.username=u\nsasl.password=never-shown\n")
    r = mirror(dst, "--create", "--mirror", "tls", "--mirror-config", str(cfg))
    assert_one_line_error(r, "sasl.password is a secret", "set password.encoder.secret")
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\nsasl.password=never-shown\n")
    r = mirror(dst, "--create", "--mirror", "tls", "--mirror-config", str(cfg))
    assert_one_line_error(r, "sasl.password needs security.protocol SASL_PLAINTEXT or SASL_SSL")
    assert "never-shown" not in r.stderr and "never-shown" not in dst.log()
    assert "tls" not in ok(mirror(dst, "--list"))

    # Altering a running mirror to settings it would not honour is refused the same way.
    start_mirror(src, dst, tmp_path, "sec", name="old")
    wait_until(lambda: in_sync(src, dst, "sec", 1), STEP, "the plaintext copy")
    key = (MIRROR_RESOURCE, "old")
    err, msg = incremental_alter(dst.port, [(*key, [("security.protocol", SET, "TLS")])])[key]
    assert err == INVALID_CONFIG and "'TLS' for mirror config security.protocol" in msg, msg
    err, msg = incremental_alter(
        dst.port, [(*key, [("ssl.truststore.location", SET, "/ca.pem")])])[key]
    assert err == INVALID_CONFIG and "ssl.truststore.location" in msg, msg

    # A mirror stored with such a key (by a broker that accepted it) is not run at start-up.
    key_len = len("ssl.keystore.location")
    stand_in = "mirror.groups.exclude"  # a key of the same length that is accepted
    assert len(stand_in) == key_len
    err, msg = incremental_alter(dst.port, [(*key, [(stand_in, SET, "keystore")])])[key]
    assert err == 0, msg
    assert dst.stop() == 0
    rename_stored_mirror_key(dst, stand_in, "ssl.keystore.location")
    dst.start()
    wait_until(lambda: rows(dst, "sec")[0]["state"] == "FAILED", STEP, "sec-0 FAILED")
    failed = rows(dst, "sec")[0]
    assert "ssl.keystore.location needs security.protocol SSL" in failed["lastError"], failed
    dst.wait_for(r"mirror old is not running: .*ssl\.keystore\.location", timeout=STEP,
                 start=dst.run_mark)
    produce(src.bootstrap, "sec", 1, 5, "while-refused")
    r = mirror(dst, "--add", "--mirror", "old", "--topic", "sec")
    assert_one_line_error(r, "mirror old is not running")
    assert watermarks_of(dst.bootstrap, "sec", 1) == [5]  # nothing copied in the clear

    # Fixed by the operator: the mirror starts and the partition catches up by itself.
    err, msg = incremental_alter(dst.port, [(*key, [("ssl.keystore.location", DELETE, None)])])[key]
    assert err == 0, msg
    wait_until(lambda: in_sync(src, dst, "sec", 1), STEP, "the copy once the configs are fixed")
    assert watermarks_of(dst.bootstrap, "sec", 1) == [10]


def test_adding_a_recreated_source_topic_is_refused(make_broker, tmp_path):
    """Issue 15 point 7: re-adding a source topic that was deleted and created again (a new
    topic id) printed success with the old id. A mirror topic's id is its source's, so the new
    topic is another topic: refused with a message that says what to do."""
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    create_topic(src, "again", 1)
    start_mirror(src, dst, tmp_path, "again")
    old_id = rows(dst, "again")[0]["topicId"]
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--delete", "--topic", "again"))
    create_topic(src, "again", 1)
    r = mirror(dst, "--add", "--mirror", "dr", "--topic", "again")
    assert_one_line_error(r, "was recreated", old_id, "--remove")
    assert old_id not in r.stdout and "is mirrored by" not in r.stdout, r.stdout
    # After a failover too: the STOPPED topic is not restarted from another topic.
    ok(mirror(dst, "--remove", "--mirror", "dr", "--topic", "again"))
    r = mirror(dst, "--add", "--mirror", "dr", "--topic", "again")
    assert_one_line_error(r, "was recreated")
    assert rows(dst, "again")[0]["state"] == "STOPPED"
