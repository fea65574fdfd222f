"""Test data, the record-for-record comparison and a read-to-the-end consumer shared by the
interop tests."""
import itertools
import time

_counter = itertools.count()


def unique_topic(prefix):
    """A fresh topic name per call (tests share one broker)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in prefix)
    return f"{safe}-{next(_counter)}-{int(time.time() * 1000) % 100000}"


def now_ms():
    return int(time.time() * 1000)


def sample_records(tag, partitions=2, per_partition=6, timestamps=True, base_ts=None,
                   null_key_and_value=True, empty=True):
    """Records for every partition, in partition order, covering: keys, a null key, tombstones
    (key with a null value), a record with neither, repeated and multiple headers, non-ASCII
    text, an empty (not null) key and value (kcat cannot tell them from null: `empty`;
    kafka-python cannot send a record with neither key nor value: `null_key_and_value`).
    Headers change every 3 records (kcat takes one header set per run). Explicit
    timestamps one second apart, an hour in the past, unless `timestamps` is false."""
    base_ts = base_ts if base_ts is not None else now_ms() - 3600_000
    out = []
    n = 0
    for p in range(partitions):
        for i in range(per_partition):
            key = None if i == 2 else f"{tag}-k{n}"
            value = None if i in (1, 4) else f"{tag}-value-{n}-\u00fc\u20ac"
            if i == 5:
                key, value = (None, None) if null_key_and_value else (f"{tag}-k{n}", None)
            if i == 3 and empty:
                key, value = "", ""  # empty, not null
            headers = ([["h", "first"], ["h", "second"], ["trace", f"{tag}-{p}"]]
                       if (i // 3) % 2 == 0 else [])
            out.append({"partition": p, "key": key, "value": value, "headers": headers,
                        "timestamp": base_ts + n * 1000 if timestamps else None})
            n += 1
    return out


def _fmt(r):
    v = r.get("value")
    if isinstance(v, str) and len(v) > 60:
        v = f"<{len(v)} chars {v[:20]!r}...>"
    return (f"p{r.get('partition')}@{r.get('offset')} key={r.get('key')!r} value={v!r} "
            f"headers={r.get('headers')} ts={r.get('timestamp')}")


def expected_records(records, results):
    """Pairs every produced record with the partition and offset its producer reported."""
    errors = [(i, r) for i, r in enumerate(results) if "error" in r]
    assert not errors, f"{len(errors)} of {len(results)} records failed to produce, first: " \
                       f"#{errors[0][0]}: {errors[0][1]['error']}"
    assert len(results) == len(records), f"{len(results)} produce results for {len(records)} records"
    out = []
    for rec, res in zip(records, results):
        assert res["partition"] == rec["partition"], \
            f"record for partition {rec['partition']} reported in partition {res['partition']}"
        out.append(dict(rec, offset=res["offset"]))
    return out


def assert_same_records(expected, consumed, what, ts_window=None):
    """Record for record: partition, offset, key, value, headers, timestamp. An expected
    timestamp of None (the producer stamped it) must lie within `ts_window` (lo, hi)."""
    exp = sorted(expected, key=lambda r: (r["partition"], r["offset"]))
    got = sorted(consumed, key=lambda r: (r["partition"], r["offset"]))
    problems = []
    if len(exp) != len(got):
        problems.append(f"{len(got)} records consumed, {len(exp)} expected")
    for i, (e, g) in enumerate(zip(exp, got)):
        diffs = [f for f in ("partition", "offset", "key", "value", "headers")
                 if e.get(f, [] if f == "headers" else None) != g.get(f, [] if f == "headers" else None)]
        if e.get("timestamp") is not None:
            if e["timestamp"] != g.get("timestamp"):
                diffs.append("timestamp")
        elif ts_window is not None:
            if not ts_window[0] <= g.get("timestamp", -1) <= ts_window[1]:
                diffs.append(f"timestamp outside {ts_window}")
        if diffs:
            problems.append(f"record {i}: {', '.join(diffs)} differ\n  expected {_fmt(e)}\n"
                            f"  consumed {_fmt(g)}")
        if len(problems) > 6:
            break
    if len(exp) != len(got):
        e_keys = {(r["partition"], r["offset"]) for r in exp}
        g_keys = {(r["partition"], r["offset"]) for r in got}
        problems.append(f"missing (partition, offset): {sorted(e_keys - g_keys)[:10]}; "
                        f"unexpected: {sorted(g_keys - e_keys)[:10]}")
    assert not problems, f"{what}:\n" + "\n".join(problems)


def read_to_end(bootstrap, topic, partitions, isolation, timeout):
    """Every message a python3-confluent-kafka consumer with `isolation` reads from offset 0 of
    each partition up to the end it sees (the high watermark, or the LSO for read_committed),
    in the order read."""
    import confluent_kafka
    from confluent_kafka import KafkaError, TopicPartition
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "reader",
                                  "isolation.level": isolation, "enable.auto.commit": False,
                                  "enable.partition.eof": True})
    try:
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        out, eof = [], set()
        deadline = time.monotonic() + timeout
        while len(eof) < partitions:
            assert time.monotonic() < deadline, f"read {len(out)} records, eof on {eof} only"
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                assert m.error().code() == KafkaError._PARTITION_EOF, m.error()
                eof.add(m.partition())
                continue
            out.append(m)
        return out
    finally:
        c.close()
