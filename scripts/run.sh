#!/usr/bin/env bash
# Installs what Mirra needs, builds it, and runs its main job: the mirroring demo
# (scripts/demo.sh: two local brokers, a topic mirrored from one into the other, the describe
# table until the lag is 0, then a failover). `scripts/run.sh --broker [args]` runs one broker
# on 127.0.0.1:9092 (metrics on http://127.0.0.1:9644/metrics) with its data in ./data instead,
# until Ctrl-C or SIGTERM; the arguments go to `mirra server`, e.g.
# `scripts/run.sh --broker config/server.properties`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/lib/build.sh  # the same build/ as scripts/test.sh
mirra_configure_release
cmake --build build --target mirra
if [ "${1:-}" = "--broker" ]; then
  shift
  # /metrics for Prometheus on 127.0.0.1:9644 (docs/observability.md).
  exec build/mirra server --override http.listeners=http://127.0.0.1:9644 "$@"
fi
exec scripts/demo.sh
