#!/usr/bin/env bash
# Builds and runs Mirra's micro-benchmarks. The codec and records benchmarks measure memcpy on the
# same buffer size in the same run, so their figures can be read as a fraction of this machine's
# limit. storage_bench writes under $MIRRA_BENCH_DIR (default /var/tmp); bench/storage/run.sh runs it
# beside dd for the disk's own limits.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON >/dev/null
cmake --build build --target codec_bench records_bench storage_bench quota_bench metrics_bench
for b in build/bench/protocol/codec_bench build/bench/records/records_bench \
         build/bench/storage/storage_bench build/bench/quotas/quota_bench \
         build/bench/observability/metrics_bench; do
  echo "== $b"
  "$b" --benchmark_min_time=0.5
done
