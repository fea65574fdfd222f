#!/usr/bin/env bash
# Installs what Mirra needs, builds it, and runs its main job. Today the main job prints the
# APIs and versions that the broker advertises; it becomes the broker (and then the mirroring
# demo) as those land.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target mirra
exec build/mirra api-versions
