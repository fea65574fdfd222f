"""Pieces shared by the benchmark reports (bench/broker/report.py, bench/mirror/report.py).

A run script appends one line of key=value pairs per measurement to a results file; every
measured line carries `round=N`. The reports read that file and print, per figure, the median
over the rounds and the spread (min..max, and (max - min) / median in percent), beside the
machine's limits measured in the same run (bench/lib.sh). See bench/README.md, "Reading a noisy
run".
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
