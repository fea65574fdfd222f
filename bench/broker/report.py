"""The broker benchmark's report (bench/broker/run.sh): medians over the rounds and their spread,
beside the limits; CPU per GB, user and system apart, for the load generator and the broker.

Usage: report.py RESULTS NCPU ROUNDS
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_lib import (by_round, cpu, goal, limits, limits_line, med_range, median,  # noqa: E402
                        read_rows, rounds_header, spread_pct)

CASES = [
    ("produce 1 KiB, 1 partition", "produce", "bench-1k-p1"),
    ("produce 1 KiB, 8 partitions", "produce", "bench-1k-p8"),
    ("produce 100 B, 1 partition", "produce", "bench-100-p1"),
    ("produce 100 B, 8 partitions", "produce", "bench-100-p8"),
    ("consume 1 KiB, 1 partition", "consume", "bench-1k-p1"),
    ("consume 1 KiB, 8 partitions", "consume", "bench-1k-p8"),
]


def case_rows(rows, mode, topic):
    # Each round has its own topics, "<topic>-<round>".
    return [r for r in by_round(rows, mode) if r["topic"] == f"{topic}-{r['round']}"]


def throughput_table(rows, limit):
    print(f"{'throughput':28s} {'MB/s median (min..max)':>24s} {'spread':>7s} {'/loopback':>9s}"
          f" {'/cache':>7s} {'/disk':>7s} {'records/s':>10s}")
    for label, mode, topic in CASES:
        rs = case_rows(rows, mode, topic)
        if not rs:
            print(f"{label:28s} {'failed':>24s}")
            continue
        mb = [float(r["mb_per_s"]) for r in rs]
        m = median(mb)
        # Consume is served from the page cache: only the loopback ratio means something for it.
        ratio = (lambda name: f"{m / limit[name]:6.2f}x") if mode == "produce" else (
            lambda name: f"{'-':>7s}")
        print(f"{label:28s} {med_range(mb):>24s} {spread_pct(mb):6.0f}%"
              f" {m / limit['loopback']:8.2f}x {ratio('cache')} {ratio('disk')}"
              f" {median([float(r['records_per_s']) for r in rs]):10,.0f}")


def cpu_table(rows):
    print()
    print(f"{'CPU s per GB (medians)':28s} {'client usr':>10s} {'client sys':>10s}"
          f" {'broker usr':>10s} {'broker sys':>10s} {'total (min..max)':>20s} {'spread':>7s} {'cores':>6s}")
    for label, mode, topic in CASES:
        rs = case_rows(rows, mode, topic)
        if not rs:
            continue
        parts, totals, cores = [], [], []
        for r in rs:
            gb = float(r["mb_per_s"]) * float(r["seconds"]) / 1e3
            each = [*cpu(r, "cpu"), *cpu(r, "broker")]
            parts.append([x / gb for x in each])
            totals.append(sum(each) / gb)
            cores.append(sum(each) / float(r["seconds"]))
        cols = " ".join(f"{median([p[i] for p in parts]):10.2f}" for i in range(4))
        print(f"{label:28s} {cols} {med_range(totals, '{:.2f}'):>20s} {spread_pct(totals):6.0f}%"
              f" {median(cores):6.2f}")


def latency_lines(rows):
    rs = [r for r in by_round(rows, "latency") if r["topic"] == f"bench-latency-{r['round']}"]
    if not rs:
        return rs
    r0 = rs[0]
    print()
    print(f"produce latency at {r0['rate']} msg/s (1 KiB, linger.ms={r0['linger_ms']}), "
          f"time from produce() to the delivery report:")
    for key, what in [("p50_ms", "p50"), ("p99_ms", "p99"), ("p999_ms", "p99.9"),
                      ("max_ms", "max")]:
        print(f"  {what:6s} {med_range([float(r[key]) for r in rs], '{:.3f}', ' ms')}")
    achieved = [float(r["achieved_rate"]) for r in rs]
    cores = [(sum(cpu(r, "cpu")) + sum(cpu(r, "broker"))) / float(r["seconds_total"]) for r in rs]
    print(f"  achieved {med_range(achieved, '{:.0f}')} msg/s, {med_range(cores, '{:.2f}')} cores")
    return rs


def by_round_lines(rows):
    print()
    print("MB/s by round, in run order (a round far from the others usually points at the "
          "machine, not at Mirra):")
    for label, mode, topic in CASES:
        rs = case_rows(rows, mode, topic)
        print(f"  {label:28s} " + " ".join(f"{float(r['mb_per_s']):8.1f}" for r in rs))


def goals(rows, lat, ncpu):
    print()
    print(f"goals ({ncpu} cores, client and broker sharing them; medians over the rounds):")

    def best(mode, size=None):
        """Per round, the better of the 1- and 8-partition cases."""
        per_round = {}
        for _, m, topic in CASES:
            for r in case_rows(rows, m, topic):
                if m == mode and (size is None or r["size"] == size):
                    k = r["round"]
                    per_round[k] = max(per_round.get(k, 0.0), float(r["mb_per_s"]))
        return list(per_round.values()) or [0.0]

    p, c = best("produce", "1024"), best("consume")
    goal("produce 1 KiB >= 400 MB/s (best of 1 and 8)", med_range(p, unit=" MB/s"),
         median(p) >= 400, 44, [x >= 400 for x in p])
    goal("consume >= 800 MB/s (best of 1 and 8)", med_range(c, unit=" MB/s"), median(c) >= 800,
         44, [x >= 800 for x in c])
    if lat:
        p99 = [float(r["p99_ms"]) for r in lat]
        goal("p99 produce latency < 2 ms at 5,000 msg/s", med_range(p99, "{:.3f}", " ms"),
             median(p99) < 2, 44, [x < 2 for x in p99])


def main():
    rows = read_rows(sys.argv[1])
    ncpu, rounds = int(sys.argv[2]), int(sys.argv[3])
    limit = limits(rows)
    print()
    print(limits_line(limit, ncpu))
    rounds_header(f"{rounds} round(s), every case in each, interleaved")
    throughput_table(rows, limit)
    cpu_table(rows)
    lat = latency_lines(rows)
    if rounds > 1:
        by_round_lines(rows)
    goals(rows, lat, ncpu)


if __name__ == "__main__":
    main()
