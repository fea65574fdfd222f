"""A real Prometheus server (Debian's package) scraping two Mirra brokers while a mirror runs
between them, with the alert rules of deploy/prometheus/mirra-alerts.yml loaded: the rules load
and are healthy, both targets are up, and Prometheus' query API returns the mirror's lag and a
consumer group's lag with the values `mirra mirror --describe` and `mirra groups --describe`
show. The mirror's lag is held still by an open transaction on the source (the mirror copies up
to the source's last stable offset), and the group's by committed offsets, so Prometheus and the
CLI can be compared without a race.

Waits are bounded polls of Prometheus' HTTP API, never sleeps."""
import json
import shutil
import socket
import subprocess
import urllib.parse
import urllib.request

import pytest

from lagging_group import LAGS, cli_offsets_and_lags, make_lagging_group
from mirra_testlib import ROOT, wait_until
from mirroring import OPEN, STEP, TXN, describe, mirror_held_by_open_transaction
from prometheus_text import http_port

ALERTS = ROOT / "deploy" / "prometheus" / "mirra-alerts.yml"
PROMETHEUS = shutil.which("prometheus")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def prometheus(tmp_path):
    """start(targets) -> the base URL of a Prometheus server scraping `targets` every second."""
    assert PROMETHEUS, "prometheus is not installed (scripts/install-deps.sh installs it)"
    procs = []

    def start(targets):
        port = free_port()
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            f"rule_files:\n  - {ALERTS}\n"
            "scrape_configs:\n  - job_name: mirra\n    static_configs:\n"
            f"      - targets: {json.dumps(targets)}\n")
        log = open(tmp_path / "prometheus.log", "w")
        procs.append(subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT))
        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: get(base + "/-/ready") is not None, STEP, "Prometheus to be ready")
        return base

    yield start
    for p in procs:
        p.terminate()
        assert p.wait(STEP) == 0, (tmp_path / "prometheus.log").read_text()[-3000:]


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode()
    except OSError:  # not listening yet, or not ready (503)
        return None


def query(base, expr):
    """{(label tuples): value} of an instant query's vector."""
    body = get(base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
    if body is None:
        return {}
    data = json.loads(body)
    assert data["status"] == "success", data
    return {tuple(sorted(r["metric"].items())): float(r["value"][1]) for r in data["data"]["result"]}


def by(series, label):
    return {dict(k)[label]: v for k, v in series.items()}


def test_prometheus_scrapes_two_brokers_and_loads_the_alert_rules(make_broker, tmp_path,
                                                                  prometheus):
    check = subprocess.run(["promtool", "check", "rules", str(ALERTS)], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    http = {"http.listeners": "http://127.0.0.1:0"}
    src = make_broker({**TXN, **http}, name="source")
    dst = make_broker({**TXN, **http}, name="destination")
    topic = "watched"
    txn = mirror_held_by_open_transaction(src, dst, tmp_path, topic)
    # A consumer group on the destination with a known lag.
    local = "orders"
    make_lagging_group(dst, local)

    targets = [f"127.0.0.1:{http_port(b)}" for b in (src, dst)]
    base = prometheus(targets)
    wait_until(lambda: sorted(by(query(base, "up"), "instance").items()) ==
               sorted((t, 1.0) for t in targets), STEP, "both brokers scraped and up")

    rows = {r["partition"]: r["lag"] for r in describe(dst) if r["topic"] == topic}
    lag_expr = f'mirra_mirror_partition_lag_offsets{{mirror="dr",topic="{topic}"}}'
    wait_until(lambda: by(query(base, lag_expr), "partition") == {"0": rows[0], "1": rows[1]},
               STEP, "Prometheus to hold the mirror lag describe shows")
    loss = query(base, 'mirra_mirror_failover_loss_records{mirror="dr"}')
    assert list(loss.values()) == [OPEN], loss

    cli = {p: float(lag) for p, (_, lag) in cli_offsets_and_lags(dst, local).items()}
    assert cli == LAGS, cli
    wait_until(lambda: by(query(base, 'mirra_consumer_group_lag{group="readers"}'), "partition")
               == cli, STEP, "Prometheus to hold the group lag the groups CLI shows")

    # Every rule of the file loaded and evaluated without error.
    wait_until(lambda: rule_health(base) == {name: "ok" for name in rule_names()}, STEP,
               "every alert rule to load and evaluate")
    txn.abort_transaction(STEP)


def rule_names():
    return [line.split(":", 1)[1].strip() for line in ALERTS.read_text().splitlines()
            if line.strip().startswith("- alert:")]


def rule_health(base):
    rules = json.loads(get(base + "/api/v1/rules"))["data"]["groups"]
    return {r["name"]: r["health"] for g in rules for r in g["rules"]}
