#!/usr/bin/env bash
# Mirroring benchmark beside the machine's own limits, measured in the same run (bench/lib.sh:
# iperf3 over loopback, dd into the page cache and to disk, memcpy when the build has it). Two
# `mirra server`s on loopback, a source and a destination, sharing the machine with the clients.
# The source topic (8 partitions) is pre-filled with 1 KiB records, lz4, by mirra_load_gen; then:
#   1. mirror: `mirra mirror --create` + `--add` on the destination; the time until every
#      partition of the destination has the source's high watermark, and the CPU of both brokers
#      over that time;
#   2. relay: what MirrorMaker 2 does, `mirra_relay copy` (a librdkafka consumer on the source
#      feeding a librdkafka producer, lz4, acks=all, idempotent) into a normal topic on the
#      destination; its time and the CPU of both brokers and of the relay;
#   3. steady lag: a fresh mirrored topic produced to at a steady rate (default 20 MB/s) for 30 s;
#      a consumer on the destination takes now - CreateTime of every record (produce, source
#      append, mirror fetch and append, destination fetch), and one on the source the same
#      without the mirror, for comparison.
# Prints every figure with the limits, the ratios mirror/relay, and the issue's goals. Takes two
# to three minutes at the default size on 2 cores.
#
# Builds nothing. Usage: bench/mirror/run.sh [build dir]   (default: build)
#   The build dir must hold mirra, bench/broker/mirra_load_gen and bench/mirror/mirra_relay:
#     cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON && ninja -C build mirra mirra_load_gen mirra_relay
#   MIRRA_BENCH_DIR picks the disk for the brokers' data and dd (default /var/tmp; it needs
#   three times BENCH_MIRROR_MB free).
#   BENCH_MIRROR_MB: the pre-filled size in MB of record values (default 2000, i.e. 2 GB).
#   BENCH_STEADY_MB_PER_S / BENCH_STEADY_SECONDS: the steady phase (default 20 / 30).
#   BENCH_MIRROR_PROPERTIES: a file of mirror configs (mirror.fetch.* ...) added to the mirror's.
#   BENCH_WARM_MB: memory to warm first (bench/lib.sh bench_warm_memory; default: what the run
#   writes).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mirra=$build/mirra
load_gen=$build/bench/broker/mirra_load_gen
relay=$build/bench/mirror/mirra_relay
size_mb=${BENCH_MIRROR_MB:-2000}
steady_mb_per_s=${BENCH_STEADY_MB_PER_S:-20}
steady_seconds=${BENCH_STEADY_SECONDS:-30}
. bench/lib.sh
bench_need "$mirra" "$load_gen" "$relay" iperf3 dd python3

bench_tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-mirror.XXXXXX")
trap 'bench_kill_all; rm -rf "$bench_tmp"' EXIT
results=$bench_tmp/results  # one key=value line per measurement, read by the report below
records=$((size_mb * 1000000 / 1024))
steady_rate=$((steady_mb_per_s * 1000000 / 1024))
steady_records=$((steady_rate * steady_seconds))

# Everything the run writes: the source, both copies, the steady topic twice, dd's 2 GiB.
bench_warm_memory "${BENCH_WARM_MB:-$((3 * size_mb + steady_mb_per_s * steady_seconds * 2 + 2048))}"
bench_limits "$build" >>"$results"
cat "$results"

bench_start_broker "$mirra" source
bench_start_broker "$mirra" destination
failed=0
fail() { echo "run.sh: FAILED: $*" >&2; failed=1; }
both_cpu() { echo "$(bench_cpu "$source_pid") $(bench_cpu "$destination_pid")"; }
cpu_since() {  # "source destination" CPU seconds from both_cpu: key=value pairs of the deltas
  local -a before
  read -r -a before <<<"$1"
  echo "source_cpu_s=$(bench_sub "${before[0]}" "$(bench_cpu "$source_pid")")" \
       "destination_cpu_s=$(bench_sub "${before[1]}" "$(bench_cpu "$destination_pid")")"
}
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2"; }  # key, key=value line: the value
mirror_cli() { "$mirra" mirror --bootstrap-server "$destination_bootstrap" "$@"; }

# ---- pre-fill ----

echo "pre-filling bench-mirror: $records records of 1 KiB, lz4, 8 partitions"
"$load_gen" produce --bootstrap "$source_bootstrap" --topic bench-mirror --records "$records" \
  --size 1024 --acks 1 --partitions 8 --compression lz4 | tee -a "$results" ||
  { echo "run.sh: the pre-fill failed" >&2; exit 1; }

