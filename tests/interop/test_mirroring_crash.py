"""kill -9 during mirroring under load (issue 7): while python3-confluent-kafka producers write
to the source without pause (plain lz4 batches, an idempotent producer, a transactional
producer committing and aborting), the destination is killed with SIGKILL three times and the
source once, each restarted on its data directory. After the load stops and the mirror catches
up, the destination must hold exactly the source's records at the same offsets (no gap, no
duplicate; read_uncommitted and read_committed alike) in the same batches, every acknowledged
record must be on the source, and neither broker may have logged an ERROR or a sanitizer
report. A kill must never take away a record a consumer could already see.

Every wait is a bounded poll of a condition; the only timed waits pace the producers."""
import re
import threading
import time

import confluent_kafka
from confluent_kafka import KafkaException

from mirra_testlib import run_mirra, wait_until
from mirroring import (PARTITIONS, STEP, TXN, assert_same_batches, caught_up, ok,
                       read_everything, start_mirror, watermarks_of)

BURST, PACE = 8, 0.02  # records per burst, seconds between bursts (per producer)
TXN_SIZE = 12          # records per transaction
GROWTH = 1000          # offsets the mirror copies between two kills
SEGMENT_BYTES = 16384
SANITIZER = re.compile(r"Sanitizer|runtime error:")


