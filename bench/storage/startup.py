#!/usr/bin/env python3
"""Start-up time with many partitions (issue 15, point 13), beside the machine's limits.

One `mirra server` under `prlimit --nofile=1024:1024` (the usual default), BENCH_PARTITIONS
partitions (default 10000) in four topics, one record produced to every 50th partition. Then
it measures, from process start to the "listening on" line:
  - a start after a clean stop (SIGTERM: the clean-shutdown marker, nothing recovered);
  - a start after kill -9 (no marker: logs above their recovery points are scanned);
and the clean stop itself. Printed next to the limits that bound them: cores, load average,
the latency of a small write + fsync on the data directory's disk (each partition created
costs a few of them; a clean start should cost none).

Builds nothing. Usage: bench/storage/startup.py [build dir]   (default: build)
  MIRRA_BENCH_DIR picks the disk (default /var/tmp); BENCH_PARTITIONS (10000) the partitions;
  BENCH_FILE_LIMIT (1024) the broker's open-file limit.
"""
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "pylib"))
sys.path.insert(0, str(ROOT / "tests" / "interop"))
build = Path(sys.argv[1] if len(sys.argv) > 1 else "build").resolve()
os.environ.setdefault("MIRRA_BIN", str(build / "mirra"))

from test_storage_scale import LimitedBroker, create_topics, leaderless  # noqa: E402
import clients  # noqa: E402

PARTITIONS = int(os.environ.get("BENCH_PARTITIONS", "10000"))
FILE_LIMIT = int(os.environ.get("BENCH_FILE_LIMIT", "1024"))  # the broker's ulimit -n
START_TIMEOUT = 600.0


def fsync_latency_ms(directory, n=50):
    path = Path(directory) / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        t = time.monotonic()
        for _ in range(n):
            os.write(fd, b"x" * 64)
            os.fsync(fd)
        return (time.monotonic() - t) * 1000 / n
    finally:
        os.close(fd)
        path.unlink()


def timed_start(b):
    t = time.monotonic()
    b.start(timeout=START_TIMEOUT)
    took = time.monotonic() - t
    line = b.wait_for(r"opened \d+ partition\(s\).*", start=b.run_mark).group(0)
    return took, line


def main():
    work = Path(tempfile.mkdtemp(prefix="mirra-startup-",
                                 dir=os.environ.get("MIRRA_BENCH_DIR", "/var/tmp")))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (1 min), "
          f"small write + fsync on {work}: {fsync_latency_ms(work):.2f} ms; "
          f"broker limit: {FILE_LIMIT} open files")
    b = LimitedBroker(work, name="startup", timeout=START_TIMEOUT, limit=FILE_LIMIT)
    try:
        b.start()
        per_topic = PARTITIONS // 4
        topics = {f"bench-{i}": per_topic for i in range(4)}
        t = time.monotonic()
        create_topics(b.bootstrap, topics)
        print(f"created {4 * per_topic} partitions in {time.monotonic() - t:.1f} s")
        assert leaderless(b.bootstrap, topics) == []
        ck = clients.ConfluentKafka(b.bootstrap)
        for name in topics:
            ck.produce(name, [{"partition": p, "key": "k", "value": "v", "headers": [],
                               "timestamp": None} for p in range(0, per_topic, 50)])

        t = time.monotonic()
        assert b.stop(timeout=START_TIMEOUT) == 0
        print(f"clean stop: {time.monotonic() - t:.2f} s")
        took, line = timed_start(b)
        print(f"start after a clean stop: {took:.2f} s  [{line}]")
        b.kill()
        took, line = timed_start(b)
        print(f"start after kill -9:      {took:.2f} s  [{line}]")
    finally:
        b.stop(timeout=START_TIMEOUT)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
