"""The README's main job, scripts/demo.sh, runs to the end against this build: two brokers, a
mirror whose lag reaches 0, writes to the mirror refused, a failover, and every record there."""
import os
import subprocess
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
