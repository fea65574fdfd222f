"""A full or failing log directory (issue 15, point 5; the rules: src/cluster/README.md, "Full or
failing disk").

- Full: the broker's data lives on a real, small tmpfs, mounted in a private mount namespace
  (`unshare --user --map-root-user --mount`, so neither root nor sudo is needed); the test fills
  it with a file of its own through /proc/<pid>/root. Many produces then fail with
  KAFKA_STORAGE_ERROR and the broker logs exactly one "is full" line with the directory and its
  free space; once the file is removed the next produce succeeds at offset 0 (no failed append
  left anything behind) and exactly one "has space again" line follows.
- Offline: the failpoint storage.segment.write makes one segment write fail with EIO, as a dying
  device would. The directory goes offline at once (one line), every partition then answers
  KAFKA_STORAGE_ERROR although the failpoint fired only once, and DescribeLogDirs reports the
  directory with KAFKA_STORAGE_ERROR.
"""
import errno
import re
from pathlib import Path

from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from mirra_testlib import Broker, stop_cleanly
from raw_admin import Writer, call

TIMEOUT = 10.0  # seconds for any single admin call or delivery
KAFKA_STORAGE_ERROR = 56
DISK_BYTES = 8 << 20  # the tmpfs: room for the metadata log and a few partitions


class BrokerOnTmpfs(Broker):
    """A broker whose data directory is a tmpfs of `DISK_BYTES` seen only by its process."""

    def command(self, port):
        mount = 'mkdir -p "$0" && mount -t tmpfs -o size="$1" tmpfs "$0" && shift && exec "$@"'
        return ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", mount,
                str(self.data_dir), str(DISK_BYTES), *super().command(port)]

    def disk_path(self):
        """The tmpfs as the broker sees it, reachable from outside its mount namespace."""
        return Path(f"/proc/{self.proc.pid}/root") / str(self.data_dir).lstrip("/")


def create_topics(broker, *names):
    a = AdminClient({"bootstrap.servers": broker.bootstrap})
    futures = a.create_topics([NewTopic(n, num_partitions=1, replication_factor=1) for n in names])
    for n in names:
        futures[n].result(TIMEOUT)


def produce_once(broker, topic, value):
    """One record, no retries -> (error code or None, offset)"""
    p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0, "retries": 0,
                  "message.timeout.ms": int(TIMEOUT * 1000)})
    out = []
    p.produce(topic, value=value, on_delivery=lambda err, msg: out.append(
        (None if err is None else err.code(), msg.offset())))
    assert p.flush(TIMEOUT) == 0
    return out[0]


def fill(path):
    """Writes `path` until the file system is full; returns the bytes written."""
    chunk = b"\0" * (64 << 10)
    written = 0
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                written += f.write(chunk)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
                return written


def describe_log_dirs(port):
    """DescribeLogDirs v4, all topics -> [(error, dir, topic names, total, usable)]"""
    r = call(port, 35, 4, True, Writer(True).array(None, None).tags())
    r.int("i")
    assert r.int("h") == 0

    def topic(r):
        name = r.string()
        r.array(lambda r: (r.int("i"), r.int("q"), r.int("q"), r.int("?"), r.tags()))
        r.tags()
        return name

    def result(r):
        out = (r.int("h"), r.string(), r.array(topic), r.int("q"), r.int("q"))
        r.tags()
        return out
    out = r.array(result)
    r.tags()
    r.end()
    return out


def count_lines(broker, pattern, start):
    return len([l for l in broker.log(start).splitlines() if re.search(pattern, l)])


def test_full_disk_logged_once_then_recovered(tmp_path):
    broker = BrokerOnTmpfs(tmp_path).start()
    create_topics(broker, "full")
    filler = broker.disk_path() / "filler"
    assert fill(filler) > 0
    mark = broker.mark()
    for i in range(20):
        assert produce_once(broker, "full", b"v%d" % i)[0] == KafkaError.KAFKA_STORAGE_ERROR
    full = broker.wait_for(r"ERROR.*log directory (\S+) is full \((\d+) bytes free of (\d+)\)",
                           start=mark)
    assert full.group(1) == str(broker.data_dir)
    assert int(full.group(3)) == DISK_BYTES and int(full.group(2)) < 64 << 10
    # Full is not offline: the directory is still described, with its partition.
    ((err, _dir, topics, _total, _usable),) = describe_log_dirs(broker.port)
    assert err == 0 and "full" in topics
    filler.unlink()
    assert produce_once(broker, "full", b"after") == (None, 0)
    broker.wait_for(r"INFO.*log directory \S+ has space again \(\d+ bytes free", start=mark)
    assert count_lines(broker, r"is full \(", mark) == 1
    assert count_lines(broker, r"has space again", mark) == 1
    stop_cleanly(broker)


def test_device_error_takes_the_log_dir_offline(tmp_path):
    broker = Broker(tmp_path).start()
    create_topics(broker, "first", "second")
    # One segment write fails with EIO after the restart, then the failpoint is spent.
    broker.env["MIRRA_FAILPOINTS"] = "storage.segment.write=KAFKA_STORAGE_ERROR*1"
    broker.restart()
    mark = broker.mark()
    assert produce_once(broker, "first", b"v")[0] == KafkaError.KAFKA_STORAGE_ERROR
    broker.wait_for(r"ERROR.*log directory \S+ is offline after a device error \(write .*EIO",
                    start=mark)
    for topic in ("second", "first"):  # the failpoint is spent: refused by the offline state
        assert produce_once(broker, topic, b"v")[0] == KafkaError.KAFKA_STORAGE_ERROR
    ((err, log_dir, topics, _total, _usable),) = describe_log_dirs(broker.port)
    assert (err, log_dir, topics) == (KAFKA_STORAGE_ERROR, str(broker.data_dir), [])
    assert count_lines(broker, r"is offline after a device error", mark) == 1
    stop_cleanly(broker)
