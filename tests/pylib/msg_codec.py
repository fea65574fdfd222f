"""A Kafka wire codec for tests, driven by the repository's own message definitions
(src/protocol/messages/*.msg, format in that folder's README): any request of any API and
version Mirra describes is written from a dict and any response read into one, so a test can
send what no real client sends (Mirra's mirroring APIs, DescribeProducers, ...) without a
hand-written encoder per API.

Field names become snake_case keys (`PartitionIndex` -> `partition_index`). On write, a key left
out takes the field's default (`default=`, else zero, "" or an empty array); a field absent from
the version is skipped. A decoded dict holds exactly the fields of the version. Tagged fields are never written (they all keep their defaults) and are
read when known. Records are bytes (e.g. kafka-python's DefaultRecordBatchBuilder output).

`Connection` sends requests on one socket (e.g. one authenticated with SASL) and reads the
answers."""
import re
import struct
import uuid as uuidlib
from functools import lru_cache

from mirra_testlib import ROOT, WIRE_TIMEOUT, frame, read_response, read_uvarint, uvarint

MESSAGES = ROOT / "src" / "protocol" / "messages"

_INTS = {"int8": "b", "int16": "h", "int32": "i", "int64": "q", "uint16": "H", "uint32": "I",
         "float64": "d", "bool": "?"}
_ZERO_UUID = bytes(16)


def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


class Versions:
    """"N+", "A-B", "N" or "none"."""

    def __init__(self, text):
        if text == "none":
            self.lo, self.hi = 1, 0
        elif text.endswith("+"):
            self.lo, self.hi = int(text[:-1]), 1 << 15
        elif "-" in text:
            lo, hi = text.split("-")
            self.lo, self.hi = int(lo), int(hi)
        else:
            self.lo = self.hi = int(text)

    def __contains__(self, v):
        return self.lo <= v <= self.hi


class Field:
    def __init__(self, name, type_, versions, opts):
        self.name = name
        self.key = snake(name)
        self.array = type_.startswith("[]")
        self.type = type_[2:] if self.array else type_
        self.versions = Versions(versions)
        self.nullable = Versions(opts.get("null", "none"))
        tag = opts.get("tag")
        self.tag = None
        self.tag_versions = self.versions
        if tag is not None:
            num, _, tv = tag.partition("@")
            self.tag = int(num)
            if tv:
                self.tag_versions = Versions(tv)
        self.flex_none = "flex" in opts
        self.default = opts.get("default")
        self.children = []  # inline fields of a struct type

    def default_value(self):
        if self.array:
            return None if self.default == "null" else []
        d = self.default
        if d == "null":
            return None
        if self.type in _INTS:
            if self.type == "bool":
                return d == "true"
            if d is None:
                return 0
            return float(d) if self.type == "float64" else int(d, 0)
        if self.type == "string":
            return "" if d is None else d.strip('"')
        if self.type == "uuid":
            return _ZERO_UUID
        if self.type in ("bytes", "records"):
            return b""
        return {}  # a struct


class Message:
    def __init__(self, name, fields, structs):
        self.name, self.fields, self.structs = name, fields, structs

    def children(self, f):
        if f.children:
            return f.children
        return self.structs.get(f.type)


class Api:
    def __init__(self, key, name, versions, flexible):
        self.key, self.name = key, name
        self.versions, self.flexible = versions, flexible
        self.request = self.response = None


def _parse_line(line):
    parts = line.split()
    opts = {}
    for p in parts[3:]:
        k, _, v = p.partition("=")
        opts[k] = v
    return parts[0], parts[1], parts[2], opts


def _parse_fields(lines, i, indent):
    """Fields at `indent` (and their children) from lines[i:]; returns (fields, structs, i)."""
    fields, structs = [], {}
    while i < len(lines):
        text = lines[i]
        depth = len(text) - len(text.lstrip(" "))
        if depth < indent:
            break
        assert depth == indent, f"bad indentation: {text!r}"
        words = text.split()
        if words[0] == "struct":
            kids, more, i = _parse_fields(lines, i + 1, indent + 2)
            structs[words[1]] = kids
            structs.update(more)
            continue
        f = Field(*_parse_line(text.strip()))
        f.children, more, i = _parse_fields(lines, i + 1, indent + 2)
        structs.update(more)
        fields.append(f)
    return fields, structs, i


