"""The mirroring benchmark's report (bench/mirror/run.sh): per round and as medians over the
rounds with their spread, beside the limits. CPU per GB for every process, user and system
apart; the mirror/relay ratios taken within each round (the two copies ran back to back, so
they saw the same neighbours); the mirror over each further partition count against the first
(per round, beside the limits); the steady lag absolute and over the source's own consumer in
the same round.

Usage: report.py RESULTS NCPU ROUNDS STEADY_MB_PER_S [PARTITION_COUNTS]
  PARTITION_COUNTS: the counts the run mirrored, space-separated (default "8"); the relay
  copied the first.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_lib import (by_round, cpu, goal, limits, limits_line, med_range, median,  # noqa: E402
                        read_rows, rounds_header, spread_pct)

PROCS = ["source", "destination", "relay"]
SCALE_GOAL = 0.8  # the issue's: mirroring over many partitions at >= 0.8x the rate over few


def copy_kinds(counts):
    """(label, key, processes) per copy: the mirror per partition count, the relay (first)."""
    kinds = [(f"mirror, {n} partitions", f"mirror-{n}", ["source", "destination"])
             for n in counts]
    kinds.insert(1, (f"relay (MM2-like), {counts[0]} p.", "relay",
                     ["source", "destination", "relay"]))
    return kinds


def copy_figures(r, procs):
    """MB/s, seconds, per-process (user, sys) CPU s/GB, total CPU s/GB and cores of one copy."""
    secs = float(r["seconds"])
    gb = int(r["records"]) * 1024 / 1e9
    per = {p: tuple(x / gb for x in cpu(r, p)) for p in procs}
    total = sum(u + s for u, s in per.values())
    return {"mb": gb * 1e3 / secs, "secs": secs, "per": per, "total": total,
            "cores": total * gb / secs}


def copies(rows, kinds, counts):
    """{key: {round: figures}} for the rounds that have the copy. Rows of runs before partition
    counts existed have no `partitions`: they were 8."""
    figs = {key: {} for _, key, _ in kinds}
    for label, key, procs in kinds:
        mode = "relay" if key == "relay" else "mirror"
        want = counts[0] if key == "relay" else key.split("-", 1)[1]
        for r in by_round(rows, mode):
            if r.get("partitions", "8") == want:
                figs[key][r["round"]] = copy_figures(r, procs)
    return figs


def ratios(figs, first):
    """Per round that has both copies: (mirror/relay MB/s, relay/mirror CPU per GB)."""
    m, r = figs[f"mirror-{first}"], figs["relay"]
    both = [k for k in m if k in r]
    return ([m[k]["mb"] / r[k]["mb"] for k in both],
            [r[k]["total"] / m[k]["total"] for k in both])


def scaling(figs, first, n):
    """Per round that mirrored both counts: (MB/s over n / over first, CPU per GB likewise)."""
    a, b = figs[f"mirror-{first}"], figs[f"mirror-{n}"]
    both = [k for k in a if k in b]
    return ([b[k]["mb"] / a[k]["mb"] for k in both], [b[k]["total"] / a[k]["total"] for k in both])


def scaling_table(figs, counts, limit):
    if len(counts) < 2:
        return
    print()
    print(f"mirroring over more partitions, against {counts[0]} (each taken within a round):")
    for n in counts[1:]:
        t, c = scaling(figs, counts[0], n)
        if not t:
            print(f"  {n} partitions: no round mirrored both")
            continue
        mb = median([f["mb"] for f in figs[f"mirror-{n}"].values()])
        print(f"  {n}/{counts[0]} partitions: throughput {med_range(t, '{:.2f}', 'x')}, CPU per GB "
              f"{med_range(c, '{:.2f}', 'x')}; {n} partitions at {mb / limit['loopback']:.2f}x "
              f"loopback, {mb / limit['cache']:.2f}x page-cache write"
              + (f", {mb / limit['memcpy']:.3f}x memcpy" if "memcpy" in limit else ""))


def copy_tables(figs, limit, kinds, first):
    print(f"{'copy the topic':28s} {'seconds':>8s} {'MB/s median (min..max)':>24s} {'spread':>7s}"
          f" {'/loopback':>9s} {'/cache':>7s}")
    for label, mode, _ in kinds:
        fs = list(figs[mode].values())
        if not fs:
            print(f"{label:28s} {'failed':>8s}")
            continue
        mb = [f["mb"] for f in fs]
        m = median(mb)
        print(f"{label:28s} {median([f['secs'] for f in fs]):8.2f} {med_range(mb):>24s}"
              f" {spread_pct(mb):6.0f}% {m / limit['loopback']:8.2f}x {m / limit['cache']:6.2f}x")
    print()
    head = " ".join(f"{p + ' ' + k:>9s}" for p in ["src", "dst", "relay"] for k in ["usr", "sys"])
    print(f"{'CPU s per GB (medians)':28s} {head} {'total (min..max)':>20s} {'spread':>7s}"
          f" {'cores':>6s}")
    for label, mode, procs in kinds:
        fs = list(figs[mode].values())
        if not fs:
            continue
        cols = []
        for p in PROCS:
            for i in (0, 1):
                cols.append(f"{median([f['per'][p][i] for f in fs]):9.2f}" if p in procs
                            else f"{'-':>9s}")
        totals = [f["total"] for f in fs]
        print(f"{label:28s} {' '.join(cols)} {med_range(totals, '{:.2f}'):>20s}"
              f" {spread_pct(totals):6.0f}% {median([f['cores'] for f in fs]):6.2f}")
    t, c = ratios(figs, first)
    if t:
        print(f"mirror/relay throughput {med_range(t, '{:.2f}', 'x')}, relay/mirror CPU per GB "
              f"{med_range(c, '{:.2f}', 'x')} (each taken within a round)")
    return t, c


def lag_rounds(rows):
    """Per round with both consumers: (source row, destination row)."""
    src = {r["round"]: r for r in by_round(rows, "lag", side="source")}
    dst = {r["round"]: r for r in by_round(rows, "lag", side="destination")}
    return [(src[k], dst[k]) for k in sorted(dst, key=int) if k in src]


def lag_table(pairs, target):
    if not pairs:
        return
    d0 = pairs[0][1]
    print()
    print(f"steady lag at {target} MB/s for {d0['produce_seconds']} s, 1 KiB lz4, 8 partitions: "
          f"now - CreateTime per record, in ms")
    keys = [("p50_ms", "p50"), ("p99_ms", "p99"), ("max_ms", "max")]
    print(f"  {'consumed on':36s}"
          + "".join(f" {name + ' median (min..max)':>26s}" for _, name in keys))

    def line(label, value):
        print(f"  {label:36s}" + "".join(
            f" {med_range([value(s, d, k) for s, d in pairs]):>26s}" for k, _ in keys))

    line("the source (no mirror: the baseline)", lambda s, d, k: float(s[k]))
    line("the destination (through the mirror)", lambda s, d, k: float(d[k]))
    line("what the mirror adds (dst - src)", lambda s, d, k: float(d[k]) - float(s[k]))
    print(f"  {'dst / src':36s}" + "".join(
        f" {med_range([float(d[k]) / max(float(s[k]), 0.1) for s, d in pairs], '{:.2f}', 'x'):>26s}"
        for k, _ in keys))
    secs = [float(d["produce_seconds"]) for _, d in pairs]
    parts = []
    keys = [("source", "source"), ("destination", "destination"), ("load gen", "load")]
    for name, key in keys:
        u = median([cpu(d, key)[0] / t for (_, d), t in zip(pairs, secs)])
        s = median([cpu(d, key)[1] / t for (_, d), t in zip(pairs, secs)])
        parts.append(f"{name} {u:.2f} usr + {s:.2f} sys")
    total = [sum(sum(cpu(d, key)) for _, key in keys) / t for (_, d), t in zip(pairs, secs)]
    print("  cores while producing (medians): " + ", ".join(parts)
          + f"; all three {med_range(total, '{:.2f}')}")


def fill_rates(rows, n):
    """{round: pre-fill MB/s} of the mirrored topics of n partitions (bench-mirror-R-pN; before
    partition counts existed, bench-mirror-R of 8)."""
    return {r["round"]: float(r["mb_per_s"]) for r in by_round(rows, "produce")
            if r["topic"] in (f"bench-mirror-{r['round']}-p{n}",
                              f"bench-mirror-{r['round']}" if n == "8" else None)}


def by_round_lines(rows, figs, pairs, counts):
    print()
    print("by round, in run order (a round far from the others usually points at the machine, "
          "not at Mirra):")
    more = counts[1:]
    print(f"  {'round':>5s} {'pre-fill':>9s} {'mirror':>8s} {'relay':>8s} {'ratio':>6s}"
          f" {'mirror':>8s} {'relay':>8s} {'ratio':>6s} {'src p99':>8s} {'dst p99':>8s}"
          + "".join(f" {'mirror ' + n + ' p.':>16s}" for n in more))
    print(f"  {'':>5s} {'MB/s':>9s} {'MB/s':>8s} {'MB/s':>8s} {'':>6s}"
          f" {'cpu s/GB':>8s} {'cpu s/GB':>8s} {'':>6s} {'ms':>8s} {'ms':>8s}"
          + "".join(f" {'MB/s / ' + counts[0] + ' p.':>16s}" for n in more))
    fills = fill_rates(rows, counts[0])
    lags = {d["round"]: (float(s["p99_ms"]), float(d["p99_ms"])) for s, d in pairs}

    def num(x, fmt):
        return fmt.format(x) if x is not None else "-"

    for k in sorted(fills, key=int):
        m, r = figs[f"mirror-{counts[0]}"].get(k), figs["relay"].get(k)
        lag = lags.get(k, (None, None))
        extra = ""
        for n in more:
            b = figs[f"mirror-{n}"].get(k)
            extra += f" {num(b and b['mb'], '{:.1f}'):>8s} {num(m and b and b['mb'] / m['mb'], '{:.2f}x'):>7s}"
        print(f"  {k:>5s} {fills[k]:9.1f} {num(m and m['mb'], '{:8.1f}'):>8s}"
              f" {num(r and r['mb'], '{:8.1f}'):>8s}"
              f" {num(m and r and m['mb'] / r['mb'], '{:5.2f}x'):>6s}"
              f" {num(m and m['total'], '{:8.2f}'):>8s} {num(r and r['total'], '{:8.2f}'):>8s}"
              f" {num(m and r and r['total'] / m['total'], '{:5.2f}x'):>6s}"
              f" {num(lag[0], '{:8.1f}'):>8s} {num(lag[1], '{:8.1f}'):>8s}{extra}")


def goals(t, c, figs, counts, pairs, ncpu, target):
    print()
    print(f"goals ({ncpu} cores, brokers and clients sharing them; medians over the rounds):")
    if t:
        goal("mirror throughput >= 3x the relay's", med_range(t, "{:.2f}", "x"), median(t) >= 3,
             each_round=[x >= 3 for x in t])
        goal("mirror CPU per GB <= 1/3 of the relay's", med_range(c, "{:.2f}", "x") + " less",
             median(c) >= 3, each_round=[x >= 3 for x in c])
    for n in counts[1:]:
        s, _ = scaling(figs, counts[0], n)
        if s:
            goal(f"mirror over {n} partitions >= {SCALE_GOAL}x over {counts[0]}",
                 med_range(s, "{:.2f}", "x"), median(s) >= SCALE_GOAL,
                 each_round=[x >= SCALE_GOAL for x in s])
    if pairs:
        p99 = [float(d["p99_ms"]) for _, d in pairs]
        goal(f"p99 mirror lag < 200 ms at {target} MB/s", med_range(p99, "{:.1f}", " ms"),
             median(p99) < 200, each_round=[x < 200 for x in p99])


def sync_section(rows, figs, pairs, first):
    """The sync phase (bench/mirror/sync_phase.sh): one round's wall time per kind and CPU, and
    the data path with the groups over without them. Returns the goals' figures."""
    win = {r["phase"]: r for r in rows if r["mode"] == "sync_window"}
    one = {r["mode"]: r for r in rows if r["mode"] in ("commit_groups", "sync_arrival",
                                                       "sync_status")}
    if not win and not one:
        return None
    st = one.get("sync_status", {})
    print()
    print(f"sync phase: {st.get('groups', '?')} groups x {st.get('partitions', '?')} partitions "
          f"of committed offsets on the source")
    if "commit_groups" in one:
        c = one["commit_groups"]
        print(f"  committed on the source in {float(c['seconds']):.2f} s ({c['errors']} errors); "
              f"all on the destination {float(one['sync_arrival']['seconds']):.1f} s later"
              if "sync_arrival" in one else "")
    kinds = ["topics", "configs", "partitions", "groups"]
    durations = {k: float(st[f"sync_{k}_us"]) / 1000 for k in kinds if f"sync_{k}_us" in st}
    if durations:
        print("  last round, ms per kind: " + ", ".join(f"{k} {v:.1f}" for k, v in durations.items())
              + f"; the round {sum(durations.values()):.1f} ms")
        if "sync_groups_looked_at" in st:
            print(f"  groups looked at {st['sync_groups_looked_at']}, offsets committed in the last "
                  f"round {st.get('sync_groups_changed', '?')}")
    else:
        print("  no round durations in mirror --describe --json (no sync rows with a duration)")
    per_round = {}
    for phase in ("sync-without", "sync-with"):
        w = win.get(phase)
        if w is None or int(w["rounds"]) <= 0:
            continue
        total = sum(cpu(w, "source")) + sum(cpu(w, "destination"))
        per_round[phase] = (total, int(w["rounds"]), float(w["seconds"]))
        print(f"  {phase[5:]:7s} groups: both brokers {total:.2f} CPU s over {w['seconds']} s "
              f"and {w['rounds']} round(s): {total / int(w['rounds']):.3f} CPU s per round "
              "(idle fetch loops included)")
    share = None
    if len(per_round) == 2:
        (tw, rw, _), (to, ro, _) = per_round["sync-with"], per_round["sync-without"]
        share = tw / rw - to / ro
        print(f"  the groups' share of a round: {share:.3f} CPU s")
    data = {}
    for phase in ("sync-without", "sync-with"):
        m = [r for r in by_round(rows, "mirror") if r.get("phase") == phase]
        lag = [r for r in by_round(rows, "lag", side="destination") if r.get("phase") == phase]
        src = [r for r in by_round(rows, "lag", side="source") if r.get("phase") == phase]
        if m and lag and src:
            f = copy_figures(m[0], ["source", "destination"])
            data[phase] = (f["mb"], float(lag[0]["p99_ms"]), float(src[0]["p99_ms"]))
    if len(data) == 2:
        (mw, lw, sw), (mo, lo, so) = data["sync-with"], data["sync-without"]
        rounds_mb = [f["mb"] for f in figs[f"mirror-{first}"].values()]
        print(f"  mirror copy of {first} partitions: {mo:.1f} MB/s without groups, {mw:.1f} with "
              f"({mw / mo:.2f}x; the rounds' spread {spread_pct(rounds_mb):.0f}%)")
        print(f"  steady p99 lag on the destination: {lo:.1f} ms without, {lw:.1f} ms with "
              f"(the source's own {so:.1f} / {sw:.1f} ms)")
        data["spread"] = spread_pct(rounds_mb) if len(rounds_mb) > 1 else 10.0
    return durations, share, data


