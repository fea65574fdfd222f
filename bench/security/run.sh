#!/usr/bin/env bash
# The security benchmark (issue 17): what TLS and SASL cost, each figure over SASL_SSL beside its
# plaintext twin taken in the same round, and both beside the machine's limits measured in the
# same run (bench/lib.sh's loopback, page cache, disk, memcpy when built; here also OpenSSL's
# AES-256-GCM rate on one core, the cipher's own ceiling, and whether the kernel offers kTLS).
# One broker with a PLAINTEXT and a SASL_SSL listener (certificates made with openssl into the
# temporary directory; a SCRAM-SHA-512 user when `mirra configs` can add one, else the listener's
# PLAIN JAAS user: the run prints which). BENCH_ROUNDS rounds (default 3), each, in this order:
#   1. produce 1 KiB records (acks=1, no compression) to a 1- and an 8-partition topic, each over
#      PLAINTEXT and then over SASL_SSL (mirra_load_gen, librdkafka; --set for the security);
#   2. consume each partition count's plaintext-produced topic over PLAINTEXT, then the same
#      topic over SASL_SSL;
#   3. mirroring: a second broker (the destination) holds two mirrors of the first, one linked to
#      its PLAINTEXT listener and one to its SASL_SSL listener; a fresh source topic per link
#      (BENCH_MIRROR_MB of 1 KiB lz4 records, 8 partitions) is added to its mirror and timed
#      until every destination partition has the source's high watermark, as bench/mirror/run.sh
#      does. Skipped, saying why, while `mirra mirror --create` refuses security.protocol=SASL_SSL.
# Every topic is deleted once measured. bench/security/report.py prints per figure the median
# over the rounds and the spread, the TLS/plaintext ratio taken within each round, CPU per GB
# user and system apart for the client and the broker(s), and the issue's goals. About a minute
# a round at the default counts on 2 cores, plus 30 s.
#
# Builds nothing. Usage: bench/security/run.sh [build dir]   (default: build)
#   The build dir must hold mirra, bench/broker/mirra_load_gen and bench/mirror/mirra_relay:
#     cmake -S . -B build -G Ninja -DMIRRA_BENCH=ON && ninja -C build mirra mirra_load_gen mirra_relay
#   MIRRA_BENCH_DIR picks the disk for the brokers' data and dd (default /var/tmp).
#   BENCH_RECORDS_1K: records per produce/consume case (default 1000000).
#   BENCH_MIRROR_MB: each mirrored topic's size in MB of record values (default 1000).
#   BENCH_ROUNDS: how many rounds (default 3).
#   BENCH_WARM_MB: memory to warm first (default: what a round writes plus dd's 2 GiB).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mirra=$build/mirra
load_gen=$build/bench/broker/mirra_load_gen
relay=$build/bench/mirror/mirra_relay
n1k=${BENCH_RECORDS_1K:-1000000}
mirror_mb=${BENCH_MIRROR_MB:-1000}
. bench/lib.sh
. bench/security/tls.sh
. bench/security/mirror_phase.sh
bench_need "$mirra" "$load_gen" "$relay" iperf3 dd python3 openssl

bench_tmp=$(mktemp -d "${MIRRA_BENCH_DIR:-/var/tmp}/mirra-security.XXXXXX")
trap 'bench_kill_all; rm -rf "$bench_tmp"' EXIT
results=$bench_tmp/results  # one key=value line per measurement, read by the report
mirror_records=$((mirror_mb * 1000000 / 1024))
failed=0
fail() { echo "run.sh: FAILED: $*" >&2; failed=1; }

# What one round writes (four produce topics, two mirrored topics on both brokers) plus dd's
# 2 GiB; each round deletes its topics, so the next one writes into the memory they leave.
bench_warm_memory "${BENCH_WARM_MB:-$(((4 * n1k * 1024) / 1000000 + 4 * mirror_mb + 2048))}"
bench_limits "$build" >>"$results"
sec_limit_cipher >>"$results"
sec_ktls_line >>"$results"
cat "$results"

