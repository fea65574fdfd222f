"""The security benchmark's report (bench/security/run.sh): each figure over SASL_SSL beside its
plaintext twin, the ratio TLS/plaintext taken within each round (the two ran back to back and
saw the same neighbours) and then the median over the rounds; MB/s beside the limits (loopback,
page cache, disk, memcpy when built, one core's AES-256-GCM); CPU per GB user and system apart,
client and broker apart; kTLS availability; the issue's goals.

Usage: report.py RESULTS NCPU ROUNDS
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from report_lib import (by_round, cpu, goal, limits, limits_line, med_range, median,  # noqa: E402
                        read_rows, rounds_header, spread_pct)

PROTOCOLS = [("plaintext", "PLAINTEXT"), ("sasl_ssl", "SASL_SSL")]
# (label, key, goal: the least TLS/plaintext throughput ratio the issue asks for)
CASES = [
    ("produce 1 KiB, 1 partition", "produce-1", 0.6),
    ("produce 1 KiB, 8 partitions", "produce-8", 0.6),
    ("consume 1 KiB, 1 partition", "consume-1", 0.5),
    ("consume 1 KiB, 8 partitions", "consume-8", 0.5),
    ("mirror 1 KiB lz4, 8 p.", "mirror", 0.5),
]


def figures(r, procs):
    """MB/s, seconds, per-process (user, sys) CPU s/GB, total CPU s/GB and cores of one row."""
    secs = float(r["seconds"])
    if r["mode"] == "mirror":
        gb = int(r["records"]) * 1024 / 1e9
    else:
        gb = float(r["mb_per_s"]) * secs / 1e3
    per = {p: tuple(x / gb for x in cpu(r, key)) for p, key in procs}
    total = sum(u + s for u, s in per.values())
    return {"mb": gb * 1e3 / secs, "secs": secs, "per": per, "total": total,
            "cores": total * gb / secs}


def procs_of(key):
    if key == "mirror":
        return [("src", "source"), ("dst", "destination")]
    return [("client", "cpu"), ("broker", "broker")]


def collect(rows):
    """{case key: {protocol: {round: figures}}}. Produce topics are bench-1k-pP-PROTOCOL-R;
    consume reads bench-1k-pP-plaintext-R over both protocols."""
    figs = {key: {p: {} for p, _ in PROTOCOLS} for _, key, _ in CASES}
    for mode in ("produce", "consume"):
        for r in by_round(rows, mode):
            for p in (1, 8):
                owner = r.get("protocol") if mode == "produce" else "plaintext"
                if r.get("topic") == f"bench-1k-p{p}-{owner}-{r['round']}":
                    figs[f"{mode}-{p}"][r["protocol"]][r["round"]] = figures(r, procs_of(mode))
    for r in by_round(rows, "mirror"):
        figs["mirror"][r["protocol"]][r["round"]] = figures(r, procs_of("mirror"))
    return figs


def within_rounds(fig, value):
    """Per round that has both protocols: value(tls figures, plaintext figures)."""
    plain, tls = fig["plaintext"], fig["sasl_ssl"]
    return [value(tls[k], plain[k]) for k in sorted(plain, key=int) if k in tls]


def preamble(rows, limit, ncpu):
    print()
    print(limits_line(limit, ncpu))
    tls = next((r for r in rows if r["mode"] == "tls"), {})
    aes = limit.get("aes_gcm")
    print(f"TLS session: {tls.get('protocol') or '?'} {tls.get('cipher') or '?'} (what an OpenSSL "
          f"client with default settings negotiates), SASL {tls.get('mechanism', '?')}"
          + (f"; AES-256-GCM on one core (openssl speed, 16 KiB buffers) {aes:.0f} MB/s"
             if aes else ""))
    k = next((r for r in rows if r["mode"] == "ktls"), None)
    if k is None:
        return False
    available = k["available"] == "1"
    print(f"kTLS: {'available' if available else 'NOT available'} "
          f"(/proc/sys/net/ipv4/tcp_available_ulp: {k['ulp']})"
          + ("" if available else ": every TLS byte is encrypted in user space, and consumers "
             "over TLS get no sendfile"))
    end = next((r for r in rows if r["mode"] == "ktls_stat"), {})
    counters = [c for c in ("TlsTxSw", "TlsRxSw", "TlsTxDevice", "TlsRxDevice")
                if f"{c}_start" in k and f"{c}_end" in end]
    if counters:
        print("  kernel TLS sessions opened during the run (/proc/net/tls_stat): " + ", ".join(
            f"{c} {int(end[c + '_end']) - int(k[c + '_start'])}" for c in counters))
    return available


def throughput_table(figs, limit, skipped):
    print(f"{'MB/s of record values':28s} {'PLAINTEXT':>22s} {'SASL_SSL':>22s}"
          f" {'TLS/plain':>20s} {'spread':>7s} {'/loopback':>13s} {'TLS/aes':>8s}")
    for label, key, _ in CASES:
        fig = figs[key]
        mb = {p: [f["mb"] for f in fig[p].values()] for p, _ in PROTOCOLS}
        if not mb["plaintext"] and not mb["sasl_ssl"]:
            print(f"{label:28s} {'skipped' if key == 'mirror' and skipped else 'not measured':>22s}")
            continue
        ratio = within_rounds(fig, lambda t, p: t["mb"] / p["mb"])
        cols = [med_range(mb[p]) if mb[p] else "failed" for p, _ in PROTOCOLS]
        loop = " ".join(f"{median(mb[p]) / limit['loopback']:5.2f}x" if mb[p] else f"{'-':>6s}"
                        for p, _ in PROTOCOLS)
        aes = (f"{median(mb['sasl_ssl']) / limit['aes_gcm']:7.2f}x"
               if mb["sasl_ssl"] and "aes_gcm" in limit else f"{'-':>8s}")
        print(f"{label:28s} {cols[0]:>22s} {cols[1]:>22s}"
              f" {med_range(ratio, '{:.2f}', 'x') if ratio else '-':>20s}"
              f" {(f'{spread_pct(ratio):6.0f}%') if ratio else '-':>7s} {loop:>13s} {aes}")
    print("  spread: of the TLS/plain ratio; /loopback: plaintext then SASL_SSL; TLS/aes: SASL_SSL "
          "over one core's AES-256-GCM")


def cpu_table(figs):
    print()
    print(f"{'CPU s per GB (medians)':38s} {'client/src':>10s} {'':>6s} {'broker/dst':>10s}"
          f" {'':>6s} {'total (min..max)':>20s} {'spread':>7s} {'cores':>6s}")
    print(f"{'':38s} {'usr':>10s} {'sys':>6s} {'usr':>10s} {'sys':>6s}")
    for label, key, _ in CASES:
        fig = figs[key]
        names = [n for n, _ in procs_of(key)]
        for p, name in PROTOCOLS:
            fs = list(fig[p].values())
            if not fs:
                continue
            cols = [median([f["per"][n][i] for f in fs]) for n in names for i in (0, 1)]
            totals = [f["total"] for f in fs]
            print(f"{label + ', ' + name:38s} {cols[0]:10.2f} {cols[1]:6.2f} {cols[2]:10.2f}"
                  f" {cols[3]:6.2f} {med_range(totals, '{:.2f}'):>20s} {spread_pct(totals):6.0f}%"
                  f" {median([f['cores'] for f in fs]):6.2f}")
        extra = within_rounds(fig, lambda t, p: t["total"] / p["total"])
        if extra:
            print(f"{'  TLS/plain CPU per GB':38s} {'':35s} {med_range(extra, '{:.2f}', 'x'):>20s}")
    print("  client/src and broker/dst: the load generator and the broker for produce and consume,"
          " the source and destination brokers for the mirror")


def by_round_lines(figs):
    print()
    print("MB/s by round, in run order, PLAINTEXT / SASL_SSL (a round far from the others usually "
          "points at the machine, not at Mirra):")
    for label, key, _ in CASES:
        fig = figs[key]
        ks = sorted(set(fig["plaintext"]) | set(fig["sasl_ssl"]), key=int)
        if not ks:
            continue

        def mb(p, k):
            f = fig[p].get(k)
            return f"{f['mb']:.1f}" if f else "-"

        print(f"  {label:28s} " + "  ".join(f"{mb('plaintext', k):>7s} / {mb('sasl_ssl', k):<7s}"
                                           for k in ks))


def goals(figs, ncpu, ktls, skipped):
    print()
    print(f"goals ({ncpu} cores, clients and brokers sharing them; the TLS/plaintext ratio taken "
          "within each round, median over the rounds):")
    for label, key, least in CASES:
        ratio = within_rounds(figs[key], lambda t, p: t["mb"] / p["mb"])
        what = f"{label} over SASL_SSL >= {least:.1f}x plaintext"
        if key.startswith("consume"):
            what += " (kTLS)" if ktls else " (no kTLS)"
        if not ratio:
            print(f"  {what:68s} {'skipped' if key == 'mirror' and skipped else 'not measured':>26s}")
            continue
        goal(what, med_range(ratio, "{:.2f}", "x"), median(ratio) >= least, 68,
             [x >= least for x in ratio])


def main():
    rows = read_rows(sys.argv[1])
    ncpu, rounds = int(sys.argv[2]), int(sys.argv[3])
    limit = limits(rows)
    ktls = preamble(rows, limit, ncpu)
    skipped = any(r["mode"] == "mirror_skipped" for r in rows)
    if skipped:
        print("mirroring: skipped (this build's mirrors cannot link to a SASL_SSL source; see the "
              "run's output)")
    rounds_header(f"{rounds} round(s), every case over both protocols in each, back to back")
    figs = collect(rows)
    throughput_table(figs, limit, skipped)
    cpu_table(figs)
    if rounds > 1:
        by_round_lines(figs)
    goals(figs, ncpu, ktls, skipped)


if __name__ == "__main__":
    main()
