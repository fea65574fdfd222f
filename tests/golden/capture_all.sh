#!/usr/bin/env bash
# Regenerates every golden fixture under tests/fixtures/golden/ by running real Kafka clients
# against capture_broker. Not part of the normal test run (that only decodes the committed
# fixtures); run it by hand when a client or the capture rules change, then commit the fixtures.
#
#   tests/golden/capture_all.sh [client ...]     # clients: kcat confluent-kafka kafka-python
#                                                 #          kafkajs platformatic (default: all)
# Environment: BUILD_DIR (default build-golden) is the CMake build directory used to build
# capture_broker. Needs kcat, python3-confluent-kafka, python3-kafka, python3-snappy,
# python3-lz4, python3-zstandard (scripts/install-deps.sh), and `npm ci` at the repository root
# for the Node clients.
#
# One capture_broker per scenario (fresh offsets, numbering from 001). Every Produce frame is
# kept; of the other frames only the first two per API version (clients repeat Metadata and
# Fetch polls), and at most 30 frames per scenario.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-golden}"
FIXTURES="$ROOT/tests/fixtures/golden"
PY=/usr/bin/python3  # Debian's packages are only installed for this interpreter
HERE="$ROOT/tests/golden"

[ -f "$BUILD_DIR/build.ninja" ] || cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DMIRRA_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" --target capture_broker >/dev/null
BROKER="$(find "$BUILD_DIR" -name capture_broker -type f -perm -u+x | head -n1)"

WORK="$(mktemp -d)"
BROKER_PID=""
cleanup() {
  [ -n "$BROKER_PID" ] && kill "$BROKER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# capture <client> <scenario> <command...>: the command gets the port as its last argument.
capture() {
  local client="$1" scenario="$2"
  shift 2
  local out="$WORK/$client/$scenario"
  mkdir -p "$out"
  "$BROKER" --port 0 --out "$out" --record-limit 60 >"$WORK/broker.out" 2>"$WORK/broker.err" &
  BROKER_PID=$!
  local port=""
  for _ in $(seq 50); do
    port="$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$WORK/broker.out")"
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "capture_broker did not start" >&2; cat "$WORK/broker.err" >&2; exit 1; }
  echo "== $client/$scenario (port $port)"
  if ! timeout 60 bash -c '"$@"' capture "$@" "$port"; then
    echo "FAILED: $client/$scenario" >&2
    sed 's/^/  broker: /' "$WORK/broker.err" >&2
    exit 1
  fi
  kill -TERM "$BROKER_PID"
  wait "$BROKER_PID" || true
  BROKER_PID=""
  prune "$out"
  rm -rf "${FIXTURES:?}/$client/$scenario"
  mkdir -p "$FIXTURES/$client"
  mv "$out" "$FIXTURES/$client/$scenario"
  ls "$FIXTURES/$client/$scenario" | sed 's/^/   /'
}

prune() {
  local dir="$1" kept=0
  declare -A seen=()
  for f in $(ls "$dir" | sort); do
    local kind="${f#*-}"  # <Api>-v<N>.bin
    seen[$kind]=$(( ${seen[$kind]:-0} + 1 ))
    if [[ "$kind" != Produce-* && ${seen[$kind]} -gt 2 ]] || [ "$kept" -ge 30 ]; then
      rm "$dir/$f"
    else
      kept=$((kept + 1))
    fi
  done
}

kcat_produce() {  # kcat_produce <codec> <port>
  local codec="$1" port="$2"
  for i in $(seq 0 9); do echo "k$i:golden-kcat-$codec-$i"; done |
    kcat -P -b "127.0.0.1:$port" -t golden -K : -H h=kcat -z "$codec" -X linger.ms=200
}
kcat_metadata() { kcat -L -b "127.0.0.1:$1" >/dev/null; }
kcat_consume() { kcat -C -b "127.0.0.1:$1" -t golden -p 0 -o beginning -e -q; }
export -f kcat_produce kcat_metadata kcat_consume  # run under `timeout bash -c`

run_kcat() {
  for codec in none gzip snappy lz4 zstd; do capture kcat "$codec" kcat_produce "$codec"; done
  capture kcat metadata kcat_metadata
  capture kcat consume kcat_consume
}
run_confluent() {
  for s in none gzip snappy lz4 zstd idempotent; do
    capture confluent-kafka "$s" "$PY" "$HERE/drive_python.py" confluent-kafka "$s"
  done
}
run_kafka_python() {
  for s in none gzip snappy lz4 zstd; do
    capture kafka-python "$s" "$PY" "$HERE/drive_python.py" kafka-python "$s"
  done
}
run_kafkajs() {
  for s in none gzip idempotent; do capture kafkajs "$s" node "$HERE/drive_node.mjs" kafkajs "$s"; done
}
run_platformatic() {
  for s in none gzip snappy lz4 idempotent; do capture platformatic "$s" node "$HERE/drive_node.mjs" platformatic "$s"; done
}

clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(kcat confluent-kafka kafka-python kafkajs platformatic)
for c in "${clients[@]}"; do
  case "$c" in
    kcat) run_kcat ;;
    confluent-kafka) run_confluent ;;
    kafka-python) run_kafka_python ;;
    kafkajs) run_kafkajs ;;
    platformatic) run_platformatic ;;
    *) echo "unknown client $c" >&2; exit 2 ;;
  esac
done
