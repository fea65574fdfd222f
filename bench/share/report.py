"""The share-group benchmark's report (bench/share/run.sh): per round the MB/s of the share
group (4 members, every record acknowledged) and of the classic group (4 members) reading the
same topic, their ratio taken within the round, its median over the rounds beside the goal (at
least half the classic group's throughput), and the machine's limits of the same run.

Usage: report.py RESULTS NCPU RECORDS
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_lib import (by_round, goal, limits, limits_line, med_range, median,  # noqa: E402
                        read_rows, spread_pct)

RECORD_BYTES = 1024
GOAL = 0.5


def mb_per_s(row, records):
    got = int(row["records"])
    if got < records:
        sys.exit(f"{row['mode']} round {row['round']} read {got} of {records} records")
    return records * RECORD_BYTES / (float(row["seconds"]) - float(row["idle_s"])) / 1e6


def main():
    rows, ncpu, records = read_rows(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    print(limits_line(limits(rows), ncpu))
    share = [mb_per_s(r, records) for r in by_round(rows, "share")]
    classic = [mb_per_s(r, records) for r in by_round(rows, "classic")]
    ratios = [s / c for s, c in zip(share, classic)]
    for i, (s, c, q) in enumerate(zip(share, classic, ratios), 1):
        print(f"round {i}: share {s:8.1f} MB/s   classic {c:8.1f} MB/s   share/classic {q:.3f}")
    print(f"share group, 4 members, acknowledged: {med_range(share, unit=' MB/s')}, "
          f"spread {spread_pct(share):.0f}%")
    print(f"classic group, 4 members:             {med_range(classic, unit=' MB/s')}, "
          f"spread {spread_pct(classic):.0f}%")
    goal("share / classic (at least 0.5)", med_range(ratios, fmt="{:.3f}"),
         median(ratios) >= GOAL, each_round=[q >= GOAL for q in ratios])


if __name__ == "__main__":
    main()
