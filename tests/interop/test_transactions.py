"""Idempotent and transactional producers against `mirra server`: an idempotent producer
through a proxy that cuts its connections, transactions committed and aborted with a
consume-transform-produce loop, the LSO held by an open transaction, timeouts, fencing,
kill -9 in the middle of transactions and commits, kafkajs' transactional producer, and
producer ids that are never handed out twice.

Brokers run with a short sweep (transaction.abort.timed.out.transaction.cleanup.interval.ms)
so that a transaction past its timeout is aborted within a fraction of a second."""
import random
import socket
import struct
import threading
import time

import confluent_kafka
from confluent_kafka import KafkaError, KafkaException, TopicPartition

import clients
from records import read_to_end
from mirra_testlib import request, round_trip, wait_until

SWEEP = {"transaction.abort.timed.out.transaction.cleanup.interval.ms": 200,
         "transaction.state.log.num.partitions": 3, "offsets.topic.num.partitions": 3}
STEP = 30  # seconds: the bound of each client call


def txn_producer(bootstrap, txn_id, timeout_ms=60000, **extra):
    conf = {"bootstrap.servers": bootstrap, "transactional.id": txn_id,
            "transaction.timeout.ms": timeout_ms, "linger.ms": 5}
    conf.update(extra)
    p = confluent_kafka.Producer(conf)
    p.init_transactions(STEP)
    return p


def watermarks(bootstrap, topic, partitions, isolation):
    """(low, high) per partition; high is the LSO for read_committed."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "wm",
                                  "isolation.level": isolation})
    try:
        return [c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
                for p in range(partitions)]
    finally:
        c.close()


def read_all(bootstrap, topic, partitions, isolation, timeout=STEP):
    """Every record a consumer with `isolation` reads from offset 0 up to the end it sees
    (the high watermark, or the LSO for read_committed): [(partition, offset, value)]."""
    return [(m.partition(), m.offset(), m.value().decode())
            for m in read_to_end(bootstrap, topic, partitions, isolation, timeout)]


def values(records, partition=None):
    return [v for p, _, v in records if partition is None or p == partition]


def no_hanging_transaction(bootstrap, topic, partitions, timeout=STEP):
    """Waits until the LSO of every partition reaches its high watermark."""
    def settled():
        lso = watermarks(bootstrap, topic, partitions, "read_committed")
        hw = watermarks(bootstrap, topic, partitions, "read_uncommitted")
        return lso == hw
    wait_until(settled, timeout, f"the LSO of {topic} to reach its high watermark")


# --- an idempotent producer through a connection-cutting proxy ----------------------------------

class CuttingProxy:
    """A loopback TCP proxy to `target_port` that, while `cutting`, closes each connection
    after a random number of bytes (seeded, so a run can be replayed)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(64)
        self.port = self.lsock.getsockname()[1]
        self.target_port = None
        self.cutting = False
        self.cuts = 0
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _budget(self):
        with self.lock:
            return self.rng.randint(500, 30_000) if self.cutting else None

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.lsock.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            state = {"left": self._budget(), "open": True}
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b, client, server, state),
                                 daemon=True).start()

    def _pump(self, src, dst, client, server, state):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                with self.lock:
                    if state["left"] is not None:
                        state["left"] -= len(data)
                        if state["left"] <= 0 and state["open"]:
                            state["open"] = False
                            self.cuts += 1
                    cut = not state["open"]
                if cut:
                    # Part of the bytes may go through: a request or response torn anywhere.
                    dst.sendall(data[:self.rng.randint(0, len(data))])
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (client, server):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.closed = True
        self.lsock.close()


