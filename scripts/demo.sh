#!/usr/bin/env bash
# Mirra's main job as a demo: two local brokers, a source and a destination, a topic written on
# the source and mirrored into the destination at the same offsets, the describe table until the
# lag is 0, then a failover that makes the destination's copy writable. The destination's web
# console shows it all as it happens; at the end, when run from a terminal (or with
# MIRRA_DEMO_HOLD set), the brokers keep running for the console until Enter or Ctrl-C.
# Uses $MIRRA_BIN (default build/mirra, which scripts/run.sh builds) and a fresh ./demo-data.
set -euo pipefail
cd "$(dirname "$0")/.."
mirra=${MIRRA_BIN:-build/mirra}
dir=${MIRRA_DEMO_DIR:-demo-data}
rm -rf "$dir"
mkdir -p "$dir"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# Started here, not inside $(...): a subshell's pids+=() would never reach cleanup, and the
# brokers would outlive the demo.
start_broker() {  # name
  local name=$1
  "$mirra" server --override "log.dirs=$dir/$name" --override listeners=PLAINTEXT://127.0.0.1:0 \
    --override http.listeners=http://127.0.0.1:0 \
    --override mirror.state.topic.num.partitions=3 >"$dir/$name.log" 2>&1 &
  pids+=($!)
}

address_of() {  # name [what the start-up line says before the address] -> prints host:port
  local name=$1 line=${2:-listening on PLAINTEXT://}
  for _ in $(seq 100); do
    local addr
    addr=$(sed -n "s|.*$line||p" "$dir/$name.log" | head -1)
    if [ -n "$addr" ]; then echo "$addr"; return; fi
    sleep 0.1  # polling the log for the start-up line, bounded to 10 s
  done
  echo "demo: the $name broker did not start; its log:" >&2
  cat "$dir/$name.log" >&2
  exit 1
}

start_broker source
start_broker destination
src=$(address_of source)
dst=$(address_of destination)
echo "source broker on $src, destination broker on $dst (logs in $dir/)"
console="http://$(address_of destination 'listening for HTTP on http://')"
metrics="$console/metrics"
echo "the destination's web console: $console/ (open it in a browser to watch the mirror)"
echo "the destination's metrics, for Prometheus (docs/observability.md): $metrics"

"$mirra" topics --bootstrap-server "$src" --create --topic orders --partitions 3
seq 1 30000 | sed 's/^/order-/' | "$mirra" produce --bootstrap-server "$src" --topic orders
echo "produced 30000 records to orders on the source"

printf 'bootstrap.servers=%s\n' "$src" >"$dir/mirror.properties"
"$mirra" mirror --bootstrap-server "$dst" --create --mirror demo --mirror-config "$dir/mirror.properties"
"$mirra" mirror --bootstrap-server "$dst" --add --mirror demo --topic orders
seq 30001 40000 | sed 's/^/order-/' | "$mirra" produce --bootstrap-server "$src" --topic orders
echo "produced 10000 more while mirroring"

caught_up=
for _ in $(seq 120); do
  table=$("$mirra" mirror --bootstrap-server "$dst" --describe --mirror demo)
  echo "$table"
  echo
  # Caught up: every partition MIRRORING with lag 0 and all 40000 records on the destination
  # (columns: MIRROR TOPIC PARTITION STATE SOURCE-HW DEST-LEO LAG ...; the partition table ends
  # at the first empty line, before the sync table).
  if echo "$table" | awk 'NR > 1 && !done && NF == 0 { done = 1 }
                          NR > 1 && !done { n++; leo += $6; if ($4 != "MIRRORING" || $7 != "0") bad = 1 }
                          END { exit (bad || n != 3 || leo != 40000) }'; then
    caught_up=1
    break
  fi
  sleep 0.5  # the demo shows the table twice a second until the lag is 0 (bounded to 60 s)
done
if [ -z "$caught_up" ]; then
  echo "demo: the mirror did not catch up within 60 s; destination log:" >&2
  tail -20 "$dir/destination.log" >&2
  exit 1
fi
echo "lag 0: the destination holds every record at the source's offsets"
echo "what Prometheus scrapes of the mirror now ($metrics):"
python3 -c 'import sys, urllib.request
for line in urllib.request.urlopen(sys.argv[1], timeout=10).read().decode().splitlines():
    if line.startswith(("mirra_mirror_partitions", "mirra_mirror_partition_lag",
                        "mirra_mirror_failover_loss")):
        print("  " + line)' "$metrics"

if echo "x" | "$mirra" produce --bootstrap-server "$dst" --topic orders 2>"$dir/refused.txt"; then
  echo "demo: the mirror topic accepted a write" >&2
  exit 1
fi
echo "writing to the mirror topic is refused: $(cat "$dir/refused.txt")"

"$mirra" mirror --bootstrap-server "$dst" --remove --mirror demo --topic orders
"$mirra" mirror --bootstrap-server "$dst" --describe --mirror demo
echo "after-failover" | "$mirra" produce --bootstrap-server "$dst" --topic orders --partition 0
count=$("$mirra" consume --bootstrap-server "$dst" --topic orders --from-beginning \
          --max-messages 40001 --timeout-ms 10000 2>/dev/null | wc -l)
echo "the destination's orders now holds $count records (40000 mirrored + 1 written after the failover)"
[ "$count" -eq 40001 ]
echo "demo finished"
if [ -t 0 ] || [ -n "${MIRRA_DEMO_HOLD:-}" ]; then
  echo "the brokers keep running for the web console at $console/: press Enter or Ctrl-C to stop"
  read -r _ || true
fi