# ---- 1. mirror ----

{
  echo "bootstrap.servers=$source_bootstrap"
  [ -z "${BENCH_MIRROR_PROPERTIES:-}" ] || cat "$BENCH_MIRROR_PROPERTIES"
} >"$bench_tmp/mirror.properties"
[ -z "${BENCH_MIRROR_PROPERTIES:-}" ] || { echo "mirror configs:"; sed 's/^/  /' "$bench_tmp/mirror.properties"; }
mirror_cli --create --mirror bench --mirror-config "$bench_tmp/mirror.properties" >/dev/null
bench_settle
cpu0=$(both_cpu)
t0=$(bench_now)
mirror_cli --add --mirror bench --topic bench-mirror >/dev/null
if line=$("$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
            --topic bench-mirror); then
  echo "mode=mirror records=$records seconds=$(bench_sub "$t0" "$(bench_now)") $(cpu_since "$cpu0")" |
    tee -a "$results"
else
  fail "the mirror did not catch up"
fi
# What the mirror itself says: every partition MIRRORING with lag 0.
mirror_cli --describe --mirror bench --json >"$bench_tmp/describe.json"
python3 - "$bench_tmp/describe.json" <<'PY' || fail "mirror --describe does not show lag 0"
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["topic"] == "bench-mirror"]
bad = [r for r in rows if r["state"] != "MIRRORING" or r["lag"] != 0]
print(f"mirror --describe: {len(rows)} partitions, {len(rows) - len(bad)} MIRRORING with lag 0")
for r in bad:
    print(f"  partition {r['partition']}: {r['state']} lag {r['lag']} last error {r['lastError']}")
sys.exit(1 if bad or len(rows) != 8 else 0)
PY

# ---- 2. relay ----

# Its time is the relay's own, first fetch to last delivery: without its start-up (metadata,
# watermarks, CreateTopics) and rd_kafka_destroy, a second or so that would not be the copy's.
# The brokers' CPU is over the relay's whole life, which adds little (they are idle meanwhile).
bench_settle
cpu0=$(both_cpu)
if line=$("$relay" copy --source "$source_bootstrap" --destination "$destination_bootstrap" \
            --topic bench-mirror --to-topic bench-relay); then
  echo "mode=relay records=$records seconds=$(field seconds "$line") $(cpu_since "$cpu0")" \
       "relay_cpu_s=$(field cpu_s "$line")" | tee -a "$results"
else
  fail "mirra_relay copy"
fi

# ---- 3. steady lag ----

"$mirra" topics --bootstrap-server "$source_bootstrap" --create --topic bench-steady \
  --partitions 8 >/dev/null
mirror_cli --add --mirror bench --topic bench-steady >/dev/null
lag_pids=()
for side in source destination; do
  bootstrap_var=${side}_bootstrap
  "$relay" lag --bootstrap "${!bootstrap_var}" --topic bench-steady --records "$steady_records" \
    --ready-file "$bench_tmp/lag-$side.ready" >"$bench_tmp/lag-$side" &
  lag_pids+=("$!")
  bench_pids+=("$!")
done
for _ in $(seq 200); do  # until both consumers have fetched every partition once
  [ -f "$bench_tmp/lag-source.ready" ] && [ -f "$bench_tmp/lag-destination.ready" ] && break
  sleep 0.05
done
[ -f "$bench_tmp/lag-source.ready" ] && [ -f "$bench_tmp/lag-destination.ready" ] ||
  echo "run.sh: the lag consumers are not fetching after 10 s; the first records' lag includes their start" >&2
bench_settle
echo "producing $steady_mb_per_s MB/s ($steady_rate records/s of 1 KiB, lz4) for $steady_seconds s"
cpu0=$(both_cpu)
line=$("$load_gen" produce --bootstrap "$source_bootstrap" --topic bench-steady \
         --records "$steady_records" --size 1024 --acks 1 --partitions 8 --compression lz4 \
         --rate "$steady_rate") || fail "the steady produce"
echo "$line"
steady_cpu=$(cpu_since "$cpu0")  # over the produce only: the mirror's steady-state cost
for i in 0 1; do
  side=$([ "$i" = 0 ] && echo source || echo destination)
  if wait "${lag_pids[$i]}"; then
    echo "$(cat "$bench_tmp/lag-$side") side=$side $steady_cpu" \
         "produce_seconds=$(field seconds "$line")" | tee -a "$results"
  else
    fail "the lag consumer on the $side"
  fi
