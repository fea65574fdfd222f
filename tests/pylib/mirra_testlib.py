"""Helpers shared by the Python process tests (tests/server, tests/interop, tests/cli).

- `Broker`: one `mirra server` on a loopback port with its own data directory. Its output is
  collected by a thread; `wait_for(pattern)` / `mark()` wait on log lines. `start()` may be
  called again after `stop()` (SIGTERM, returns the exit code) or `kill()` (SIGKILL): same
  data directory, same port. `restart()` is a clean stop (exit 0) and a start.
- pytest hooks `pytest_runtest_setup` / `pytest_runtest_makereport`: a conftest.py that
  imports them gets the log tail of every broker a failing test used (created, started or
  running during it) appended to the failure report.
- `make_broker`: a fixture factory of own brokers, each of which must exit 0 at the end.
- raw Kafka wire helpers: `request`, `frame`, `connect`, `read_response`, `wait_closed`, ...
- `run_mirra` (one `mirra` command to completion) and `assert_one_line_error`.

Every wait is bounded and waits for a condition (a log line, a process exit, a socket becoming
readable), never for a fixed time.

The conftest.py of each test directory puts this directory on sys.path. Its mock_cluster.py
runs librdkafka's mock cluster (tests/tools/mock_cluster) for tests/cli and tests/interop.
"""
import os
import re
import signal
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("MIRRA_ROOT", Path(__file__).resolve().parents[2])).resolve()
MIRRA = os.path.abspath(os.environ.get("MIRRA_BIN", str(ROOT / "build" / "mirra")))
EVENT_TIMEOUT = 15.0  # seconds for any single expected event of a broker process
WIRE_TIMEOUT = 10.0   # seconds for any single socket operation of the raw wire helpers

LISTENING = r"listening on PLAINTEXT://127\.0\.0\.1:(\d+)"
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


def listening(name):
    """The broker's log line for its listener `name`, with the bound port as group 1."""
    return r"listening on " + re.escape(name) + r"://127\.0\.0\.1:(\d+)"


def parse_listeners(listeners):
    """{name: (protocol or None, port)} of a `listeners` argument of Broker: a dict name ->
    security protocol (each on 127.0.0.1, port 0 at the first start), or a raw `listeners`
    value "NAME://127.0.0.1:PORT,..." (its protocols come from the broker's map)."""
    if isinstance(listeners, dict):
        return {name: (proto, 0) for name, proto in listeners.items()}
    out = {}
    for item in listeners.split(","):
        m = re.fullmatch(r"\s*([A-Za-z0-9_]+)://127\.0\.0\.1:(\d+)\s*", item)
        assert m, f"listener {item!r}: the tests bind NAME://127.0.0.1:PORT only"
        out[m.group(1)] = (None, int(m.group(2)))
    return out
PROBLEM = re.compile(r" (WARN|ERROR) ")

_ALL_BROKERS = []       # every Broker made in this session
_BROKERS_OF_TEST = []   # brokers made or started while the current test runs


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


