#!/usr/bin/env python3
"""Commits offsets for many consumer groups without joining them, fast: the sync-round phase of
bench/mirror/run.sh fills a source with 1,000 groups of committed offsets this way.

Each group gets one OffsetCommit (v2, generation -1, no member id: what an admin tool's commit
is) for every partition of the topic, all requests over one connection with a window of them in
flight. Group g's offset for partition p is (7g + p) mod (MAX_OFFSET + 1), so the groups differ
and every offset lies in [0, MAX_OFFSET]. Standard library only, so it runs anywhere the
benchmark does.

Usage: commit_groups.py HOST:PORT TOPIC PARTITIONS GROUPS MAX_OFFSET [PREFIX]
  PREFIX: the group ids are PREFIX0 .. PREFIX<GROUPS-1> (default bench-group-)
Prints one line: mode=commit_groups groups=N partitions=P offsets=N*P seconds=S errors=E
"""

import socket
import struct
import sys
import time

OFFSET_COMMIT = 8
VERSION = 2
WINDOW = 32  # requests in flight


def string(s):
    data = s.encode()
    return struct.pack(">h", len(data)) + data


def commit_request(corr, group, topic, offsets):
    header = struct.pack(">hhi", OFFSET_COMMIT, VERSION, corr) + string("commit_groups")
    body = string(group) + struct.pack(">i", -1) + string("") + struct.pack(">q", -1)
    body += struct.pack(">i", 1) + string(topic) + struct.pack(">i", len(offsets))
    for p, offset in enumerate(offsets):
        body += struct.pack(">iq", p, offset) + struct.pack(">h", -1)  # null metadata
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def recv_exact(sock, n):
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return bytes(data)


def read_response(sock):
    """(correlation id, number of partitions with an error) of one OffsetCommit v2 response."""
    size = struct.unpack(">i", recv_exact(sock, 4))[0]
    d = recv_exact(sock, size)
    corr, topics = struct.unpack_from(">ii", d, 0)
    at, errors = 8, 0
    for _ in range(topics):
        n = struct.unpack_from(">h", d, at)[0]
        at += 2 + n
        parts = struct.unpack_from(">i", d, at)[0]
        at += 4
        for _ in range(parts):
            _, err = struct.unpack_from(">ih", d, at)
            at += 6
            errors += err != 0
    return corr, errors


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    host, port = sys.argv[1].rsplit(":", 1)
    topic, partitions, groups = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    max_offset = int(sys.argv[5])
    prefix = sys.argv[6] if len(sys.argv) > 6 else "bench-group-"
    errors = 0
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sent = received = 0
        while received < groups:
            while sent < groups and sent - received < WINDOW:
                offsets = [(7 * sent + p) % (max_offset + 1) for p in range(partitions)]
                sock.sendall(commit_request(sent, f"{prefix}{sent}", topic, offsets))
                sent += 1
            corr, bad = read_response(sock)
            if corr != received:
                sys.exit(f"commit_groups: response {corr} where {received} was due")
            errors += bad
            received += 1
    secs = time.monotonic() - start
    print(f"mode=commit_groups groups={groups} partitions={partitions} "
          f"offsets={groups * partitions} seconds={secs:.3f} errors={errors}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
