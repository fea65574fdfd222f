#!/usr/bin/env bash
# The observability benchmark (issue 19): what the /metrics endpoint costs while Prometheus
# scrapes it every second. Produce and mirroring throughput with metrics on and scraped, beside
# their twins with metrics off, taken in the same round, and both beside the machine's limits
# measured in the same run (bench/lib.sh: loopback, page cache, disk, memcpy when built). Then
# the scrape itself with 10,000 partitions: its time and size.
#
# BENCH_ROUNDS rounds (default 3), each of two phases, "off" and "on", in alternating order
# (off, on / on, off / ...) so that a drift of the machine over the run does not land on one
# side only. A phase starts two fresh brokers, a source and a destination (bench/lib.sh):
#   "off": without http.listeners, so no HTTP thread and nothing serves /metrics;
#   "on":  with http.listeners=http://127.0.0.1:0 on both, and bench/observability/scrape.py
#          fetching /metrics from both every BENCH_SCRAPE_INTERVAL s (default 1) for the whole
#          phase, each scrape timed and sized; a failed scrape fails the run.
# Then, in the phase:
#   1. the mirror `bench` is created on the destination and copies a small topic, so its
#      connections exist before anything is timed;
#   2. produce BENCH_RECORDS_1K records of 1 KiB (acks=1, no compression, mirra_load_gen) to a
#      fresh 1- and 8-partition topic on the source;
#   3. pre-fill: BENCH_MIRROR_MB MB of 1 KiB lz4 records into an 8-partition source topic;
#   4. mirror: `--add` of that topic on the destination, timed until every destination
#      partition has the source's high watermark (mirra_relay caught-up, as bench/mirror/run.sh
#      times it); `mirra mirror --describe` must then show lag 0;
#   every case after `sync`, with the CPU of both brokers over it. The phase then stops the
#   scraper, takes the CPU of both brokers over the phase and, in "on", of their HTTP threads
#   (libmicrohttpd's MHD-single, from schedstat), stops both brokers and removes their data, so
#   the next phase starts from the same place.
# After the rounds, the scrape with many partitions: a broker with http.listeners,
# BENCH_SCRAPE_TOPICS topics t1, t2, ... (default 10) of BENCH_SCRAPE_PARTITIONS partitions
# (default 1,000) created with `mirra topics --create`, the broker's CPU over an idle window,
# then BENCH_SCRAPES scrapes (default 20) at the same interval: time (median, min, max), size in
# bytes and lines, and the broker's CPU per scrape (beyond what it spends idle).
# bench/observability/report.py prints per case the median MB/s off and on, the on/off ratio
# taken within each round and its median and spread, CPU per GB, what the scrapes took, the
# limits and the goal (under 2% difference). About a minute a round at the default sizes on 2
# cores, plus a minute for the warm-up, the limits and the many-partition scrapes.
#
# Builds nothing. Usage: bench/observability/run.sh [build dir]   (default: build)
#   The build dir must hold mirra, bench/broker/mirra_load_gen and bench/mirror/mirra_relay:
#     cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON && ninja -C build mirra mirra_load_gen mirra_relay
#   MIRRA_BENCH_DIR picks the disk for the brokers' data and dd (default /var/tmp).
#   BENCH_RECORDS_1K: records per produce case (default 1000000).
#   BENCH_MIRROR_MB: the pre-filled, then mirrored, size in MB of record values (default 1000).
#   BENCH_ROUNDS: how many rounds (default 3).
#   BENCH_SCRAPE_INTERVAL: seconds between scrapes (default 1).
#   BENCH_SCRAPE_TOPICS / BENCH_SCRAPE_PARTITIONS / BENCH_SCRAPES: the many-partition scrapes
#   (default 10 x 1000, 20 scrapes; BENCH_SCRAPES=0 skips them).
#   BENCH_WARM_MB: memory to warm first (default: what a phase writes plus dd's 2 GiB).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mirra=$build/mirra
load_gen=$build/bench/broker/mirra_load_gen
relay=$build/bench/mirror/mirra_relay
n1k=${BENCH_RECORDS_1K:-1000000}
mirror_mb=${BENCH_MIRROR_MB:-1000}
interval=${BENCH_SCRAPE_INTERVAL:-1}
many_topics=${BENCH_SCRAPE_TOPICS:-10}
many_partitions=${BENCH_SCRAPE_PARTITIONS:-1000}
many_scrapes=${BENCH_SCRAPES:-20}
. bench/lib.sh
bench_need "$mirra" "$load_gen" "$relay" iperf3 dd python3

