# Shell pieces shared by the benchmark scripts (bench/broker/run.sh, bench/mirror/run.sh,
# bench/security/run.sh): sourced, never run. The machine's limits, brokers on loopback with
# temporary data, CPU (user and system apart) read from /proc, and the round count. The reports
# they print are bench/report_lib.py's. Expects `set -euo pipefail`, the checkout as the working
# directory, and $bench_tmp (a temporary directory the caller removes) set before bench_limits
# or bench_start_broker.

bench_pids=()  # every process started here, killed by bench_kill_all

bench_need() {  # executables (paths or commands on PATH) that must exist
  local f
  for f in "$@"; do
    if [[ $f == */* ]]; then
      [ -x "$f" ] || { echo "$0: $f not found; build it first (see the usage at the top of $0)" >&2; exit 1; }
    else
      command -v "$f" >/dev/null || { echo "$0: $f not installed (scripts/install-deps.sh)" >&2; exit 1; }
    fi
  done
}

# For the caller's EXIT trap: SIGTERM to whatever is still running, then up to 10 s for it to
# exit, so that removing the temporary directory does not race a broker's last writes.
bench_kill_all() {
  local pid
  for pid in "${bench_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${bench_pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}

bench_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- machine limits: one "mode=limit name=N mb_per_s=R" line each on stdout ----

bench_limit_loopback() {  # iperf3 TCP between two processes over loopback, 5 s
  local port pid ok=
  port=$(bench_free_port)
  # A server for any number of tests (not -s -1): a client attempt that fails half-way, e.g.
  # while the server starts, must not use up the only test.
  iperf3 -s -B 127.0.0.1 -p "$port" >/dev/null 2>&1 &
  pid=$!
  bench_pids+=("$pid")
  # Until one test completes (iperf3 -J can exit 0 with an error in its JSON); a client stuck
  # on the server gives up.
  for _ in $(seq 50); do
    if timeout 20 iperf3 -c 127.0.0.1 -p "$port" -t 5 -J >"$bench_tmp/iperf.json" 2>/dev/null &&
       ok=$(python3 - "$bench_tmp/iperf.json" 2>/dev/null <<'PY'
import json, sys
bps = json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]
print(f"mode=limit name=loopback mb_per_s={bps / 8 / 1e6:.1f}")
PY
       ); then
      break
    fi
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -n "$ok" ] || { echo "$0: iperf3 over loopback failed: $(head -c 300 "$bench_tmp/iperf.json")" >&2; exit 1; }
  echo "$ok"
}

# dd prints "... copied, 1.23 s, 456 MB/s" on stderr; keep bytes / seconds. Removing the
# unsynced file drops its dirty pages, so no writeback is left to disturb what follows.
bench_limit_dd() {  # name, dd arguments; 1 GiB of zeros into $bench_tmp
  local name=$1; shift
  dd if=/dev/zero of="$bench_tmp/dd" bs=1M count=1024 "$@" 2>&1 >/dev/null |
    awk -v name="$name" '/copied/ { for (i = 1; i <= NF; i++) { if ($i == "bytes") b = $1; if ($i == "s,") s = $(i-1) }
                                    printf "mode=limit name=%s mb_per_s=%.1f\n", name, b / s / 1e6 }'
  rm -f "$bench_tmp/dd"
}

# memcpy of 1 MiB buffers (codec_bench's BM_Memcpy1MiB), when the build has the micro-benchmarks.
bench_limit_memcpy() {  # build dir
  local codec_bench=$1/bench/protocol/codec_bench
  [ -x "$codec_bench" ] || return 0
  "$codec_bench" --benchmark_filter='^BM_Memcpy1MiB$' --benchmark_min_time=0.5 \
    --benchmark_format=json 2>/dev/null |
    python3 -c 'import json, sys
b = json.load(sys.stdin)["benchmarks"][0]
print("mode=limit name=memcpy mb_per_s=%.1f" % (b["bytes_per_second"] / 1e6))' || true
}

# Some virtual machines (Firecracker here) back guest memory lazily: the first write to a page
# the guest never used costs the host a fault, and a page-cache write into such memory runs at a
# fifth of the speed of one into memory used before (measured: dd 0.75 GB/s, then 3.7 GB/s).
# Which phase of a run gets fresh memory would then decide its figure. Writing and deleting MB
# megabytes first leaves that much touched memory free, which the kernel hands out first, so
# every phase (and the limits) writes into memory used before, as on a long-running broker.
bench_warm_memory() {  # MB
  echo "warming $1 MB of memory (write and delete a file) so every phase writes into used memory"
  dd if=/dev/zero of="$bench_tmp/warm" bs=1M count="$1" 2>/dev/null
  rm -f "$bench_tmp/warm"
}

# Writes back what earlier phases left dirty, so no phase pays for another's writeback.
bench_settle() {
  sync
}

# Every limit, measured before any broker starts so that nothing competes with them.
bench_limits() {  # build dir
  bench_limit_loopback
  bench_limit_dd cache
  bench_limit_dd disk conv=fdatasync
  bench_limit_memcpy "$1"
}

# ---- brokers ----

# Starts `mirra server` on a free loopback port with its data in $bench_tmp/NAME and its log in
# $bench_tmp/NAME.log; sets NAME_pid and NAME_bootstrap (the PLAINTEXT listener's host:port).
# Extra arguments go to the server. bench_listeners, when set (e.g. for the call only:
# `bench_listeners=PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0 bench_start_broker ...`), is
# the `listeners` value instead of one PLAINTEXT listener; it must include a PLAINTEXT one, and
# bench_listener gives the others' addresses. Returns once every listener has logged its port.
bench_start_broker() {  # mirra binary, name, [server arguments...]
  local mirra=$1 name=$2; shift 2
  local log=$bench_tmp/$name.log pid bootstrap= want listening=0
  local listeners=${bench_listeners:-PLAINTEXT://127.0.0.1:0}
  want=$(tr ',' '\n' <<<"$listeners" | grep -c .)
  "$mirra" server --override log.dirs="$bench_tmp/$name" \
    --override listeners="$listeners" "$@" >"$log" 2>&1 &
  pid=$!
  bench_pids+=("$pid")
  for _ in $(seq 100); do
    # The log may not exist yet: the background shell creates it when it gets to run.
    listening=$(grep -c 'listening on [A-Za-z0-9_]*://' "$log" 2>/dev/null) || true
    [ "${listening:-0}" -ge "$want" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ "${listening:-0}" -ge "$want" ] && bootstrap=$(bench_listener_in "$log" PLAINTEXT)
  if [ -z "$bootstrap" ]; then
    echo "$0: the $name broker did not start (or has no PLAINTEXT listener); its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  printf -v "${name}_pid" %s "$pid"
  printf -v "${name}_bootstrap" %s "$bootstrap"
  echo "mirra server '$name' on $bootstrap (data in $bench_tmp/$name)"
}

# The host:port a started broker's listener bound (its "listening on NAME://" log line).
bench_listener() {  # broker name, listener name (e.g. SASL_SSL)
  bench_listener_in "$bench_tmp/$1.log" "$2"
}
bench_listener_in() {  # log, listener name
  sed -n "s|.*listening on $2://||p" "$1" 2>/dev/null | head -1
}

# SIGTERM, then waits up to 30 s (a clean stop takes well under a second). Returns 1 and shows
# the log's end if the broker had to be killed or exited non-zero; lists its warnings and errors.
bench_stop_broker() {  # pid, name
  local pid=$1 name=$2 log=$bench_tmp/$2.log rc=0
  kill -TERM "$pid"
  for _ in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$0: the $name broker did not stop within 30 s of SIGTERM; killing it" >&2
    kill -KILL "$pid"
  fi
  wait "$pid" || rc=$?
  if [ "$rc" != 0 ]; then
    echo "$0: the $name broker exited with $rc after SIGTERM; its log ends:" >&2
    tail -20 "$log" >&2
  fi
  if grep -q ' WARN \| ERROR ' "$log"; then
    echo "$name broker warnings/errors during the run:"
    grep ' WARN \| ERROR ' "$log" | head -10
  fi
  [ "$rc" = 0 ]
}

# ---- CPU ----

# User and system CPU apart: on a VM that backs memory lazily or a machine shared with builds,
# the system part (page faults, copies through sockets and the page cache) is the one that moves.
bench_ticks=$(getconf CLK_TCK)
bench_cpu() {  # pid: "user system" CPU seconds so far (fields 14 and 15 of /proc/PID/stat)
  awk -v t="$bench_ticks" '{ printf "%.2f %.2f", $14 / t, $15 / t }' "/proc/$1/stat"
}
bench_cpu_since() {  # name, pid, "user system" from bench_cpu: NAME_user_s=U NAME_sys_s=S since
  awk -v t="$bench_ticks" -v n="$1" -v b="$3" '{
    split(b, x, " ")
    printf "%s_user_s=%.2f %s_sys_s=%.2f", n, $14 / t - x[1], n, $15 / t - x[2] }' "/proc/$2/stat"
}
bench_sub() {  # a b: b - a, two decimals
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}
bench_now() {  # wall-clock seconds with nanoseconds, for intervals
  date +%s.%N
}

# ---- rounds ----

# Every compared figure is taken BENCH_ROUNDS times, the phases alternating (A B A B A B), and
# the report gives the median and the spread: on a shared machine one phase can lose a whole
# run to a neighbour's burst, and a single A-then-B pair cannot tell that from a real difference.
bench_rounds=${BENCH_ROUNDS:-3}
[[ $bench_rounds =~ ^[1-9][0-9]*$ ]] ||
  { echo "$0: BENCH_ROUNDS must be a positive integer, not '$bench_rounds'" >&2; exit 1; }
