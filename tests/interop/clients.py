"""One adapter per real Kafka client, all with the same small interface, so the tests can run
the same scenario through kcat, confluent-kafka, kafka-python, kafkajs and @platformatic/kafka.

Records are plain dicts (JSON-able, so the Node scripts can take them on stdin):
    produce input   {"partition": int, "key": str|None, "value": str|None,
                     "headers": [[str, str], ...], "timestamp": int|None (ms, None: client's now)}
    produce result  {"partition": int, "offset": int} or {"error": str}, one per input record
    consumed        {"partition", "offset", "key", "value", "headers", "timestamp"}

Consumers are assignment-based (no consumer group: Mirra has no group coordinator yet):
  - kcat: the simple consumer (-C without -G);
  - confluent-kafka / kafka-python: Consumer.assign() without a group id;
  - kafkajs: it has no group-less consumer, so its node script drives kafkajs' own Broker.fetch
    and admin ListOffsets (the same code paths its consumer uses);
  - @platformatic/kafka: Consumer.fetch() and listOffsets(), which never join a group.
Producers are non-idempotent (no InitProducerId yet).

Consumer groups (test_groups.py): `group_cycle` of kafka-python and kafkajs, and
`ConfluentMember` (one confluent-kafka group member per process, near the end of this file).
"""
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

from mirra_testlib import ROOT
from secconf import kafka_python_conf, librdkafka_conf

HERE = Path(__file__).resolve().parent

NODE = shutil.which("node") or "/usr/bin/node"
KCAT = shutil.which("kcat") or "/usr/bin/kcat"
STEP_TIMEOUT = 30.0   # a whole produce or consume call
BIG_LIMIT = 8 * 1024 * 1024  # client-side size limits raised to this for the 1 MB tests


class ClientError(AssertionError):
    pass


def _enc(s):
    return None if s is None else s.encode()


def _dec(b):
    return None if b is None else b.decode()


class Client:
    name = "?"
    codecs = ()        # codecs this client can produce
    read_codecs = ()   # codecs this client can consume
    lacks = {}         # codec -> why the client cannot use it
    cannot_read = {}   # (producing client, codec) -> why this client cannot read it
    sets_timestamp = True
    null_key_and_value = True  # can send a record with neither key nor value
    empty = True               # can send an empty (not null) key or value

    def __repr__(self):
        return self.name


