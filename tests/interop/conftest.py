"""Shared fixtures of the broker interop suite (tests/interop).

`Broker` runs one `mirra server` process on a free loopback port with its own data directory,
collects everything it logs, and can be stopped with SIGTERM, killed with SIGKILL, and started
again on the same directory and port. Every wait is bounded and waits for a condition (a log
line, a process exit, a client answer), never for a fixed time.

When a test fails, the log of every broker it used is appended to the failure report, so a
client-side symptom comes with the broker's side of the story.
"""
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("MIRRA_ROOT", HERE.parent.parent)).resolve()
MIRRA = os.path.abspath(os.environ.get("MIRRA_BIN", str(ROOT / "build" / "mirra")))
EVENT_TIMEOUT = 15.0  # seconds for any single expected event

_BROKERS_OF_TEST = []  # brokers created while the current test runs (for failure reports)


def wait_until(cond, timeout, what, interval=0.02):
    """Polls `cond()` until it returns something truthy; fails naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)  # polling interval of a condition with a deadline, not a sync


class Broker:
    """One `mirra server`. `start()` may be called again after `stop()`/`kill()`: same data
    directory, same port (so clients' bootstrap addresses stay valid)."""

    def __init__(self, workdir, overrides=None, name="broker"):
        self.workdir = Path(workdir)
        self.data_dir = self.workdir / "data"
        self.overrides = dict(overrides or {})
        self.name = name
        self.port = None
        self.proc = None
        self.lines = []          # every line of every run, runs separated by a marker line
        self.cond = threading.Condition()
        self.runs = 0
        self._eof = None
        _BROKERS_OF_TEST.append(self)

    # --- life cycle ------------------------------------------------------------------------

    def start(self, timeout=EVENT_TIMEOUT):
        assert not self.running(), "broker already running"
        port = self.port if self.port is not None else 0
        args = [MIRRA, "server",
                "--override", f"listeners=PLAINTEXT://127.0.0.1:{port}",
                "--override", f"log.dirs={self.data_dir}"]
        for k, v in self.overrides.items():
            args += ["--override", f"{k}={v}"]
        deadline = time.monotonic() + timeout
        while True:
            self.runs += 1
            with self.cond:
                self.lines.append(f"----- {self.name} run {self.runs}: {' '.join(args)}")
                mark = len(self.lines)
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         text=True, errors="replace", cwd=self.workdir)
            self._eof = threading.Event()
            threading.Thread(target=self._read, args=(self.proc, self._eof), daemon=True).start()
            try:
                m = self.wait_for(r"listening on PLAINTEXT://127\.0\.0\.1:(\d+)",
                                  timeout=max(0.1, deadline - time.monotonic()), start=mark)
                break
            except AssertionError:
                # A restart on a fixed port: the previous run's port can linger for a moment.
                if port and self.proc.poll() is not None and time.monotonic() < deadline \
                        and re.search(r"(?i)in use", self.log(mark)):
                    time.sleep(0.05)  # polling interval while the port is still held
                    continue
                raise
        self.port = int(m.group(1))
        return self

    def _read(self, proc, eof):
        for line in proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            eof.set()
            self.cond.notify_all()

    def stop(self, timeout=EVENT_TIMEOUT):
        """SIGTERM and wait; returns the exit code (None if it was not running)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"{self.name} did not exit {timeout}s after SIGTERM:\n"
                                     + self.tail())
        return self.proc.returncode

    def kill(self):
        """SIGKILL: no chance to flush anything."""
        assert self.proc is not None and self.proc.poll() is None, "broker not running"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(EVENT_TIMEOUT)
        return self.proc.returncode

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    # --- log -------------------------------------------------------------------------------

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def mark(self):
        with self.cond:
            return len(self.lines)

    def wait_for(self, pattern, timeout=EVENT_TIMEOUT, start=0):
        """The first match of `pattern` in a log line at index >= `start`."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        i = start
        with self.cond:
            while True:
                while i < len(self.lines):
                    m = rx.search(self.lines[i])
                    i += 1
                    if m:
                        return m
                if self._eof is not None and self._eof.is_set() and i >= len(self.lines) \
                        and start >= self._run_mark():
                    raise AssertionError(f"{self.name} exited (code {self.proc.poll()}) before "
                                         f"logging /{pattern}/; log tail:\n{self.tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name}: no log line /{pattern}/ within "
                                         f"{timeout}s; log tail:\n{self.tail()}")
                self.cond.wait(min(left, 0.2))

    def _run_mark(self):
        """Index of the first line of the current run."""
        for i in range(len(self.lines) - 1, -1, -1):
            if self.lines[i].startswith(f"----- {self.name} run "):
                return i + 1
        return 0

    def log(self, start=0):
        with self.cond:
            return "\n".join(self.lines[start:])

    def tail(self, n=60):
        with self.cond:
            return "\n".join(self.lines[-n:])


@pytest.fixture
def make_broker(tmp_path_factory):
    """Factory: make_broker(overrides={...}) -> a started Broker; all are stopped at the end
    and each must then exit 0 (a crash or a hang at shutdown fails the test)."""
    made = []

    def make(overrides=None, name="broker", start=True):
        b = Broker(tmp_path_factory.mktemp(name), overrides, name=name)
        made.append(b)
        return b.start() if start else b

    yield make
    bad = []
    for b in made:
        if b.running():
            rc = b.stop()
            if rc != 0:
                bad.append(f"{b.name} exited {rc}:\n{b.tail()}")
    assert not bad, "\n".join(bad)


@pytest.fixture(scope="session")
def session_broker(tmp_path_factory):
    """One broker shared by the per-client tests (each test uses its own topics)."""
    b = Broker(tmp_path_factory.mktemp("shared"), {"num.partitions": 2}, name="shared-broker")
    b.start()
    yield b
    rc = b.stop()
    assert rc == 0, f"shared broker exited {rc} at SIGTERM:\n{b.tail()}"
    # Well-behaved real clients never make the broker warn (e.g. close a connection because a
    # client asked for an API without a handler).
    bad = [l for l in b.log().splitlines() if re.search(r" (WARN|ERROR) ", l)]
    assert not bad, f"the shared broker warned {len(bad)} time(s) while serving the client " \
                    "tests:\n" + "\n".join(bad[:30])


@pytest.fixture
def broker(session_broker):
    _BROKERS_OF_TEST.append(session_broker)
    assert session_broker.running(), "shared broker died:\n" + session_broker.tail()
    return session_broker


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _BROKERS_OF_TEST.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed and _BROKERS_OF_TEST:
        seen = set()
        for b in _BROKERS_OF_TEST:
            if id(b) in seen:
                continue
            seen.add(id(b))
            rep.sections.append((f"{b.name} log (last 80 lines)", b.tail(80)))


@pytest.fixture(scope="session", autouse=True)
def _node_servers():
    """The Node client processes (tests/interop/node) live for the session."""
    yield
    import clients
    clients.NodeServer.close_all()