bench_tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-observability.XXXXXX")
trap 'bench_kill_all; rm -rf "$bench_tmp"' EXIT
results=$bench_tmp/results  # one key=value line per measurement, read by the report
mirror_records=$((mirror_mb * 1000000 / 1024))
failed=0
fail() { echo "run.sh: FAILED: $*" >&2; failed=1; }

# What one phase writes (both produce topics, the source topic and its copy) plus dd's 2 GiB;
# each phase removes its brokers' data, so the next one writes into the memory it leaves.
bench_warm_memory "${BENCH_WARM_MB:-$(((2 * n1k * 1024) / 1000000 + 2 * mirror_mb + 2048))}"
bench_limits "$build" >>"$results"
cat "$results"

# The "listening for HTTP on http://HOST:PORT" line of a started broker, as a /metrics URL.
metrics_url() {  # broker name
  local hostport=
  for _ in $(seq 100); do
    hostport=$(sed -n 's|.*listening for HTTP on http://\([0-9.:]*\).*|\1|p' \
                 "$bench_tmp/$1.log" | head -1)
    [ -n "$hostport" ] && break
    sleep 0.1
  done
  [ -n "$hostport" ] || { echo "run.sh: the $1 broker logged no HTTP listener" >&2; exit 1; }
  echo "http://$hostport/metrics"
}

both_cpu() { echo "$(bench_cpu "$source_pid")/$(bench_cpu "$destination_pid")"; }
cpu_since() {  # both_cpu's output: the brokers' user and system CPU since, as key=value pairs
  echo "$(bench_cpu_since source "$source_pid" "${1%/*}")" \
       "$(bench_cpu_since destination "$destination_pid" "${1#*/}")"
}
mirror_cli() { "$mirra" mirror --bootstrap-server "$destination_bootstrap" "$@"; }