# --------------------------------------------------------------------------------------------
class ConfluentKafka(Client):
    name = "confluent-kafka"
    codecs = read_codecs = ("none", "gzip", "snappy", "lz4", "zstd")

    def __init__(self, bootstrap, security=None):
        import confluent_kafka
        self.ck = confluent_kafka
        self.bootstrap = bootstrap
        self.base = {"bootstrap.servers": bootstrap, **librdkafka_conf(security)}

    def create_topic(self, topic, partitions, configs=None):
        from confluent_kafka.admin import AdminClient, NewTopic
        admin = AdminClient(dict(self.base))
        fs = admin.create_topics([NewTopic(topic, partitions, 1, config=dict(configs or {}))],
                                 operation_timeout=10, request_timeout=15)
        fs[topic].result(timeout=STEP_TIMEOUT)  # raises KafkaException on an error

    def delete_topic(self, topic):
        from confluent_kafka.admin import AdminClient
        admin = AdminClient(dict(self.base))
        admin.delete_topics([topic], operation_timeout=10, request_timeout=15)[topic].result(
            timeout=STEP_TIMEOUT)

    def topic_exists(self, topic):
        """Asks without auto-creating it (librdkafka's admin metadata never creates)."""
        from confluent_kafka.admin import AdminClient
        md = AdminClient(dict(self.base)).list_topics(timeout=10)
        return topic in md.topics

    def partitions(self, topic):
        from confluent_kafka.admin import AdminClient
        md = AdminClient(dict(self.base)).list_topics(topic, timeout=10)
        t = md.topics[topic]
        assert t.error is None, f"metadata error for {topic}: {t.error}"
        return len(t.partitions)

    def producer(self, codec="none", big=False, **extra):
        conf = {**self.base, "compression.type": codec,
                "linger.ms": 20, "acks": "all", "enable.idempotence": False,
                "message.timeout.ms": 20000}
        if big:
            conf["message.max.bytes"] = BIG_LIMIT
        conf.update(extra)
        return self.ck.Producer(conf)

    def produce(self, topic, records, codec="none", big=False):
        p = self.producer(codec, big)
        results = [None] * len(records)

        def report(i):
            def cb(err, msg):
                results[i] = ({"error": str(err)} if err is not None
                              else {"partition": msg.partition(), "offset": msg.offset()})
            return cb

        for i, r in enumerate(records):
            kw = {}
            if r.get("timestamp") is not None:
                kw["timestamp"] = r["timestamp"]
            p.produce(topic, value=_enc(r["value"]), key=_enc(r["key"]),
                      partition=r["partition"],
                      headers=[(k, _enc(v)) for k, v in r.get("headers", [])],
                      on_delivery=report(i), **kw)
        left = p.flush(STEP_TIMEOUT)
        assert left == 0, f"confluent-kafka: {left} messages still undelivered after flush"
        return results

    def _consumer(self, big=False, log=None):
        # confluent-kafka 1.7 insists on a group.id; with assign() and no commits the group is
        # never joined (librdkafka still looks for a coordinator: see the broker log)
        conf = {**self.base, "group.id": "interop-unused",
                "enable.auto.commit": False, "fetch.wait.max.ms": 100,
                "enable.partition.eof": False}
        if big:
            conf["fetch.max.bytes"] = BIG_LIMIT
            conf["max.partition.fetch.bytes"] = BIG_LIMIT
            conf["receive.message.max.bytes"] = BIG_LIMIT + 100000
        if log is not None:
            conf["debug"] = "fetch"
            conf["logger"] = log
        return self.ck.Consumer(conf)

    @staticmethod
    def _record(m):
        assert m.error() is None, f"consumer error: {m.error()}"
        return {"partition": m.partition(), "offset": m.offset(), "key": _dec(m.key()),
                "value": _dec(m.value()),
                "headers": [[k, _dec(v)] for k, v in (m.headers() or [])],
                "timestamp": m.timestamp()[1]}

    def _poll(self, c, count, timeout):
        out = []
        deadline = time.monotonic() + timeout
        while len(out) < count and time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is not None:
                out.append(self._record(m))
        return out

    def offset_for_time(self, topic, partition, ts):
        c = self._consumer()
        try:
            tp = c.offsets_for_times([self.ck.TopicPartition(topic, partition, ts)], timeout=10)[0]
            assert tp.error is None, f"offsets_for_times: {tp.error}"
            return tp.offset
        finally:
            c.close()

    def consume(self, topic, partition, start, count, timeout=STEP_TIMEOUT, big=False):
        c = self._consumer(big)
        try:
            if start == "earliest":
                off = self.ck.OFFSET_BEGINNING
            elif "timestamp" in start:
                off = self.offset_for_time(topic, partition, start["timestamp"])
            else:
                off = start["offset"]
            c.assign([self.ck.TopicPartition(topic, partition, off)])
            return self._poll(c, count, timeout)
        finally:
            c.close()

    def consume_latest(self, topic, partition, count, on_ready, timeout=STEP_TIMEOUT):
        import logging
        fetches = []

        class Grab(logging.Handler):
            def emit(self, rec):
                m = re.search(r"Fetch topic \S+ \[%d\] at offset (\d+)" % partition,
                              rec.getMessage())
                if m:
                    fetches.append(int(m.group(1)))

        log = logging.getLogger(f"interop.rdkafka.{id(fetches)}")
        log.propagate = False
        log.setLevel(logging.DEBUG)
        log.addHandler(Grab())
        c = self._consumer(log=log)
        try:
            c.assign([self.ck.TopicPartition(topic, partition, self.ck.OFFSET_END)])
            # position() stays unset until a message arrives: wait for librdkafka's first Fetch,
            # sent once OFFSET_END has been resolved by ListOffsets (logs arrive in poll())
            got = []
            deadline = time.monotonic() + 15
            while not fetches and time.monotonic() < deadline:
                m = c.poll(0.05)
                if m is not None:
                    got.append(self._record(m))
            assert fetches, "confluent-kafka never fetched after assign(OFFSET_END)"
            on_ready(fetches[0])
            return got + self._poll(c, count - len(got), timeout)
        finally:
            c.close()

    # --- consumer groups (the members themselves are ConfluentMember processes, below) ---

    def committed(self, group, topic, partitions):
        """{partition: committed offset} of `group` (OffsetFetch; -1001 = none), read by a
        consumer of that group that never joins it."""
        c = self.ck.Consumer({**self.base, "group.id": group,
                              "enable.auto.commit": False})
        try:
            tps = c.committed([self.ck.TopicPartition(topic, p) for p in range(partitions)],
                              timeout=STEP_TIMEOUT)
            bad = [(tp.partition, str(tp.error)) for tp in tps if tp.error is not None]
            assert not bad, f"committed({group}): {bad}"
            return {tp.partition: tp.offset for tp in tps}
        finally:
            c.close()

    def describe_group(self, group):
        """DescribeGroups (librdkafka's list_groups asks ListGroups, then DescribeGroups):
        {"state", "protocol_type", "protocol", "members": [{"id", "client_id", "host"}]}."""
        from confluent_kafka.admin import AdminClient
        admin = AdminClient(dict(self.base))
        found = admin.list_groups(group, timeout=STEP_TIMEOUT)
        assert len(found) == 1, f"list_groups({group}): {found}"
        g = found[0]
        assert g.error is None, f"describe {group}: {g.error}"
        return {"state": g.state, "protocol_type": g.protocol_type, "protocol": g.protocol,
                "members": [{"id": m.id, "client_id": m.client_id, "host": m.client_host}
                            for m in g.members]}


