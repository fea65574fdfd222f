"""Process-level tests of `mirra server`: a real broker on an ephemeral port, raw sockets.

Every wait is bounded and waits on an event (a log line, a socket becoming readable, the
process exiting), never on a fixed sleep.
"""
import signal
import struct
import time

import pytest

from mirra_testlib import (Broker, assert_one_line_error, closed_connection_log,
                           connect, frame, local_address, read_response, read_uvarint, request,
                           run_mirra, stop_cleanly, uvarint, wait_closed)

TIMEOUT = 10.0  # seconds for a process exit checked here


def api_versions_request(version, corr):
    body = b""
    if version >= 3:  # client software name and version, then the body's tagged fields
        body = uvarint(len(b"pytest1") + 1) + b"pytest1" + uvarint(len(b"1.0") + 1) + b"1.0" + b"\x00"
    return request(18, version, corr, body, flexible=version >= 3)


def parse_api_versions(data, version):
    """(correlation id, error code, {key: (min, max)}); header v0 always."""
    corr, error = struct.unpack_from(">ih", data, 0)
    pos = 6
    apis = {}
    if version >= 3:
        n, pos = read_uvarint(data, pos)
        n -= 1
    else:
        (n,) = struct.unpack_from(">i", data, pos)
        pos += 4
    for _ in range(n):
        key, lo, hi = struct.unpack_from(">hhh", data, pos)
        pos += 6
        if version >= 3:
            tags, pos = read_uvarint(data, pos)
            assert tags == 0
        apis[key] = (lo, hi)
    if version >= 1:
        pos += 4  # throttle_time_ms
    if version >= 3:
        tags, pos = read_uvarint(data, pos)
        assert tags == 0  # no features, zk_migration_ready false: nothing tagged is written
    assert pos == len(data), f"{len(data) - pos} unparsed bytes"
    return corr, error, apis


def check_api_versions(port, version=0, corr=1):
    with connect(port) as s:
        start = time.monotonic()
        s.sendall(api_versions_request(version, corr))
        got_corr, error, apis = parse_api_versions(read_response(s), version)
        assert time.monotonic() - start < 2.0, "ApiVersions answered too slowly"
    assert (got_corr, error) == (corr, 0)
    return apis


# --- tests ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = Broker(tmp_path_factory.mktemp("broker"), {"connections.max.idle.ms": 1500}).start()
    yield b
    stop_cleanly(b)


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
        s.sendall(frame(struct.pack(">hhih", 18, 99, 5, -1) + b"\x00" + b"\x01\x02\x03"))
        corr, error, apis = parse_api_versions(read_response(s), 0)
    assert corr == 5 and error == 35
    assert apis[18] == (0, 4) and 3 in apis and 0 in apis


def test_pipelined_requests_answered_in_order(broker):
    with connect(broker.port) as s:
        s.sendall(b"".join(api_versions_request(v % 4, 1000 + i) for i, v in enumerate(range(50))))
        for i in range(50):
            corr, error, _ = parse_api_versions(read_response(s), i % 4)
            assert (corr, error) == (1000 + i, 0)


BAD_INPUTS = {
    "garbage": (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", r"exceeds the limit"),
    "garbage_header": (frame(b"\xff\xff\xff"), r"request header"),
    "huge_length": (struct.pack(">i", 2**31 - 1), r"exceeds the limit"),
    "negative_length": (struct.pack(">i", -5), r"negative frame size"),
    "unknown_api_key": (frame(struct.pack(">hhih", 9999, 0, 1, -1)), r"unknown API key 9999"),
    "version_out_of_range": (frame(struct.pack(">hhih", 3, 999, 1, -1)),
                             r"Metadata \(key 3\) v999 is outside"),
    # ConsumerGroupDescribe (key 69, KIP-848) is in the codec table but has no handler yet.
    "not_implemented": (frame(struct.pack(">hhih", 69, 0, 1, -1) + b"\x00" * 5),
                        r"ConsumerGroupDescribe \(key 69\) is not implemented yet"),
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
        peer = local_address(s)
    m = broker.wait_for(closed_connection_log(None, pattern), start=mark)
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
    b = Broker(tmp_path, {"max.connections": 2}).start()
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
    b = Broker(tmp_path).start()
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
    b = Broker(tmp_path, config_text="# stock\nnode.id=3\nno.such.setting=1\n").start()
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
    assert_one_line_error(run_mirra("server", *args, timeout=TIMEOUT, cwd=tmp_path), needle)


def test_missing_config_file_exits_one(tmp_path):
    proc = run_mirra("server", str(tmp_path / "nope.properties"), timeout=TIMEOUT, cwd=tmp_path)
    assert proc.returncode == 1 and "nope.properties" in proc.stderr
