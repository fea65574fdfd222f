"""`mirra mirror --describe --watch` (docs/mirroring.md "Watch it") against real brokers: piped,
the frames follow one another with the describe table of the mirror's partitions and show a
change on the source as it happens; under a pty, each frame clears the screen and the cursor is
hidden, then shown again at exit; SIGINT and SIGTERM end it with exit code 0; a broker that goes
away or an unknown mirror is an error in the frame, and watching goes on; bad options are one
line and exit code 1. Every wait is bounded and waits on the command's output or exit."""
import os
import pty
import re
import signal
import subprocess
import threading
import time

import pytest

from conftest import MIRRA, TIMEOUT, Broker, assert_one_line_error, mirra
from mirra_testlib import make_broker  # noqa: F401 (fixture)

CLEAR = "\x1b[H\x1b[2J"
HIDE_CURSOR = "\x1b[?25l"
SHOW_CURSOR = "\x1b[?25h"
# A frame's first line: the time (UTC, as the broker's log shows it), the broker, the interval.
HEADER = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z  (\S+)  "
                    r"every (\S+), Ctrl-C to quit\r?$", re.M)
EXIT_TIMEOUT = 10  # seconds from the signal to the exit


def ok(r):
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


class Watch:
    """A running `mirra mirror --describe --watch`; its output collected by a thread, on a pipe
    or on a pty."""

    def __init__(self, broker, *args, tty=False):
        self.cond = threading.Condition()
        self.text = ""
        self.eof = False
        cmd = [MIRRA, "mirror", "--bootstrap-server", broker.bootstrap, "--describe", "--watch",
               *args]
        if tty:
            master, slave = pty.openpty()
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave,
                                         stderr=subprocess.PIPE)
            os.close(slave)
            read = lambda: os.read(master, 65536)  # noqa: E731
            self._close = lambda: os.close(master)  # noqa: E731
        else:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE)
            read = lambda: self.proc.stdout.read1(65536)  # noqa: E731
            self._close = self.proc.stdout.close
        threading.Thread(target=self._read, args=(read,), daemon=True).start()

    def _read(self, read):
        while True:
            try:
                chunk = read()
            except OSError:  # EIO: the pty's last writer is gone
                chunk = b""
            with self.cond:
                if not chunk:
                    self.eof = True
                    self.cond.notify_all()
                    return
                self.text += chunk.decode(errors="replace")
                self.cond.notify_all()

    def wait(self, cond, what, timeout=TIMEOUT):
        """Waits for new output until `cond(text)` is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                v = cond(self.text)
                if v:
                    return v
                left = deadline - time.monotonic()
                if left <= 0 or self.eof:
                    raise AssertionError(f"no {what} within {timeout}s; exit code "
                                         f"{self.proc.poll()}; output:\n{self.text[-3000:]}")
                self.cond.wait(left)

    def frames(self, text=None):
        """The complete frames so far (a frame is complete once the next one begins), each
        from its header line on."""
        text = self.text if text is None else text
        starts = [m.start() for m in HEADER.finditer(text)]
        return [text[a:b] for a, b in zip(starts, starts[1:])]

    def wait_frames(self, n, what="frames"):
        return self.wait(lambda text: len(self.frames(text)) >= n and self.frames(text),
                         f"{n} {what}")

    def wait_frame(self, pred, what, after=0):
        """The first complete frame after the first `after` ones for which pred(frame) holds."""
        return self.wait(lambda text: next((f for f in self.frames(text)[after:] if pred(f)),
                                           None), what)

    def stop(self, signo=signal.SIGINT):
        """Sends `signo`; returns (exit code, stderr) once the output has ended."""
        self.proc.send_signal(signo)
        try:
            rc = self.proc.wait(EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"no exit {EXIT_TIMEOUT}s after signal {signo}")
        self.wait(lambda _: self.eof, "end of output", EXIT_TIMEOUT)
        return rc, self.proc.stderr.read().decode()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        self.kill()
        self._close()
        self.proc.stderr.close()


@pytest.fixture
def watch():
    """watch(broker, *args, tty=False) -> a running Watch, killed at the end if still running."""
    started = []

    def start(broker, *args, tty=False):
        w = Watch(broker, *args, tty=tty)
        started.append(w)
        return w

    yield start
    for w in started:
        w.close()


@pytest.fixture
def server(tmp_path):
    s = Broker(tmp_path, timeout=TIMEOUT).start()
    yield s
    assert s.stop() == 0, s.log()


def rows(frame, topic):
    """The table's rows of `topic`: {partition: {column: value}}; none without a table."""
    lines = [line.rstrip("\r") for line in frame.splitlines()]
    header = next((i for i, line in enumerate(lines) if line.startswith("MIRROR ")), None)
    if header is None:
        return {}
    names = lines[header].split()
    out = {}
    for line in lines[header + 1:]:
        cells = line.split()
        if len(cells) >= len(names) and cells[1] == topic:
            out[int(cells[2])] = dict(zip(names, cells))
    return out


