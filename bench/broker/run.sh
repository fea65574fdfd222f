#!/usr/bin/env bash
# Broker benchmarks beside the machine's own limits, measured in the same run: a librdkafka load
# generator (mirra_load_gen) against `mirra server` on loopback, client and broker sharing the
# machine. Limits: iperf3 TCP over loopback (the ceiling for moving bytes between two processes
# here), dd's sequential write into the page cache (no sync: the ceiling for acks=1 appends, which
# do not wait for fsync) and dd's sequential write ending in fdatasync (the disk's sustained
# rate, which produce only exceeds while the page cache absorbs the writes).
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
for f in "$mirra" "$load_gen"; do
  if [ ! -x "$f" ]; then
    echo "run.sh: $f not found; build it first (see the usage at the top of bench/broker/run.sh)" >&2
    exit 1
  fi
done
for tool in iperf3 dd python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not installed (scripts/install-deps.sh)" >&2; exit 1; }
done

tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-broker.XXXXXX")
broker_pid=
iperf_pid=
cleanup() {
  [ -n "$iperf_pid" ] && kill "$iperf_pid" 2>/dev/null || true
  [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
results=$tmp/results  # one key=value line per measurement, read by the report below

# ---- machine limits (before the broker starts, so nothing competes with them) ----

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
iperf3 -s -1 -B 127.0.0.1 -p "$port" >/dev/null 2>&1 &
iperf_pid=$!
for _ in $(seq 50); do  # until the server accepts
  iperf3 -c 127.0.0.1 -p "$port" -t 5 -J >"$tmp/iperf.json" 2>/dev/null && break
  sleep 0.1
done
wait "$iperf_pid" 2>/dev/null || true
iperf_pid=
if ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))["end"]["sum_received"]' "$tmp/iperf.json" 2>/dev/null; then
  echo "run.sh: iperf3 over loopback failed" >&2
  exit 1
fi
python3 - "$tmp/iperf.json" >>"$results" <<'PY'
import json, sys
bps = json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]
print(f"mode=limit name=loopback mb_per_s={bps / 8 / 1e6:.1f}")
PY

# dd prints "... copied, 1.23 s, 456 MB/s" on stderr; keep bytes / seconds. Removing the
# unsynced file drops its dirty pages, so no writeback is left to disturb what follows.
dd_limit() {  # name, dd arguments
  local name=$1; shift
  dd if=/dev/zero of="$tmp/dd" bs=1M count=1024 "$@" 2>&1 >/dev/null |
    awk -v name="$name" '/copied/ { for (i = 1; i <= NF; i++) { if ($i == "bytes") b = $1; if ($i == "s,") s = $(i-1) }
                                    printf "mode=limit name=%s mb_per_s=%.1f\n", name, b / s / 1e6 }' >>"$results"
  rm -f "$tmp/dd"
}
dd_limit cache
dd_limit disk conv=fdatasync
cat "$results"

# ---- broker ----

"$mirra" server --override log.dirs="$tmp/data" --override listeners=PLAINTEXT://127.0.0.1:0 \
  >"$tmp/broker.log" 2>&1 &
broker_pid=$!
bootstrap=
for _ in $(seq 100); do
  bootstrap=$(sed -n 's|.*listening on PLAINTEXT://||p' "$tmp/broker.log" | head -1)
  [ -n "$bootstrap" ] && break
  kill -0 "$broker_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$bootstrap" ]; then
  echo "run.sh: the broker did not start; its log:" >&2
  cat "$tmp/broker.log" >&2
  exit 1
fi
echo "broker on $bootstrap (data in $tmp/data)"

ticks=$(getconf CLK_TCK)
broker_cpu() {  # user + system seconds so far (fields 14 and 15 of /proc/PID/stat)
  awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$broker_pid/stat"
}
failed=0
run() {  # load_gen arguments; records its result line with the broker's CPU over the run
  local before line rc=0
  before=$(broker_cpu)
  line=$("$load_gen" "$@" --bootstrap "$bootstrap") || rc=$?
  if [ -n "$line" ]; then
    echo "$line broker_cpu_s=$(awk -v a="$before" -v b="$(broker_cpu)" 'BEGIN { printf "%.2f", b - a }')" |
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

kill -TERM "$broker_pid"
for _ in $(seq 300); do  # a clean stop takes well under a second; give up after 30 s
  kill -0 "$broker_pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$broker_pid" 2>/dev/null; then
  echo "run.sh: the broker did not stop within 30 s of SIGTERM; killing it" >&2
  kill -KILL "$broker_pid"
fi
broker_rc=0
wait "$broker_pid" || broker_rc=$?
broker_pid=
if [ "$broker_rc" != 0 ]; then
  echo "run.sh: the broker exited with $broker_rc after SIGTERM; its log ends:" >&2
  tail -20 "$tmp/broker.log" >&2
  failed=1
fi
if grep -q ' WARN \| ERROR ' "$tmp/broker.log"; then
  echo "broker warnings/errors during the run:"
  grep ' WARN \| ERROR ' "$tmp/broker.log" | head -10
fi

python3 - "$results" "$(nproc)" <<'PY'
import sys
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1])]
ncpu = int(sys.argv[2])
limit = {r["name"]: float(r["mb_per_s"]) for r in rows if r["mode"] == "limit"}
def find(mode, topic):
    return next((r for r in rows if r["mode"] == mode and r["topic"] == topic), None)

print()
print(f"machine limits: loopback TCP (iperf3) {limit['loopback']:.1f} MB/s, page-cache write (dd) "
      f"{limit['cache']:.1f} MB/s, disk write + fdatasync (dd) {limit['disk']:.1f} MB/s; {ncpu} cores")
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