done

bench_stop_broker "$source_pid" source || failed=1
bench_stop_broker "$destination_pid" destination || failed=1

python3 - "$results" "$(nproc)" "$steady_mb_per_s" <<'PY'
import sys
rows = [dict(kv.split("=", 1) for kv in line.split()) for line in open(sys.argv[1])]
ncpu, steady_target = int(sys.argv[2]), sys.argv[3]
limit = {r["name"]: float(r["mb_per_s"]) for r in rows if r["mode"] == "limit"}
def find(mode, **kw):
    return next((r for r in rows if r["mode"] == mode and all(r.get(k) == v for k, v in kw.items())), None)

print()
print(f"machine limits: loopback TCP (iperf3) {limit['loopback']:.1f} MB/s, page-cache write (dd) "
      f"{limit['cache']:.1f} MB/s, disk write + fdatasync (dd) {limit['disk']:.1f} MB/s"
      + (f", memcpy {limit['memcpy']:.0f} MB/s" if "memcpy" in limit else "") + f"; {ncpu} cores")
fill = find("produce", topic="bench-mirror")
if fill:
    print(f"pre-fill: {int(fill['records']) * 1024 / 1e6:.0f} MB of 1 KiB records, lz4, 8 partitions, "
          f"at {fill['mb_per_s']} MB/s")
print(f"{'copy the topic':28s} {'seconds':>8s} {'MB/s':>8s} {'/loopback':>9s} {'/cache':>7s}"
      f" {'src cpu':>8s} {'dst cpu':>8s} {'relay cpu':>9s} {'cpu s/GB':>9s} {'cores':>6s}")
figures = {}
for label, mode in [("mirror (mirra mirror)", "mirror"), ("relay (MM2-like, librdkafka)", "relay")]:
    r = find(mode)
    if r is None:
        print(f"{label:28s} {'failed':>8s}")
        continue
    secs = float(r["seconds"])
    gb = int(r["records"]) * 1024 / 1e9
    mb = gb * 1e3 / secs
    src, dst, rel = float(r["source_cpu_s"]), float(r["destination_cpu_s"]), float(r.get("relay_cpu_s", 0))
    cpu = src + dst + rel
    figures[mode] = (mb, cpu / gb)
    print(f"{label:28s} {secs:8.2f} {mb:8.1f} {mb / limit['loopback']:8.2f}x {mb / limit['cache']:6.2f}x"
          f" {src:8.2f} {dst:8.2f} {rel if mode == 'relay' else 0:9.2f} {cpu / gb:9.2f} {cpu / secs:6.2f}")
if len(figures) == 2:
    print(f"mirror/relay throughput {figures['mirror'][0] / figures['relay'][0]:.2f}x, "
          f"relay/mirror CPU per GB {figures['relay'][1] / figures['mirror'][1]:.2f}x")

lag = {side: find("lag", side=side) for side in ("source", "destination")}
if lag["destination"]:
    d = lag["destination"]
    print(f"steady lag at {steady_target} MB/s for {d['produce_seconds']} s, 1 KiB lz4, 8 partitions: "
          f"now - CreateTime per record, consumed on")
    for side, what in [("source", "the source (no mirror: the baseline)"),
                       ("destination", "the destination (through the mirror)")]:
        r = lag[side]
        if r:
            print(f"  {what:40s} p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, p99.9 {r['p999_ms']} ms,"
                  f" max {r['max_ms']} ms ({r['records']} records)")
    secs = float(d["produce_seconds"])
    print(f"  brokers' CPU while producing: source {float(d['source_cpu_s']) / secs:.2f} cores, "
          f"destination {float(d['destination_cpu_s']) / secs:.2f} cores")

print()
print(f"goals ({ncpu} cores, brokers and clients sharing them):")
def goal(label, value, ok):
    print(f"  {label:48s} {value:>12s}  {'met' if ok else 'NOT met'}")
if len(figures) == 2:
    t = figures["mirror"][0] / figures["relay"][0]
    c = figures["relay"][1] / figures["mirror"][1]
    goal("mirror throughput >= 3x the relay's", f"{t:.2f}x", t >= 3)
    goal("mirror CPU per GB <= 1/3 of the relay's", f"{c:.2f}x less", c >= 3)
if lag["destination"]:
    p99 = float(lag["destination"]["p99_ms"])
    goal(f"p99 mirror lag < 200 ms at {steady_target} MB/s", f"{p99:.1f} ms", p99 < 200)
PY
exit "$failed"
