"""The web console (docs/observability.md) in headless Chromium, against what
`mirra mirror --describe` and `mirra groups --describe` show of the same moment.

A destination broker with an HTTP listener mirrors a two-partition topic whose source holds an
open transaction on partition 0, so that partition keeps a lag the CLI shows and a failover now
would lose the open transaction's records (as in test_metrics_mirror.py); the destination also
has a consumer group with a known lag (lagging_group.py) and one whose name is HTML. The page
must show each mirrored partition in the state and with the lag the CLI shows, a lag chart that
gains points every second, the group's lag, the group with the HTML name as text; after the
failover every partition of the topic STOPPED within a few seconds. Throughout, the page may
load only its five files and the JSON API, and must not log an error, throw, or see a request
fail.

The browser (console_browser.py, node/console_browser.mjs) only evaluates expressions in the
page; the test does the Kafka side and the waiting, with bounded polls, never sleeps.
MIRRA_CONSOLE_SCREENSHOT=<path> also saves the screenshot there, after a lag grown and caught
up so that the chart has something to show (docs/images/console.png)."""
import json
import os
from urllib.parse import urlsplit

import confluent_kafka

from console_browser import Browser
from lagging_group import GROUP, cli_offsets_and_lags, make_lagging_group
from mirra_testlib import run_mirra, wait_until
from mirroring import OPEN, STEP, TXN, describe, mirror_held_by_open_transaction, ok
from prometheus_text import http_port

TOPIC = "watched"
# A group id is any string: the page must show it as text, not run it.
HOSTILE_GROUP = '<img id="injected" src="x" onerror="document.title=\'pwned\'">'
# The page's own files and the JSON API: nothing else may be loaded.
ALLOWED = {"/", "/console.js", "/console.css", "/uplot.js", "/uplot.css",
           "/v1/mirrors", "/v1/history", "/v1/topics", "/v1/groups"}
FAILOVER_BOUND = 10  # seconds: "within a few seconds" of the failover
SCREENSHOT = os.environ.get("MIRRA_CONSOLE_SCREENSHOT")

# What the test reads of the page, as JSON-able values.
PARTITION_ROWS = """[...document.querySelectorAll('#mirror-cards tr[data-partition]')].map(r =>
    [r.dataset.mirror, r.dataset.topic, +r.dataset.partition, r.dataset.state, +r.dataset.lag])"""
POINTS = "+document.querySelector('#lag-chart').dataset.points"
UPDATED = "+(document.body.dataset.updated ?? 0)"
STATUS = "document.querySelector('#status').textContent"


def page_partitions(page):
    return sorted(tuple(r) for r in page.eval(PARTITION_ROWS))


def cli_partitions(dst):
    return sorted((r["mirror"], r["topic"], r["partition"], r["state"], r["lag"])
                  for r in describe(dst))


def card(page, mirror):
    """The mirror card's data attributes and its state badges ({state: count})."""
    return page.eval(f"""(() => {{
        const c = [...document.querySelectorAll('#mirror-cards article')]
            .find(a => a.dataset.mirror === {json.dumps(mirror)})
        return c && {{loss: +c.dataset.loss, badges: Object.fromEntries([...c.querySelectorAll(
            '.badges [data-state]')].map(b => [b.dataset.state, +b.dataset.count]))}}
    }})()""")


def group_rows(page):
    """{group: (text of the row, total lag, {(topic, partition): (offset, lag)})}."""
    return page.eval("""(() => {
        const out = {}
        for (const r of document.querySelectorAll('#groups tr.group')) {
            out[r.dataset.group] = [r.textContent, +r.dataset.lag, {}]
        }
        for (const r of document.querySelectorAll('#groups tr.offset')) {
            out[r.dataset.group][2][r.dataset.topic + '/' + r.dataset.partition] =
                [+r.dataset.offset, +r.dataset.lag]
        }
        return out
    })()""")


def topic_rows(page):
    """{topic: [mirror or "", sum of the high watermarks]}."""
    return page.eval("""Object.fromEntries([...document.querySelectorAll('#topics tbody tr')]
        .filter(r => r.dataset.topic)
        .map(r => [r.dataset.topic, [r.dataset.mirror, +r.dataset.hw]]))""")


