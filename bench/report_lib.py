"""Pieces shared by the benchmark reports (bench/broker/report.py, bench/mirror/report.py, ...).

A run script appends one line of key=value pairs per measurement to a results file; every
measured line carries `round=N`. The reports read that file and print, per figure, the median
over the rounds and the spread (min..max, and (max - min) / median in percent), beside the
machine's limits measured in the same run (bench/lib.sh). See bench/README.md, "Reading a noisy
run". The on_off_* pieces are for a feature compared with itself turned off, two phases "off"
and "on" in every round (bench/quotas/report.py, bench/observability/report.py).
"""

import statistics


def read_rows(path):
    """Every line of the results file as a dict; numbers stay strings until asked for."""
    with open(path) as f:
        return [dict(kv.split("=", 1) for kv in line.split()) for line in f if "=" in line]


def limits(rows):
    return {r["name"]: float(r["mb_per_s"]) for r in rows if r["mode"] == "limit"}


def limits_line(limit, ncpu):
    return (f"machine limits: loopback TCP (iperf3) {limit['loopback']:.1f} MB/s, page-cache "
            f"write (dd) {limit['cache']:.1f} MB/s, disk write + fdatasync (dd) "
            f"{limit['disk']:.1f} MB/s"
            + (f", memcpy {limit['memcpy']:.0f} MB/s" if "memcpy" in limit else "")
            + f"; {ncpu} cores")


def by_round(rows, mode, **match):
    """The rows of one figure, in round order (the order they were taken in)."""
    found = [r for r in rows
             if r["mode"] == mode and all(r.get(k) == v for k, v in match.items())]
    return sorted(found, key=lambda r: int(r.get("round", 0)))


def median(xs):
    return statistics.median(xs)


def spread_pct(xs):
    """(max - min) / median in percent: 0 for one round, the run-to-run noise otherwise."""
    m = median(xs)
    return 100.0 * (max(xs) - min(xs)) / m if m else 0.0


def med_range(xs, fmt="{:.1f}", unit=""):
    """"median (min..max)", or the one value when there is a single round."""
    if len(xs) == 1:
        return fmt.format(xs[0]) + unit
    return (f"{fmt.format(median(xs))}{unit} "
            f"({fmt.format(min(xs))}..{fmt.format(max(xs))})")


def cpu(row, name):
    """(user, system) CPU seconds of process `name` in a row: NAME_user_s, NAME_sys_s."""
    return float(row[f"{name}_user_s"]), float(row[f"{name}_sys_s"])


def goal(label, value, ok, width=48, each_round=()):
    """One goal, judged on the median (ok); each_round: whether each round alone met it."""
    mixed = len(set(each_round)) > 1
    print(f"  {label:{width}s} {value:>26s}  {'met' if ok else 'NOT met'}"
          + (" (not in every round: the run does not decide it)" if mixed else ""))


def rounds_header(what):
    print(f"{what}; each figure is the median over the rounds with (min..max), and 'spread' is "
          f"(max - min) / median")


# ---- one feature off and on, both phases in every round (alternating order) ----
# A figure is {"off": {round: figures}, "on": {round: figures}}, figures a dict per case with at
# least "mb" (MB/s); a case is (label, key into the dict of figures, the limits its MB/s is shown
# against, e.g. ("loopback", "cache", "disk")).
def within_rounds(fig, value):
    """Per round that has both phases, in round order: value(on figures, off figures)."""
    off, on = fig["off"], fig["on"]
    return [value(on[k], off[k]) for k in sorted(off, key=int) if k in on]


def on_off_ratios(fig, key="mb"):
    """The on/off ratio of one figure, taken within each round."""
    return within_rounds(fig, lambda on, off: on[key] / off[key])


ON_OFF_LIMITS = ("loopback", "cache", "disk")


def on_off_throughput(cases, figs, limit, names, note):
    """MB/s off and on, their ratio within rounds, both over the limits; names: the two columns'
    titles, note: the footnote's end (which limits apply to which case)."""
    print(f"{'MB/s of record values':28s} {names[0]:>22s} {names[1]:>22s}"
          f" {'on/off':>20s} {'spread':>7s}"
          + "".join(f" {'/' + name:>13s}" for name in ON_OFF_LIMITS))
    for label, key, applies in cases:
        fig = figs[key]
        mb = {ph: [f["mb"] for f in fig[ph].values()] for ph in ("off", "on")}
        if not mb["off"] and not mb["on"]:
            print(f"{label:28s} {'not measured':>22s}")
            continue
        ratio = on_off_ratios(fig)

        def over(name):
            if name not in limit or name not in applies:
                return f"{'-':>13s}"
            return " ".join(f"{median(mb[ph]) / limit[name]:5.2f}x" if mb[ph] else f"{'-':>6s}"
                            for ph in ("off", "on"))

        cols = [med_range(mb[ph]) if mb[ph] else "failed" for ph in ("off", "on")]
        print(f"{label:28s} {cols[0]:>22s} {cols[1]:>22s}"
              f" {med_range(ratio, '{:.3f}', 'x') if ratio else '-':>20s}"
              f" {(f'{spread_pct(ratio):6.1f}%') if ratio else '-':>7s}"
              + "".join(f" {over(name):>13s}" for name in ON_OFF_LIMITS))
    print("  on/off: taken within each round, then the median; spread: of that ratio; "
          + "".join(f"/{name}, " for name in ON_OFF_LIMITS[:-1]) + f"/{ON_OFF_LIMITS[-1]}: "
          + note)


def on_off_by_round(cases, figs):
    """Each case's MB/s off / on = ratio, round by round in run order."""
    print()
    print("MB/s by round, in run order (odd rounds ran off first, even rounds on first), "
          "off / on = ratio:")
    for label, key, _ in cases:
        fig = figs[key]
        ks = sorted(set(fig["off"]) | set(fig["on"]), key=int)

        def cell(k):
            off, on = fig["off"].get(k), fig["on"].get(k)
            ratio = f"{on['mb'] / off['mb']:.3f}" if off and on else "-"
            return (f"{off['mb'] if off else float('nan'):7.1f} / "
                    f"{on['mb'] if on else float('nan'):<7.1f} = {ratio}")

        print(f"  {label:28s} " + "   ".join(cell(k) for k in ks))


def on_off_goal(what, ratio, threshold, subject, width=48):
    """The goal "on within threshold (a fraction) of off", judged on the median of the ratios
    taken within rounds; flags a ratio whose spread is wider than the threshold."""
    if not ratio:
        print(f"  {what:{width}s} {'not measured':>26s}")
        return
    goal(what, med_range(ratio, "{:.3f}", "x"), abs(median(ratio) - 1) < threshold, width,
         [abs(x - 1) < threshold for x in ratio])
    if len(ratio) > 1 and spread_pct(ratio) > 100 * threshold:
        print(f"    the ratio's spread ({spread_pct(ratio):.1f}%) is wider than the {threshold:.0%} "
              f"the goal is about: this run's noise, not {subject}, decides it")