def producer_config(bootstrap, extra):
    return {"bootstrap.servers": bootstrap, "linger.ms": 5, "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 500, "message.timeout.ms": 60000, **extra}


class Load:
    """Three producer threads on the source. Each record has a unique key; what the source
    acknowledged is recorded as {(partition, offset): (key, value, headers)}: per producer for
    the plain and idempotent ones, per outcome (committed, aborted) for the transactional one."""

    def __init__(self, bootstrap, topic):
        self.bootstrap, self.topic = bootstrap, topic
        self.stop = threading.Event()
        self.lock = threading.RLock()
        self.acked = {"plain": {}, "idempotent": {}, "committed": {}, "aborted": {}}
        self.failed = {"plain": 0, "idempotent": 0}  # delivery errors (not acknowledged)
        self.fatal = []        # fatal producer errors: a broker that lost producer state
        self.txn_errors = []   # errors ending a transaction (retried, aborted or fatal)
        self.crashed = []      # exceptions that ended a producer thread
        self.threads = [threading.Thread(target=self._guarded, args=(f,), daemon=True)
                        for f in (self.plain, self.idempotent, self.transactional)]

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(2 * STEP)
        assert not any(t.is_alive() for t in self.threads), "a producer thread hangs"
        assert not self.crashed, f"producer threads failed: {self.crashed}"

    def _guarded(self, run):
        try:
            run()
        except BaseException as e:  # noqa: B036 -- reported by finish()
            with self.lock:
                self.crashed.append(f"{run.__name__}: {e!r}")

    def summary(self):
        with self.lock:
            return (f"acknowledged {self.counts()}, delivery errors {self.failed}, fatal "
                    f"{self.fatal}, crashed {self.crashed}, transaction errors "
                    f"{len(self.txn_errors)} {self.txn_errors[-5:]}")

    def counts(self):
        with self.lock:
            return {k: len(v) for k, v in self.acked.items()}

    def _acknowledge(self, kind, record):
        """A delivery callback filing `record` under `kind` when the source acknowledged it."""
        def delivered(err, msg):
            with self.lock:
                if err is None:
                    self.acked[kind][(msg.partition(), msg.offset())] = record
                else:
                    self.failed[kind] += 1
        return delivered

    def _on_error(self, err):
        if err.fatal():
            with self.lock:
                self.fatal.append(str(err))

    def _stream(self, kind, producer):
        n = 0
        while not self.stop.is_set():
            for _ in range(BURST):
                key, value = f"{kind}-{n}".encode(), f"{kind}-{n}-".encode() * (1 + n % 7)
                headers = [("n", str(n).encode())]
                producer.produce(self.topic, partition=n % PARTITIONS, key=key, value=value,
                                 headers=headers,
                                 on_delivery=self._acknowledge(kind, (key, value, headers)))
                n += 1
            producer.poll(0)
            self.stop.wait(PACE)  # pacing the load, not a synchronisation
        left = producer.flush(2 * STEP)
        assert left == 0, f"{kind}: {left} records never reported"

    def plain(self):
        # Not idempotent: a retry after a source crash may write a record twice on the source;
        # the mirror must copy whatever the source has.
        self._stream("plain", confluent_kafka.Producer(producer_config(
            self.bootstrap, {"compression.type": "lz4", "acks": "all",
                             "enable.idempotence": False})))

    def idempotent(self):
        self._stream("idempotent", confluent_kafka.Producer(producer_config(
            self.bootstrap, {"compression.type": "zstd", "enable.idempotence": True,
                             "error_cb": self._on_error})))

    def _transactional_producer(self):
        p = confluent_kafka.Producer(producer_config(
            self.bootstrap, {"transactional.id": "crash-txn", "error_cb": self._on_error}))
        p.init_transactions(STEP)  # fences a predecessor and aborts what it left open
        return p

    def transactional(self):
        p, t = self._transactional_producer(), 0
        while not self.stop.is_set():
            commit = t % 3 != 2
            delivered = {}
            try:
                p.begin_transaction()
                for i in range(TXN_SIZE):
                    key = f"txn-{t}-{i}".encode()
                    record = (key, key * (1 + i % 3), [("txn", str(t).encode())])
                    p.produce(self.topic, partition=(t + i) % PARTITIONS, key=record[0],
                              value=record[1], headers=record[2],
                              on_delivery=self._collect(delivered, record))
                if not commit:  # on the log first: an abort purges what is still queued
                    p.flush(STEP)
                outcome = self._end_transaction(p, commit)
            except KafkaException as e:  # fatal: a new producer fences this one
                self.txn_errors.append(f"transaction {t}: {e.args[0]}")
                p, outcome = self._transactional_producer(), None
            if outcome is not None:
                with self.lock:
                    self.acked[outcome].update(delivered)
            t += 1
            self.stop.wait(PACE)  # pacing the load, not a synchronisation

    @staticmethod
    def _collect(delivered, record):
        def on_delivery(err, msg):
            if err is None:
                delivered[(msg.partition(), msg.offset())] = record
        return on_delivery

    def _end_transaction(self, p, commit):
        """Commits or aborts; retries what is retriable, aborts what must be. Returns the
        outcome ("committed" / "aborted"); raises on a fatal error."""
        for _ in range(20):
            try:
                (p.commit_transaction if commit else p.abort_transaction)(STEP)
                return "committed" if commit else "aborted"
            except KafkaException as e:
                err = e.args[0]
                if err.fatal():
                    raise
                if err.txn_requires_abort():
                    self.txn_errors.append(f"abortable: {err}")
                    commit = False
                elif err.retriable():
                    self.txn_errors.append(f"retriable: {err}")
                else:
                    raise
        raise AssertionError("a transaction could not be ended in 20 attempts")


def ends(broker, topic, isolation="read_uncommitted"):
    return watermarks_of(broker.bootstrap, topic, PARTITIONS, isolation)


def wait_for_growth(broker, topic, beyond, what):
    """Until the log ends of `broker` add up to at least GROWTH offsets beyond `beyond`."""
    wait_until(lambda: sum(ends(broker, topic)) >= beyond + GROWTH, STEP,
               f"{broker.name} to grow {GROWTH} offsets beyond {beyond} ({what})")


def kill_and_restart(broker, topic):
    """SIGKILL and a start on the same directory. Returns the log ends a consumer saw just
    before the kill; each partition must have at least those after the restart."""
    seen = ends(broker, topic)
    assert broker.kill() == -9
    broker.start()
    after = ends(broker, topic)
    assert all(a >= s for a, s in zip(after, seen)), \
        f"{broker.name} lost visible records at kill -9: ends {seen} before, {after} after"
    return seen


def unexpected_problems(broker):
    lines = broker.log().splitlines()
    return [l for l in broker.problems() if " ERROR " in l] + \
        [l for l in lines if SANITIZER.search(l)]


def test_kill9_during_mirroring_loses_and_duplicates_nothing(make_broker, tmp_path):
    started = time.monotonic()
    src = make_broker(TXN, name="source")
    dst = make_broker(TXN, name="destination")
    topic = "crashing"
    # Small segments (the mirror copies the config): the kills also hit segment rolls, and
    # recovery has indexes and producer-state snapshots of several segments to check.
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", topic,
                 "--partitions", str(PARTITIONS), "--config", f"segment.bytes={SEGMENT_BYTES}"))
    load = Load(src.bootstrap, topic).start()
    start_mirror(src, dst, tmp_path, topic)
    wait_until(lambda: sum(ends(dst, topic)) > 0, STEP, "the mirror to copy something")
    kill_destination_three_times(dst, topic)
    kill_source_once(src, dst, topic, load)
    load.finish()
    loaded = time.monotonic()

    # No transaction may be left open on the source, or nothing above its LSO is mirrored.
    wait_until(lambda: ends(src, topic, "read_committed") == ends(src, topic), STEP,
               "the source's LSO to reach its high watermark")
    wait_until(lambda: caught_up(src, dst, topic), 2 * STEP, "the mirror to catch up")
    caught = time.monotonic()

    views = assert_same_records(src, dst, topic)
    batches = assert_same_batches(src, dst, topic)
    assert_load_on_source(load, views)
    for b in (src, dst):
        bad = unexpected_problems(b)
        assert not bad, f"{b.name} logged {len(bad)} problem(s):\n" + "\n".join(bad[:20])
    print(f"load {loaded - started:.1f}s, catch-up {caught - loaded:.1f}s, compare "
          f"{time.monotonic() - caught:.1f}s; {load.summary()}; "
          f"{len(views['read_uncommitted'])} records in {batches} batches, "
          f"{len(list(dst.data_dir.glob(f'{topic}-*/*.log')))} segments; destination warned "
          f"{len(dst.problems())} times, source {len(src.problems())}")


