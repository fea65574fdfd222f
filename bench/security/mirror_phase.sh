# The mirroring part of bench/security/run.sh: sourced, never run. A destination broker holds
# two mirrors of the run's broker (the source): `bench-plaintext` linked to its PLAINTEXT
# listener and `bench-sasl_ssl` to its SASL_SSL listener, logged in as the run's SASL user. Each
# round, per link: a fresh 8-partition source topic of BENCH_MIRROR_MB of 1 KiB lz4 records, then
# the copy, timed as bench/mirror/run.sh times it (from just before `--add` until every
# destination partition has the source's high watermark, polled by `mirra_relay caught-up`),
# with both brokers' CPU; then the topic is failed over and deleted on both sides.
# Expects run.sh's variables: mirra, load_gen, relay, results, mirror_records, mechanism,
# password, source_bootstrap, source_sasl_ssl, source_pid, bench_tmp.

mirror_enabled=0

mirror_cli() { "$mirra" mirror --bootstrap-server "$destination_bootstrap" "$@"; }

# Starts the destination and creates both mirrors; while `mirra mirror --create` refuses
# security.protocol=SASL_SSL (a build before the mirror's secure links to the source), skips
# the mirroring part and says so.
mirror_setup() {
  local err=$bench_tmp/mirror-create.err
  bench_start_broker "$mirra" destination "$bench_tmp/destination.properties"
  echo "bootstrap.servers=$source_bootstrap" >"$bench_tmp/mirror-plaintext.properties"
  cat >"$bench_tmp/mirror-sasl_ssl.properties" <<EOF
bootstrap.servers=$source_sasl_ssl
security.protocol=SASL_SSL
sasl.mechanism=$mechanism
sasl.username=bench
sasl.password=$password
ssl.truststore.location=$bench_tmp/tls/ca.crt
EOF
  if ! mirror_cli --create --mirror bench-sasl_ssl \
         --mirror-config "$bench_tmp/mirror-sasl_ssl.properties" >/dev/null 2>"$err"; then
    if grep -q 'security.protocol=SASL_SSL is not supported' "$err"; then
      echo "mirroring SKIPPED: this build's 'mirra mirror --create' refuses" \
           "security.protocol=SASL_SSL (no secure link to a source yet):"
    else
      fail "mirra mirror --create with security.protocol=SASL_SSL"
      echo "mirroring not measured: 'mirra mirror --create' of the SASL_SSL mirror failed:"
    fi
    sed 's/^/  /' "$err"
    echo "mode=mirror_skipped" >>"$results"
    mirror_stop
    return 0
  fi
  mirror_cli --create --mirror bench-plaintext \
    --mirror-config "$bench_tmp/mirror-plaintext.properties" >/dev/null
  mirror_enabled=1
  echo "mirrors bench-plaintext (to $source_bootstrap) and bench-sasl_ssl (to $source_sasl_ssl," \
       "SASL_SSL, $mechanism) on the destination"
  # As bench/mirror/run.sh's bench-prime: each link's connections, TLS session and login exist
  # before round 1, as they do on a long-running mirror. The topics stay mirrored, idle.
  local protocol
  for protocol in plaintext sasl_ssl; do
    "$load_gen" produce --bootstrap "$source_bootstrap" --topic "bench-prime-$protocol" \
      --records 1000 --size 1024 --acks 1 --partitions 8 --compression lz4 >/dev/null
    mirror_cli --add --mirror "bench-$protocol" --topic "bench-prime-$protocol" >/dev/null
    "$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
      --topic "bench-prime-$protocol" >/dev/null ||
      fail "the $protocol mirror did not catch up with bench-prime-$protocol"
  done
}

mirror_stop() {
  [ -n "${destination_pid:-}" ] || return 0
  bench_stop_broker "$destination_pid" destination || failed=1
  destination_pid=
}

both_cpu() { echo "$(bench_cpu "$source_pid")/$(bench_cpu "$destination_pid")"; }
both_cpu_since() {  # both_cpu's output: the brokers' CPU since, as key=value pairs
  echo "$(bench_cpu_since source "$source_pid" "${1%/*}")" \
       "$(bench_cpu_since destination "$destination_pid" "${1#*/}")"
}

mirror_round() {  # round
  [ "$mirror_enabled" = 1 ] || return 0
  local protocol
  for protocol in plaintext sasl_ssl; do
    mirror_prefill "$1" "$protocol"
    mirror_copy "$1" "$protocol"
    mirror_drop "bench-mirror-$protocol-$1" "bench-$protocol"
  done
}

mirror_prefill() {  # round, protocol
  local line
  echo "pre-filling bench-mirror-$2-$1: $mirror_records records of 1 KiB, lz4, 8 partitions"
  bench_settle
  line=$("$load_gen" produce --bootstrap "$source_bootstrap" --topic "bench-mirror-$2-$1" \
           --records "$mirror_records" --size 1024 --acks 1 --partitions 8 --compression lz4) ||
    { echo "run.sh: the pre-fill failed" >&2; exit 1; }
  echo "$line round=$1 phase=prefill link=$2" | tee -a "$results"
}

mirror_copy() {  # round, protocol
  local topic=bench-mirror-$2-$1 cpu0 t0 caught_up=0 secs cpu
  bench_settle
  cpu0=$(both_cpu)
  t0=$(bench_now)
  mirror_cli --add --mirror "bench-$2" --topic "$topic" >/dev/null
  "$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
    --topic "$topic" >/dev/null && caught_up=1
  secs=$(bench_sub "$t0" "$(bench_now)")
  cpu=$(both_cpu_since "$cpu0")
  if [ "$caught_up" = 1 ]; then
    echo "mode=mirror round=$1 protocol=$2 partitions=8 records=$mirror_records seconds=$secs" \
         "$cpu" | tee -a "$results"
  else
    fail "the $2 mirror did not catch up with $topic"
  fi
  mirror_described "bench-$2" "$topic" || fail "mirror --describe does not show $topic at lag 0"
}

# The mirror's own view, after the measured interval: every partition MIRRORING with lag 0
# (the state change can become durable after the data, so this asks for up to 60 s).
mirror_described() {  # mirror, topic
  local i
  for i in $(seq 300); do
    mirror_cli --describe --mirror "$1" --json >"$bench_tmp/describe.json"
    python3 - "$bench_tmp/describe.json" "$2" <<'PY' && return 0
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))
        if r.get("topic") == sys.argv[2] and r.get("type", "partition") == "partition"]
ok = len(rows) == 8 and all(r["state"] == "MIRRORING" and r["lag"] == 0 for r in rows)
sys.exit(0 if ok else 1)
PY
    sleep 0.2
  done
  return 1
}

# Fails the topic over (a mirrored topic cannot be deleted) and deletes it on both sides, so the
# next copy writes into the memory it held.
mirror_drop() {  # topic, mirror
  mirror_cli --remove --mirror "$2" --topic "$1" >/dev/null || fail "failing over $1"
  "$mirra" topics --bootstrap-server "$destination_bootstrap" --delete --topic "$1" \
    --if-exists >/dev/null || fail "deleting $1 on the destination"
  "$mirra" topics --bootstrap-server "$source_bootstrap" --delete --topic "$1" \
    --if-exists >/dev/null || fail "deleting $1 on the source"
}
