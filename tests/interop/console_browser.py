"""Headless Chromium for the web console's test (test_console.py; docs/observability.md): runs
tests/interop/node/console_browser.mjs (puppeteer-core) and sends it one JSON command per line.
The test does the Kafka side and the waiting; the browser only opens the page, evaluates
expressions in it, takes screenshots and reports what went wrong in the page."""
import json
import os
import queue
import subprocess
import threading
from pathlib import Path

from mirra_testlib import ROOT

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
NODE = "/usr/bin/node"
STEP = 60  # seconds for one command (launching Chromium on a busy 2-core machine included)


class Browser:
    def __init__(self):
        # Missing Chromium fails the test: scripts/install-deps.sh installs it.
        assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} missing: run scripts/install-deps.sh"
        self.p = subprocess.Popen([NODE, str(HERE / "node" / "console_browser.mjs")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                  env=dict(os.environ, CHROMIUM=CHROMIUM))
        self.answers = queue.Queue()
        self.err = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.answers.put(line)
        self.answers.put(None)

    def _pump_err(self):
        for line in self.p.stderr:
            self.err.append(line.rstrip("\n"))

    def call(self, cmd, timeout=STEP, **args):
        self.p.stdin.write(json.dumps(dict(args, cmd=cmd)) + "\n")
        self.p.stdin.flush()
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"browser: no answer to {cmd} in {timeout}s; stderr:\n"
                                 + "\n".join(self.err[-20:])) from None
        assert line is not None, (f"browser exited (code {self.p.poll()}) on {cmd}; stderr:\n"
                                  + "\n".join(self.err[-40:]))
        a = json.loads(line)
        assert a["ok"], f"browser {cmd} {args} failed:\n{a['error']}"
        return a["value"]

    def open(self, url, width=1366, height=768):
        return self.call("open", url=url, width=width, height=height)

    def eval(self, expr):
        return self.call("eval", expr=expr)

    def screenshot(self, path):
        return self.call("screenshot", path=str(path))

    def problems(self):
        return self.call("problems")

    def close(self):
        try:
            if self.p.poll() is None:
                self.call("close")
                self.p.stdin.close()
                self.p.wait(STEP)
        finally:
            if self.p.poll() is None:
                self.p.kill()
                self.p.wait()