def kill_destination_three_times(dst, topic):
    """Each kill only once the mirror copied a good deal more than it had at the previous one,
    so that the kills land at different points of a stream that keeps flowing."""
    at_kill = 0
    for n in range(1, 4):
        wait_for_growth(dst, topic, at_kill, f"before kill {n} of the destination")
        at_kill = sum(kill_and_restart(dst, topic))
    wait_for_growth(dst, topic, at_kill, "after the 3rd kill of the destination")


def kill_source_once(src, dst, topic, load):
    """The load goes on after the source restart, and the mirror copies what came after it."""
    acked_at_kill = load.counts()
    src_at_kill = kill_and_restart(src, topic)
    try:
        wait_until(lambda: all(n > acked_at_kill[k] for k, n in load.counts().items()),
                   2 * STEP, f"every producer to be acknowledged again after the source restart "
                   f"(at the kill: {acked_at_kill})")
    except AssertionError as e:
        raise AssertionError(f"{e}; {load.summary()}") from None
    wait_for_growth(dst, topic, sum(src_at_kill), "copying what came after the source restart")


def assert_same_records(src, dst, topic):
    """Both views of the source, record for record at the same offsets on the destination:
    no offset missing, none extra. Returns the source's {isolation: records}."""
    views = {}
    for isolation in ("read_uncommitted", "read_committed"):
        views[isolation] = read_everything(src.bootstrap, topic, isolation)
        mirrored = read_everything(dst.bootstrap, topic, isolation)
        missing = sorted(set(views[isolation]) - set(mirrored))
        extra = sorted(set(mirrored) - set(views[isolation]))
        assert not missing and not extra, \
            f"{isolation}: offsets missing on the destination {missing[:10]}, extra {extra[:10]}"
        differ = [k for k in views[isolation] if views[isolation][k] != mirrored[k]]
        assert not differ, f"{isolation}: {len(differ)} records differ, at {differ[:10]}"
    return views


def assert_load_on_source(load, views):
    """Every acknowledged record is on the source where it was acknowledged; committed ones are
    read by read_committed consumers, aborted ones are not."""
    assert not load.fatal, f"fatal producer errors: {load.fatal}"
    committed = views["read_committed"]
    everything = views["read_uncommitted"]
    counts = load.counts()
    assert all(counts.values()), counts
    problems = []
    for kind, records in load.acked.items():
        for at, (key, value, headers) in records.items():
            view = everything if kind == "aborted" else committed
            got = view.get(at)
            if got is None or got[:3] != (key, value, headers):
                problems.append(f"{kind} {key} acknowledged at {at}, source has {got}")
            if kind == "aborted" and at in committed:
                problems.append(f"aborted {key} at {at} is read by read_committed")
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(problems[:15])
