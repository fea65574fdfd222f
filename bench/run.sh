#!/usr/bin/env bash
# Builds and runs Mirra's micro-benchmarks. Every benchmark binary measures memcpy on the same
# buffer size in the same run, so its figures can be read as a fraction of this machine's limit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON >/dev/null
cmake --build build --target codec_bench records_bench
for b in build/bench/protocol/codec_bench build/bench/records/records_bench; do
  echo "== $b"
  "$b" --benchmark_min_time=0.5
done
