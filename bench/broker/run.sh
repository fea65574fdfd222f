#!/usr/bin/env bash
# Broker benchmarks beside the machine's own limits, measured in the same run: a librdkafka load
# generator (mirra_load_gen) against `mirra server` on loopback, client and broker sharing the
# machine. Limits: iperf3 TCP over loopback (the ceiling for moving bytes between two processes
# here), dd's sequential write into the page cache (no sync: the ceiling for acks=1 appends, which
# do not wait for fsync) and dd's sequential write ending in fdatasync (the disk's sustained
# rate, which produce only exceeds while the page cache absorbs the writes), and memcpy when the
# build has the micro-benchmarks. The shell pieces are bench/lib.sh's.
# Prints every figure with its ratio to each limit, the CPU it cost (client + broker, which stays
# comparable when the machine is shared and wall-clock rates are not) and the issue's goals.
# Takes one to two minutes.
#
# Builds nothing. Usage: bench/broker/run.sh [build dir]   (default: build)
#   The build dir must hold mirra and bench/broker/mirra_load_gen from a -DMIRRA_BENCH=ON build:
#     cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON && ninja -C build mirra mirra_load_gen
#   MIRRA_BENCH_DIR picks the disk for the broker's data and dd (default /var/tmp).
#   BENCH_RECORDS_1K / BENCH_RECORDS_100 set the record counts (default 1000000 / 3000000).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mirra=$build/mirra
load_gen=$build/bench/broker/mirra_load_gen
n1k=${BENCH_RECORDS_1K:-1000000}
n100=${BENCH_RECORDS_100:-3000000}
. bench/lib.sh
bench_need "$mirra" "$load_gen" iperf3 dd python3

bench_tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-broker.XXXXXX")
trap 'bench_kill_all; rm -rf "$bench_tmp"' EXIT
results=$bench_tmp/results  # one key=value line per measurement, read by the report below

bench_limits "$build" >>"$results"
cat "$results"

bench_start_broker "$mirra" broker
failed=0
run() {  # load_gen arguments; records its result line with the broker's CPU over the run
  local before line rc=0
  before=$(bench_cpu "$broker_pid")
  line=$("$load_gen" "$@" --bootstrap "$broker_bootstrap") || rc=$?
  if [ -n "$line" ]; then
    echo "$line broker_cpu_s=$(bench_sub "$before" "$(bench_cpu "$broker_pid")")" |
      tee -a "$results"
  fi
  if [ "$rc" != 0 ]; then
    echo "run.sh: FAILED: mirra_load_gen $*" >&2
    failed=1
  fi
}
run produce --topic bench-1k-p1 --records "$n1k" --size 1024 --acks 1 --partitions 1
run produce --topic bench-1k-p8 --records "$n1k" --size 1024 --acks 1 --partitions 8
run produce --topic bench-100-p1 --records "$n100" --size 100 --acks 1 --partitions 1
run produce --topic bench-100-p8 --records "$n100" --size 100 --acks 1 --partitions 8
run consume --topic bench-1k-p1 --records "$n1k"
run consume --topic bench-1k-p8 --records "$n1k"
run latency --topic bench-latency --rate 5000 --seconds 10 --size 1024 --acks 1

bench_stop_broker "$broker_pid" broker || failed=1

python3 - "$results" "$(nproc)" <<'PY'
import sys
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1])]
ncpu = int(sys.argv[2])
limit = {r["name"]: float(r["mb_per_s"]) for r in rows if r["mode"] == "limit"}
def find(mode, topic):
    return next((r for r in rows if r["mode"] == mode and r["topic"] == topic), None)

print()
print(f"machine limits: loopback TCP (iperf3) {limit['loopback']:.1f} MB/s, page-cache write (dd) "
      f"{limit['cache']:.1f} MB/s, disk write + fdatasync (dd) {limit['disk']:.1f} MB/s"
      + (f", memcpy {limit['memcpy']:.0f} MB/s" if "memcpy" in limit else "") + f"; {ncpu} cores")
print(f"{'figure':28s} {'MB/s':>8s} {'records/s':>10s} {'/loopback':>9s} {'/cache':>7s} {'/disk':>7s}"
      f" {'cpu s/GB':>9s} {'cores':>6s}")
for label, mode, topic in [
    ("produce 1 KiB, 1 partition", "produce", "bench-1k-p1"),
    ("produce 1 KiB, 8 partitions", "produce", "bench-1k-p8"),
    ("produce 100 B, 1 partition", "produce", "bench-100-p1"),
    ("produce 100 B, 8 partitions", "produce", "bench-100-p8"),
    ("consume 1 KiB, 1 partition", "consume", "bench-1k-p1"),
    ("consume 1 KiB, 8 partitions", "consume", "bench-1k-p8"),
]:
    r = find(mode, topic)
    if r is None:
        print(f"{label:28s} {'failed':>8s}")
        continue
    mb, secs = float(r["mb_per_s"]), float(r["seconds"])
    cpu = float(r["cpu_s"]) + float(r["broker_cpu_s"])
    # Consume is served from the page cache: only the loopback ratio means something for it.
    ratio = lambda name: f"{mb / limit[name]:6.2f}x" if mode == "produce" else f"{'-':>7s}"
    print(f"{label:28s} {mb:8.1f} {float(r['records_per_s']):10,.0f} {mb / limit['loopback']:8.2f}x"
          f" {ratio('cache')} {ratio('disk')} {cpu / (mb * secs / 1e3):9.2f} {cpu / secs:6.2f}")
lat = find("latency", "bench-latency")
if lat:
    cores = (float(lat["cpu_s"]) + float(lat["broker_cpu_s"])) / float(lat["seconds_total"])
    print(f"produce latency at {lat['rate']} msg/s (achieved {lat['achieved_rate']}, 1 KiB, "
          f"linger.ms={lat['linger_ms']}): p50 {lat['p50_ms']} ms, p99 {lat['p99_ms']} ms, "
          f"p99.9 {lat['p999_ms']} ms, max {lat['max_ms']} ms ({cores:.2f} cores)")

print()
print(f"goals ({ncpu} cores, client and broker sharing them):")
def goal(label, value, ok):
    print(f"  {label:44s} {value:>12s}  {'met' if ok else 'NOT met'}")
best_produce = max((float(r["mb_per_s"]) for r in rows
                    if r["mode"] == "produce" and r["size"] == "1024"), default=0)
best_consume = max((float(r["mb_per_s"]) for r in rows if r["mode"] == "consume"), default=0)
goal("produce 1 KiB >= 400 MB/s (best of 1 and 8)", f"{best_produce:.1f} MB/s", best_produce >= 400)
goal("consume >= 800 MB/s (best of 1 and 8)", f"{best_consume:.1f} MB/s", best_consume >= 800)
if lat:
    goal("p99 produce latency < 2 ms at 5,000 msg/s", f"{float(lat['p99_ms']):.3f} ms",
         float(lat["p99_ms"]) < 2)
PY
exit "$failed"
