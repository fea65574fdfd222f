#!/usr/bin/env bash
# Installs what Mirra needs, builds it, and runs its main job: a broker on 127.0.0.1:9092 with
# its data in ./data (the embedded defaults), until Ctrl-C or SIGTERM. Extra arguments go to
# `mirra server`, e.g. `scripts/run.sh config/server.properties --override num.partitions=3`.
# (Once mirroring lands, the main job becomes a demo mirroring between two local brokers.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja >/dev/null
cmake --build build --target mirra
exec build/mirra server "$@"