sec_make_certs "$bench_tmp/tls"
password=$(openssl rand -hex 16)  # never printed: it is in the files below and the arguments
sec_broker_properties "$bench_tmp/tls" "$password" >"$bench_tmp/source.properties"
# The destination (mirror_phase.sh) keeps its mirrors' source passwords encrypted with this.
echo "password.encoder.secret=$(openssl rand -hex 16)" >"$bench_tmp/destination.properties"
listeners=PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0
bench_listeners=$listeners bench_start_broker "$mirra" source "$bench_tmp/source.properties"
source_sasl_ssl=$(bench_listener source SASL_SSL)
echo "  SASL_SSL listener on $source_sasl_ssl"

# SCRAM-SHA-512 when this build's CLI can add the user, PLAIN (the JAAS user) otherwise.
mechanism=PLAIN
if "$mirra" --help 2>&1 | grep -q '^  configs '; then
  "$mirra" configs --bootstrap-server "$source_bootstrap" --alter --entity-type users \
    --entity-name bench --add-config "SCRAM-SHA-512=[password=$password]" >/dev/null ||
    { echo "run.sh: mirra configs could not add the SCRAM user" >&2; exit 1; }
  mechanism=SCRAM-SHA-512
  echo "SASL mechanism: SCRAM-SHA-512 (user 'bench' added with mirra configs)"
else
  echo "SASL mechanism: PLAIN (the listener's JAAS user 'bench'): this build's CLI has no" \
       "'mirra configs' to add a SCRAM user"
fi
client_security=(--set security.protocol=SASL_SSL --set "sasl.mechanisms=$mechanism"
                 --set sasl.username=bench --set "sasl.password=$password"
                 --set "ssl.ca.location=$bench_tmp/tls/ca.crt")
sec_session_line "$source_sasl_ssl" "$bench_tmp/tls/ca.crt" "$mechanism" | tee -a "$results"

# A small produce over SASL_SSL before the rounds: the user must log in (a SCRAM credential is
# usable once its metadata record is applied), and a failure here says so plainly.
for i in $(seq 20); do
  timeout 30 "$load_gen" produce --bootstrap "$source_sasl_ssl" --topic bench-login-check \
    --records 100 --size 1024 --acks 1 --partitions 1 "${client_security[@]}" \
    --set message.timeout.ms=10000 >/dev/null 2>"$bench_tmp/login.err" && break
  [ "$i" = 20 ] && { echo "run.sh: cannot produce over SASL_SSL as 'bench':" >&2
                     cat "$bench_tmp/login.err" >&2; exit 1; }
  sleep 0.5
done

mirror_setup

run() {  # round, plaintext|sasl_ssl, load_gen arguments: its line with the broker's CPU
  local round=$1 protocol=$2 before line rc=0 bootstrap=$source_bootstrap
  local -a security=()
  shift 2
  if [ "$protocol" = sasl_ssl ]; then
    bootstrap=$source_sasl_ssl
    security=("${client_security[@]}")
  fi
  bench_settle
  before=$(bench_cpu "$source_pid")
  line=$("$load_gen" "$@" --bootstrap "$bootstrap" "${security[@]}") || rc=$?
  if [ -n "$line" ]; then
    echo "$line round=$round protocol=$protocol $(bench_cpu_since broker "$source_pid" "$before")" |
      tee -a "$results"
  fi
  [ "$rc" = 0 ] || fail "mirra_load_gen $* over $protocol"
}

for round in $(seq "$bench_rounds"); do
  echo "---- round $round of $bench_rounds ----"
  for p in 1 8; do
    for protocol in plaintext sasl_ssl; do
      run "$round" "$protocol" produce --topic "bench-1k-p$p-$protocol-$round" --records "$n1k" \
        --size 1024 --acks 1 --partitions "$p"
    done
  done
  # Both protocols read the same topic, so the bytes and their layout on disk are the same.
  for p in 1 8; do
    for protocol in plaintext sasl_ssl; do
      run "$round" "$protocol" consume --topic "bench-1k-p$p-plaintext-$round" --records "$n1k"
    done
  done
  for t in 1k-p1-plaintext 1k-p1-sasl_ssl 1k-p8-plaintext 1k-p8-sasl_ssl; do
    "$mirra" topics --bootstrap-server "$source_bootstrap" --delete --topic "bench-$t-$round" \
      --if-exists >/dev/null || fail "deleting bench-$t-$round"
  done
  mirror_round "$round"
done

sec_ktls_stat_line end >>"$results"
mirror_stop
bench_stop_broker "$source_pid" source || failed=1

python3 bench/security/report.py "$results" "$(nproc)" "$bench_rounds"
exit "$failed"