def run_mirra(*args, input=None, timeout=30.0, cwd=None):
    """Runs `mirra <args>` to completion; returns the CompletedProcess (text mode)."""
    return subprocess.run([MIRRA, *args], input=input, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def succeeded(r):
    """The stdout of a finished `mirra` command, which must have exited 0."""
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def table_rows(out, first="GROUP"):
    """The data rows of a table the CLI printed (whitespace-split), its header checked to start
    with `first`."""
    lines = [line for line in out.splitlines() if line.strip()]
    if not lines:
        return []
    assert lines[0].split()[0] == first, out
    return [line.split() for line in lines[1:]]


def assert_one_line_error(r, *fragments):
    """Exit code 1 and exactly one line on stderr containing every fragment."""
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


# --- the broker process ------------------------------------------------------------------------

class Broker:
    """One `mirra server`: `--override listeners=PLAINTEXT://127.0.0.1:<port>` (0 at the first
    start, the same port afterwards), `--override log.dirs=<workdir>/data`, then `overrides`
    ({key: value}) and `args` (more command-line arguments). `config_text` is written to
    <workdir>/server.properties and given as the config file. `timeout` bounds every wait.

    `listeners` (None: the one PLAINTEXT listener above) is a dict name -> security protocol
    ({"PLAINTEXT": "PLAINTEXT", "CLIENT": "SASL_SSL"}; names other than the protocols' own add
    `listener.security.protocol.map`) or a raw `listeners` value. `ports` maps each listener
    name to its bound port (from the broker's "listening on NAME://..." lines; kept across
    restarts); `port` / `bootstrap` are those of PLAINTEXT if there is one, else of the first
    listener; `bootstrap_of(name)` of any."""

    def __init__(self, workdir, overrides=None, name="broker", args=(), config_text=None,
                 timeout=EVENT_TIMEOUT, env=None, listeners=None):
        self.workdir = Path(workdir)
        self.env = dict(env or {})  # added to the environment of each start (MIRRA_FAILPOINTS)
        self.data_dir = self.workdir / "data"
        self.overrides = dict(overrides or {})
        self.extra_args = list(args)
        self.config_file = None
        if config_text is not None:
            self.config_file = self.workdir / "server.properties"
            self.config_file.write_text(config_text)
        self.name = name
        self.timeout = timeout
        self.port = None
        self.listeners = None if listeners is None else parse_listeners(listeners)
        self.ports = {}
        self.proc = None
        self.lines = []          # every line of every run, each run after a marker line
        self._markers = set()    # indices of the marker lines (not broker output)
        self.run_mark = 0        # index of the first line of the current run
        self.cond = threading.Condition()
        self.runs = 0
        self._eof = None
        _ALL_BROKERS.append(self)
        _BROKERS_OF_TEST.append(self)

    # --- life cycle ------------------------------------------------------------------------

    def command(self, port):
        args = [MIRRA, "server"]
        if self.config_file is not None:
            args.append(str(self.config_file))
        if self.listeners is None:
            listeners = f"PLAINTEXT://127.0.0.1:{port}"
        else:
            listeners = ",".join(f"{n}://127.0.0.1:{self.ports.get(n, p)}"
                                 for n, (_, p) in self.listeners.items())
        args += ["--override", f"listeners={listeners}",
                 "--override", f"log.dirs={self.data_dir}"]
        if self.listeners is not None and any(proto is not None and proto != n
                                              for n, (proto, _) in self.listeners.items()):
            pmap = ",".join(f"{n}:{proto}" for n, (proto, _) in self.listeners.items())
            args += ["--override", f"listener.security.protocol.map={pmap}"]
        for k, v in self.overrides.items():
            args += ["--override", f"{k}={v}"]
        return args + self.extra_args

    def start(self, timeout=None):
        """Starts the process and waits for its "listening on" line of every listener; returns
        self."""
        assert not self.running(), f"{self.name} already running"
        timeout = self.timeout if timeout is None else timeout
        port = self.port if self.port is not None else 0
        args = self.command(port)
        if self not in _BROKERS_OF_TEST:
            _BROKERS_OF_TEST.append(self)
        deadline = time.monotonic() + timeout
        while True:
            self.runs += 1
            with self.cond:
                self._markers.add(len(self.lines))
                self.lines.append(f"----- {self.name} run {self.runs}: {' '.join(args)}")
                self.run_mark = len(self.lines)
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         text=True, errors="replace", cwd=self.workdir,
                                         env={**os.environ, **self.env})
            self._eof = threading.Event()
            threading.Thread(target=self._read, args=(self.proc, self._eof), daemon=True).start()
            try:
                bound = {n: int(self.wait_for(listening(n),
                                              timeout=max(0.1, deadline - time.monotonic()),
                                              start=self.run_mark).group(1))
                         for n in self.listener_names()}
                break
            except AssertionError:
                # A restart on a fixed port: the previous run's port can linger for a moment.
                if port and self.proc.poll() is not None and time.monotonic() < deadline \
                        and re.search(r"(?i)in use", self.log(self.run_mark)):
                    time.sleep(0.05)  # polling interval while the port is still held
                    continue
                raise
        self.ports = bound
        names = self.listener_names()
        self.port = bound["PLAINTEXT" if "PLAINTEXT" in bound else names[0]]
        return self

    def listener_names(self):
        return ["PLAINTEXT"] if self.listeners is None else list(self.listeners)

    def bootstrap_of(self, listener):
        """"127.0.0.1:<port>" of the listener named `listener`."""
        assert listener in self.ports, f"{self.name} has no listener {listener}: {self.ports}"
        return f"127.0.0.1:{self.ports[listener]}"

    def _read(self, proc, eof):
        for line in proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            eof.set()
            self.cond.notify_all()

    def stop(self, timeout=None):
        """SIGTERM and wait; returns the exit code (None if it was never started). A process
        still running `timeout` seconds after SIGTERM is killed and fails the caller."""
        timeout = self.timeout if timeout is None else timeout
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
        """SIGKILL: no chance to flush anything. Returns the exit code (-9)."""
        assert self.running(), f"{self.name} not running"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(self.timeout)
        return self.proc.returncode

    def restart(self):
        """A clean stop (exit code 0) and a start on the same directory and port."""
        rc = self.stop()
        assert rc == 0, f"{self.name} exited {rc} at SIGTERM:\n{self.tail()}"
        return self.start()

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    # --- log -------------------------------------------------------------------------------

    def mark(self):
        """Index of the next log line, for wait_for(..., start=mark)."""
        with self.cond:
            return len(self.lines)

    def wait_for(self, pattern, timeout=None, start=0):
        """The first match of `pattern` in a line the broker logged at index >= `start`. Fails
        when the current run exited without logging it, or after `timeout` seconds."""
        timeout = self.timeout if timeout is None else timeout
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        i = start
        with self.cond:
            while True:
                while i < len(self.lines):
                    m = None if i in self._markers else rx.search(self.lines[i])
                    i += 1
                    if m:
                        return m
                if self._eof is not None and self._eof.is_set() and start >= self.run_mark:
                    raise AssertionError(f"{self.name} exited (code {self.proc.poll()}) before "
                                         f"logging /{pattern}/; log tail:\n{self.tail()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name}: no log line /{pattern}/ within "
                                         f"{timeout}s; log tail:\n{self.tail()}")
                self.cond.wait(min(left, 0.2))

    def log(self, start=0):
        with self.cond:
            return "\n".join(self.lines[start:])

    def tail(self, n=60):
        with self.cond:
            return "\n".join(self.lines[-n:])

    def problems(self, start=0):
        """The WARN and ERROR lines the broker logged from index `start` on."""
        with self.cond:
            return [l for i, l in enumerate(self.lines[start:], start)
                    if i not in self._markers and PROBLEM.search(l)]


