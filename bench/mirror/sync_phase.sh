# The sync phase of bench/mirror/run.sh (issue 16's benchmark of the sync tasks): sourced by
# run.sh after its rounds, using its functions and variables; never run alone.
#
# BENCH_SYNC_GROUPS consumer groups (default 1000) commit offsets for every partition of a
# mirrored source topic `bench-groups` of BENCH_SYNC_PARTITIONS partitions (default 20), by
# bench/mirror/commit_groups.py (OffsetCommit with generation -1: no member joins). The
# destination runs a sync round every BENCH_SYNC_INTERVAL_MS (its
# mirror.metadata.refresh.interval.ms, for the whole run). Measured, in this order:
#   1. without groups: the CPU of both brokers over a window of BENCH_SYNC_WINDOW_S seconds
#      (default three intervals) and the sync rounds run in it; an 8-partition mirror copy of
#      the pre-filled size; the steady lag phase (all tagged phase=sync-without);
#   2. the groups committed on the source, then the time until all of them are on the
#      destination (`mirra groups --list`);
#   3. with groups: the same window, copy and steady phase (phase=sync-with), and the sync rows
#      of `mirra mirror --describe --json` (each kind's last round duration, groups looked at,
#      offsets committed).
# The report takes one round's CPU as the with-groups window's over the rounds in it, and the
# groups' share as that minus the without-groups window's; the data path with over without.
# A build without the sync loop (no sync rows in describe) skips the phase and says so.

sync_groups=${BENCH_SYNC_GROUPS:-1000}
sync_partitions=${BENCH_SYNC_PARTITIONS:-20}
sync_window_s=${BENCH_SYNC_WINDOW_S:-$((3 * sync_interval_ms / 1000))}

sync_describe() {  # sync_status.py arguments
  mirror_cli --describe --mirror bench --json >"$bench_tmp/sync.json" &&
    python3 bench/mirror/sync_status.py "$bench_tmp/sync.json" "$@"
}

# The CPU of both brokers over the window and the groups kind's rounds in it, as a result line.
sync_window() {  # phase tag
  local cpu0 runs0 runs1
  bench_settle
  runs0=$(sync_describe runs groups)
  cpu0=$(both_cpu)
  sleep "$sync_window_s"
  local cpu=$(cpu_since "$cpu0")
  runs1=$(sync_describe runs groups)
  echo "mode=sync_window phase=sync-$1 seconds=$sync_window_s rounds=$((runs1 - runs0)) $cpu" |
    tee -a "$results"
}

dst_groups() {  # how many bench groups the destination has
  "$mirra" groups --bootstrap-server "$destination_bootstrap" --list 2>/dev/null |
    grep -c '^bench-group-' || true
}

sync_data_path() {  # round, phase tag: a mirror copy of 8 partitions and the steady phase
  phase_tag=$2
  phase_field=phase=sync-$2
  prefill "$1" 8
  mirror_copy "$1" 8
  drop_topics "bench-mirror-$1-p8"
  steady_lag "$1"
  drop_topics "bench-steady-$1-$2"
  phase_tag=
  phase_field=
}

sync_phase() {
  local r=$((bench_rounds + 1)) line t0 n=0 deadline
  echo "---- sync phase: $sync_groups groups x $sync_partitions partitions, a round every" \
       "$sync_interval_ms ms ----"
  "$load_gen" produce --bootstrap "$source_bootstrap" --topic bench-groups \
    --records $((sync_partitions * 100)) --size 1024 --acks 1 --partitions "$sync_partitions" \
    --compression lz4 >/dev/null || { fail "producing bench-groups"; return; }
  mirror_cli --add --mirror bench --topic bench-groups >/dev/null
  "$relay" caught-up --source "$source_bootstrap" --destination "$destination_bootstrap" \
    --topic bench-groups >/dev/null || { fail "the mirror did not catch up with bench-groups"; return; }
  if [ "$(sync_describe runs groups)" = -1 ]; then
    echo "sync phase skipped: mirror --describe --json shows no sync rows (no sync loop in this build)"
    return
  fi
  sync_window without
  sync_data_path "$r" without

  line=$(/usr/bin/python3 bench/mirror/commit_groups.py "$source_bootstrap" bench-groups \
           "$sync_partitions" "$sync_groups" 99) || fail "committing the groups' offsets"
  echo "$line" | tee -a "$results"
  t0=$(bench_now)
  deadline=$((SECONDS + 3 * sync_interval_ms / 1000 + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    n=$(dst_groups)
    [ "$n" -ge "$sync_groups" ] && break
    sleep 0.2
  done
  echo "mode=sync_arrival groups=$n seconds=$(bench_sub "$t0" "$(bench_now)")" | tee -a "$results"
  [ "$n" -ge "$sync_groups" ] || fail "only $n of $sync_groups groups reached the destination"
  sync_window with
  echo "mode=sync_status groups=$sync_groups partitions=$sync_partitions $(sync_describe line)" |
    tee -a "$results"
  sync_data_path "$((r + 1))" with
}