def sync_goals(sync):
    if sync is None:
        return
    durations, share, data = sync
    if durations:
        wall = sum(durations.values()) / 1000
        goal("one sync round with the groups < 1 s", f"{wall:.3f} s", wall < 1)
    if share is not None:
        goal("its CPU (the groups' share) < 0.2 s", f"{share:.3f} CPU s", share < 0.2)
    if "sync-with" in data:
        (mw, lw, sw), (mo, lo, so) = data["sync-with"], data["sync-without"]
        effect = abs(1 - mw / mo) * 100
        goal("no effect on the copy's MB/s (within the spread)", f"{effect:.0f}% vs "
             f"{data['spread']:.0f}%", effect <= data["spread"])
        added_w, added_o = lw - sw, lo - so
        goal("no effect on the p99 lag the mirror adds", f"{added_w:.1f} vs {added_o:.1f} ms",
             added_w <= max(1.2 * added_o, added_o + 5))


def main():
    all_rows = read_rows(sys.argv[1])
    # The sync phase's rows are tagged; the rounds' figures leave them out.
    rows = [r for r in all_rows if "phase" not in r]
    ncpu, rounds, target = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    counts = sys.argv[5].split() if len(sys.argv) > 5 else ["8"]
    kinds = copy_kinds(counts)
    limit = limits(rows)
    print()
    print(limits_line(limit, ncpu))
    produced = by_round(rows, "produce")
    for n in counts:
        fills = list(fill_rates(rows, n).values())
        if fills:
            size = int(produced[0]["records"]) * 1024 / 1e6
            print(f"pre-fill: {size:.0f} MB of 1 KiB records, lz4, {n} partitions, a fresh topic "
                  f"each round, at {med_range(fills)} MB/s")
    rounds_header(f"{rounds} round(s) of pre-fill, mirror (per partition count), relay, steady "
                  f"lag, in that order")
    figs = copies(rows, kinds, counts)
    t, c = copy_tables(figs, limit, kinds, counts[0])
    scaling_table(figs, counts, limit)
    pairs = lag_rounds(rows)
    lag_table(pairs, target)
    if rounds > 1:
        by_round_lines(rows, figs, pairs, counts)
    sync = sync_section(all_rows, figs, pairs, counts[0])
    goals(t, c, figs, counts, pairs, ncpu, target)
    sync_goals(sync)


if __name__ == "__main__":
    main()
