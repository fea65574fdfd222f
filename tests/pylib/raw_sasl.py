"""Raw Kafka SASL on a socket, for tests that must send what no client would (hostile input
before authentication) or look at the exact answers: SaslHandshake v0/v1 (key 17),
SaslAuthenticate v0/v1 (key 36, non-flexible), raw v0 tokens, a PLAIN login, and the few
plain requests the tests send before or after it (Metadata v0, FindCoordinator v0, Produce
v3). Framing and the socket helpers are mirra_testlib's."""
import struct
import time

from mirra_testlib import WIRE_TIMEOUT, connect, frame, read_response, request

SASL_HANDSHAKE, SASL_AUTHENTICATE = 17, 36
SASL_SERVER_MAX_RECEIVE_SIZE = 524288  # sasl.server.max.receive.size default (Kafka's)


def str16(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack(">h", len(b)) + b


def bytes32(b):
    return struct.pack(">i", len(b)) + b


class Reader:
    def __init__(self, buf):
        self.buf, self.pos = buf, 0

    def take(self, fmt):
        (v,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += struct.calcsize(fmt)
        return v

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        s = self.buf[self.pos:self.pos + n].decode()
        self.pos += n
        return s

    def blob(self):
        n = self.take(">i")
        b = self.buf[self.pos:self.pos + max(n, 0)]
        self.pos += max(n, 0)
        return b


def answer(sock, corr, timeout=WIRE_TIMEOUT):
    """A Reader over the body of the next response, which must carry correlation id `corr`
    (response header v0: every API here is non-flexible)."""
    r = Reader(read_response(sock, timeout))
    got = r.take(">i")
    assert got == corr, f"correlation id {got}, expected {corr}"
    return r


def handshake(sock, mechanism, version=1, corr=1):
    """SaslHandshake: (error code, enabled mechanisms)."""
    sock.sendall(request(SASL_HANDSHAKE, version, corr, str16(mechanism)))
    r = answer(sock, corr)
    err = r.take(">h")
    return err, [r.string() for _ in range(r.take(">i"))]


def authenticate(sock, token, version=0, corr=2):
    """SaslAuthenticate (after a v1 handshake): (error code, error message, server token)."""
    sock.sendall(request(SASL_AUTHENTICATE, version, corr, bytes32(token)))
    r = answer(sock, corr)
    return r.take(">h"), r.string(), r.blob()


def raw_token(sock, token):
    """One raw token after a v0 handshake; the server's raw token back."""
    sock.sendall(frame(token))
    return read_response(sock)


def plain_token(user, password, authzid=""):
    return f"{authzid}\0{user}\0{password}".encode()


def login_plain(port, user, password):
    """A new connection authenticated with PLAIN (SaslHandshake v1 + SaslAuthenticate v0)."""
    s = connect(port)
    err, mechanisms = handshake(s, "PLAIN")
    assert err == 0, f"SaslHandshake PLAIN: error {err}, enabled {mechanisms}"
    err, msg, _ = authenticate(s, plain_token(user, password))
    assert err == 0, f"SaslAuthenticate PLAIN as {user}: error {err} {msg!r}"
    return s


def metadata_v0(corr):
    return request(3, 0, corr, struct.pack(">i", 0))  # no topics: v0 means every topic


def find_coordinator_v0(corr, group="g"):
    return request(10, 0, corr, str16(group))


def produce_v3(corr):
    # transactional id null, acks 1, timeout 1000 ms, no topics
    return request(0, 3, corr, struct.pack(">hhii", -1, 1, 1000, 0))


def metadata_brokers(sock, corr):
    """Sends Metadata v0 and returns its brokers [(node id, host, port)]."""
    sock.sendall(metadata_v0(corr))
    r = answer(sock, corr)
    return [(r.take(">i"), r.string(), r.take(">i")) for _ in range(r.take(">i"))]


def read_until_closed(sock, timeout=WIRE_TIMEOUT):
    """(closed, every byte received before): whether the peer closed within `timeout`."""
    deadline = time.monotonic() + timeout
    data = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return True, data
        except TimeoutError:
            return False, data
        if not chunk:
            return True, data
        data += chunk
    return False, data