# libmicrohttpd's thread (it names it MHD-single) writes the text of a scrape; its CPU is the
# scrapes' part outside the core thread (whose part, collect_metrics(), cannot be told apart from
# the rest of the core thread's work). From schedstat, in nanoseconds: a small scrape takes less
# than the 10 ms clock tick /proc/PID/stat counts in.
http_cpu() {  # pid: CPU seconds of its HTTP thread so far (0 without one)
  local t
  for t in /proc/"$1"/task/*; do
    [ "$(cat "$t/comm" 2>/dev/null)" = MHD-single ] || continue
    awk '{ printf "%.6f", $1 / 1e9 }' "$t/schedstat"
    return 0
  done
  echo 0
}
http_cpu_since() {  # name, pid, [http_cpu before]: NAME_http_s=S
  awk -v n="$1" -v a="$(http_cpu "$2")" -v b="${3:-0}" 'BEGIN { printf "%s_http_s=%.6f", n, a - b }'
}

scraper_start() {  # tags, name=url...: scrapes until scraper_stop; sets scraper_pid
  local tags=$1 args=() u
  shift
  for u in "$@"; do args+=(--url "$u"); done
  rm -f "$bench_tmp/scraper.ready"
  python3 bench/observability/scrape.py "${args[@]}" --interval "$interval" \
    --ready "$bench_tmp/scraper.ready" --tags "$tags" >"$bench_tmp/scraper.out" &
  scraper_pid=$!
  bench_pids+=("$scraper_pid")
  for _ in $(seq 150); do
    [ -f "$bench_tmp/scraper.ready" ] && return 0
    kill -0 "$scraper_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "run.sh: the scraper's first scrapes did not succeed" >&2
  exit 1
}
scraper_stop() {  # what: appends its lines to the results; a scrape that failed fails the run
  local rc=0
  kill -TERM "$scraper_pid" 2>/dev/null || true
  wait "$scraper_pid" || rc=$?
  tee -a "$results" <"$bench_tmp/scraper.out"
  [ "$rc" = 0 ] || fail "a scrape failed ($1; scrape.py exited with $rc)"
}

start_brokers() {  # off|on
  local http=()
  [ "$1" = on ] && http=(--override http.listeners=http://127.0.0.1:0)
  bench_start_broker "$mirra" source "${http[@]}"
  bench_start_broker "$mirra" destination "${http[@]}"
  if [ "$1" = off ] && grep -q 'listening for HTTP' "$bench_tmp/source.log" \
                                                    "$bench_tmp/destination.log"; then
    echo "run.sh: a broker of the 'off' phase listens for HTTP" >&2
    exit 1
  fi
}

stop_brokers() {  # round, phase: stops both, keeps their logs, removes their data
  local side
  # The destination first: its mirror still fetches bench-prime, and would log the source's going.
  bench_stop_broker "$destination_pid" destination || failed=1
  bench_stop_broker "$source_pid" source || failed=1
  for side in source destination; do
    mv "$bench_tmp/$side.log" "$bench_tmp/$side-$1-$2.log"
    rm -rf "${bench_tmp:?}/$side"
  done
}

# The mirror `bench`, and a small topic mirrored, so that its connections to the source
# (metadata, the fetch loop, fetch sessions) exist before the timed copy, as in bench/mirror.
mirror_prime() {
  echo "bootstrap.servers=$source_bootstrap" >"$bench_tmp/mirror.properties"
  mirror_cli --create --mirror bench --mirror-config "$bench_tmp/mirror.properties" >/dev/null
  "$load_gen" produce --bootstrap "$source_bootstrap" --topic bench-prime --records 1000 \
    --size 1024 --acks 1 --partitions 8 --compression lz4 >/dev/null
  mirror_cli --add --mirror bench --topic bench-prime >/dev/null
  "$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
    --topic bench-prime >/dev/null || fail "the mirror did not catch up with bench-prime"
}

produce() {  # round, phase, load_gen produce arguments: its line with both brokers' CPU
  local round=$1 phase=$2 cpu0 line rc=0
  shift 2
  bench_settle
  cpu0=$(both_cpu)
  line=$("$load_gen" produce "$@" --bootstrap "$source_bootstrap") || rc=$?
  if [ -n "$line" ]; then
    echo "$line round=$round phase=$phase $(cpu_since "$cpu0")" | tee -a "$results"
  fi
  [ "$rc" = 0 ] || fail "mirra_load_gen produce $* with metrics $phase"
}

# The mirror itself must say so too: every partition MIRRORING with lag 0, within 60 s (the
# state change can wait for an fsync behind the copy's writeback). Outside the timed interval.
mirror_lag_zero() {  # topic, partitions
  for _ in $(seq 300); do
    mirror_cli --describe --mirror bench --json >"$bench_tmp/describe.json" || true
    python3 - "$bench_tmp/describe.json" "$1" "$2" <<'PY' && return 0
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))
        if r.get("topic") == sys.argv[2] and r.get("type", "partition") == "partition"]
ok = len(rows) == int(sys.argv[3]) and all(r["state"] == "MIRRORING" and r["lag"] == 0 for r in rows)
sys.exit(0 if ok else 1)
PY
    sleep 0.2
  done
  return 1
}

mirror_copy() {  # round, phase
  local round=$1 phase=$2 topic=bench-mirror cpu0 t0 secs
  echo "pre-filling $topic: $mirror_records records of 1 KiB, lz4, 8 partitions"
  produce "$round" "$phase" --topic "$topic" --records "$mirror_records" --size 1024 --acks 1 \
    --partitions 8 --compression lz4
  bench_settle
  cpu0=$(both_cpu)
  t0=$(bench_now)
  mirror_cli --add --mirror bench --topic "$topic" >/dev/null
  if "$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
       --topic "$topic" >/dev/null; then
    secs=$(bench_sub "$t0" "$(bench_now)")
    echo "mode=mirror topic=$topic partitions=8 records=$mirror_records seconds=$secs" \
         "mb_per_s=$(awk -v r="$mirror_records" -v s="$secs" 'BEGIN { printf "%.1f", r * 1024 / s / 1e6 }')" \
         "round=$round phase=$phase $(cpu_since "$cpu0")" | tee -a "$results"
  else
    fail "the mirror did not catch up with $topic (metrics $phase)"
  fi
  mirror_lag_zero "$topic" 8 || fail "mirror --describe does not show $topic at lag 0"
}

phase() {  # round, off|on
  local round=$1 phase=$2 p cpu0 t0
  echo "-- metrics $phase --"
  start_brokers "$phase"
  cpu0=$(both_cpu)
  t0=$(bench_now)
  if [ "$phase" = on ]; then
    scraper_start "round=$round phase=on" "source=$(metrics_url source)" \
      "destination=$(metrics_url destination)"
  fi
  mirror_prime
  for p in 1 8; do
    produce "$round" "$phase" --topic "bench-1k-p$p" --records "$n1k" --size 1024 --acks 1 \
      --partitions "$p"
  done
  mirror_copy "$round" "$phase"
  [ "$phase" = off ] || scraper_stop "round $round"
  # The whole phase: both brokers' CPU, and their HTTP threads' (since they started; 0 in "off").
  echo "mode=phase round=$round phase=$phase seconds=$(bench_sub "$t0" "$(bench_now)")" \
       "$(cpu_since "$cpu0") $(http_cpu_since source "$source_pid")" \
       "$(http_cpu_since destination "$destination_pid")" | tee -a "$results"
  stop_brokers "$round" "$phase"
}

for round in $(seq "$bench_rounds"); do
  echo "---- round $round of $bench_rounds ----"
  if [ $((round % 2)) = 1 ]; then order=(off on); else order=(on off); fi
  for ph in "${order[@]}"; do phase "$round" "$ph"; done
done

# ---- the scrape with many partitions ----
# Topics t1, t2, ...: short names, as in the measurement by hand this replaces (4.25 MB), since
# every partition's topic name is in 7 of its lines: each more character is 70 kB at 10,000.
scrape_many() {
  local t t0 t1 cpu0 http0 idle url
  echo "---- scrapes with $many_topics x $many_partitions partitions ----"
  bench_start_broker "$mirra" many --override http.listeners=http://127.0.0.1:0
  url=$(metrics_url many)
  t0=$(bench_now)
  for t in $(seq "$many_topics"); do
    "$mirra" topics --bootstrap-server "$many_bootstrap" --create --topic "t$t" \
      --partitions "$many_partitions" >/dev/null || { fail "creating t$t"; return; }
  done
  echo "mode=many_create topics=$many_topics partitions=$many_partitions" \
       "seconds=$(bench_sub "$t0" "$(bench_now)")" | tee -a "$results"
  bench_settle
  sleep 2  # the creations' last log and state writes
  # The broker's CPU over a window as long as the scrapes', idle, then over the scrapes.
  cpu0=$(bench_cpu "$many_pid")
  http0=$(http_cpu "$many_pid")
  t0=$(bench_now)
  sleep "$(awk -v n="$many_scrapes" -v i="$interval" 'BEGIN { print n * i }')"
  idle="$(bench_cpu_since idle "$many_pid" "$cpu0") $(http_cpu_since idle "$many_pid" "$http0")"
  idle+=" idle_seconds=$(bench_sub "$t0" "$(bench_now)")"
  cpu0=$(bench_cpu "$many_pid")
  http0=$(http_cpu "$many_pid")
  t0=$(bench_now)
  if python3 bench/observability/scrape.py --url "many=$url" --interval "$interval" \
       --count "$many_scrapes" \
       --tags "topics=$many_topics partitions=$many_partitions" >"$bench_tmp/scraper.out"; then
    t1=$(bench_now)
    echo "$(cat "$bench_tmp/scraper.out") $idle $(bench_cpu_since broker "$many_pid" "$cpu0")" \
         "$(http_cpu_since broker "$many_pid" "$http0")" \
         "broker_seconds=$(bench_sub "$t0" "$t1")" | tee -a "$results"
  else
    fail "a scrape of the broker with $((many_topics * many_partitions)) partitions failed"
  fi
  bench_stop_broker "$many_pid" many || failed=1
}
[ "$many_scrapes" = 0 ] || scrape_many

python3 bench/observability/report.py "$results" "$(nproc)" "$bench_rounds" "$interval" || failed=1
exit "$failed"
