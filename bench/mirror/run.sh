#!/usr/bin/env bash
# Mirroring benchmark beside the machine's own limits, measured in the same run (bench/lib.sh:
# iperf3 over loopback, dd into the page cache and to disk, memcpy when the build has it). Two
# `mirra server`s on loopback, a source and a destination, sharing the machine with the clients.
# The mirror `bench` is created on the destination and mirrors a small topic first, so that its
# connections exist before round 1. Then BENCH_ROUNDS rounds (default 3), each, in this order,
# steps 0 to 2 once per partition count of BENCH_MIRROR_PARTITIONS (default "8 1000"):
#   0. pre-fill: a fresh source topic bench-mirror-R-pP (P partitions) of 1 KiB records, lz4, by
#      mirra_load_gen;
#   1. mirror: `--add` of that topic to the mirror `bench` on the destination; the time until
#      every partition of the destination has the source's high watermark, and the CPU of both
#      brokers over that time;
#   2. relay (the first partition count only): what MirrorMaker 2 does, `mirra_relay copy` (a
#      librdkafka consumer on the source feeding a librdkafka producer, lz4, acks=all,
#      idempotent) into a normal topic on the destination; its time and the CPU of both brokers
#      and of the relay; then the partition count's topics are failed over and deleted;
#   3. steady lag: a fresh mirrored topic produced to at a steady rate (default 20 MB/s) for 30 s;
#      a consumer on the destination takes now - CreateTime of every record (produce, source
#      append, mirror fetch and append, destination fetch), and one on the source the same
#      without the mirror: the baseline of that same round;
#   every topic is deleted once measured, so the next phase writes into the memory it held.
#   Mirror and relay thus alternate (A B A B A B), and bench/mirror/report.py prints per figure
#   the median over the rounds and the spread, CPU user and system apart per process, the ratios
#   mirror/relay and (per partition count) mirror/mirror with the first count, each per round,
#   the lag absolute and over its baseline, and the issue's goals. About 130 s a round at the
#   default sizes on 2 cores, plus 30 s.
#
# Builds nothing. Usage: bench/mirror/run.sh [build dir]   (default: build)
#   The build dir must hold mirra, bench/broker/mirra_load_gen and bench/mirror/mirra_relay:
#     cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON && ninja -C build mirra mirra_load_gen mirra_relay
#   MIRRA_BENCH_DIR picks the disk for the brokers' data and dd (default /var/tmp; it needs
#   three times BENCH_MIRROR_MB free).
#   BENCH_MIRROR_MB: the pre-filled size in MB of record values (default 2000, i.e. 2 GB).
#   BENCH_MIRROR_PARTITIONS: the partition counts the pre-filled size is spread over, each
#   mirrored in every round (default "8 1000"; the relay copies the first only).
#   BENCH_ROUNDS: how many rounds (default 3).
#   BENCH_STEADY_MB_PER_S / BENCH_STEADY_SECONDS: the steady phase (default 20 / 30).
#   BENCH_MIRROR_PROPERTIES: a file of mirror configs (mirror.fetch.* ...) added to the mirror's.
#   BENCH_SYNC_GROUPS / BENCH_SYNC_PARTITIONS / BENCH_SYNC_INTERVAL_MS / BENCH_SYNC_WINDOW_S:
#   the sync phase after the rounds (bench/mirror/sync_phase.sh; default 1000 groups x 20
#   partitions, a sync round every 5000 ms, 15 s windows; BENCH_SYNC_GROUPS=0 skips it).
#   BENCH_PERF: a directory for a profile of both brokers during each mirror copy (perf).
#   BENCH_WARM_MB: memory to warm first (bench/lib.sh bench_warm_memory; default: what a round
#   writes plus dd's 2 GiB).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mirra=$build/mirra
load_gen=$build/bench/broker/mirra_load_gen
relay=$build/bench/mirror/mirra_relay
size_mb=${BENCH_MIRROR_MB:-2000}
steady_mb_per_s=${BENCH_STEADY_MB_PER_S:-20}
steady_seconds=${BENCH_STEADY_SECONDS:-30}
sync_interval_ms=${BENCH_SYNC_INTERVAL_MS:-5000}
read -r -a partition_counts <<<"${BENCH_MIRROR_PARTITIONS:-8 1000}"
for p in "${partition_counts[@]}"; do
  [[ $p =~ ^[1-9][0-9]*$ ]] ||
    { echo "$0: BENCH_MIRROR_PARTITIONS must list positive integers, not '$p'" >&2; exit 1; }
