#!/usr/bin/env bash
# Storage benchmarks beside the disk's own limits, measured in the same run with dd on the
# same file system: sequential write of 1 GiB ending in fdatasync (the ceiling for appends
# without fsync), synchronous 16 KiB and 1 MiB writes (oflag=dsync: the ceiling for
# flush.messages=1 with those batch sizes) and a sequential read of the written file.
# Prints each storage figure with its ratio to the matching limit. Takes about a minute.
# dd's oflag=dsync opens the file O_DSYNC (each write waits for the disk), while the log does
# write + fdatasync per append: the same number of disk flushes, slightly different paths, so
# ratios near or a little above 1 mean "at the disk's limit".
#
# Usage: bench/storage/run.sh [build dir]   (MIRRA_BENCH_DIR picks the disk; default /var/tmp)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
dir=${MIRRA_BENCH_DIR:-/var/tmp}
cmake -S . -B "$build" -G Ninja -DMIRRA_BENCH=ON >/dev/null
cmake --build "$build" --target storage_bench >/dev/null

tmp=$(mktemp -d "$dir/mirra-dd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# dd prints "... copied, 1.23 s, 456 MB/s" on stderr; keep bytes and seconds.
dd_rate() {  # prints bytes/s
  dd "$@" 2>&1 >/dev/null | awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "bytes") b = $1;
                                           for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1);
                                           printf "%.0f\n", b / s }'
}
cache_write=$(dd_rate if=/dev/zero of="$tmp/cache" bs=1M count=1024)
rm -f "$tmp/cache"
seq_write=$(dd_rate if=/dev/zero of="$tmp/seq" bs=1M count=1024 conv=fdatasync)
dsync_16k=$(dd_rate if=/dev/zero of="$tmp/d16" bs=16k count=400 oflag=dsync)
dsync_1m=$(dd_rate if=/dev/zero of="$tmp/d1m" bs=1M count=100 oflag=dsync)
seq_read=$(dd_rate if="$tmp/seq" of=/dev/null bs=1M)
rm -f "$tmp"/*

MIRRA_BENCH_DIR="$dir" "$build/bench/storage/storage_bench" --benchmark_format=json \
  --benchmark_out="$tmp/bench.json" --benchmark_out_format=json >/dev/null

python3 - "$tmp/bench.json" "$seq_write" "$dsync_16k" "$dsync_1m" "$seq_read" "$cache_write" <<'PY'
import json, sys
runs = {b["name"].split("/min_time")[0]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
seq_write, dsync_16k, dsync_1m, seq_read, cache_write = (float(x) for x in sys.argv[2:7])
mb = lambda v: f"{v / 1e6:8.1f} MB/s"
print("disk limits (dd, same file system):")
print(f"  sequential write, no sync (cache) {mb(cache_write)}")
print(f"  sequential write, conv=fdatasync  {mb(seq_write)}")
print(f"  16 KiB writes, oflag=dsync        {mb(dsync_16k)}")
print(f"  1 MiB writes, oflag=dsync         {mb(dsync_1m)}")
print(f"  sequential read (page cache warm) {mb(seq_read)}")
print("storage (1 KiB records):")
rows = [
    # Without fsync an append lands in the page cache (writeback throttles it once dirty pages
    # pile up), so the dd figure to compare with is the unsynced one; the synced one is below.
    ("append 16 KiB batches, no fsync", "BM_Append/batch:16384/fsync:0", cache_write, "dd no sync"),
    ("append 1 MiB batches, no fsync", "BM_Append/batch:1048576/fsync:0", cache_write, "dd no sync"),
    ("append 16 KiB batches, fsync each", "BM_Append/batch:16384/fsync:1", dsync_16k, "dsync 16k"),
    ("append 1 MiB batches, fsync each", "BM_Append/batch:1048576/fsync:1", dsync_1m, "dsync 1M"),
    ("sequential read, 1 MiB fetches", "BM_SequentialRead", seq_read, "dd read"),
]
for label, name, limit, limit_name in rows:
    r = runs[name]["bytes_per_second"]
    print(f"  {label:36s} {mb(r)}  = {r / limit:5.2f} x {limit_name}")
rec = runs["BM_Recovery"]
print(f"  {'recovery (CRC scan, warm cache)':36s} {rec['s_per_GiB']:8.2f} s/GiB"
      f"  ({mb(rec['bytes_per_second'])}; a cold disk needs at least {1073741824 / seq_read:.2f} s/GiB to read)")
PY
