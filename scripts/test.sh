#!/usr/bin/env bash
# Installs what Mirra needs, checks the C++ layout (scripts/format.sh --check), builds it, and
# runs every test: the unit, golden and round-trip tests in the release build, then the unit
# tests, the broker process tests and short fuzz runs under ASan + UBSan.
# This is the README's test command; .ci/run calls it and nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh  # Debian packages and the npm lock file's packages

. scripts/lib/build.sh  # build/ configured as scripts/run.sh does: one build for both

echo "== format check (clang-format) =="
scripts/format.sh --check

echo "== release build (g++) =="
mirra_configure_release
cmake --build build
ctest --test-dir build --output-on-failure -j 2

echo "== sanitizer build (clang, ASan + UBSan, libFuzzer) =="
mirra_configure_asan
cmake --build build-asan
ctest --test-dir build-asan -L 'unit|fuzz|interop' --output-on-failure -j 2