# --------------------------------------------------------------------------------------------
class KafkaPython(Client):
    name = "kafka-python"
    null_key_and_value = False  # KafkaProducer.send: "Need at least one: key or value"
    codecs = read_codecs = ("none", "gzip", "snappy", "lz4", "zstd")

    def __init__(self, bootstrap, security=None):
        import kafka
        self.kafka = kafka
        self.bootstrap = bootstrap
        self.sec = kafka_python_conf(security)

    def create_topic(self, topic, partitions, configs=None):
        from kafka.admin import KafkaAdminClient, NewTopic
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=15000,
                                 **self.sec)
        try:
            resp = admin.create_topics([NewTopic(topic, partitions, 1,
                                                 topic_configs=dict(configs or {}))])
            errors = [(t[0], t[1]) for t in resp.topic_errors if t[1] != 0]
            assert not errors, f"kafka-python create_topics errors: {errors}"
        finally:
            admin.close()

    def delete_topic(self, topic):
        from kafka.admin import KafkaAdminClient
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=15000,
                                 **self.sec)
        try:
            resp = admin.delete_topics([topic])
            errors = [t for t in resp.topic_error_codes if t[1] != 0]
            assert not errors, f"kafka-python delete_topics errors: {errors}"
        finally:
            admin.close()

    def partitions(self, topic):
        c = self.kafka.KafkaConsumer(bootstrap_servers=self.bootstrap, **self.sec)
        try:
            parts = c.partitions_for_topic(topic)
            return len(parts or ())
        finally:
            c.close()

    def produce(self, topic, records, codec="none", big=False):
        kw = {"bootstrap_servers": self.bootstrap, "linger_ms": 20, "acks": "all",
              "request_timeout_ms": 20000, **self.sec}
        if codec != "none":
            kw["compression_type"] = codec
        if big:
            kw["max_request_size"] = BIG_LIMIT
            kw["buffer_memory"] = 4 * BIG_LIMIT
        p = self.kafka.KafkaProducer(**kw)
        try:
            futures = [p.send(topic, key=_enc(r["key"]), value=_enc(r["value"]),
                              partition=r["partition"], timestamp_ms=r.get("timestamp"),
                              headers=[(k, _enc(v)) for k, v in r.get("headers", [])])
                       for r in records]
            p.flush(STEP_TIMEOUT)
            results = []
            for f in futures:
                try:
                    md = f.get(timeout=1)
                    results.append({"partition": md.partition, "offset": md.offset})
                except Exception as e:  # noqa: BLE001 - the error is the result
                    results.append({"error": f"{type(e).__name__}: {e}"})
            return results
        finally:
            p.close(5)

    def _consumer(self, big=False):
        kw = {"bootstrap_servers": self.bootstrap, "group_id": None,
              "enable_auto_commit": False, "fetch_max_wait_ms": 100,
              "auto_offset_reset": "earliest", **self.sec}
        if big:
            kw["fetch_max_bytes"] = BIG_LIMIT
            kw["max_partition_fetch_bytes"] = BIG_LIMIT
        return self.kafka.KafkaConsumer(**kw)

    def _poll(self, c, count, timeout):
        out = []
        deadline = time.monotonic() + timeout
        while len(out) < count and time.monotonic() < deadline:
            for recs in c.poll(timeout_ms=200).values():
                for m in recs:
                    out.append({"partition": m.partition, "offset": m.offset,
                                "key": _dec(m.key), "value": _dec(m.value),
                                "headers": [[k, _dec(v)] for k, v in (m.headers or [])],
                                "timestamp": m.timestamp})
        return out

    def offset_for_time(self, topic, partition, ts):
        c = self._consumer()
        try:
            tp = self.kafka.TopicPartition(topic, partition)
            r = c.offsets_for_times({tp: ts})[tp]
            return None if r is None else r.offset
        finally:
            c.close()

    def consume(self, topic, partition, start, count, timeout=STEP_TIMEOUT, big=False):
        c = self._consumer(big)
        try:
            tp = self.kafka.TopicPartition(topic, partition)
            c.assign([tp])
            if start == "earliest":
                c.seek_to_beginning(tp)
            elif "timestamp" in start:
                r = c.offsets_for_times({tp: start["timestamp"]})[tp]
                assert r is not None, "offsets_for_times found no offset"
                c.seek(tp, r.offset)
            else:
                c.seek(tp, start["offset"])
            return self._poll(c, count, timeout)
        finally:
            c.close()

    def consume_latest(self, topic, partition, count, on_ready, timeout=STEP_TIMEOUT):
        c = self._consumer()
        try:
            tp = self.kafka.TopicPartition(topic, partition)
            c.assign([tp])
            c.seek_to_end(tp)
            on_ready(c.position(tp))  # position() blocks until ListOffsets answered
            return self._poll(c, count, timeout)
        finally:
            c.close()

    def group_cycle(self, topic, group, count, timeout=STEP_TIMEOUT, **conf):
        """One member of `group` subscribed to `topic`: joins, consumes `count` records from
        the earliest offset, commits its positions synchronously, and leaves (close() sends
        LeaveGroup). Returns {"assignment": [partitions], "records": [...],
        "committed": {partition: offset}}."""
        kw = {"bootstrap_servers": self.bootstrap, "group_id": group,
              "enable_auto_commit": False, "auto_offset_reset": "earliest",
              "fetch_max_wait_ms": 100, "session_timeout_ms": 6000,
              "heartbeat_interval_ms": 500, "max_poll_interval_ms": 20000, **self.sec}
        kw.update(conf)
        c = self.kafka.KafkaConsumer(**kw)
        try:
            c.subscribe([topic])
            out = self._poll(c, count, timeout)
            assignment = sorted(tp.partition for tp in c.assignment())
            c.commit()  # synchronous: the positions of every assigned partition
            positions = {tp.partition: c.position(tp) for tp in c.assignment()}
        finally:
            c.close()  # leaves the group
        return {"assignment": assignment, "records": out, "committed": positions}


