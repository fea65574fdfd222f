"""The quota benchmark's report (bench/quotas/run.sh): each figure with client quotas on (set for
the client but far from reached) beside its twin with no quota configured, the ratio on/off
taken within each round (the two phases ran back to back, in alternating order, and saw the
same neighbours) and then the median over the rounds; MB/s beside the limits (loopback, page
cache, disk, memcpy when built); CPU per GB of client and broker; what the throttle probe saw;
the issue's goal (under 3% difference).

Usage: report.py RESULTS NCPU ROUNDS
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_lib import (by_round, cpu, goal, limits, limits_line, med_range, median,  # noqa: E402
                        read_rows, rounds_header, spread_pct)

PHASES = [("off", "quotas off"), ("on", "quotas on")]
CASES = [  # (label, mode, partitions)
    ("produce 1 KiB, 1 partition", "produce", 1),
    ("produce 1 KiB, 8 partitions", "produce", 8),
    ("consume 1 KiB, 1 partition", "consume", 1),
    ("consume 1 KiB, 8 partitions", "consume", 8),
]
GOAL = 0.03  # the issue: under 3% difference between quotas on (not reached) and off


def figures(r):
    """MB/s, CPU s/GB (client, broker, total: user + system) and cores of one row."""
    secs = float(r["seconds"])
    gb = float(r["mb_per_s"]) * secs / 1e3
    client, broker = sum(cpu(r, "cpu")), sum(cpu(r, "broker"))
    return {"mb": float(r["mb_per_s"]), "client": client / gb, "broker": broker / gb,
            "total": (client + broker) / gb, "cores": (client + broker) / secs}


def collect(rows):
    """{(mode, partitions): {phase: {round: figures}}}; a phase's topics are
    bench-1k-pP-PHASE-R, produced and then consumed in that phase."""
    figs = {(mode, p): {ph: {} for ph, _ in PHASES} for _, mode, p in CASES}
    for _, mode, p in CASES:
        for r in by_round(rows, mode):
            if r.get("topic") == f"bench-1k-p{p}-{r.get('phase')}-{r['round']}":
                figs[(mode, p)][r["phase"]][r["round"]] = figures(r)
    return figs


def within_rounds(fig, value):
    """Per round that has both phases: value(on figures, off figures)."""
    off, on = fig["off"], fig["on"]
    return [value(on[k], off[k]) for k in sorted(off, key=int) if k in on]


def ratio_of(fig):
    return within_rounds(fig, lambda on, off: on["mb"] / off["mb"])


def throughput_table(figs, limit):
    print(f"{'MB/s of record values':28s} {'quotas off':>22s} {'quotas on':>22s}"
          f" {'on/off':>20s} {'spread':>7s} {'/loopback':>13s} {'/cache':>13s} {'/disk':>13s}")
    for label, mode, p in CASES:
        fig = figs[(mode, p)]
        mb = {ph: [f["mb"] for f in fig[ph].values()] for ph, _ in PHASES}
        if not mb["off"] and not mb["on"]:
            print(f"{label:28s} {'not measured':>22s}")
            continue
        ratio = ratio_of(fig)

        def over(name):
            if name not in limit or (name != "loopback" and mode != "produce"):
                return f"{'-':>13s}"
            return " ".join(f"{median(mb[ph]) / limit[name]:5.2f}x" if mb[ph] else f"{'-':>6s}"
                            for ph, _ in PHASES)

        cols = [med_range(mb[ph]) if mb[ph] else "failed" for ph, _ in PHASES]
        print(f"{label:28s} {cols[0]:>22s} {cols[1]:>22s}"
              f" {med_range(ratio, '{:.3f}', 'x') if ratio else '-':>20s}"
              f" {(f'{spread_pct(ratio):6.1f}%') if ratio else '-':>7s}"
              f" {over('loopback'):>13s} {over('cache'):>13s} {over('disk'):>13s}")
    print("  on/off: taken within each round, then the median; spread: of that ratio; /loopback, "
          "/cache, /disk: off then on (the last two for produce only)")


def cpu_table(figs):
    print()
    print(f"{'CPU s per GB (medians)':40s} {'client':>7s} {'broker':>7s} {'total (min..max)':>22s}"
          f" {'spread':>7s} {'cores':>6s}")
    for label, mode, p in CASES:
        fig = figs[(mode, p)]
        for ph, name in PHASES:
            fs = list(fig[ph].values())
            if not fs:
                continue
            totals = [f["total"] for f in fs]
            print(f"{label + ', ' + name:40s} {median([f['client'] for f in fs]):7.2f}"
                  f" {median([f['broker'] for f in fs]):7.2f} {med_range(totals, '{:.2f}'):>22s}"
                  f" {spread_pct(totals):6.0f}% {median([f['cores'] for f in fs]):6.2f}")
        extra = within_rounds(fig, lambda on, off: on["total"] / off["total"])
        if extra:
            print(f"{'  on/off CPU per GB':40s} {'':15s} {med_range(extra, '{:.3f}', 'x'):>22s}")
    print("  user + system CPU of the load generator (client) and the broker over the case")


def by_round_lines(figs):
    print()
    print("MB/s by round, in run order (odd rounds ran off first, even rounds on first), "
          "off / on = ratio:")
    for label, mode, p in CASES:
        fig = figs[(mode, p)]
        ks = sorted(set(fig["off"]) | set(fig["on"]), key=int)

        def cell(k):
            off, on = fig["off"].get(k), fig["on"].get(k)
            ratio = f"{on['mb'] / off['mb']:.3f}" if off and on else "-"
            return (f"{off['mb'] if off else float('nan'):7.1f} / "
                    f"{on['mb'] if on else float('nan'):<7.1f} = {ratio}")

        print(f"  {label:28s} " + "   ".join(cell(k) for k in ks))


def probe_lines(rows):
    """What the throttle probe saw; returns whether every 'on' phase's probe was unthrottled."""
    print()
    print("throttling: mirra_load_gen cannot tell (it sets no librdkafka throttle or stats "
          "callback); the probe (bench/quotas/throttle_probe.py, librdkafka's throttle_cb via "
          "confluent-kafka) can:")
    control = [r for r in rows if r["mode"] == "probe" and r.get("phase") == "control"]
    for r in control:
        print(f"  control, 100 kB/s quota on client id {r['client']}: {r['throttled']} throttled "
              f"responses (produce {r['produce_throttled']}, consume {r['consume_throttled']}), "
              f"longest {r['max_throttle_ms']} ms: the probe sees throttling where there is some")
    on = by_round(rows, "probe", phase="on")
    for r in on:
        print(f"  round {r['round']}, quotas on, client id {r['client']}: {r['records']} records "
              f"produced in {r['produce_s']} s and consumed in {r['consume_s']} s, "
              f"{r['throttled']} throttled responses")
    return bool(on) and all(r["throttled"] == "0" for r in on)