done
. bench/lib.sh
. bench/mirror/sync_phase.sh
bench_need "$mirra" "$load_gen" "$relay" iperf3 dd python3

bench_tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-mirror.XXXXXX")
trap 'bench_kill_all; rm -rf "$bench_tmp"' EXIT
results=$bench_tmp/results  # one key=value line per measurement, read by the report
records=$((size_mb * 1000000 / 1024))
steady_rate=$((steady_mb_per_s * 1000000 / 1024))
steady_records=$((steady_rate * steady_seconds))

# What one round writes (the source, both copies, the steady topic twice) plus dd's 2 GiB;
# each round deletes its topics, so the next one writes into the memory they leave.
bench_warm_memory "${BENCH_WARM_MB:-$((3 * size_mb + steady_mb_per_s * steady_seconds * 2 + 2048))}"
bench_limits "$build" >>"$results"
cat "$results"

bench_start_broker "$mirra" source
# Every sync round of the mirror (and its check of the source topics) runs at this interval.
bench_start_broker "$mirra" destination \
  --override "mirror.metadata.refresh.interval.ms=$sync_interval_ms"
failed=0
# The sync phase (bench/mirror/sync_phase.sh) tags its measurements: phase=sync-without or
# phase=sync-with (the report keeps them apart from the rounds').
phase_tag=
phase_field=
fail() { echo "run.sh: FAILED: $*" >&2; failed=1; }
both_cpu() { echo "$(bench_cpu "$source_pid")/$(bench_cpu "$destination_pid")"; }
cpu_since() {  # both_cpu's output: the brokers' user and system CPU since, as key=value pairs
  echo "$(bench_cpu_since source "$source_pid" "${1%/*}")" \
       "$(bench_cpu_since destination "$destination_pid" "${1#*/}")"
}
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2"; }  # key, key=value line: the value
client_cpu() {  # name, a client's result line: its CPU as NAME_user_s=U NAME_sys_s=S
  echo "$1_user_s=$(field cpu_user_s "$2") $1_sys_s=$(field cpu_sys_s "$2")"
}
mirror_cli() { "$mirra" mirror --bootstrap-server "$destination_bootstrap" "$@"; }
topics_cli() {  # source|destination, topics arguments
  local side=${1}_bootstrap
  shift
  "$mirra" topics --bootstrap-server "${!side}" "$@"
}

{
  echo "bootstrap.servers=$source_bootstrap"
  [ -z "${BENCH_MIRROR_PROPERTIES:-}" ] || cat "$BENCH_MIRROR_PROPERTIES"
} >"$bench_tmp/mirror.properties"
[ -z "${BENCH_MIRROR_PROPERTIES:-}" ] || { echo "mirror configs:"; sed 's/^/  /' "$bench_tmp/mirror.properties"; }
mirror_cli --create --mirror bench --mirror-config "$bench_tmp/mirror.properties" >/dev/null
# A small topic mirrored before the first round, so that the mirror's connections to the source
# (metadata, a fetch loop per source broker, fetch sessions) exist when round 1 starts, as the
# relay's start-up is outside its time too. Without it round 1's mirror paid about a second more
# than the later ones. It stays mirrored, idle, for the whole run.
"$load_gen" produce --bootstrap "$source_bootstrap" --topic bench-prime --records 1000 \
  --size 1024 --acks 1 --partitions 8 --compression lz4 >/dev/null
mirror_cli --add --mirror bench --topic bench-prime >/dev/null
"$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
  --topic bench-prime >/dev/null || fail "the mirror did not catch up with bench-prime"

