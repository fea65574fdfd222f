"""A small codec of the Kafka wire format, enough for the admin requests the real clients in
the tests do not offer (IncrementalAlterConfigs, DescribeConfigs of any resource type, ...):
a Writer for request bodies, a Reader for response bodies, and one request per connection."""
import struct

from mirra_testlib import read_uvarint, request, round_trip, uvarint

TIMEOUT = 10.0  # seconds for one request


# --- a small codec: enough of the wire format for the requests below -------------------------

class Writer:
    def __init__(self, flexible):
        self.flex = flexible
        self.b = bytearray()

    def int(self, fmt, v):
        self.b += struct.pack(">" + fmt, v)
        return self

    def string(self, s):
        if s is None:
            self.b += uvarint(0) if self.flex else struct.pack(">h", -1)
        else:
            data = s.encode()
            self.b += uvarint(len(data) + 1) if self.flex else struct.pack(">h", len(data))
            self.b += data
        return self

    def array(self, items, write_item):
        if items is None:
            self.b += uvarint(0) if self.flex else struct.pack(">i", -1)
            return self
        self.b += uvarint(len(items) + 1) if self.flex else struct.pack(">i", len(items))
        for item in items:
            write_item(self, item)
        return self

    def tags(self):
        if self.flex:
            self.b += b"\x00"
        return self


class Reader:
    def __init__(self, data, flexible):
        self.d = data
        self.p = 0
        self.flex = flexible

    def int(self, fmt):
        (v,) = struct.unpack_from(">" + fmt, self.d, self.p)
        self.p += struct.calcsize(">" + fmt)
        return v

    def length(self, fmt):
        if self.flex:
            n, self.p = read_uvarint(self.d, self.p)
            return n - 1
        return self.int(fmt)

    def string(self):
        n = self.length("h")
        if n < 0:
            return None
        s = self.d[self.p:self.p + n].decode()
        self.p += n
        return s

    def uuid(self):
        v = self.d[self.p:self.p + 16]
        self.p += 16
        return v

    def array(self, read_item):
        n = self.length("i")
        return None if n < 0 else [read_item(self) for _ in range(n)]

    def tags(self):
        if self.flex:
            n, self.p = read_uvarint(self.d, self.p)
            assert n == 0, "unexpected tagged fields"

    def end(self):
        assert self.p == len(self.d), f"{len(self.d) - self.p} unparsed bytes"


def call(port, key, version, flexible, body, corr=7):
    """Sends one request on a new connection; returns a Reader over the response body."""
    data = round_trip(port, request(key, version, corr, bytes(body.b), flexible=flexible), TIMEOUT)
    r = Reader(data, flexible)
    assert r.int("i") == corr
    r.tags()
    return r


def incremental_alter(port, resources, validate_only=False):
    """resources: [(type, name, [(key, op, value)])] -> {(type, name): (error, message)}"""
    w = Writer(True)
    w.array(resources, lambda w, r: w.int("b", r[0]).string(r[1]).array(
        r[2], lambda w, c: w.string(c[0]).int("b", c[1]).string(c[2]).tags()).tags())
    w.int("?", validate_only).tags()
    r = call(port, 44, 1, True, w)
    r.int("i")

    def result(r):
        out = (r.int("h"), r.string(), r.int("b"), r.string())
        r.tags()
        return out
    results = r.array(result)
    r.tags()
    r.end()
    return {(t, n): (e, m) for e, m, t, n in results}


def describe_configs_raw(port, type_, name, keys=None, documentation=False):
    """DescribeConfigs v4 -> (error, message, {name: (value, source, read_only, type, doc)})"""
    w = Writer(True)
    w.array([(type_, name)], lambda w, r: w.int("b", r[0]).string(r[1]).array(
        keys, lambda w, k: w.string(k)).tags())
    w.int("?", True).int("?", documentation).tags()
    r = call(port, 32, 4, True, w)
    r.int("i")

    def config(r):
        name, value, read_only, source, _sensitive = (r.string(), r.string(), r.int("?"),
                                                      r.int("b"), r.int("?"))
        r.array(lambda r: (r.string(), r.string(), r.int("b"), r.tags()))
        ctype, doc = r.int("b"), r.string()
        r.tags()
        return name, (value, source, read_only, ctype, doc)

    def result(r):
        err, msg, _t, _n = r.int("h"), r.string(), r.int("b"), r.string()
        configs = dict(r.array(config))
        r.tags()
        return err, msg, configs
    (out,) = r.array(result)
    r.tags()
    r.end()
    return out




def alter_client_quotas(port, entries, validate_only=False):
    """AlterClientQuotas v1. entries: [([(entity_type, name or None)], [(key, value or None)])],
    a None value removing the key -> [(error, message)] in order."""
    w = Writer(True)

    def op(w, o):
        w.string(o[0]).int("d", o[1] if o[1] is not None else 0.0).int("?", o[1] is None).tags()

    def entry(w, e):
        w.array(e[0], lambda w, c: w.string(c[0]).string(c[1]).tags())
        w.array(e[1], op).tags()
    w.array(entries, entry).int("?", validate_only).tags()
    r = call(port, 49, 1, True, w)
    r.int("i")

    def result(r):
        err, msg = r.int("h"), r.string()
        r.array(lambda r: (r.string(), r.string(), r.tags()))
        r.tags()
        return err, msg
    results = r.array(result)
    r.tags()
    r.end()
    return results


def describe_client_quotas(port, components, strict=False):
    """DescribeClientQuotas v1. components: [(entity_type, match_type, name)] ->
    (error, message, [({entity_type: name}, {key: value})])"""
    w = Writer(True)
    w.array(components, lambda w, c: w.string(c[0]).int("b", c[1]).string(c[2]).tags())
    w.int("?", strict).tags()
    r = call(port, 48, 1, True, w)
    r.int("i")
    err, msg = r.int("h"), r.string()

    def entry(r):
        entity = dict((t, n) for t, n, _ in r.array(lambda r: (r.string(), r.string(), r.tags())))
        values = dict((k, v) for k, v, _ in r.array(lambda r: (r.string(), r.int("d"), r.tags())))
        r.tags()
        return entity, values
    entries = r.array(entry)
    r.tags()
    r.end()
    return err, msg, entries