def source_hw(frame, partition):
    return rows(frame, "orders").get(partition, {}).get("SOURCE-HW")


def produce(broker, topic, partition, count, tag):
    ok(mirra("produce", "--bootstrap-server", broker.bootstrap, "--topic", topic,
             "--partition", str(partition), input="".join(f"{tag}-{i}\n" for i in range(count))))


def test_piped_frames_follow_the_mirror_until_sigint(make_broker, watch, tmp_path):  # noqa: F811
    src = make_broker(name="source")
    dst = make_broker(name="destination")
    ok(mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", "orders",
             "--partitions", "2"))
    produce(src, "orders", 0, 5, "first")
    cfg = tmp_path / "dr.properties"
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\n")
    ok(mirra("mirror", "--bootstrap-server", dst.bootstrap, "--create", "--mirror", "dr",
             "--mirror-config", str(cfg)))
    ok(mirra("mirror", "--bootstrap-server", dst.bootstrap, "--add", "--mirror", "dr",
             "--topic", "orders"))

    w = watch(dst, "--mirror", "dr", "--interval-ms", "200")
    frames = w.wait_frames(3)
    for frame in frames:
        header = HEADER.match(frame)
        assert header and header.groups() == (dst.bootstrap, "0.2s"), frame
        # Piped: no escapes; the header, a blank line, the table; a blank line before the next.
        assert "\x1b" not in frame and frame.splitlines()[1] == "", frame
        assert set(rows(frame, "orders")) == {0, 1}, frame
        assert frame.endswith("\n\n"), frame
    assert w.text.startswith(frames[0])  # no blank line before the first frame

    w.wait_frame(lambda f: source_hw(f, 0) == "5", "SOURCE-HW 5")
    seen = len(w.frames())
    produce(src, "orders", 0, 3, "more")
    grown = w.wait_frame(lambda f: source_hw(f, 0) == "8", "SOURCE-HW 8", after=seen)
    assert rows(grown, "orders")[1]["SOURCE-HW"] == "0", grown
    rc, err = w.stop(signal.SIGINT)
    assert rc == 0 and err == "", (rc, err)
    assert "\x1b" not in w.text  # no show-cursor either: it was never hidden


def test_on_a_terminal_the_screen_is_cleared_and_the_cursor_restored(server, watch):
    w = watch(server, "--interval-ms", "100", tty=True)
    w.wait(lambda text: text.count(CLEAR) >= 3, "3 cleared frames")
    assert w.text.startswith(HIDE_CURSOR + CLEAR), repr(w.text[:80])
    first = w.text.split(CLEAR)[1]
    assert HEADER.match(first) and "MIRROR " in first, repr(first)
    rc, err = w.stop(signal.SIGTERM)
    assert rc == 0 and err == "", (rc, err)
    assert w.text.endswith(SHOW_CURSOR), repr(w.text[-80:])


def test_errors_are_shown_and_watching_goes_on(server, watch):
    # An unknown mirror: every frame says so (it may be created meanwhile).
    w = watch(server, "--mirror", "nope", "--interval-ms", "100")
    for frame in w.wait_frames(2):
        assert "error: mirror nope: mirror 'nope' does not exist" in frame, frame
        assert "MIRROR " not in frame, frame
    rc, _ = w.stop()
    assert rc == 0

    # The broker goes away and comes back: error frames in between, then the table again.
    w = watch(server, "--interval-ms", "100")
    w.wait_frame(lambda f: "MIRROR " in f, "a table")
    assert server.stop() == 0
    down = w.wait_frame(lambda f: "error: " in f, "an error frame")
    assert "Connection refused" in down or "cannot" in down, down
    seen = len(w.frames())
    server.start()
    w.wait_frame(lambda f: "MIRROR " in f and "error" not in f, "a table again", after=seen)
    rc, err = w.stop()
    assert rc == 0 and err == "", (rc, err)


def test_bad_options():
    def run(*args):
        return mirra("mirror", "--bootstrap-server", "localhost:1", *args)

    assert_one_line_error(run("--list", "--watch"), "--watch goes with --describe only")
    assert_one_line_error(run("--watch"), "exactly one of")
    assert_one_line_error(run("--describe", "--watch", "--json"), "--watch", "--json")
    assert_one_line_error(run("--describe", "--interval-ms", "500"),
                          "--interval-ms goes with --watch only")
    for bad in ("0", "-5", "86400001"):
        assert_one_line_error(run("--describe", "--watch", "--interval-ms", bad),
                              "--interval-ms must be from 1 to 86400000", f"not {bad}")
    assert_one_line_error(run("--describe", "--watch", "--interval-ms", "soon"), "--interval-ms")
