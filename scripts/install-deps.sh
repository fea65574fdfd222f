#!/usr/bin/env bash
# Installs every Debian package Mirra needs to build, test and benchmark, then the npm packages
# of package-lock.json. Idempotent: when everything is already installed it does nothing (no
# apt-get update, no npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each package is used by the tree; the comment says where.
PACKAGES=(
  # build: CMakeLists.txt (Ninja, ccache, pkg-config for zstd/lz4/rdkafka), the protocol code
  # generator (python3), the sanitizer and fuzz build (clang + its runtime libraries)
  build-essential cmake ninja-build ccache pkg-config python3
  clang libclang-rt-14-dev
  # style: scripts/format.sh (clang-format 14) and .clang-tidy
  clang-format clang-tidy
  # libraries: fmt and asio everywhere, CLI11 (src/cli), the record codecs (src/protocol/records),
  # librdkafka (the mock source cluster in tests/tools, the benchmarks' clients)
  libfmt-dev libasio-dev libcli11-dev
  zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev librdkafka-dev
  # the broker's HTTP listener (src/http: /metrics, the JSON API, the console)
  libmicrohttpd-dev
  # security: TLS, SCRAM and secrets (src/security); the openssl tool makes the tests' certificates
  libssl-dev openssl
  # tests: gtest; the interop and CLI suites (pytest, kcat, confluent-kafka, kafka-python with
  # its snappy/lz4/zstd codecs, kafkajs through node and npm)
  libgtest-dev
  kcat python3-pytest python3-confluent-kafka python3-kafka python3-snappy python3-lz4
  python3-zstandard nodejs npm
  # observability tests: promtool and a real Prometheus server (tests/interop/test_metrics.py),
  # and the web console in headless Chromium (tests/interop/test_console.py)
  prometheus chromium
  # benchmarks: bench/ (Google Benchmark, iperf3 for the loopback limit)
  libbenchmark-dev iperf3
)

missing=()
for p in "${PACKAGES[@]}"; do
  # dpkg-query prints "install ok installed" only for fully installed packages.
  if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

# Node and npm may come from outside Debian's packages (a preinstalled toolchain); accept them.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  filtered=()
  for p in "${missing[@]}"; do
    case "$p" in nodejs|npm) ;; *) filtered+=("$p") ;; esac
  done
  missing=("${filtered[@]}")
fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm packages, pinned in package-lock.json: the web console's charting library (built into the
# broker), the test clients and the librdkafka source tree of tests/share_client. `npm ci` (which
# wipes node_modules) only when package-lock.json or .npmrc (no install scripts) changed since the
# last install: a stamp in node_modules holds their checksum. (npm's own node_modules/
# .package-lock.json cannot tell: it leaves out the root entry and the optional packages of other
# platforms.)
stamp=node_modules/.install-deps-stamp
want=$(cat package-lock.json .npmrc | sha256sum)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error || npm install --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
fi
