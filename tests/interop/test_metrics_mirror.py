"""/metrics of a destination broker while a mirror runs (docs/observability.md), against what
`mirra mirror --describe` and `mirra groups --describe` show of the same moment. The source
holds an open transaction on one partition, so the mirror stops below it (it copies up to the
source's last stable offset): that partition has a lag the CLI shows, and a failover now
would lose exactly the open transaction's records, which the failover-loss gauge must say.
A consumer group that committed part of a topic has a lag the groups CLI shows too. After the
failover the partitions count as STOPPED.

Waits are bounded polls, never sleeps."""
import urllib.request


from lagging_group import GROUP, cli_offsets_and_lags, make_lagging_group
from mirra_testlib import run_mirra, wait_until
from mirroring import OPEN, STEP, TXN, describe, mirror_held_by_open_transaction, ok, watermarks_of
from prometheus_text import http_port, one, parse

def scrape(broker):
    with urllib.request.urlopen(f"http://127.0.0.1:{http_port(broker)}/metrics",
                                timeout=STEP) as r:
        return parse(r.read().decode())


def test_mirror_figures_match_describe_and_failover_loss(make_broker, tmp_path):
    topic = "watched"
    src = make_broker(TXN, name="source")
    dst = make_broker({"http.listeners": "http://127.0.0.1:0", **TXN}, name="destination")
    txn = mirror_held_by_open_transaction(src, dst, tmp_path, topic)
    source_hw = watermarks_of(src.bootstrap, topic, 2)
    rows = {r["partition"]: r for r in describe(dst)}
    m = scrape(dst)
    assert one(m, "mirra_mirror_partitions", mirror="dr", state="MIRRORING") == 2
    for p in (0, 1):
        labels = {"mirror": "dr", "topic": topic, "partition": str(p)}
        assert one(m, "mirra_mirror_partition_lag_offsets", **labels) == rows[p]["lag"]
        assert one(m, "mirra_mirror_partition_state", state="MIRRORING", **labels) == 1
        # What reached this broker: the committed records and the commit marker.
        assert one(m, "mirra_mirror_partition_records_total", **labels) \
            == rows[p]["destinationLogEndOffset"] == source_hw[p] - (OPEN if p == 0 else 0)
        assert one(m, "mirra_mirror_partition_bytes_total", **labels) > 0
        assert one(m, "mirra_mirror_partition_fetch_duration_seconds_count", **labels) > 0
        assert one(m, "mirra_mirror_partition_last_fetch_timestamp_seconds", **labels) > 0
    assert one(m, "mirra_mirror_failover_loss_records", mirror="dr") == OPEN
    assert one(m, "mirra_mirror_failover_loss_bytes", mirror="dr") > 0
    kinds = {labels["kind"] for name, labels, _ in m
             if name == "mirra_mirror_sync_runs_total" and labels["mirror"] == "dr"}
    assert kinds == {"topics", "configs", "partitions", "groups", "share-groups", "acls"}, kinds

    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--remove", "--mirror", "dr",
                 "--topic", topic))
    wait_until(lambda: one(scrape(dst), "mirra_mirror_partitions", mirror="dr",
                           state="STOPPED") == 2, STEP, "both partitions STOPPED in /metrics")
    assert one(scrape(dst), "mirra_mirror_failover_loss_records", mirror="dr") == 0
    txn.abort_transaction(STEP)


def test_consumer_group_lag_matches_the_groups_cli(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0"}, name="groups")
    topic = "lagging"
    make_lagging_group(b, topic)
    m = scrape(b)
    cli = cli_offsets_and_lags(b, topic)
    assert cli == {"0": (4, 11), "1": (11, 4)}, cli
    for part, (committed, lag) in cli.items():
        labels = {"group": GROUP, "topic": topic, "partition": part}
        assert one(m, "mirra_consumer_group_committed_offset", **labels) == committed
        assert one(m, "mirra_consumer_group_lag", **labels) == lag
    assert one(m, "mirra_consumer_group_state", group=GROUP, state="Empty") == 1
    assert one(m, "mirra_consumer_group_members", group=GROUP) == 0