def _parse_file(path):
    lines = [l.split("#", 1)[0].rstrip() for l in path.read_text().splitlines()]
    lines = [l for l in lines if l.strip()]
    api = None
    i = 0
    while i < len(lines):
        words = lines[i].split()
        if words[0] == "api":
            lo_hi = Versions(words[4])
            api = Api(int(words[1]), words[2], lo_hi, Versions(words[6]))
            i += 1
        elif words[0] in ("request", "response"):
            fields, structs, i = _parse_fields(lines, i + 1, 2)
            setattr(api, words[0], Message(words[1], fields, structs))
        else:
            i += 1  # headers.msg: not needed, the headers are written by hand below
            while i < len(lines) and lines[i].startswith(" "):
                i += 1
    return api


@lru_cache(maxsize=None)
def apis():
    """{key: Api} of every .msg file."""
    out = {}
    for path in sorted(MESSAGES.glob("*.msg")):
        api = _parse_file(path)
        if api is not None:
            out[api.key] = api
    return out


def api_by_name(name):
    for api in apis().values():
        if api.name == name:
            return api
    raise KeyError(name)


# --- writing ------------------------------------------------------------------------------------

class _Writer:
    def __init__(self, flexible):
        self.flex = flexible
        self.b = bytearray()

    def length(self, n, classic_fmt):
        if n is None:
            self.b += uvarint(0) if self.flex else struct.pack(">" + classic_fmt, -1)
        else:
            self.b += uvarint(n + 1) if self.flex else struct.pack(">" + classic_fmt, n)

    def scalar(self, f, value, flex):
        t = f.type
        if t in _INTS:
            self.b += struct.pack(">" + _INTS[t], value)
        elif t == "uuid":
            self.b += value.bytes if isinstance(value, uuidlib.UUID) else bytes(value)
        elif t == "string":
            data = None if value is None else value.encode()
            w = self if flex else _classic(self)
            w.length(None if data is None else len(data), "h")
            self.b += data or b""
        elif t in ("bytes", "records"):
            self.length(None if value is None else len(value), "i")
            self.b += value or b""
        else:
            raise AssertionError(f"{f.name}: scalar of type {t}?")


class _classic:
    """Writes a classic (non-compact) length into a writer (flex=none fields)."""

    def __init__(self, w):
        self.w = w

    def length(self, n, fmt):
        self.w.b += struct.pack(">" + fmt, -1 if n is None else n)


def _write_fields(w, msg, fields, values, version):
    unknown = set(values) - {f.key for f in fields}
    assert not unknown, f"{msg.name}: no fields {sorted(unknown)}"
    for f in fields:
        if version not in f.versions or f.tag is not None:
            continue
        value = values.get(f.key, f.default_value())
        if value is None:
            assert version in f.nullable, f"{msg.name}.{f.name} is not nullable in v{version}"
        kids = msg.children(f)
        if f.array:
            w.length(None if value is None else len(value), "i")
            for item in value or []:
                if kids is not None:
                    _write_fields(w, msg, kids, item, version)
                else:
                    w.scalar(f, item, True)
        elif kids is not None:
            if version in f.nullable:  # a nullable struct: int8 -1 (null) or 1, then it
                w.b += struct.pack(">b", -1 if value is None else 1)
                if value is None:
                    continue
            _write_fields(w, msg, kids, value, version)
        else:
            w.scalar(f, value, not f.flex_none)
    if w.flex:
        w.b += b"\x00"  # no tagged fields