def stop_cleanly(b, no_problems=False, what="while serving"):
    """SIGTERM must end `b` with exit code 0; with `no_problems`, it must also not have logged
    a WARN or ERROR line (e.g. well-behaved clients never make it close a connection)."""
    rc = b.stop()
    assert rc == 0, f"{b.name} exited {rc} at SIGTERM:\n{b.tail()}"
    if no_problems:
        bad = b.problems()
        assert not bad, f"{b.name} warned {len(bad)} time(s) {what}:\n" + "\n".join(bad[:30])


def in_use(b):
    """`b` (e.g. a module-scoped broker) is still running; returns it."""
    assert b.running(), f"{b.name} died:\n{b.tail()}"
    return b


@pytest.fixture
def make_broker(tmp_path_factory):
    """Factory: make_broker(overrides={...}, name=..., start=True, **Broker kwargs) -> a
    (started) Broker; all are stopped at the end and each must then exit 0 (a crash or a hang
    at shutdown fails the test)."""
    made = []

    def make(overrides=None, name="broker", start=True, **kwargs):
        b = Broker(tmp_path_factory.mktemp(name), overrides, name=name, **kwargs)
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


# --- failure reports: the broker's side of the story -------------------------------------------

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _BROKERS_OF_TEST.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if not rep.failed:
        return
    seen = set()
    for b in _BROKERS_OF_TEST + [b for b in _ALL_BROKERS if b.running()]:
        if id(b) not in seen:
            seen.add(id(b))
            rep.sections.append((f"{b.name} log (last 80 lines)", b.tail(80)))


# --- raw Kafka wire ----------------------------------------------------------------------------

def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_uvarint(buf, pos):
    """(value, position after it)"""
    n = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, pos
        shift += 7


def frame(payload):
    """A size-prefixed frame."""
    return struct.pack(">i", len(payload)) + payload


def request(key, version, corr, body=b"", client="pytest", flexible=False):
    """A framed request: header v1 (key, version, correlation id, client id), or header v2
    (v1 plus an empty tagged-field section) if `flexible`, then `body`."""
    header = struct.pack(">hhih", key, version, corr, len(client)) + client.encode()
    return frame(header + (b"\x00" if flexible else b"") + body)


def connect(port, timeout=WIRE_TIMEOUT):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def local_address(sock):
    """"127.0.0.1:port" of our end: how the broker names this peer in its log."""
    return "127.0.0.1:%d" % sock.getsockname()[1]


def recv_exact(sock, n, timeout=WIRE_TIMEOUT):
    sock.settimeout(timeout)
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_response(sock, timeout=WIRE_TIMEOUT):
    """One response frame's payload (without the size)."""
    (size,) = struct.unpack(">i", recv_exact(sock, 4, timeout))
    return recv_exact(sock, size, timeout)


def round_trip(port, data, timeout=WIRE_TIMEOUT):
    """Sends `data` (one framed request) on a new connection; returns the response payload."""
    with connect(port, timeout) as s:
        s.sendall(data)
        return read_response(s, timeout)


def wait_closed(sock, timeout=WIRE_TIMEOUT):
    """True once the peer closes (EOF or reset); reads and drops any data first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False
    return False


def closed_connection_log(peer, pattern):
    """A regex of the broker's log line for closing `peer`'s connection (any peer if None; it
    is group 1) with a reason matching `pattern`."""
    who = r"\S+" if peer is None else re.escape(peer)
    return r"closing connection \d+ from (" + who + r"): .*" + pattern
