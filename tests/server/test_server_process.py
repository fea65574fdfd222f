"""Process-level tests of `mirra server`: a real broker on an ephemeral port, raw sockets.

Every wait is bounded and waits on an event (a log line, a socket becoming readable, the
process exiting), never on a fixed sleep.
"""
import os
import re
import signal
import socket
import struct
import subprocess
import threading
import time

import pytest

MIRRA = os.environ.get("MIRRA_BIN", os.path.join(os.path.dirname(__file__), "../../build/mirra"))
TIMEOUT = 10.0  # seconds for any single expected event


class Broker:
    def __init__(self, tmp_path, *args, config_text=None):
        cmd = [MIRRA, "server"]
        if config_text is not None:
            cfg = tmp_path / "server.properties"
            cfg.write_text(config_text)
            cmd.append(str(cfg))
        cmd += ["--override", "listeners=PLAINTEXT://127.0.0.1:0",
                "--override", f"log.dirs={tmp_path / 'data'}", *args]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     text=True)
        self.lines = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.port = None

    def _read(self):
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.lines.append(None)  # EOF marker
            self.cond.notify_all()

    def wait_for(self, pattern, timeout=TIMEOUT, start=0):
        """Returns the first match of `pattern` in a log line from index `start` on."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        i = start
        with self.cond:
            while True:
                while i < len(self.lines):
                    line = self.lines[i]
                    i += 1
                    if line is None:
                        raise AssertionError(f"broker exited before logging /{pattern}/:\n"
                                             + self.log())
                    m = rx.search(line)
                    if m:
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no log line /{pattern}/ in {timeout}s:\n" + self.log())
                self.cond.wait(left)

    def mark(self):
        with self.cond:
            return len(self.lines)

    def log(self):
        with self.cond:
            return "\n".join(l for l in self.lines if l is not None)

    def started(self):
        self.port = int(self.wait_for(r"listening on PLAINTEXT://127\.0\.0\.1:(\d+)").group(1))
        return self

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


# --- a tiny Kafka client ------------------------------------------------------------------

def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_uvarint(buf, pos):
    n = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, pos
        shift += 7


def api_versions_request(version, corr):
    header = struct.pack(">hhi", 18, version, corr) + struct.pack(">h", 6) + b"pytest"
    if version >= 3:
        header += b"\x00"  # header v2 tagged fields
        body = uvarint(len(b"pytest1") + 1) + b"pytest1" + uvarint(len(b"1.0") + 1) + b"1.0" + b"\x00"
    else:
        body = b""
    msg = header + body
    return struct.pack(">i", len(msg)) + msg


def recv_exact(sock, n, timeout=TIMEOUT):
    sock.settimeout(timeout)
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_response(sock):
    (size,) = struct.unpack(">i", recv_exact(sock, 4))
    return recv_exact(sock, size)


def parse_api_versions(frame, version):
    """(correlation id, error code, {key: (min, max)}); header v0 always."""
    corr, error = struct.unpack_from(">ih", frame, 0)
    pos = 6
    apis = {}
    if version >= 3:
        n, pos = read_uvarint(frame, pos)
        n -= 1
    else:
        (n,) = struct.unpack_from(">i", frame, pos)
        pos += 4
    for _ in range(n):
        key, lo, hi = struct.unpack_from(">hhh", frame, pos)
        pos += 6
        if version >= 3:
            tags, pos = read_uvarint(frame, pos)
            assert tags == 0
        apis[key] = (lo, hi)
    if version >= 1:
        pos += 4  # throttle_time_ms
    if version >= 3:
        tags, pos = read_uvarint(frame, pos)
        assert tags == 0  # no features, zk_migration_ready false: nothing tagged is written
    assert pos == len(frame), f"{len(frame) - pos} unparsed bytes"
    return corr, error, apis


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)


def check_api_versions(port, version=0, corr=1):
    with connect(port) as s:
        start = time.monotonic()
        s.sendall(api_versions_request(version, corr))
        got_corr, error, apis = parse_api_versions(read_response(s), version)
        assert time.monotonic() - start < 2.0, "ApiVersions answered too slowly"
    assert (got_corr, error) == (corr, 0)
    return apis


def wait_closed(sock, timeout=TIMEOUT):
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


# --- tests ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("broker"), "--override", "connections.max.idle.ms=1500")
    b.started()
    yield b
    assert b.stop() == 0, b.log()


def test_api_versions_v0_and_v3(broker):
    v0 = check_api_versions(broker.port, 0, corr=11)
    v3 = check_api_versions(broker.port, 3, corr=12)
    assert v0 == v3
    assert v0[18] == (0, 4)
    assert v0[0][0] == 0, "Produce is advertised from v0 (librdkafka compression probe)"
    assert 3 in v0  # Metadata


def test_kip511_unknown_api_versions_version(broker):
    with connect(broker.port) as s:
        # v99 with header v2 and a body from the future
        msg = struct.pack(">hhi", 18, 99, 5) + struct.pack(">h", -1) + b"\x00" + b"\x01\x02\x03"
        s.sendall(struct.pack(">i", len(msg)) + msg)
        corr, error, apis = parse_api_versions(read_response(s), 0)
    assert corr == 5 and error == 35
    assert apis[18] == (0, 4) and 3 in apis and 0 in apis


def test_pipelined_requests_answered_in_order(broker):
    with connect(broker.port) as s:
        s.sendall(b"".join(api_versions_request(v % 4, 1000 + i) for i, v in enumerate(range(50))))
        for i in range(50):
            corr, error, _ = parse_api_versions(read_response(s), i % 4)
            assert (corr, error) == (1000 + i, 0)


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


BAD_INPUTS = {
    "garbage": (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", r"exceeds the limit"),
    "garbage_header": (frame(b"\xff\xff\xff"), r"request header"),
    "huge_length": (struct.pack(">i", 2**31 - 1), r"exceeds the limit"),
    "negative_length": (struct.pack(">i", -5), r"negative frame size"),
    "unknown_api_key": (frame(struct.pack(">hhih", 9999, 0, 1, -1)), r"unknown API key 9999"),
    "version_out_of_range": (frame(struct.pack(">hhih", 3, 999, 1, -1)),
                             r"Metadata \(key 3\) v999 is outside"),
    # DescribeAcls (key 29) is in the codec table but has no handler yet.
    "not_implemented": (frame(struct.pack(">hhih", 29, 1, 1, -1) + b"\x00"),
                        r"DescribeAcls \(key 29\) is not implemented yet"),
    "bad_body": (frame(struct.pack(">hhih", 18, 3, 1, -1) + b"\x00\x50"),
                 r"ApiVersions v3 correlation id 1: CORRUPT_MESSAGE"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_closes_only_that_connection(broker, name):
    data, pattern = BAD_INPUTS[name]
    mark = broker.mark()
    with connect(broker.port) as s:
        s.sendall(data)
        assert wait_closed(s), f"{name}: connection not closed"
        peer = "127.0.0.1:%d" % s.getsockname()[1]
    m = broker.wait_for(r"closing connection \d+ from (\S+): .*" + pattern, start=mark)
    assert m.group(1) == peer
    check_api_versions(broker.port)


def test_truncated_frame_then_client_close(broker):
    mark = broker.mark()
    with connect(broker.port) as s:
        s.sendall(api_versions_request(3, 1)[:-3])
    broker.wait_for(r"truncated frame", start=mark)
    check_api_versions(broker.port)


def test_slow_loris_is_closed_and_does_not_stall_others(broker):
    mark = broker.mark()
    req = api_versions_request(3, 77)
    padded = struct.pack(">i", 200) + req[4:]  # announces more than will ever arrive
    with connect(broker.port) as s:
        closed = False
        for i in range(100):  # at most ~10 s at one byte per 100 ms
            try:
                s.sendall(padded[i:i + 1])
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            if i == 5:
                check_api_versions(broker.port)  # others are served meanwhile
            if wait_closed(s, timeout=0.1):
                closed = True
                break
        assert closed, "slow-loris connection still open"
    broker.wait_for(r"idle for 1500 ms", start=mark)
    check_api_versions(broker.port)


def test_max_connections(tmp_path):
    b = Broker(tmp_path, "--override", "max.connections=2").started()
    try:
        with connect(b.port) as a, connect(b.port) as c:
            for s, corr in ((a, 1), (c, 2)):
                s.sendall(api_versions_request(0, corr))
                assert parse_api_versions(read_response(s), 0)[0] == corr
            with connect(b.port) as third:
                assert wait_closed(third)
            b.wait_for(r"max\.connections \(2\) reached")
    finally:
        assert b.stop() == 0


def test_sigterm_exits_zero_with_open_connections(tmp_path):
    b = Broker(tmp_path).started()
    with connect(b.port) as s:
        s.sendall(api_versions_request(1, 3))
        assert parse_api_versions(read_response(s), 1)[0] == 3
        start = time.monotonic()
        b.proc.send_signal(signal.SIGTERM)
        assert b.proc.wait(TIMEOUT) == 0, b.log()
        assert time.monotonic() - start < 5.0
        assert wait_closed(s, timeout=1.0)
    b.wait_for(r"stopped")


def test_unknown_key_warns_but_starts(tmp_path):
    b = Broker(tmp_path, config_text="# stock\nnode.id=3\nno.such.setting=1\n").started()
    try:
        b.wait_for(r"WARN .*no\.such\.setting")
        b.wait_for(r"setting node\.id=3 \(from file\)")
        b.wait_for(r"setting listeners=PLAINTEXT://127\.0\.0\.1:0 \(from override\)")
        check_api_versions(b.port)
    finally:
        assert b.stop() == 0


@pytest.mark.parametrize("args,needle", [
    (["--override", "num.partitions=abc"], "num.partitions"),
    (["--override", "listeners=PLAINTEXT://127.0.0.1:70000"], "listeners"),
    (["--override", "nosyntax"], "--override"),
])
def test_bad_config_exits_one(tmp_path, args, needle):
    proc = subprocess.run([MIRRA, "server", *args], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_missing_config_file_exits_one(tmp_path):
    proc = subprocess.run([MIRRA, "server", str(tmp_path / "nope.properties")],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    assert proc.returncode == 1 and "nope.properties" in proc.stderr