def encode_request(key, version, corr, body, client_id="pytest-authz"):
    """A framed request of API `key` at `version` with header v1 (v2 when flexible)."""
    api = apis()[key]
    assert version in api.versions, f"{api.name} v{version} is not described"
    flexible = version in api.flexible
    head = struct.pack(">hhih", key, version, corr, len(client_id)) + client_id.encode()
    w = _Writer(flexible)
    _write_fields(w, api.request, api.request.fields, body, version)
    return frame(head + (b"\x00" if flexible else b"") + bytes(w.b))


# --- reading ------------------------------------------------------------------------------------

class _Reader:
    def __init__(self, data, flexible):
        self.d, self.p, self.flex = data, 0, flexible

    def fixed(self, fmt):
        (v,) = struct.unpack_from(">" + fmt, self.d, self.p)
        self.p += struct.calcsize(">" + fmt)
        return v

    def length(self, classic_fmt, flex=None):
        if self.flex if flex is None else flex:
            n, self.p = read_uvarint(self.d, self.p)
            return n - 1
        return self.fixed(classic_fmt)

    def take(self, n):
        out = self.d[self.p:self.p + n]
        assert len(out) == n, "response ends early"
        self.p += n
        return bytes(out)

    def scalar(self, f, flex):
        t = f.type
        if t in _INTS:
            return self.fixed(_INTS[t])
        if t == "uuid":
            return self.take(16)
        if t == "string":
            n = self.length("h", flex and self.flex)
            return None if n < 0 else self.take(n).decode()
        n = self.length("i")
        return None if n < 0 else self.take(n)


def _read_fields(r, msg, fields, version):
    out = {}
    for f in fields:  # a field absent from the version is left out
        if version not in f.versions:
            continue
        if f.tag is None:
            out[f.key] = _read_field(r, msg, f, version)
        elif version in f.tag_versions:
            out[f.key] = f.default_value()  # unless the tag section below has it
    if r.flex:
        tagged = {f.tag: f for f in fields if f.tag is not None and version in f.tag_versions}
        n, r.p = read_uvarint(r.d, r.p)
        for _ in range(n):
            tag, r.p = read_uvarint(r.d, r.p)
            size, r.p = read_uvarint(r.d, r.p)
            end = r.p + size
            if tag in tagged:
                out[tagged[tag].key] = _read_field(r, msg, tagged[tag], version)
            r.p = end
    return out


def _read_field(r, msg, f, version):
    kids = msg.children(f)
    if f.array:
        n = r.length("i")
        if n < 0:
            return None
        if kids is not None:
            return [_read_fields(r, msg, kids, version) for _ in range(n)]
        return [r.scalar(f, True) for _ in range(n)]
    if kids is not None:
        if version in f.nullable and r.fixed("b") < 0:
            return None
        return _read_fields(r, msg, kids, version)
    return r.scalar(f, not f.flex_none)


def decode_response(key, version, payload, corr):
    """The body of a response frame (without its size) as a dict; checks the correlation id."""
    api = apis()[key]
    flexible = version in api.flexible and key != 18  # ApiVersions answers with header v0
    r = _Reader(payload, flexible)
    got = r.fixed("i")
    assert got == corr, f"correlation id {got}, expected {corr}"
    if flexible:
        n, r.p = read_uvarint(r.d, r.p)
        assert n == 0, "tagged fields in the response header"
    r.flex = version in api.flexible
    out = _read_fields(r, api.response, api.response.fields, version)
    assert r.p == len(payload), f"{api.name} v{version}: {len(payload) - r.p} bytes left over"
    return out


class Connection:
    """Requests on one socket (plaintext, or one a SASL login authenticated), in turn."""

    def __init__(self, sock, timeout=WIRE_TIMEOUT):
        self.sock, self.timeout, self.corr = sock, timeout, 100

    def call(self, key, version, body=None):
        self.corr += 1
        self.sock.sendall(encode_request(key, version, self.corr, body or {}))
        return decode_response(key, version, read_response(self.sock, self.timeout), self.corr)

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def max_version(key):
    return apis()[key].versions.hi