prefill() {  # round, partitions
  local line
  echo "pre-filling bench-mirror-$1-p$2: $records records of 1 KiB, lz4, $2 partitions"
  bench_settle
  line=$("$load_gen" produce --bootstrap "$source_bootstrap" --topic "bench-mirror-$1-p$2" \
           --records "$records" --size 1024 --acks 1 --partitions "$2" --compression lz4) ||
    { echo "run.sh: the pre-fill failed" >&2; exit 1; }
  echo "$line round=$1 $phase_field" | tee -a "$results"
}

# BENCH_PERF=DIR: each mirror copy's profile of both brokers (perf record, cpu-clock at 999 Hz,
# no call graphs), DIR/<topic>-<side>.data, for `perf report -i ... --no-children`.
perf_start() {  # topic: starts perf on both brokers; sets perf_pids
  perf_pids=()
  [ -n "${BENCH_PERF:-}" ] || return 0
  local side pid_var
  for side in source destination; do
    pid_var=${side}_pid
    perf record -q -e cpu-clock -F 999 -p "${!pid_var}" -o "$BENCH_PERF/$1-$side.data" \
      >/dev/null 2>&1 &
    perf_pids+=("$!")
  done
}
perf_stop() {
  local pid
  for pid in "${perf_pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  for pid in "${perf_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}

mirror_copy() {  # round, partitions
  local topic=bench-mirror-$1-p$2 cpu0 t0 caught_up=0 secs cpu
  bench_settle
  perf_start "$topic"
  cpu0=$(both_cpu)
  t0=$(bench_now)
  mirror_cli --add --mirror bench --topic "$topic" >/dev/null
  "$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
    --topic "$topic" >/dev/null && caught_up=1
  secs=$(bench_sub "$t0" "$(bench_now)")
  cpu=$(cpu_since "$cpu0")
  perf_stop
  if [ "$caught_up" = 1 ]; then
    echo "mode=mirror round=$1 partitions=$2 records=$records seconds=$secs $cpu $phase_field" |
      tee -a "$results"
  else
    fail "the mirror did not catch up"
  fi
  describe_caught_up "$topic" "$2" || fail "mirror --describe does not show lag 0"
}

# What the mirror itself says: every partition MIRRORING with lag 0. The data can be there
# before the PREPARING -> MIRRORING state change is durable in __mirror_state (an fsync, which
# on ext4 can wait for the writeback of the copy's dirty pages: seconds on a busy disk), so this
# asks again for up to 60 s. It comes after the measured interval and costs no figure.
describe_caught_up() {  # topic, partitions
  local i t0
  t0=$(bench_now)
  for i in $(seq 300); do
    mirror_cli --describe --mirror bench --json >"$bench_tmp/describe.json"
    describe_check "$1" "$2" quiet && break
    sleep 0.2
  done
  [ "$i" = 1 ] || echo "mirror --describe: asked $i times over $(bench_sub "$t0" "$(bench_now)") s"
  describe_check "$1" "$2"
}
describe_check() {  # topic, partitions, [quiet]: the last describe's partitions of the topic
  python3 - "$bench_tmp/describe.json" "$@" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))
        if r.get("topic") == sys.argv[2] and r.get("type", "partition") == "partition"]
bad = [r for r in rows if r["state"] != "MIRRORING" or r["lag"] != 0]
if len(sys.argv) < 5:
    print(f"mirror --describe: {len(rows)} partitions, {len(rows) - len(bad)} MIRRORING with lag 0")
    for r in bad[:10]:
        print(f"  partition {r['partition']}: {r['state']} lag {r['lag']} last error {r['lastError']}")
sys.exit(1 if bad or len(rows) != int(sys.argv[3]) else 0)
PY
}

# The relay's time is its own, first fetch to last delivery: without its start-up (metadata,
# watermarks, CreateTopics) and rd_kafka_destroy, a second or so that would not be the copy's.
# The brokers' CPU is over the relay's whole life, which adds little (they are idle meanwhile).
relay_copy() {  # round, partitions
  local cpu0 line
  bench_settle
  cpu0=$(both_cpu)
  if line=$("$relay" copy --source "$source_bootstrap" --destination "$destination_bootstrap" \
              --topic "bench-mirror-$1-p$2" --to-topic "bench-relay-$1-p$2"); then
    echo "mode=relay round=$1 partitions=$2 records=$records seconds=$(field seconds "$line")" \
         "$(cpu_since "$cpu0") $(client_cpu relay "$line")" | tee -a "$results"
  else
    fail "mirra_relay copy"
  fi
}

