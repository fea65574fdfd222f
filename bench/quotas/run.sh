#!/usr/bin/env bash
# The quota benchmark (issue 18): what client quotas cost while they are configured but far from
# reached. Each figure with quotas on beside its twin with no quota configured at all, taken in
# the same round, and both beside the machine's limits measured in the same run (bench/lib.sh:
# loopback, page cache, disk, memcpy when built). One broker; BENCH_ROUNDS rounds (default 3),
# each of two phases, "off" and "on", in alternating order (off, on / on, off / ...) so that a
# drift of the machine over the run does not land on one side only. A phase:
#   1. produce BENCH_RECORDS_1K records of 1 KiB (acks=1, no compression) to a fresh 1- and
#      8-partition topic, then consume each (mirra_load_gen, client.id=bench);
#   2. deletes its topics.
# "off": no client quota is configured at all, so the broker measures nothing (docs/quotas.md).
# "on": quotas.sh sets producer_byte_rate, consumer_byte_rate and request_percentage for client
# id `bench` and producer_byte_rate for the default user, each a thousand times or more above
# what this machine can move, checks with `mirra configs --describe` that they are in force, and
# after the phase deletes them and checks that none is left. Whether the clients were throttled:
# mirra_load_gen cannot tell (it sets no librdkafka throttle or stats callback), so after the
# load, still in the "on" phase, bench/quotas/throttle_probe.py (confluent-kafka, throttle_cb)
# produces and consumes as `bench` and counts the throttle times it got; before the rounds the
# same probe must see its producer and its consumer throttled under a small quota on another
# client id, so a probe that cannot see throttling fails the run instead of passing it.
# bench/quotas/report.py prints per case the median MB/s off and on, the on/off ratio taken
# within each round and its median and spread, CPU per GB, the limits and the goal (under 3%).
# About 30 s a round at the default counts on 2 cores, plus 30 s for the warm-up and the limits.
#
# Builds nothing. Usage: bench/quotas/run.sh [build dir]   (default: build)
#   The build dir must hold mirra and bench/broker/mirra_load_gen:
#     cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON && ninja -C build mirra mirra_load_gen
#   Needs python3 with confluent_kafka (python3-confluent-kafka, scripts/install-deps.sh) for
#   the throttle probe.
#   MIRRA_BENCH_DIR picks the disk for the broker's data and dd (default /var/tmp).
#   BENCH_RECORDS_1K: records per produce/consume case (default 1000000).
#   BENCH_PROBE_RECORDS: records the throttle probe produces and consumes (default 100000).
#   BENCH_ROUNDS: how many rounds (default 3).
#   BENCH_WARM_MB: memory to warm first (default: what a round writes plus dd's 2 GiB).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mirra=$build/mirra
load_gen=$build/bench/broker/mirra_load_gen
n1k=${BENCH_RECORDS_1K:-1000000}
probe_records=${BENCH_PROBE_RECORDS:-100000}
. bench/lib.sh
. bench/quotas/quotas.sh
bench_need "$mirra" "$load_gen" iperf3 dd python3
# The distribution's python3-confluent-kafka lives in /usr/bin/python3's path, which a python3
# first on PATH (pyenv, a venv) may not have.
probe_python=
for py in /usr/bin/python3 python3; do
  if "$py" -c 'import confluent_kafka' 2>/dev/null; then probe_python=$py; break; fi
done
[ -n "$probe_python" ] ||
  { echo "$0: no python3 with confluent_kafka (scripts/install-deps.sh)" >&2; exit 1; }

bench_tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-quotas.XXXXXX")
trap 'bench_kill_all; rm -rf "$bench_tmp"' EXIT
results=$bench_tmp/results  # one key=value line per measurement, read by the report
failed=0
fail() { echo "run.sh: FAILED: $*" >&2; failed=1; }

# What one round writes (four topics) plus dd's 2 GiB; each phase deletes its topics, so the
# next one writes into the memory they leave.
bench_warm_memory "${BENCH_WARM_MB:-$(((4 * n1k * 1024) / 1000000 + 2048))}"
bench_limits "$build" >>"$results"
cat "$results"

bench_start_broker "$mirra" broker
configs=("$mirra" configs --bootstrap-server "$broker_bootstrap")
quotas_require_none || exit 1
quotas_control_probe | tee -a "$results"
grep '^mode=probe .* phase=control$' "$results" |
  grep -q ' produce_throttled=[1-9].* consume_throttled=[1-9]' ||
  { echo "run.sh: the throttle probe did not see its producer and its consumer throttled" \
         "under a small quota, so it cannot vouch for the 'on' phases" >&2; exit 1; }

run() {  # round, off|on, load_gen arguments: its line with the broker's CPU
  local round=$1 phase=$2 before line rc=0
  shift 2
  bench_settle
  before=$(bench_cpu "$broker_pid")
  line=$("$load_gen" "$@" --bootstrap "$broker_bootstrap" --set client.id=bench) || rc=$?
  if [ -n "$line" ]; then
    echo "$line round=$round phase=$phase $(bench_cpu_since broker "$broker_pid" "$before")" |
      tee -a "$results"
  fi
  [ "$rc" = 0 ] || fail "mirra_load_gen $* with quotas $phase"
}

phase() {  # round, off|on
  local round=$1 phase=$2 p
  echo "-- quotas $phase --"
  if [ "$phase" = on ]; then
    quotas_set || exit 1
  else
    quotas_require_none || exit 1
  fi
  for p in 1 8; do
    run "$round" "$phase" produce --topic "bench-1k-p$p-$phase-$round" --records "$n1k" \
      --size 1024 --acks 1 --partitions "$p"
  done
  for p in 1 8; do
    run "$round" "$phase" consume --topic "bench-1k-p$p-$phase-$round" --records "$n1k"
  done
  for p in 1 8; do
    "$mirra" topics --bootstrap-server "$broker_bootstrap" --delete \
      --topic "bench-1k-p$p-$phase-$round" --if-exists >/dev/null ||
      fail "deleting bench-1k-p$p-$phase-$round"
  done
  if [ "$phase" = on ]; then
    # Outside the timed cases: a client that reports throttle times, under the same quotas.
    quotas_probe bench "$probe_records" "bench-probe-$round" "round=$round phase=on" |
      tee -a "$results"
    tail -1 "$results" | grep -q ' throttled=0 ' ||
      fail "round $round: the probe was throttled under quotas that should be far from reached"
    quotas_delete || exit 1
  fi
}

for round in $(seq "$bench_rounds"); do
  echo "---- round $round of $bench_rounds ----"
  if [ $((round % 2)) = 1 ]; then order=(off on); else order=(on off); fi
  for ph in "${order[@]}"; do phase "$round" "$ph"; done
done

bench_stop_broker "$broker_pid" broker || failed=1

python3 bench/quotas/report.py "$results" "$(nproc)" "$bench_rounds" || failed=1
exit "$failed"
