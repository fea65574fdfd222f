"""The README's main job, scripts/demo.sh, runs to the end against this build: two brokers, a
mirror whose lag reaches 0, writes to the mirror refused, a failover, and every record there;
and, held at the end as it is from a terminal, its web console stays up until Enter."""
import json
import os
import re
import subprocess
import urllib.request
from pathlib import Path

from conftest import MIRRA

DEMO = Path(__file__).resolve().parents[2] / "scripts" / "demo.sh"


def test_demo_mirrors_and_fails_over(tmp_path):
    env = dict(os.environ, MIRRA_BIN=MIRRA, MIRRA_DEMO_DIR=str(tmp_path / "demo"))
    r = subprocess.run([str(DEMO)], capture_output=True, text=True, timeout=180, env=env)
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:])
    out = r.stdout
    assert "lag 0: the destination holds every record" in out
    # The destination's /metrics, as Prometheus would scrape it, agrees.
    assert 'mirra_mirror_partitions{mirror="demo",state="MIRRORING"} 3' in out
    assert 'mirra_mirror_failover_loss_records{mirror="demo"} 0' in out
    assert "writing to the mirror topic is refused" in out and "is read-only" in out
    assert "failed over and is writable" in out
    assert "now holds 40001 records" in out and out.rstrip().endswith("demo finished")
    # Its brokers end with it (the demo waits for them at exit).
    left = subprocess.run(["pgrep", "-f", str(tmp_path / "demo")], capture_output=True,
                          text=True)
    assert left.stdout == "", f"brokers still running: {left.stdout}"


def test_demo_holds_its_console_until_enter(tmp_path):
    env = dict(os.environ, MIRRA_BIN=MIRRA, MIRRA_DEMO_DIR=str(tmp_path / "demo"),
               MIRRA_DEMO_HOLD="1")
    demo = subprocess.Popen([str(DEMO)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        console = None
        # Reads the demo's output line by line until it says it holds (the demo's own bounded
        # waits end it otherwise, and the timeout below stops a stuck one).
        for line in demo.stdout:
            if m := re.search(r"web console: (http://127\.0\.0\.1:\d+)/ ", line):
                console = m.group(1)
            if "press Enter or Ctrl-C to stop" in line:
                break
        else:
            raise AssertionError(f"the demo ended without holding: {demo.wait(10)}, "
                                 f"{demo.stderr.read()[-3000:]}")
        assert console is not None
        with urllib.request.urlopen(console + "/", timeout=10) as r:
            assert r.status == 200 and b"/console.js" in r.read()
        with urllib.request.urlopen(console + "/v1/mirrors", timeout=10) as r:
            mirrors = json.loads(r.read())["mirrors"]
        assert [(m["name"], m["partitionsByState"]) for m in mirrors] == \
            [("demo", {"STOPPED": 3})]
        demo.stdin.write("\n")
        demo.stdin.flush()
        assert demo.wait(timeout=60) == 0
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
