"""The scraper of bench/observability/run.sh: GET /metrics from one or more brokers every
INTERVAL seconds, as Prometheus would (a fresh connection per scrape, the whole body read), and
time each scrape from the request to the last byte. Any scrape that fails (no connection, a
status other than 200, a body without `mirra_partitions`, no answer within 10 s) ends the
scraper at once with exit code 1 and the reason on stderr, so the run fails.

It stops after COUNT rounds of scrapes, or at once at SIGTERM (a round it interrupts is not
counted), and then prints one key=value line per broker on stdout:
  mode=scrape name=NAME scrapes=N ms_p50=.. ms_min=.. ms_max=.. bytes_p50=.. bytes_max=..
  lines_p50=.. lines_max=.. cpu_s=.. seconds=.. TAGS
(cpu_s: the scraper's own user + system CPU, over all brokers, on the first line only; seconds:
from the first scrape to the stop). --each FILE also writes every scrape as a line of
"name ms bytes lines". --ready FILE is created once the first round of scrapes has succeeded.

Usage: scrape.py --url NAME=http://HOST:PORT/metrics [--url ...] [--interval 1] [--count N]
                 [--ready FILE] [--each FILE] [--tags 'round=1 phase=on']
"""

import argparse
import http.client
import os
import signal
import statistics
import sys
import time
import urllib.parse

class Stop(BaseException):
    """SIGTERM: raised where the scraper is, so that it stops at once, even in its sleep; a
    scrape it interrupts is not counted (a BaseException, so no scrape failure catches it)."""


def on_term(signum, frame):
    raise Stop


def scrape(url):
    """(ms, bytes, lines) of one scrape; raises on any failure."""
    u = urllib.parse.urlsplit(url)
    t0 = time.monotonic()
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    try:
        conn.request("GET", u.path or "/", headers={"Accept": "text/plain"})
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    ms = (time.monotonic() - t0) * 1000
    if resp.status != 200:
        raise RuntimeError(f"HTTP {resp.status} {resp.reason}: {body[:200]!r}")
    if b"\nmirra_partitions " not in body:
        raise RuntimeError(f"{len(body)} bytes without mirra_partitions: {body[:200]!r}")
    return ms, len(body), body.count(b"\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", action="append", required=True, help="NAME=URL")
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--count", type=int, default=0, help="rounds of scrapes; 0: until SIGTERM")
    ap.add_argument("--ready")
    ap.add_argument("--each")
    ap.add_argument("--tags", default="")
    a = ap.parse_args()
    targets = [u.split("=", 1) for u in a.url]
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    got = {name: [] for name, _ in targets}
    each = open(a.each, "a") if a.each else None
    start = time.monotonic()
    n = 0
    try:
        while a.count == 0 or n < a.count:
            done = []
            for name, url in targets:
                try:
                    done.append((name, *scrape(url)))
                except Exception as e:  # noqa: BLE001: any failure fails the run
                    print(f"scrape.py: scrape {n + 1} of {name} ({url}) failed: {e}",
                          file=sys.stderr)
                    sys.exit(1)
            for name, ms, size, lines in done:  # a round counts once all its scrapes are in
                got[name].append((ms, size, lines))
                if each:
                    each.write(f"{name} {ms:.3f} {size} {lines}\n")
                    each.flush()
            n += 1
            if n == 1 and a.ready:
                open(a.ready, "w").close()
            # On a fixed schedule (start + n * interval), as Prometheus does: a slow scrape
            # does not push the next ones later.
            delay = start + n * a.interval - time.monotonic()
            if delay > 0 and (a.count == 0 or n < a.count):
                time.sleep(delay)
    except Stop:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    seconds = time.monotonic() - start
    t = os.times()
    for i, (name, _) in enumerate(targets):
        ms = [x[0] for x in got[name]]
        size = [x[1] for x in got[name]]
        lines = [x[2] for x in got[name]]
        print(f"mode=scrape name={name} scrapes={len(ms)} ms_p50={statistics.median(ms):.2f}"
              f" ms_min={min(ms):.2f} ms_max={max(ms):.2f}"
              f" bytes_p50={int(statistics.median(size))} bytes_max={max(size)}"
              f" lines_p50={int(statistics.median(lines))} lines_max={max(lines)}"
              f" cpu_s={(t.user + t.system) if i == 0 else 0:.2f} seconds={seconds:.1f} {a.tags}"
              .rstrip())


if __name__ == "__main__":
    main()
