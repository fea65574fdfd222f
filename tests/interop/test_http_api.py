"""The JSON API and the console's files on the broker's HTTP listener (docs/observability.md
"JSON API", "Web console"), against what the CLI shows of the same moment: a mirror held below
an open source transaction (a lag and a failover loss of OPEN on partition 0), the topics'
offsets, and a consumer group with a known lag. After the failover the API shows the
partitions STOPPED, and once the mirror is deleted the topic as an ordinary one.

Waits are bounded polls, never sleeps."""
import json
import urllib.error
import urllib.request

import pytest

from lagging_group import GROUP, cli_offsets_and_lags, make_lagging_group
from mirra_testlib import run_mirra, wait_until
from mirroring import (OPEN, STEP, TXN, describe, describe_json, mirror_held_by_open_transaction,
                       ok, watermarks_of)
from prometheus_text import http_port
from share_raw import alter_share_offsets, create_topic, produce

# The fields of a partition row that do not move between two calls once the mirror has
# settled (rates, round trips and lag in ms do).
STABLE = ("mirror", "topic", "topicId", "partition", "state", "sourceLogStartOffset",
          "sourceHighWatermark", "destinationLogEndOffset", "lag", "lastMirroredOffset",
          "retries", "lastError")


def get(broker, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{http_port(broker)}{path}",
                                timeout=STEP) as r:
        return r.status, r.headers["Content-Type"], r.read()


def get_json(broker, path):
    status, content_type, body = get(broker, path)
    assert (status, content_type) == (200, "application/json"), (status, content_type)
    return json.loads(body)


def stable(row):
    return {k: row[k] for k in STABLE}


def mirror_rows(dst, name="dr"):
    mirrors = {m["name"]: m for m in get_json(dst, "/v1/mirrors")["mirrors"]}
    return mirrors[name]


def history_of(dst, name="dr"):
    h = get_json(dst, "/v1/history")
    assert h["intervalMs"] == 1000
    return next((m["points"] for m in h["mirrors"] if m["mirror"] == name), [])


def mirror_of_topic(broker, topic):
    return next(t["mirror"] for t in get_json(broker, "/v1/topics")["topics"]
                if t["topic"] == topic)


def test_api_shows_what_the_cli_describes(make_broker, tmp_path):
    topic = "watched"
    src = make_broker(TXN, name="source")
    dst = make_broker({"http.listeners": "http://127.0.0.1:0", **TXN}, name="destination")
    assert get_json(dst, "/v1/mirrors") == {"mirrors": []}
    txn = mirror_held_by_open_transaction(src, dst, tmp_path, topic)
    source_hw = watermarks_of(src.bootstrap, topic, 2)

    # /v1/mirrors: the CLI's rows, grouped under the mirror.
    m = mirror_rows(dst)
    assert m["error"] is None and m["sourceBootstrapServers"] == src.bootstrap
    assert m["partitionsByState"] == {"MIRRORING": 2}
    assert sorted(map(stable, m["partitions"]), key=lambda r: r["partition"]) == \
        sorted(map(stable, describe(dst)), key=lambda r: r["partition"])
    cli_sync = {r["kind"] for r in describe_json(dst) if r.get("type") == "sync"}
    assert {r["kind"] for r in m["sync"]} == cli_sync == \
        {"topics", "configs", "partitions", "groups", "share-groups", "acls"}

    # /v1/topics: the mirror topic with its id and offsets.
    topics = {t["topic"]: t for t in get_json(dst, "/v1/topics")["topics"]}
    t = topics[topic]
    assert t["mirror"] == "dr" and t["internal"] is False
    assert t["topicId"] == m["partitions"][0]["topicId"]
    by_partition = {p["partition"]: p for p in t["partitions"]}
    assert by_partition[0]["logEndOffset"] == source_hw[0] - OPEN
    assert by_partition[1]["logEndOffset"] == source_hw[1]
    assert all(p["sizeBytes"] > 0 and p["online"] for p in t["partitions"])

    # /v1/history: a point a second, with the lag and the loss of the open transaction.
    wait_until(lambda: len(history_of(dst)) >= 3, STEP, "three points of lag history")
    points = history_of(dst)
    assert [p["timeMs"] for p in points] == sorted(p["timeMs"] for p in points)
    assert (points[-1]["lag"], points[-1]["lossRecords"]) == (OPEN, OPEN)

    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--remove", "--mirror", "dr",
                 "--topic", topic))
    wait_until(lambda: mirror_rows(dst)["partitionsByState"] == {"STOPPED": 2}, STEP,
               "both partitions STOPPED in /v1/mirrors")
    wait_until(lambda: history_of(dst)[-1]["lossRecords"] == 0, STEP,
               "no loss in the history after the failover")
    # A failed-over topic stays the mirror's until the mirror is deleted; then it is an
    # ordinary topic, and the mirror and its history are gone.
    assert mirror_of_topic(dst, topic) == "dr"
    ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--delete", "--mirror", "dr"))
    assert get_json(dst, "/v1/mirrors") == {"mirrors": []}
    assert mirror_of_topic(dst, topic) is None
    wait_until(lambda: history_of(dst) == [], STEP, "the deleted mirror's history to go")
    txn.abort_transaction(STEP)


def test_share_groups_show_their_start_offsets_and_lag(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0"}, name="share-groups")
    create_topic(b.port, "shared", partitions=1)
    produce(b.bootstrap, "shared", 9)
    assert alter_share_offsets(b.port, "queue", "shared", {0: 4})["error_code"] == 0
    groups = {g["group"]: g for g in get_json(b, "/v1/groups")["groups"]}
    assert groups["queue"] == {"group": "queue", "type": "share", "state": "Empty", "members": 0,
                               "offsets": [{"topic": "shared", "partition": 0, "startOffset": 4,
                                            "lag": 5}]}


def test_groups_show_the_lag_of_the_groups_cli(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0"}, name="groups")
    topic = "lagging"
    make_lagging_group(b, topic)
    cli = cli_offsets_and_lags(b, topic)
    groups = {g["group"]: g for g in get_json(b, "/v1/groups")["groups"]}
    g = groups[GROUP]
    assert (g["state"], g["members"]) == ("Empty", 0)
    api = {str(o["partition"]): (o["currentOffset"], o["lag"]) for o in g["offsets"]
           if o["topic"] == topic}
    assert api == cli == {"0": (4, 11), "1": (11, 4)}
    assert {o["logEndOffset"] for o in g["offsets"]} == {15}
    internal = {t["topic"]: t["internal"] for t in get_json(b, "/v1/topics")["topics"]}
    assert internal[topic] is False and internal["__consumer_offsets"] is True


@pytest.mark.parametrize("path,content_type,marker", [
    ("/", "text/html; charset=utf-8", b"/console.js"),
    ("/console.js", "text/javascript; charset=utf-8", b"/v1/mirrors"),
    ("/console.css", "text/css; charset=utf-8", b"{"),
    ("/uplot.js", "text/javascript; charset=utf-8", b"uPlot"),
    ("/uplot.css", "text/css; charset=utf-8", b".uplot"),
    ("/licenses/uplot.txt", "text/plain; charset=utf-8", b"MIT"),
])
def test_console_files_are_served_from_the_binary(make_broker, path, content_type, marker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0"}, name="console")
    status, got_type, body = get(b, path)
    assert (status, got_type) == (200, content_type)
    assert marker in body


def test_unknown_api_path_is_404(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0"}, name="api404")
    with pytest.raises(urllib.error.HTTPError) as e:
        get(b, "/v1/nothing")
    assert e.value.code == 404
