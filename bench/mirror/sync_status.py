"""The sync loop's status as `mirra mirror --describe --json` shows it (rows of type "sync", one
per kind: topics, configs, partitions, groups), for bench/mirror/sync_phase.sh.

Usage: sync_status.py DESCRIBE_JSON runs KIND   the rounds KIND has run (-1: no sync rows)
       sync_status.py DESCRIBE_JSON line        key=value per kind: sync_KIND_us (the last
                                                round's duration), sync_KIND_runs,
                                                sync_KIND_looked_at, sync_KIND_changed
The field names are matched loosely (a key with "duration" in it, "runs", one with "looked"),
so that a renamed field shows as missing rather than breaking the benchmark.
"""

import json
import sys


def sync_rows(path):
    with open(path) as f:
        rows = json.load(f)
    if isinstance(rows, dict):  # {"partitions": [...], "sync": [...]} or the like
        rows = [r for v in rows.values() if isinstance(v, list) for r in v]
    return [r for r in rows if isinstance(r, dict) and str(r.get("type", "")).lower() == "sync"]


def field(row, *needles):
    for k, v in row.items():
        if any(n in k.lower() for n in needles) and isinstance(v, (int, float)):
            return v
    return None


def kind_of(row):
    return str(row.get("kind") or row.get("syncKind") or row.get("name") or "?").lower()


def main():
    rows = sync_rows(sys.argv[1])
    if sys.argv[2] == "runs":
        found = [r for r in rows if kind_of(r) == sys.argv[3]]
        print(int(field(found[0], "runs") or 0) if found else -1)
        return
    out = []
    for r in rows:
        k = kind_of(r)
        for name, needles in (("us", ("duration",)), ("runs", ("runs",)),
                              ("looked_at", ("looked",)), ("changed", ("changed",))):
            v = field(r, *needles)
            if v is not None:
                out.append(f"sync_{k}_{name}={v}")
    print(" ".join(out))


if __name__ == "__main__":
    main()