def goals(figs, ncpu, unthrottled):
    print()
    print(f"goal ({ncpu} cores, client and broker sharing them; the on/off ratio taken within each "
          f"round, median over the rounds): quotas on but not reached within {GOAL:.0%} of off")
    for label, mode, p in CASES:
        ratio = ratio_of(figs[(mode, p)])
        what = f"{label}: <{GOAL:.0%} difference"
        if not ratio:
            print(f"  {what:48s} {'not measured':>26s}")
            continue
        goal(what, med_range(ratio, "{:.3f}", "x"), abs(median(ratio) - 1) < GOAL, 48,
             [abs(x - 1) < GOAL for x in ratio])
        if len(ratio) > 1 and spread_pct(ratio) > 100 * GOAL:
            print(f"    the ratio's spread ({spread_pct(ratio):.1f}%) is wider than the {GOAL:.0%} "
                  "the goal is about: this run's noise, not the quotas, decides it")
    print(f"  {'no throttling under the on-phase quotas (probe)':48s} {'':>26s}  "
          f"{'met' if unthrottled else 'NOT met'}")


def main():
    rows = read_rows(sys.argv[1])
    ncpu, rounds = int(sys.argv[2]), int(sys.argv[3])
    limit = limits(rows)
    print()
    print(limits_line(limit, ncpu))
    print("quotas on: client id 'bench' producer_byte_rate=1e11, consumer_byte_rate=1e11, "
          "request_percentage=100000; default user producer_byte_rate=1e11 (it outranks the "
          "client id); quotas off: no quota configured, so the broker measures nothing")
    rounds_header(f"{rounds} round(s), every case with quotas off and on in each, back to back")
    figs = collect(rows)
    throughput_table(figs, limit)
    cpu_table(figs)
    if rounds > 1:
        by_round_lines(figs)
    unthrottled = probe_lines(rows)
    goals(figs, ncpu, unthrottled)


if __name__ == "__main__":
    main()
