#!/usr/bin/env bash
# The share-group benchmark (issue 20): share consumption of 1 KiB records by 4 members with
# acknowledgements (librdkafka 2.15.1's share consumer, tests/share_client/share_consumer, implicit
# acknowledgement committed asynchronously each poll) against a classic consumer group of 4
# members (kcat -G, Debian's librdkafka) reading the same topic in the same run, both beside the
# machine's limits measured in the same run (bench/lib.sh). One broker, one 4-partition topic
# of BENCH_RECORDS records produced once by mirra_load_gen; BENCH_ROUNDS rounds (default 3), each
# reading the whole topic once per side, in alternating order, each with a new group id: the
# share group starts at the earliest offset (its GROUP config share.auto.offset.reset), the
# classic group from the beginning. A side's time runs from starting its 4 processes to the last
# one ending; the share members stop after BENCH_IDLE_MS (default 2000) without a record, so that
# wait is taken off their time (each member's own idle wait, once, since they end together).
# bench/share/report.py prints per round MB/s of each side, the share/classic ratio, its median,
# and the goal (at least 0.5).
#
# Builds nothing. Usage: bench/share/run.sh [build dir]   (default: build)
#   The build dir must hold mirra, bench/broker/mirra_load_gen and tests/share_client/share_consumer.
#   MIRRA_BENCH_DIR picks the disk for the broker's data and dd (default /var/tmp).
#   BENCH_RECORDS (default 400000), BENCH_ROUNDS (default 3), BENCH_IDLE_MS (default 2000).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mirra=$build/mirra
load_gen=$build/bench/broker/mirra_load_gen
share_consumer=$build/tests/share_client/share_consumer
records=${BENCH_RECORDS:-400000}
rounds=${BENCH_ROUNDS:-3}
idle_ms=${BENCH_IDLE_MS:-2000}
. bench/lib.sh
bench_need "$mirra" "$load_gen" "$share_consumer" kcat iperf3 dd /usr/bin/python3

bench_tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-share.XXXXXX")
trap 'bench_kill_all; rm -rf "$bench_tmp"' EXIT
results=$bench_tmp/results
bench_warm_memory $(((records * 1024) / 1000000 + 2048))
bench_limits "$build" >>"$results"
cat "$results"

# No initial rebalance delay: the classic group's time is its reading, not a fixed 3 s wait.
# Share members learn a new assignment at their own next heartbeat (as in Kafka): with the
# default 5 s interval, a partition handed over while the members join could wait longer than
# their BENCH_IDLE_MS and be left unread (seen once in 14 rounds). A 1 s interval keeps every
# hand-over inside the idle wait.
bench_start_broker "$mirra" broker --override group.initial.rebalance.delay.ms=0 \
  --override group.share.min.heartbeat.interval.ms=1000 \
  --override group.share.heartbeat.interval.ms=1000
"$load_gen" produce --bootstrap "$broker_bootstrap" --topic share-bench --partitions 4 \
  --records "$records" --size 1024 --acks 1 | tee -a "$results"

earliest() {  # group: share.auto.offset.reset=earliest through IncrementalAlterConfigs
  /usr/bin/python3 - "$broker_bootstrap" "$1" <<'PY'
import sys
sys.path.insert(0, "tests/pylib")
from raw_admin import incremental_alter
port = int(sys.argv[1].rsplit(":", 1)[1])
got = incremental_alter(port, [(32, sys.argv[2], [("share.auto.offset.reset", 0, "earliest")])])
assert got[(32, sys.argv[2])][0] == 0, got
PY
}

share_side() {  # round
  local group=share-$1 start end pids=() n=0 rc=0
  earliest "$group"
  bench_settle
  start=$(bench_now)
  for m in 1 2 3 4; do
    "$share_consumer" --bootstrap "$broker_bootstrap" --group "$group" --topic share-bench \
      --commit async --quiet --idle-ms "$idle_ms" \
      >/dev/null 2>"$bench_tmp/share-$1-$m.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  end=$(bench_now)
  [ "$rc" -eq 0 ] || { echo "share_consumer failed:"; cat "$bench_tmp"/share-"$1"-*.err; exit 1; } >&2
  for m in 1 2 3 4; do
    n=$((n + $(sed -n 's/.*"event":"stopped".*"records":\([0-9]*\).*/\1/p' \
      "$bench_tmp/share-$1-$m.err")))
  done
  echo "mode=share round=$1 records=$n seconds=$(bench_sub "$start" "$end")" \
       "idle_s=$(awk -v m="$idle_ms" 'BEGIN { printf "%.2f", m / 1000 }')"
}

classic_side() {  # round
  local group=classic-$1 start end pids=() n=0 rc=0
  bench_settle
  start=$(bench_now)
  for m in 1 2 3 4; do
    # -e: each member ends once its partitions are read to their end.
    kcat -q -b "$broker_bootstrap" -G "$group" -X auto.offset.reset=earliest -e \
      -f '%o\n' share-bench >"$bench_tmp/classic-$1-$m.out" 2>"$bench_tmp/classic-$1-$m.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  end=$(bench_now)
  [ "$rc" -eq 0 ] || { echo "kcat failed:"; cat "$bench_tmp"/classic-"$1"-*.err; exit 1; } >&2
  n=$(cat "$bench_tmp"/classic-"$1"-*.out | wc -l)
  echo "mode=classic round=$1 records=$n seconds=$(bench_sub "$start" "$end") idle_s=0"
}

for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    share_side "$r" | tee -a "$results"
    classic_side "$r" | tee -a "$results"
  else
    classic_side "$r" | tee -a "$results"
    share_side "$r" | tee -a "$results"
  fi
done
bench_stop_broker "$broker_pid" broker
/usr/bin/python3 bench/share/report.py "$results" "$(nproc)" "$records"