def test_console_shows_mirror_groups_and_failover(make_broker, tmp_path):
    src = make_broker(TXN, name="source")
    dst = make_broker({"http.listeners": "http://127.0.0.1:0", **TXN}, name="destination")
    txn = mirror_held_by_open_transaction(src, dst, tmp_path, TOPIC)
    make_lagging_group(dst, "lagging")
    cli_groups = cli_offsets_and_lags(dst, "lagging")
    assert cli_groups == {"0": (4, 11), "1": (11, 4)}, cli_groups
    c = confluent_kafka.Consumer({"bootstrap.servers": dst.bootstrap, "group.id": HOSTILE_GROUP})
    c.commit(offsets=[confluent_kafka.TopicPartition("lagging", 0, 1)], asynchronous=False)
    c.close()

    port = http_port(dst)
    page = Browser()
    try:
        page.open(f"http://127.0.0.1:{port}/")
        wait_until(lambda: page.eval(UPDATED) >= 2, STEP, "two successful refreshes")
        assert page.eval("document.querySelector('#broker').textContent") == f"127.0.0.1:{port}"
        assert page.eval(STATUS).startswith("updated "), page.eval(STATUS)

        # Every mirrored partition in the CLI's state with the CLI's lag.
        cli = cli_partitions(dst)
        assert [r[1:] for r in cli] == [(TOPIC, 0, "MIRRORING", OPEN), (TOPIC, 1, "MIRRORING", 0)]
        wait_until(lambda: page_partitions(page) == cli, STEP,
                   f"the page to show the partitions as describe does: {cli}")
        wait_until(lambda: card(page, "dr") == {"loss": OPEN, "badges": {"MIRRORING": 2}}, STEP,
                   "the mirror card with 2 MIRRORING and a failover loss of the open records")

        # The chart draws the history and gains a point per second.
        first = wait_until(lambda: page.eval(POINTS), STEP, "points in the lag chart")
        wait_until(lambda: page.eval(POINTS) > first, STEP, "more points in the lag chart")
        assert page.eval("document.querySelectorAll('#lag-chart canvas').length") == 1

        # Groups: the total and each partition as the groups CLI shows them.
        want = {f"lagging/{p}": [off, lag] for p, (off, lag) in cli_groups.items()}
        wait_until(lambda: GROUP in group_rows(page) and group_rows(page)[GROUP][1:] ==
                   [sum(lag for _, lag in cli_groups.values()), want], STEP,
                   f"group {GROUP} with the CLI's lags {cli_groups}")
        # The HTML group name is text in its row, never markup.
        wait_until(lambda: HOSTILE_GROUP in group_rows(page), STEP, "the HTML-named group")
        assert HOSTILE_GROUP in group_rows(page)[HOSTILE_GROUP][0]
        assert page.eval("document.getElementById('injected') === null && "
                         "document.title === 'Mirra console'")

        topics = topic_rows(page)
        assert topics[TOPIC][0] == "dr" and topics["lagging"] == ["", 30], topics

        if SCREENSHOT:
            readme_view(src, dst, page, txn)
        page.screenshot(tmp_path / "console.png")
        if SCREENSHOT:
            page.screenshot(SCREENSHOT)

        # Failover: the page follows within a few seconds.
        ok(run_mirra("mirror", "--bootstrap-server", dst.bootstrap, "--remove", "--mirror", "dr",
                     "--topic", TOPIC))
        wait_until(lambda: {r[3] for r in page_partitions(page) if r[1] == TOPIC} == {"STOPPED"},
                   FAILOVER_BOUND, "the page to show both partitions STOPPED")
        wait_until(lambda: page_partitions(page) == cli_partitions(dst), STEP,
                   "the page to show the partitions as describe does after the failover")
        wait_until(lambda: card(page, "dr") == {"loss": 0, "badges": {"STOPPED": 2}}, STEP,
                   "the mirror card with 2 STOPPED and nothing to lose")
        page.screenshot(tmp_path / "console-stopped.png")

        assert page.eval(STATUS).startswith("updated "), page.eval(STATUS)
        problems = page.problems()
    finally:
        page.close()
    assert problems["console"] == [], problems["console"]
    assert problems["pageErrors"] == [], problems["pageErrors"]
    assert problems["failed"] == [], problems["failed"]
    paths = {urlsplit(u).path for u in problems["urls"]}
    assert paths <= ALLOWED, paths - ALLOWED
    assert {"/", "/console.js", "/console.css", "/uplot.js", "/uplot.css"} <= paths, paths
    if not SCREENSHOT:  # readme_view() aborted it
        txn.abort_transaction(STEP)


def readme_view(src, dst, page, txn):
    """For the README's screenshot: records written to partition 0 for 15 seconds (a few dozen
    per point of the chart) pile up behind the open transaction, which is then aborted: the
    chart shows the lag growing and the mirror catching up. The HTML-named group is deleted
    and the other one's partitions shown."""
    ok(run_mirra("groups", "--bootstrap-server", dst.bootstrap, "--delete", "--group",
                 HOSTILE_GROUP))
    page.eval(f"document.querySelector('#groups tr.group[data-group={GROUP}] button').click()")
    p = confluent_kafka.Producer({"bootstrap.servers": src.bootstrap, "linger.ms": 5})
    for n in (20, 35, 15, 40, 60, 30, 45, 70, 25, 50, 80, 40, 65, 90, 55):
        points = page.eval(POINTS)
        for _ in range(n):
            p.produce(TOPIC, b"r" * 100, partition=0)
        assert p.flush(STEP) == 0
        wait_until(lambda: page.eval(POINTS) > points, STEP, "the next point of the chart")
    txn.abort_transaction(STEP)
    wait_until(lambda: {(r["partition"], r["lag"]) for r in describe(dst)} == {(0, 0), (1, 0)},
               STEP, "the mirror to catch up once the transaction is aborted")
    # The history's last point too (it is sampled once a second).
    wait_until(lambda: card(page, "dr")["loss"] == 0, STEP, "the chart to show the catch-up")
    assert list(group_rows(page)) == [GROUP]
    assert page.eval("[...document.querySelectorAll('#groups tr.offset')].every(r => !r.hidden)")
