"""Reading a broker's /metrics in tests: where its HTTP listener is, and Prometheus' text
exposition format as (name, labels, value) per sample line, with the label escapes undone. The
parser is strict: a line it cannot read fails the test, as Prometheus would refuse the scrape."""
import re

# The broker's start-up line for http.listeners (server/http_endpoints.cc).
HTTP_LISTENING = r"listening for HTTP on {}://127\.0\.0\.1:(\d+)"


def http_port(broker, scheme="http"):
    """The HTTP port of the broker's current run (a restart binds a new one)."""
    return int(broker.wait_for(HTTP_LISTENING.format(scheme), start=broker.run_mark).group(1))


SAMPLE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse(text):
    """[(name, {label: value}, value)] of every sample line of a Prometheus text exposition."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.fullmatch(line)
        assert m, f"not a sample line: {line!r}"
        labels, body, pos = {}, m.group(2) or "", 0
        while pos < len(body):
            lm = LABEL.match(body, pos)
            assert lm, f"bad labels at {body[pos:]!r} in {line!r}"
            labels[lm.group(1)] = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n"
                                         else e.group(1), lm.group(2))
            pos = lm.end()
        out.append((m.group(1), labels, float(m.group(3))))
    return out


def values(samples, name, **labels):
    return [v for n, l, v in samples if n == name and all(l.get(k) == x for k, x in labels.items())]


def one(samples, name, **labels):
    vs = values(samples, name, **labels)
    assert len(vs) == 1, f"{name}{labels}: {len(vs)} samples, expected one"
    return vs[0]
