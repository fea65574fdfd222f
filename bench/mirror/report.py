"""The mirroring benchmark's report (bench/mirror/run.sh): per round and as medians over the
rounds with their spread, beside the limits. CPU per GB for every process, user and system
apart; the mirror/relay ratios taken within each round (the two copies ran back to back, so
they saw the same neighbours); the steady lag absolute and over the source's own consumer in
the same round.

Usage: report.py RESULTS NCPU ROUNDS STEADY_MB_PER_S
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_lib import (by_round, cpu, goal, limits, limits_line, med_range, median,  # noqa: E402
                        read_rows, rounds_header, spread_pct)

COPIES = [("mirror (mirra mirror)", "mirror", ["source", "destination"]),
          ("relay (MM2-like, librdkafka)", "relay", ["source", "destination", "relay"])]
PROCS = ["source", "destination", "relay"]


def copy_figures(r, procs):
    """MB/s, seconds, per-process (user, sys) CPU s/GB, total CPU s/GB and cores of one copy."""
    secs = float(r["seconds"])
    gb = int(r["records"]) * 1024 / 1e9
    per = {p: tuple(x / gb for x in cpu(r, p)) for p in procs}
    total = sum(u + s for u, s in per.values())
    return {"mb": gb * 1e3 / secs, "secs": secs, "per": per, "total": total,
            "cores": total * gb / secs}


def copies(rows):
    """{mode: {round: figures}} for the rounds that have the copy."""
    return {mode: {r["round"]: copy_figures(r, procs) for r in by_round(rows, mode)}
            for _, mode, procs in COPIES}


def ratios(figs):
    """Per round that has both copies: (mirror/relay MB/s, relay/mirror CPU per GB)."""
    m, r = figs["mirror"], figs["relay"]
    both = [k for k in m if k in r]
    return ([m[k]["mb"] / r[k]["mb"] for k in both],
            [r[k]["total"] / m[k]["total"] for k in both])


def copy_tables(figs, limit):
    print(f"{'copy the topic':28s} {'seconds':>8s} {'MB/s median (min..max)':>24s} {'spread':>7s}"
          f" {'/loopback':>9s} {'/cache':>7s}")
    for label, mode, _ in COPIES:
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
    for label, mode, procs in COPIES:
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
    t, c = ratios(figs)
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


def by_round_lines(rows, figs, pairs):
    print()
    print("by round, in run order (a round far from the others usually points at the machine, "
          "not at Mirra):")
    print(f"  {'round':>5s} {'pre-fill':>9s} {'mirror':>8s} {'relay':>8s} {'ratio':>6s}"
          f" {'mirror':>8s} {'relay':>8s} {'ratio':>6s} {'src p99':>8s} {'dst p99':>8s}")
    print(f"  {'':>5s} {'MB/s':>9s} {'MB/s':>8s} {'MB/s':>8s} {'':>6s}"
          f" {'cpu s/GB':>8s} {'cpu s/GB':>8s} {'':>6s} {'ms':>8s} {'ms':>8s}")
    fills = {r["round"]: float(r["mb_per_s"]) for r in by_round(rows, "produce")
             if r["topic"] == f"bench-mirror-{r['round']}"}
    lags = {d["round"]: (float(s["p99_ms"]), float(d["p99_ms"])) for s, d in pairs}

    def num(x, fmt):
        return fmt.format(x) if x is not None else "-"

    for k in sorted(fills, key=int):
        m, r = figs["mirror"].get(k), figs["relay"].get(k)
        lag = lags.get(k, (None, None))
        print(f"  {k:>5s} {fills[k]:9.1f} {num(m and m['mb'], '{:8.1f}'):>8s}"
              f" {num(r and r['mb'], '{:8.1f}'):>8s}"
              f" {num(m and r and m['mb'] / r['mb'], '{:5.2f}x'):>6s}"
              f" {num(m and m['total'], '{:8.2f}'):>8s} {num(r and r['total'], '{:8.2f}'):>8s}"
              f" {num(m and r and r['total'] / m['total'], '{:5.2f}x'):>6s}"
              f" {num(lag[0], '{:8.1f}'):>8s} {num(lag[1], '{:8.1f}'):>8s}")


def goals(t, c, pairs, ncpu, target):
    print()
    print(f"goals ({ncpu} cores, brokers and clients sharing them; medians over the rounds):")
    if t:
        goal("mirror throughput >= 3x the relay's", med_range(t, "{:.2f}", "x"), median(t) >= 3,
             each_round=[x >= 3 for x in t])
        goal("mirror CPU per GB <= 1/3 of the relay's", med_range(c, "{:.2f}", "x") + " less",
             median(c) >= 3, each_round=[x >= 3 for x in c])
    if pairs:
        p99 = [float(d["p99_ms"]) for _, d in pairs]
        goal(f"p99 mirror lag < 200 ms at {target} MB/s", med_range(p99, "{:.1f}", " ms"),
             median(p99) < 200, each_round=[x < 200 for x in p99])


def main():
    rows = read_rows(sys.argv[1])
    ncpu, rounds, target = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    limit = limits(rows)
    print()
    print(limits_line(limit, ncpu))
    fills = [float(r["mb_per_s"]) for r in by_round(rows, "produce")
             if r["topic"].startswith("bench-mirror-")]
    if fills:
        size = int(by_round(rows, "produce")[0]["records"]) * 1024 / 1e6
        print(f"pre-fill: {size:.0f} MB of 1 KiB records, lz4, 8 partitions, a fresh topic each "
              f"round, at {med_range(fills)} MB/s")
    rounds_header(f"{rounds} round(s) of pre-fill, mirror, relay, steady lag, in that order")
    figs = copies(rows)
    t, c = copy_tables(figs, limit)
    pairs = lag_rounds(rows)
    lag_table(pairs, target)
    if rounds > 1:
        by_round_lines(rows, figs, pairs)
    goals(t, c, pairs, ncpu, target)


if __name__ == "__main__":
    main()