def test_idempotent_producer_through_cut_connections(make_broker):
    proxy = CuttingProxy(seed=7)
    b = make_broker(dict(SWEEP, **{"advertised.listeners": f"PLAINTEXT://127.0.0.1:{proxy.port}"}),
                    name="idem-proxy")
    proxy.target_port = b.port
    try:
        topic, parts, per = "idem", 3, 10000
        clients.ConfluentKafka(b.bootstrap).create_topic(topic, parts)
        errors = []
        p = confluent_kafka.Producer({
            "bootstrap.servers": f"127.0.0.1:{proxy.port}", "enable.idempotence": True,
            "linger.ms": 2, "batch.num.messages": 50, "message.timeout.ms": 120000,
            "retry.backoff.ms": 20, "reconnect.backoff.ms": 10, "reconnect.backoff.max.ms": 100})
        proxy.cutting = True
        for i in range(per):
            for part in range(parts):
                p.produce(topic, value=f"{part}:{i}".encode(), partition=part,
                          on_delivery=lambda err, msg: err and errors.append(err))
            p.poll(0)
        assert p.flush(120) == 0, "records still undelivered"
        proxy.cutting = False
        assert not errors, errors[:5]
        assert proxy.cuts >= 20, f"the proxy cut only {proxy.cuts} connection(s)"
        got = read_all(b.bootstrap, topic, parts, "read_uncommitted")
        for part in range(parts):
            vals = values(got, part)
            expected = [f"{part}:{i}" for i in range(per)]
            if vals != expected:
                dups = len(vals) - len(set(vals))
                missing = set(expected) - set(vals)
                raise AssertionError(f"partition {part}: {len(vals)} records, {dups} duplicate(s), "
                                     f"{len(missing)} missing, in order: {vals == sorted(vals, key=lambda v: int(v.split(':')[1]))}")
    finally:
        proxy.close()


# --- transactions ------------------------------------------------------------------------------

