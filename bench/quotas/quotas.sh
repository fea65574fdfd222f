# The quota pieces of bench/quotas/run.sh: sourced, never run. Setting, checking and deleting
# the client quotas of the "on" phase with `mirra configs` (docs/quotas.md), and the throttle
# probe around bench/quotas/throttle_probe.py. Expects $configs (the `mirra configs
# --bootstrap-server ...` command as an array), $mirra, $broker_bootstrap, $bench_tmp and
# $probe_python (a python3 with confluent_kafka).

# Far from reached: 100 GB/s each way (a thousand times what loopback carries here) and a
# thousand threads' worth of request time. The default-user quota makes the lookup walk
# Kafka's order: producer_byte_rate resolves at the default user (level 6), which outranks the
# client id (level 7), where consumer_byte_rate and request_percentage resolve.
quotas_rate=100000000000
quotas_client_config="producer_byte_rate=$quotas_rate,consumer_byte_rate=$quotas_rate"
quotas_client_config+=",request_percentage=100000"
quotas_user_config="producer_byte_rate=$quotas_rate"
# As `mirra configs --describe` prints them (Java's Double.toString, keys sorted).
quotas_client_shown="Quota configs for client-id 'bench' are consumer_byte_rate=1.0E11,"
quotas_client_shown+=" producer_byte_rate=1.0E11, request_percentage=100000.0"
quotas_user_shown="Quota configs for the default user-principal are producer_byte_rate=1.0E11"

quotas_describe() {  # configs --describe arguments: the "Quota configs for ..." lines
  "${configs[@]}" --describe "$@" 2>&1 | grep '^Quota configs for' || true
}

# Polls for up to 10 s, as an altered quota is in force once its metadata record is applied.
quotas_wait() {  # what, a command that succeeds once it holds
  local what=$1
  shift
  for _ in $(seq 100); do
    "$@" && return 0
    sleep 0.1
  done
  echo "run.sh: FAILED: $what" >&2
  return 1
}

quotas_shows() {  # expected line, describe arguments: whether describe prints exactly that line
  local want=$1
  shift
  [ "$(quotas_describe "$@")" = "$want" ]
}

quotas_set() {
  "${configs[@]}" --alter --entity-type clients --entity-name bench \
    --add-config "$quotas_client_config" >/dev/null || return 1
  "${configs[@]}" --alter --entity-type users --entity-default \
    --add-config "$quotas_user_config" >/dev/null || return 1
  quotas_wait "describe does not show the quotas of client id 'bench'" \
    quotas_shows "$quotas_client_shown" --entity-type clients --entity-name bench || return 1
  quotas_wait "describe does not show the default user's quota" \
    quotas_shows "$quotas_user_shown" --entity-type users --entity-default || return 1
  echo "  $quotas_client_shown"
  echo "  $quotas_user_shown"
}

quotas_delete() {
  "${configs[@]}" --alter --entity-type clients --entity-name bench \
    --delete-config producer_byte_rate,consumer_byte_rate,request_percentage >/dev/null ||
    return 1
  "${configs[@]}" --alter --entity-type users --entity-default \
    --delete-config producer_byte_rate >/dev/null || return 1
  quotas_require_none
}

# Every quota on any entity (users, client ids, both); none means the broker measures nothing.
quotas_all() {
  quotas_describe --entity-type users
  quotas_describe --entity-type clients
  quotas_describe --entity-type users --entity-type clients
}
quotas_none() {
  [ -z "$(quotas_all)" ]
}
quotas_require_none() {
  quotas_wait "client quotas are left over: $(quotas_all | tr '\n' ';')" quotas_none
}

# A client that reports throttle times (librdkafka's throttle_cb, through confluent-kafka):
# produces and consumes RECORDS records of 1 KiB on a fresh 1-partition topic as CLIENT_ID.
# Prints one "mode=probe ..." line with the extra fields appended.
quotas_probe() {  # client id, records, topic, extra fields, [control]
  local client=$1 records=$2 topic=$3 extra=$4 line
  "$mirra" topics --bootstrap-server "$broker_bootstrap" --create --topic "$topic" \
    --partitions 1 >/dev/null || return 1
  line=$("$probe_python" bench/quotas/throttle_probe.py "$broker_bootstrap" "$topic" \
    "$records" "$client" ${5:+"$5"}) ||
    { echo "run.sh: FAILED: the throttle probe as '$client'" >&2; return 1; }
  "$mirra" topics --bootstrap-server "$broker_bootstrap" --delete --topic "$topic" \
    --if-exists >/dev/null || return 1
  echo "$line $extra"
}

# The probe must see throttling where there is some: 100 kB/s each way for client id
# bench-control, and 1,200 records of 1 KiB, a little over what ten 1 s windows allow, so the
# throttle is a second or two. Set while no other quota exists (the default-user quota of the
# "on" phase would outrank a client-id quota), and deleted again.
quotas_control_probe() {
  local control="producer_byte_rate=100000,consumer_byte_rate=100000"
  local shown="Quota configs for client-id 'bench-control' are consumer_byte_rate=100000.0,"
  shown+=" producer_byte_rate=100000.0"
  "${configs[@]}" --alter --entity-type clients --entity-name bench-control \
    --add-config "$control" >/dev/null || return 1
  quotas_wait "describe does not show the control quota" \
    quotas_shows "$shown" --entity-type clients --entity-name bench-control || return 1
  quotas_probe bench-control 1200 bench-probe-control "phase=control" control || return 1
  "${configs[@]}" --alter --entity-type clients --entity-name bench-control \
    --delete-config producer_byte_rate,consumer_byte_rate >/dev/null || return 1
  quotas_require_none >&2
}