steady_lag() {  # round
  local name=$1${phase_tag:+-$phase_tag}
  local topic=bench-steady-$name side cpu0 line steady_cpu i
  local -a lag_pids=()
  topics_cli source --create --topic "$topic" --partitions 8 >/dev/null
  mirror_cli --add --mirror bench --topic "$topic" >/dev/null
  for side in source destination; do
    local bootstrap_var=${side}_bootstrap
    "$relay" lag --bootstrap "${!bootstrap_var}" --topic "$topic" --records "$steady_records" \
      --ready-file "$bench_tmp/lag-$side-$name.ready" >"$bench_tmp/lag-$side-$name" &
    lag_pids+=("$!")
    bench_pids+=("$!")
  done
  for _ in $(seq 200); do  # until both consumers have fetched every partition once
    [ -f "$bench_tmp/lag-source-$name.ready" ] && [ -f "$bench_tmp/lag-destination-$name.ready" ] && break
    sleep 0.05
  done
  [ -f "$bench_tmp/lag-source-$name.ready" ] && [ -f "$bench_tmp/lag-destination-$name.ready" ] ||
    echo "run.sh: the lag consumers are not fetching after 10 s; the first records' lag includes their start" >&2
  bench_settle
  echo "producing $steady_mb_per_s MB/s ($steady_rate records/s of 1 KiB, lz4) for $steady_seconds s"
  cpu0=$(both_cpu)
  line=$("$load_gen" produce --bootstrap "$source_bootstrap" --topic "$topic" \
           --records "$steady_records" --size 1024 --acks 1 --partitions 8 --compression lz4 \
           --rate "$steady_rate") || fail "the steady produce"
  steady_cpu="$(cpu_since "$cpu0") $(client_cpu load "$line")"  # the steady state's cost
  for i in 0 1; do
    side=$([ "$i" = 0 ] && echo source || echo destination)
    if wait "${lag_pids[$i]}"; then
      echo "$(cat "$bench_tmp/lag-$side-$name") round=$1 side=$side $steady_cpu $phase_field" \
           "produce_seconds=$(field seconds "$line")" | tee -a "$results"
    else
      fail "the lag consumer on the $side"
    fi
  done
}

# Fails a mirrored topic over (a mirror topic cannot be deleted while mirrored) and deletes it
# and its relayed copy on both sides: the next phase writes into the memory they held.
drop_topics() {  # mirrored topic, [relayed topic]
  local t t0
  t0=$(bench_now)
  mirror_cli --remove --mirror bench --topic "$1" >/dev/null || fail "failing over $1"
  for t in "$@"; do
    topics_cli destination --delete --topic "$t" --if-exists >/dev/null ||
      fail "deleting $t on the destination"
  done
  topics_cli source --delete --topic "$1" --if-exists >/dev/null || fail "deleting $1 on the source"
  echo "dropped $*: $(bench_sub "$t0" "$(bench_now)") s"
}

for round in $(seq "$bench_rounds"); do
  echo "---- round $round of $bench_rounds ----"
  for p in "${partition_counts[@]}"; do
    prefill "$round" "$p"
    mirror_copy "$round" "$p"
    if [ "$p" = "${partition_counts[0]}" ]; then
      relay_copy "$round" "$p"
      drop_topics "bench-mirror-$round-p$p" "bench-relay-$round-p$p"
    else
      drop_topics "bench-mirror-$round-p$p"
    fi
  done
  steady_lag "$round"
  drop_topics "bench-steady-$round"
done
[ "${BENCH_SYNC_GROUPS:-1000}" = 0 ] || sync_phase

# The destination first: its mirror still fetches bench-prime, and would log the source's going.
bench_stop_broker "$destination_pid" destination || failed=1
bench_stop_broker "$source_pid" source || failed=1

python3 bench/mirror/report.py "$results" "$(nproc)" "$bench_rounds" "$steady_mb_per_s" \
  "${partition_counts[*]}"
exit "$failed"