# --------------------------------------------------------------------------------------------
class _Proc:
    """A child process whose stdout and stderr lines are read by threads (bounded waits)."""

    def __init__(self, args):
        self.args = args
        self.p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, cwd=ROOT)
        self.out = queue.Queue()
        self.err = []
        self.err_q = queue.Queue()
        threading.Thread(target=self._pump, args=(self.p.stdout, self.out), daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    @staticmethod
    def _pump(f, q):
        for line in f:
            q.put(line.rstrip("\n"))
        q.put(None)

    def _pump_err(self):
        for line in self.p.stderr:
            self.err.append(line.rstrip("\n"))
            self.err_q.put(line)
        self.err_q.put(None)

    def line(self, timeout):
        try:
            return self.out.get(timeout=max(0.01, timeout))
        except queue.Empty:
            return False

    def stderr_match(self, pattern, timeout):
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        for line in self.err:
            if rx.search(line):
                return True
        while time.monotonic() < deadline:
            try:
                line = self.err_q.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            if rx.search(line):
                return True
        return False

    def finish(self, timeout):
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise ClientError(f"{self.args[:3]} still running after {timeout}s; stderr:\n"
                              + "\n".join(self.err[-30:]))
        # stdout/stderr pumps end right after exit
        return self.p.returncode

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


# --------------------------------------------------------------------------------------------
class Kcat(Client):
    """kcat 1.7.1 (librdkafka 2.0.2). No admin API: topics are auto-created by a metadata
    request (kcat -L -t), with the broker's num.partitions. No per-message timestamps (the
    producer stamps the send time) and one set of headers per kcat run."""
    name = "kcat"
    codecs = read_codecs = ("none", "gzip", "snappy", "lz4", "zstd")
    sets_timestamp = False
    empty = False  # -Z sends empty keys and values as null
    DELIM = "\x1f"  # key delimiter (unit separator): never part of test data

    def __init__(self, bootstrap, security=None):
        self.bootstrap = bootstrap
        # librdkafka's security settings as -X options, before every other argument
        self.xargs = [a for k, v in librdkafka_conf(security).items() for a in ("-X", f"{k}={v}")]

    def _run(self, args, stdin=None, timeout=STEP_TIMEOUT):
        try:
            return subprocess.run([KCAT, "-b", self.bootstrap, *self.xargs, *args], input=stdin,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise ClientError(f"kcat {args} timed out after {timeout}s: {e.stderr}") from None

    def create_topic(self, topic, partitions=None, configs=None):
        assert not configs, "kcat cannot set topic configs"
        r = self._run(["-L", "-J", "-t", topic])
        assert r.returncode == 0, f"kcat -L failed: {r.stderr}"

    def metadata(self, topic):
        r = self._run(["-L", "-J", "-t", topic])
        assert r.returncode == 0, f"kcat -L failed: {r.stderr}"
        return json.loads(r.stdout)

    def partitions(self, topic):
        md = self.metadata(topic)
        t = [t for t in md["topics"] if t["topic"] == topic][0]
        assert "error" not in t, f"metadata error for {topic}: {t}"
        return len(t["partitions"])

    def produce(self, topic, records, codec="none", big=False):
        # One kcat run per run of consecutive records with the same partition and headers.
        results = []
        i = 0
        while i < len(records):
            j = i
            while j < len(records) and records[j]["partition"] == records[i]["partition"] \
                    and records[j].get("headers", []) == records[i].get("headers", []):
                j += 1
            results += self._produce_group(topic, records[i:j], codec, big)
            i = j
        return results

    def _produce_group(self, topic, group, codec, big):
        args = ["-P", "-t", topic, "-p", str(group[0]["partition"]), "-z", codec,
                "-K", self.DELIM, "-Z", "-X", "linger.ms=20", "-v", "-v", "-v"]
        if big:
            args += ["-X", f"message.max.bytes={BIG_LIMIT}"]
        for k, v in group[0].get("headers", []):
            args += ["-H", f"{k}={v}"]
        lines = []
        for r in group:
            assert r.get("timestamp") is None, "kcat cannot set timestamps"
            # -Z: an empty key or value is sent as null, so empty strings cannot be tested here
            assert r["key"] != "" and r["value"] != "", "kcat sends empty as null (-Z)"
            lines.append(f"{r['key'] or ''}{self.DELIM}{r['value'] or ''}")
        r = self._run(args, stdin="\n".join(lines) + "\n")
        out = []
        for line in r.stderr.splitlines():
            m = re.search(r"Message delivered to partition (\d+) \(offset (-?\d+)\)", line)
            if m:
                out.append({"partition": int(m.group(1)), "offset": int(m.group(2))})
            elif "Delivery failed" in line or "ERROR" in line:
                out.append({"error": line})
        assert len(out) == len(group), f"kcat: {len(out)} reports for {len(group)} records:\n" \
                                       + r.stderr[-3000:]
        return out

    @staticmethod
    def _parse(line):
        j = json.loads(line)
        h = j.get("headers") or []
        return {"partition": j["partition"], "offset": j["offset"], "key": j["key"],
                "value": j["payload"], "headers": [[h[i], h[i + 1]] for i in range(0, len(h), 2)],
                "timestamp": j["ts"]}

    def _consume_args(self, topic, partition, off, count, big):
        args = ["-C", "-t", topic, "-p", str(partition), "-o", str(off), "-c", str(count),
                "-J", "-X", "fetch.wait.max.ms=100"]
        if big:
            args += ["-X", f"fetch.message.max.bytes={BIG_LIMIT}",
                     "-X", f"fetch.max.bytes={BIG_LIMIT}",
                     "-X", f"receive.message.max.bytes={BIG_LIMIT + 100000}"]
        return args

    def consume(self, topic, partition, start, count, timeout=STEP_TIMEOUT, big=False):
        if start == "earliest":
            off = "beginning"
        elif "timestamp" in start:
            off = f"s@{start['timestamp']}"
        else:
            off = start["offset"]
        # -e: stop at the end of the partition as well, so a missing record fails fast
        r = self._run(self._consume_args(topic, partition, off, count, big) + ["-e"],
                      timeout=timeout)
        assert r.returncode == 0, f"kcat -C exited {r.returncode}: {r.stderr[-2000:]}"
        return [self._parse(l) for l in r.stdout.splitlines() if l.strip()]

    def offset_for_time(self, topic, partition, ts):
        r = self._run(["-Q", "-t", f"{topic}:{partition}:{ts}"])
        m = re.search(r"\[%d\] offset (-?\d+)" % partition, r.stdout)
        assert m, f"kcat -Q: {r.stdout} {r.stderr}"
        return int(m.group(1))

    def consume_latest(self, topic, partition, count, on_ready, timeout=STEP_TIMEOUT):
        args = self._consume_args(topic, partition, "end", count, False) + ["-d", "fetch"]
        p = _Proc([KCAT, "-b", self.bootstrap, *self.xargs, *args])
        try:
            # librdkafka logs its first Fetch once "end" has been resolved by ListOffsets
            assert p.stderr_match(r"Fetch topic \S+ \[%d\] at offset \d+" % partition, 15), \
                "kcat never started fetching:\n" + "\n".join(p.err[-20:])
            m = [re.search(r"at offset (\d+)", l) for l in p.err if "Fetch topic" in l]
            on_ready(int([x for x in m if x][0].group(1)))
            rc = p.finish(timeout)
            lines = []
            while True:
                line = p.line(1)
                if not line:
                    break
                lines.append(line)
            assert rc == 0, f"kcat exited {rc}"
            return [self._parse(l) for l in lines if l.strip()]
        finally:
            p.kill()


# --------------------------------------------------------------------------------------------
class NodeServer:
    """One long-lived `node <script> --serve` per client script: loading a Node client costs
    seconds on a busy machine, so every request of the session goes to the same process.
    Requests carry an id and may run concurrently; replies are routed by id."""
    servers = {}
    lock = threading.Lock()

    def __init__(self, script):
        env = dict(os.environ, NODE_PATH=str(ROOT / "node_modules"),
                   KAFKAJS_NO_PARTITIONER_WARNING="1")
        self.script = script
        self.p = subprocess.Popen([NODE, str(HERE / "node" / script), "--serve"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self.queues = {}
        self.qlock = threading.Lock()
        self.next_id = 0
        self.err = []
        threading.Thread(target=self._route, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    @classmethod
    def get(cls, script):
        with cls.lock:
            s = cls.servers.get(script)
            if s is None or s.p.poll() is not None:
                s = cls.servers[script] = NodeServer(script)
            return s

    @classmethod
    def close_all(cls):
        with cls.lock:
            for s in cls.servers.values():
                try:
                    s.p.stdin.close()
                    s.p.wait(10)
                except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
                    s.p.kill()
                    s.p.wait()
            cls.servers.clear()

    def _route(self):
        for line in self.p.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                self.err.append("stdout: " + line.rstrip())
                continue
            with self.qlock:
                q = self.queues.get(msg.get("id"))
            if q is not None:
                q.put(msg)
        with self.qlock:
            for q in self.queues.values():
                q.put(None)

    def _pump_err(self):
        for line in self.p.stderr:
            self.err.append(line.rstrip("\n"))

    def start(self, req):
        with self.qlock:
            self.next_id += 1
            rid = self.next_id
            q = self.queues[rid] = queue.Queue()
        self.p.stdin.write(json.dumps(dict(req, id=rid)) + "\n")
        self.p.stdin.flush()
        return NodeRequest(self, rid, q, req)


class NodeRequest:
    def __init__(self, server, rid, q, req):
        self.server, self.rid, self.q, self.req = server, rid, q, req
        self.done = False

    def next(self, timeout):
        """The next data line (dict), or None once the request ended; raises on an error or
        when nothing arrives within `timeout`."""
        if self.done:
            return None
        try:
            msg = self.q.get(timeout=max(0.01, timeout))
        except queue.Empty:
            raise ClientError(f"{self.server.script} {self.req['op']}: no answer in {timeout}s; "
                              "stderr:\n" + "\n".join(self.server.err[-20:])) from None
        if msg is None:
            self.done = True
            raise ClientError(f"{self.server.script} exited (code {self.server.p.poll()}); "
                              "stderr:\n" + "\n".join(self.server.err[-40:]))
        if msg.get("end"):
            self.done = True
            with self.server.qlock:
                self.server.queues.pop(self.rid, None)
            if "error" in msg:
                raise ClientError(f"{self.server.script} {self.req['op']} failed:\n{msg['error']}")
            return None
        msg.pop("id", None)
        return msg

    def all(self, timeout):
        deadline = time.monotonic() + timeout
        out = []
        while True:
            m = self.next(deadline - time.monotonic())
            if m is None:
                return out
            out.append(m)


class NodeClient(Client):
    """Sends requests to tests/interop/node/<script> (see NodeServer); the same script also
    runs one-shot: `echo '{"op": ..., "brokers": [...]}' | node <script>`."""
    script = None

    def __init__(self, bootstrap, security=None):
        self.bootstrap = bootstrap
        self.security = security

    def _start(self, req):
        if self.security is not None:
            req = dict(req, security=self.security.node())
        return NodeServer.get(self.script).start(dict(req, brokers=[self.bootstrap]))

    def _call(self, req, timeout=STEP_TIMEOUT):
        return self._start(req).all(timeout)

    def create_topic(self, topic, partitions, configs=None):
        self._call({"op": "create", "topic": topic, "partitions": partitions,
                    "configs": dict(configs or {})})

    def delete_topic(self, topic):
        self._call({"op": "delete", "topic": topic})

    def partitions(self, topic):
        return self._call({"op": "partitions", "topic": topic})[0]["partitions"]

    def produce(self, topic, records, codec="none", big=False):
        return self._call({"op": "produce", "topic": topic, "codec": codec, "records": records})

    def offset_for_time(self, topic, partition, ts):
        return self._call({"op": "offset", "topic": topic, "partition": partition,
                           "timestamp": ts})[0]["offset"]

    def consume(self, topic, partition, start, count, timeout=STEP_TIMEOUT, big=False):
        req = {"op": "consume", "topic": topic, "partition": partition, "count": count,
               "timeoutMs": int(max(1.0, timeout - 3) * 1000), "big": big}
        if start == "earliest":
            req["start"] = "earliest"
        else:
            req.update(start)
        return self._call(req, timeout + 5)

    def consume_latest(self, topic, partition, count, on_ready, timeout=STEP_TIMEOUT):
        r = self._start({"op": "consume", "topic": topic, "partition": partition,
                         "count": count, "start": "latest", "timeoutMs": int(timeout * 1000)})
        first = r.next(15)
        assert first and "ready" in first, f"{self.name}: expected a ready line, got {first}"
        on_ready(first["ready"])
        return r.all(timeout + 5)


class KafkaJS(NodeClient):
    name = "kafkajs"
    script = "kafkajs.js"
    # kafkajs ships gzip only; snappy/lz4/zstd need codec packages that are not installed
    codecs = read_codecs = ("none", "gzip")
    lacks = {c: "kafkajs 2.2.4 ships only gzip; snappy, lz4 and zstd need extra codec packages"
             for c in ("snappy", "lz4", "zstd")}

    def group_cycle(self, topic, group, count, timeout=STEP_TIMEOUT, **conf):
        """kafkajs' group consumer (see group_cycle of KafkaPython): joins, consumes `count`
        records from the beginning with autoCommit off, commitOffsets(), disconnect()
        (LeaveGroup). Returns {"assignment", "records", "committed", "join"}."""
        lines = self._call({"op": "group", "topic": topic, "group": group, "count": count,
                            "timeoutMs": int(timeout * 1000), **conf}, timeout + 20)
        joins = [l["join"] for l in lines if "join" in l]
        assert joins, f"kafkajs never reported joining {group}: {lines[-5:]}"
        committed = [l["committed"] for l in lines if "committed" in l]
        assert len(committed) == 1, f"kafkajs commit report: {lines[-5:]}"
        return {"join": joins[-1],
                "assignment": sorted(joins[-1]["assignment"].get(topic, [])),
                "records": [l for l in lines if "offset" in l],
                "committed": {int(p): o for p, o in committed[0].items()}}

    def transactions(self, topic, transactional_id, batches, timeout=STEP_TIMEOUT):
        """kafkajs' transactional producer: each of `batches` ({"records", "commit"}) is one
        transaction, committed or aborted. Returns the outcome reported per transaction."""
        lines = self._call({"op": "txn", "topic": topic, "transactionalId": transactional_id,
                            "batches": batches}, timeout + 20)
        return [l["done"] for l in lines if "done" in l]


class Platformatic(NodeClient):
    name = "platformatic"
    script = "platformatic.js"
    codecs = read_codecs = ("none", "gzip", "snappy", "lz4")
    lacks = {"zstd": "@platformatic/kafka uses zlib.zstdCompressSync, absent from Node 20"}
    cannot_read = {("kafka-python", "snappy"):
                   "@platformatic/kafka decodes raw snappy only, not the xerial framing "
                   "kafka-python (like Java) writes: its wasm decoder traps"}


ALL = {c.name: c for c in (Kcat, ConfluentKafka, KafkaPython, KafkaJS, Platformatic)}


# --------------------------------------------------------------------------------------------
# Consumer-group members as processes (tests/interop/test_groups.py).
#
# A ConfluentMember is one confluent-kafka consumer in its own process (`python3 clients.py
# confluent-member`), so that a test can SIGKILL it. The child reads one JSON request line and
# then command lines from stdin, and writes one JSON event per line to stdout, each stamped
# with the child's time.monotonic() (CLOCK_MONOTONIC: comparable across processes), so the
# events of all members of a group can be put in one order:
#   assign / revoke / lost  {partitions, gen, member}     rebalance callbacks (eager: whole
#                                                         assignments; cooperative: increments)
#   rec      {p, o, v}       one processed record
#   commit   {offsets: [[p, o], ...], why}                a synchronous commit that succeeded
#   commit_failed {offsets, why, error}
#   status   {id, gen, member, assignment}                answer to {"op": "status"}
#   nocommit / closed / reopened / error / hb             (hb: a HeartbeatResponse received,
#                                                         with "heartbeats": true)
# Commits are explicit offsets (last processed + 1) of the owned partitions: every
# `commit_ms`, and in on_revoke for the revoked ones (never in on_lost).

MEMBER_TIMEOUT = 20.0  # one answer of a member process


def parse_group_metadata(blob):
    """(generation, member id) from librdkafka 2.0's serialized consumer group metadata
    ("CGMDv2:", generation int32 in host order, group id, member id, instance id)."""
    import struct
    assert blob[:7] == b"CGMDv2:", blob
    gen = struct.unpack("=i", blob[7:11])[0]
    _group, member, _rest = blob[11:].split(b"\0", 2)
    return gen, member.decode()


class GroupLog:
    """The events of every member of one test, in arrival order, each with "m" (the member's
    name) and "t" (its monotonic stamp). `wait(cond)` polls a condition over them."""

    def __init__(self):
        self.events = []
        self.cond = threading.Condition()

    def add(self, ev):
        with self.cond:
            self.events.append(ev)
            self.cond.notify_all()

    def snapshot(self):
        with self.cond:
            return list(self.events)

    def ordered(self):
        return sorted(self.snapshot(), key=lambda e: e["t"])

    def of(self, member, ev=None, since=None):
        return [e for e in self.snapshot() if e["m"] == member
                and (ev is None or e["ev"] == ev) and (since is None or e["t"] >= since)]

    def wait(self, cond, timeout, what):
        """Returns cond()'s first truthy value; woken by every new event (and every 0.2 s)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                v = cond()
                if v:
                    return v
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ClientError(f"timed out after {timeout}s waiting for {what}")
                self.cond.wait(min(left, 0.2))


class ConfluentMember:
    """Parent side of one member process. `conf` adds librdkafka settings (session.timeout.ms,
    partition.assignment.strategy, group.instance.id, ...)."""

    def __init__(self, bootstrap, name, group, topic, log, conf=None, commit_ms=250,
                 heartbeats=False):
        self.name, self.group, self.topic, self.log = name, group, topic, log
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(HERE), str(ROOT / "tests" / "pylib"), os.environ.get("PYTHONPATH", "")]))
        self.p = subprocess.Popen(
            ["/usr/bin/python3", str(HERE / "clients.py"), "confluent-member"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env, cwd=ROOT)
        self.err = []
        self.exited = threading.Event()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()
        self._send({"bootstrap": bootstrap, "group": group, "topic": topic,
                    "conf": dict(conf or {}), "commit_ms": commit_ms, "heartbeats": heartbeats})

    def __repr__(self):
        return self.name

    def _pump(self):
        for line in self.p.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                self.err.append("stdout: " + line.rstrip())
                continue
            ev["m"] = self.name
            self.log.add(ev)
        self.exited.set()
        self.log.add({"m": self.name, "ev": "exit", "t": time.monotonic()})

    def _pump_err(self):
        for line in self.p.stderr:
            self.err.append(line.rstrip("\n"))

    def _send(self, obj):
        try:
            self.p.stdin.write(json.dumps(obj) + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise ClientError(f"{self.name} is gone ({e}); stderr:\n" + self.stderr()) from None

    def stderr(self, n=30):
        return "\n".join(self.err[-n:])

    def _ask(self, op, answer, timeout=MEMBER_TIMEOUT):
        self.next_id += 1
        rid = self.next_id
        self._send({"op": op, "id": rid})
        return self.log.wait(
            lambda: next((e for e in self.log.of(self.name, answer) if e.get("id") == rid), None)
            or (self.exited.is_set() and self._died(op)), timeout, f"{self.name}: {op}")

    def _died(self, what):
        raise ClientError(f"{self.name} exited (code {self.p.poll()}) during {what}; stderr:\n"
                          + self.stderr())

    def status(self):
        """{"gen", "member", "assignment": [partitions]} as librdkafka sees them now."""
        return self._ask("status", "status")

    def stop_commits(self):
        """No commit is started after this returns (not even in on_revoke)."""
        return self._ask("nocommit", "nocommit")

    def reopen(self):
        """close() and a new consumer with the same configuration in the same process: a
        restart of the member (a static member keeps its group.instance.id)."""
        return self._ask("reopen", "reopened")

    def close(self, timeout=MEMBER_TIMEOUT):
        """consumer.close() (on_revoke commits, then LeaveGroup unless static); exit 0."""
        ev = self._ask("close", "closed", timeout)
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise ClientError(f"{self.name} did not exit after close(); stderr:\n"
                              + self.stderr()) from None
        assert rc == 0, f"{self.name} exited {rc} after close(); stderr:\n{self.stderr()}"
        return ev

    def kill(self):
        """SIGKILL; logs a "killed" event stamped after the process is gone."""
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        self.exited.wait(5)
        t = time.monotonic()
        self.log.add({"m": self.name, "ev": "killed", "t": t})
        return t

    def alive(self):
        return self.p.poll() is None


def _confluent_member_main():
    """The child process of ConfluentMember (see the comment above it)."""
    import logging
    import sys

    import confluent_kafka as ck

    req = json.loads(sys.stdin.readline())
    topic = req["topic"]
    commands = queue.Queue()

    def read_commands():
        for line in sys.stdin:
            if line.strip():
                commands.put(json.loads(line))
        commands.put({"op": "eof"})

    threading.Thread(target=read_commands, daemon=True).start()
    out_lock = threading.Lock()

    def emit(ev, **kw):
        line = json.dumps(dict(kw, ev=ev, t=time.monotonic()))
        with out_lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    conf = {"bootstrap.servers": req["bootstrap"], "group.id": req["group"],
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "enable.partition.eof": False, "fetch.wait.max.ms": 100,
            "session.timeout.ms": 3000, "heartbeat.interval.ms": 300,
            "max.poll.interval.ms": 10000}
    conf.update(req["conf"])
    if req["heartbeats"]:
        class Heartbeats(logging.Handler):
            def emit(self, rec):
                msg = rec.getMessage()
                if "Received HeartbeatResponse" in msg:
                    emit("hb")

        log = logging.getLogger("member.rdkafka")
        log.propagate = False
        log.setLevel(logging.DEBUG)
        log.addHandler(Heartbeats())
        conf["debug"] = "protocol"
        conf["logger"] = log

    st = {"c": None, "owned": set(), "pos": {}, "done": {}, "commits": True}

    def group_md():
        return parse_group_metadata(st["c"].consumer_group_metadata())

    def commit(parts, why):
        todo = sorted(p for p in parts if p in st["pos"] and st["pos"][p] != st["done"].get(p))
        if not st["commits"] or not todo:
            return
        offs = [ck.TopicPartition(topic, p, st["pos"][p]) for p in todo]
        try:
            res = st["c"].commit(offsets=offs, asynchronous=False)
        except ck.KafkaException as e:
            emit("commit_failed", why=why, error=str(e), offsets=[[p, st["pos"][p]] for p in todo])
            return
        ok = [[tp.partition, tp.offset] for tp in res if tp.error is None]
        bad = [[tp.partition, tp.offset, str(tp.error)] for tp in res if tp.error is not None]
        if ok:
            st["done"].update(dict(ok))
            emit("commit", why=why, offsets=ok)
        if bad:
            emit("commit_failed", why=why, error="per partition", offsets=bad)

    def on_assign(c, parts):
        ps = sorted(tp.partition for tp in parts)
        st["owned"] |= set(ps)
        gen, member = group_md()
        emit("assign", partitions=ps, gen=gen, member=member)

    def on_revoke(c, parts):
        ps = sorted(tp.partition for tp in parts)
        commit(ps, "revoke")
        for p in ps:
            st["owned"].discard(p)
            st["pos"].pop(p, None)
        gen, member = group_md()
        emit("revoke", partitions=ps, gen=gen, member=member)

    def on_lost(c, parts):
        ps = sorted(tp.partition for tp in parts)
        for p in ps:
            st["owned"].discard(p)
            st["pos"].pop(p, None)
        gen, member = group_md()
        emit("lost", partitions=ps, gen=gen, member=member)

    def open_consumer():
        st["c"] = ck.Consumer(conf)
        st["c"].subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)

    def close_consumer():
        st["c"].close()
        st["owned"].clear()
        st["pos"].clear()

    open_consumer()
    next_commit = time.monotonic() + req["commit_ms"] / 1000
    while True:
        try:
            cmd = commands.get_nowait()
        except queue.Empty:
            cmd = None
        if cmd is not None:
            op = cmd["op"]
            if op in ("close", "eof"):
                close_consumer()
                emit("closed", id=cmd.get("id"))
                return 0
            if op == "status":
                gen, member = group_md()
                emit("status", id=cmd["id"], gen=gen, member=member,
                     assignment=sorted(tp.partition for tp in st["c"].assignment()))
            elif op == "nocommit":
                st["commits"] = False
                emit("nocommit", id=cmd["id"])
            elif op == "reopen":
                close_consumer()
                emit("closed", id=None)
                open_consumer()
                emit("reopened", id=cmd["id"])
            continue
        m = st["c"].poll(0.05)
        if m is not None:
            if m.error() is not None:
                emit("error", error=str(m.error()))
            else:
                p, o = m.partition(), m.offset()
                emit("rec", p=p, o=o, v=_dec(m.value()), owned=p in st["owned"])
                st["pos"][p] = o + 1
        if req["commit_ms"] and time.monotonic() >= next_commit:
            commit(st["owned"], "periodic")
            next_commit = time.monotonic() + req["commit_ms"] / 1000


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["confluent-member"]:
        sys.exit(_confluent_member_main())
    sys.exit(f"usage: {sys.argv[0]} confluent-member")
