#!/usr/bin/env bash
# Installs what Mirra needs, builds it, and runs every test: the unit, golden and round-trip
# tests in the release build, then the unit tests, the broker process tests and short fuzz runs
# under ASan + UBSan.
# This is the README's test command; .ci/run calls it and nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
if [ -f package-lock.json ]; then
  # npm ci only when the lock file changed since the last install (it wipes node_modules).
  if [ ! -f node_modules/.package-lock.json ] || ! cmp -s <(sed -n '/"packages"/,$p' package-lock.json) \
       <(sed -n '/"packages"/,$p' node_modules/.package-lock.json 2>/dev/null); then
    npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error
  fi
fi

# ccache keys on paths relative to the checkout, so a fresh clone in another folder (CI) reuses
# the objects an earlier build of the same sources left in the cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

echo "== release build (g++) =="
cmake -S . -B build -G Ninja -DMIRRA_WERROR=ON >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j 2

echo "== sanitizer build (clang, ASan + UBSan, libFuzzer) =="
cmake -S . -B build-asan -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DMIRRA_SANITIZE=ON -DMIRRA_FUZZ=ON -DMIRRA_BENCH=OFF -DMIRRA_WERROR=ON >/dev/null
cmake --build build-asan
ctest --test-dir build-asan -L 'unit|fuzz|interop' --output-on-failure -j 2
