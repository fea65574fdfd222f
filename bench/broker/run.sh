#!/usr/bin/env bash
# Broker benchmarks beside the machine's own limits, measured in the same run: a librdkafka load
# generator (mirra_load_gen) against `mirra server` on loopback, client and broker sharing the
# machine. Limits: iperf3 TCP over loopback (the ceiling for moving bytes between two processes
# here), dd's sequential write into the page cache (no sync: the ceiling for acks=1 appends, which
# do not wait for fsync) and dd's sequential write ending in fdatasync (the disk's sustained
# rate, which produce only exceeds while the page cache absorbs the writes), and memcpy when the
# build has the micro-benchmarks. The shell pieces are bench/lib.sh's, the report is
# bench/broker/report.py.
# Every case runs BENCH_ROUNDS times (default 3), the cases interleaved (all of them in round 1,
# then all in round 2, ...), each round on fresh topics that are deleted at its end. The report
# gives per figure the median over the rounds and the spread, its ratio to each limit, and the
# CPU it cost per GB, user and system apart, client and broker apart (comparable when the machine
# is shared and wall-clock rates are not), then the issue's goals. About 40 s a round at the
# default counts, plus 15 s for the limits.
#
# Builds nothing. Usage: bench/broker/run.sh [build dir]   (default: build)
#   The build dir must hold mirra and bench/broker/mirra_load_gen from a -DMIRRA_BENCH=ON build:
#     cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON && ninja -C build mirra mirra_load_gen
#   MIRRA_BENCH_DIR picks the disk for the broker's data and dd (default /var/tmp).
#   BENCH_RECORDS_1K / BENCH_RECORDS_100 set the record counts (default 1000000 / 3000000).
#   BENCH_ROUNDS: how many times each case runs (default 3).
#   BENCH_WARM_MB: memory to warm first (bench/lib.sh bench_warm_memory; default: what a round
#   writes plus dd's 2 GiB).
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

# One round's topics plus dd's 2 GiB; each round deletes its topics, so the next one writes
# into the memory they leave.
round_mb=$(((2 * n1k * 1024 + 2 * n100 * 100 + 5000 * 10 * 1024) / 1000000))
bench_warm_memory "${BENCH_WARM_MB:-$((round_mb + 2048))}"
bench_limits "$build" >>"$results"
cat "$results"

bench_start_broker "$mirra" broker
failed=0
# Each case starts with nothing dirty in the page cache, so none pays for the writeback of the
# one before (which the fixed order would otherwise charge to the same case every round).
run() {  # round, load_gen arguments; records its result line with the broker's CPU over the run
  local round=$1 before line rc=0
  shift
  bench_settle
  before=$(bench_cpu "$broker_pid")
  line=$("$load_gen" "$@" --bootstrap "$broker_bootstrap") || rc=$?
  if [ -n "$line" ]; then
    echo "$line round=$round $(bench_cpu_since broker "$broker_pid" "$before")" |
      tee -a "$results"
  fi
  if [ "$rc" != 0 ]; then
    echo "run.sh: FAILED: mirra_load_gen $*" >&2
    failed=1
  fi
}
for round in $(seq "$bench_rounds"); do
  echo "---- round $round of $bench_rounds ----"
  for p in 1 8; do
    run "$round" produce --topic "bench-1k-p$p-$round" --records "$n1k" --size 1024 --acks 1 \
      --partitions "$p"
  done
  for p in 1 8; do
    run "$round" produce --topic "bench-100-p$p-$round" --records "$n100" --size 100 --acks 1 \
      --partitions "$p"
  done
  run "$round" consume --topic "bench-1k-p1-$round" --records "$n1k"
  run "$round" consume --topic "bench-1k-p8-$round" --records "$n1k"
  run "$round" latency --topic "bench-latency-$round" --rate 5000 --seconds 10 --size 1024 --acks 1
  for t in 1k-p1 1k-p8 100-p1 100-p8 latency; do
    "$mirra" topics --bootstrap-server "$broker_bootstrap" --delete --topic "bench-$t-$round" \
      --if-exists >/dev/null || { echo "run.sh: FAILED: deleting bench-$t-$round" >&2; failed=1; }
  done
done

bench_stop_broker "$broker_pid" broker || failed=1

python3 bench/broker/report.py "$results" "$(nproc)" "$bench_rounds"
exit "$failed"