def test_commit_abort_with_consume_transform_produce(make_broker):
    """Each chunk of input is processed twice: first in a transaction that aborts (the group's
    committed offsets stay where they were), then in one that commits, with the input offsets
    committed inside the transaction."""
    b = make_broker(SWEEP, name="txn-ctp")
    ck = clients.ConfluentKafka(b.bootstrap)
    src, dst, group, parts, per = "ctp-in", "ctp-out", "ctp-group", 3, 30
    ck.create_topic(src, parts)
    ck.create_topic(dst, parts)
    ck.produce(src, [{"partition": p, "key": None, "value": f"v{p}-{i}", "headers": [],
                      "timestamp": None} for p in range(parts) for i in range(per)])
    consumer = confluent_kafka.Consumer({
        "bootstrap.servers": b.bootstrap, "group.id": group, "enable.auto.commit": False,
        "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(src, p) for p in range(parts)])
    producer = txn_producer(b.bootstrap, "ctp-txn")
    markers = [0] * parts
    group_offsets = {p: -1001 for p in range(parts)}  # librdkafka's "no committed offset"
    try:
        done = 0
        deadline = time.monotonic() + 90
        while done < parts * per:
            assert time.monotonic() < deadline, f"processed {done} of {parts * per}"
            msgs = [m for m in consumer.consume(10, 1.0) if not m.error()]
            if not msgs:
                continue
            for commit in (False, True):
                producer.begin_transaction()
                touched = set()
                for m in msgs:
                    producer.produce(dst, value=b"out-" + m.value(), partition=m.partition())
                    touched.add(m.partition())
                positions = {}
                for m in msgs:
                    positions[m.partition()] = m.offset() + 1
                producer.send_offsets_to_transaction(
                    [TopicPartition(src, p, o) for p, o in positions.items()],
                    consumer.consumer_group_metadata(), STEP)
                assert producer.flush(STEP) == 0
                for p in touched:
                    markers[p] += 1
                if commit:
                    producer.commit_transaction(STEP)
                else:
                    producer.abort_transaction(STEP)
                    # the aborted transaction's offsets did not count
                    tps = [TopicPartition(src, p) for p in range(parts)]
                    now = {tp.partition: tp.offset for tp in consumer.committed(tps, STEP)}
                    assert now == group_offsets, (now, group_offsets)
            for p, o in positions.items():
                group_offsets[p] = o
            done += len(msgs)
    finally:
        consumer.close()
    no_hanging_transaction(b.bootstrap, dst, parts)
    committed_view = read_all(b.bootstrap, dst, parts, "read_committed")
    all_view = read_all(b.bootstrap, dst, parts, "read_uncommitted")
    for p in range(parts):
        expected = [f"out-v{p}-{i}" for i in range(per)]
        assert values(committed_view, p) == expected, f"read_committed, partition {p}"
        # read_uncommitted sees the aborted copy too: each record twice
        assert sorted(values(all_view, p)) == sorted(expected * 2), f"read_uncommitted, partition {p}"
    # Control records take offsets: the log end is data records plus one marker per
    # transaction that wrote to the partition; read_committed offsets skip both.
    hw = [hi for _, hi in watermarks(b.bootstrap, dst, parts, "read_uncommitted")]
    assert hw == [2 * per + markers[p] for p in range(parts)], (hw, markers)
    assert len({o for p, o, _ in all_view if p == 0}) == 2 * per
    assert ck.committed(group, src, parts) == {p: per for p in range(parts)}


def test_open_transaction_holds_the_lso(make_broker):
    b = make_broker(SWEEP, name="txn-lso")
    ck = clients.ConfluentKafka(b.bootstrap)
    topic = "lso"
    ck.create_topic(topic, 1)
    producer = txn_producer(b.bootstrap, "lso-txn")
    producer.begin_transaction()
    for i in range(5):
        producer.produce(topic, value=f"t{i}".encode(), partition=0)
    assert producer.flush(STEP) == 0
    # a plain record after the open transaction's records is held back too
    ck.produce(topic, [{"partition": 0, "key": None, "value": "plain", "headers": [],
                        "timestamp": None}])
    assert watermarks(b.bootstrap, topic, 1, "read_uncommitted") == [(0, 6)]
    assert watermarks(b.bootstrap, topic, 1, "read_committed") == [(0, 0)]
    waiting = confluent_kafka.Consumer({"bootstrap.servers": b.bootstrap, "group.id": "w",
                                        "isolation.level": "read_committed",
                                        "enable.partition.eof": True})
    try:
        waiting.assign([TopicPartition(topic, 0, 0)])
        # The consumer reaches the end it may read (the LSO, 0) and gets no record.
        m = waiting.poll(STEP)
        assert m is not None and m.error() and m.error().code() == KafkaError._PARTITION_EOF, m
        assert m.offset() == 0
        producer.commit_transaction(STEP)
        got = []
        deadline = time.monotonic() + STEP
        while len(got) < 6 and time.monotonic() < deadline:
            m = waiting.poll(1.0)
            if m is not None and not m.error():
                got.append(m.value().decode())
        assert got == [f"t{i}" for i in range(5)] + ["plain"]
    finally:
        waiting.close()
    lso = watermarks(b.bootstrap, topic, 1, "read_committed")
    assert lso == watermarks(b.bootstrap, topic, 1, "read_uncommitted") == [(0, 7)]


def test_timed_out_transaction_is_aborted_and_its_producer_fenced(make_broker):
    b = make_broker(SWEEP, name="txn-timeout")
    topic = "timeout"
    clients.ConfluentKafka(b.bootstrap).create_topic(topic, 2)
    producer = txn_producer(b.bootstrap, "slow-txn", timeout_ms=2000,
                            **{"message.timeout.ms": 2000, "socket.timeout.ms": 2000})
    producer.begin_transaction()
    for i in range(4):
        producer.produce(topic, value=f"late{i}".encode(), partition=i % 2)
    assert producer.flush(STEP) == 0
    t0 = time.monotonic()
    b.wait_for(r"transactional id slow-txn: aborting the open transaction .*timed out", timeout=STEP)
    assert time.monotonic() - t0 >= 1.0, "aborted before its 2 s timeout"
    no_hanging_transaction(b.bootstrap, topic, 2)
    assert read_all(b.bootstrap, topic, 2, "read_committed") == []
    try:
        producer.commit_transaction(STEP)
        raise AssertionError("a commit after the coordinator aborted the transaction succeeded")
    except KafkaException as e:
        err = e.args[0]
        assert err.fatal() or err.txn_requires_abort(), err


def test_second_producer_with_the_same_id_fences_the_first(make_broker):
    b = make_broker(SWEEP, name="txn-fence")
    topic = "fence"
    clients.ConfluentKafka(b.bootstrap).create_topic(topic, 1)
    old = txn_producer(b.bootstrap, "shared-id")
    old.begin_transaction()
    old.produce(topic, value=b"zombie", partition=0)
    assert old.flush(STEP) == 0
    new = txn_producer(b.bootstrap, "shared-id")  # aborts the old one's transaction
    new.begin_transaction()
    new.produce(topic, value=b"alive", partition=0)
    new.commit_transaction(STEP)
    try:
        old.produce(topic, value=b"zombie-2", partition=0)
        old.commit_transaction(STEP)
        raise AssertionError("the fenced producer committed")
    except KafkaException as e:
        err = e.args[0]
        assert err.fatal(), f"expected a fatal (fenced) error, got {err}"
        assert err.code() in (KafkaError._FENCED, KafkaError.PRODUCER_FENCED,
                              KafkaError.INVALID_PRODUCER_EPOCH), err
    no_hanging_transaction(b.bootstrap, topic, 1)
    assert values(read_all(b.bootstrap, topic, 1, "read_committed")) == ["alive"]


def test_kill9_leaves_no_transaction_hanging(make_broker):
    """kill -9 once with a transaction open (its data written, no commit asked), once while a
    producer commits transactions back to back: after each restart every transaction is
    committed or aborted as a whole, every commit that was acknowledged is there, and no LSO
    stays behind."""
    b = make_broker(SWEEP, name="txn-kill9")
    topic, parts = "kill9", 3
    clients.ConfluentKafka(b.bootstrap).create_topic(topic, parts)
    conf = {"message.timeout.ms": 3000, "socket.timeout.ms": 3000}

    # 1. In the middle of a transaction.
    open_one = txn_producer(b.bootstrap, "open-at-kill", timeout_ms=3000, **conf)
    open_one.begin_transaction()
    for p in range(parts):
        open_one.produce(topic, value=f"open-{p}".encode(), partition=p)
    assert open_one.flush(STEP) == 0
    assert watermarks(b.bootstrap, topic, parts, "read_committed") == [(0, 0)] * parts
    b.kill()
    b.start()
    no_hanging_transaction(b.bootstrap, topic, parts)
    assert read_all(b.bootstrap, topic, parts, "read_committed") == []

    # 2. While commits are under way.
    committed, halt = [], threading.Event()

    def loop():
        p = txn_producer(b.bootstrap, "busy", timeout_ms=3000, **conf)
        k = 0
        try:
            while not halt.is_set():
                p.begin_transaction()
                for part in range(parts):
                    p.produce(topic, value=f"k{k}-{part}".encode(), partition=part)
                p.commit_transaction(10)
                committed.append(k)
                k += 1
        except KafkaException:
            pass  # the broker went away under it

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    wait_until(lambda: len(committed) >= 20, STEP, "20 committed transactions")
    b.kill()
    halt.set()
    t.join(60)
    assert not t.is_alive(), "the producer thread did not end"
    b.start()
    no_hanging_transaction(b.bootstrap, topic, parts)
    got = read_all(b.bootstrap, topic, parts, "read_committed")
    by_txn = {}
    for part, _, v in got:
        k, p = v[1:].split("-")
        by_txn.setdefault(int(k), set()).add(int(p))
    partial = {k: s for k, s in by_txn.items() if s != set(range(parts))}
    assert not partial, f"transactions visible on some partitions only: {partial}"
    missing = set(committed) - set(by_txn)
    assert not missing, f"acknowledged commits lost: {sorted(missing)}"
    # each record once
    assert len(got) == len({v for _, _, v in got})


def test_kafkajs_transactional_producer(make_broker):
    b = make_broker(SWEEP, name="txn-kafkajs")
    topic = "kjs"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, 2)
    batches = [{"commit": c, "records": [{"key": f"b{n}", "value": f"b{n}-{i}", "partition": i % 2}
                                          for i in range(4)]}
               for n, c in enumerate((True, False, True))]
    outcome = clients.KafkaJS(b.bootstrap).transactions(topic, "kafkajs-txn", batches)
    assert outcome == ["commit", "abort", "commit"]
    no_hanging_transaction(b.bootstrap, topic, 2)
    got = sorted(values(read_all(b.bootstrap, topic, 2, "read_committed")))
    assert got == sorted(f"b{n}-{i}" for n in (0, 2) for i in range(4))
    assert len(read_all(b.bootstrap, topic, 2, "read_uncommitted")) == 12


# --- producer ids ------------------------------------------------------------------------------

def init_producer_id(port):
    """InitProducerId v0 without a transactional id: (error code, producer id, epoch)."""
    body = struct.pack(">hi", -1, 60000)  # null transactional id, timeout
    resp = round_trip(port, request(22, 0, 1, body))
    _, _, err, pid, epoch = struct.unpack(">iihqh", resp)
    return err, pid, epoch


def test_producer_ids_are_never_handed_out_twice(make_broker):
    b = make_broker(SWEEP, name="pids")
    first = [init_producer_id(b.port) for _ in range(3)]
    assert [e for e, _, _ in first] == [0, 0, 0]
    pids = [p for _, p, _ in first]
    assert pids == sorted(set(pids)) and all(p >= 0 for p in pids) and [e for *_, e in first] == [0] * 3
    b.kill()
    b.start()
    err, pid, _ = init_producer_id(b.port)
    assert err == 0 and pid > max(pids), (pid, pids)
    b.restart()
    err, pid2, _ = init_producer_id(b.port)
    assert err == 0 and pid2 > pid
