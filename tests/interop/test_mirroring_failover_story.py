"""Issue 16's failover story, end to end, following the disaster recovery runbook of
docs/mirroring.md step by step with two real `mirra server` processes and three real clients.

A producer writes to a 4-partition topic on the source while three consumers read it there,
each in its own group: python3-confluent-kafka, kafka-python and kafkajs
(failover_consumer.py, node/failover_consumer.js). They commit every 17 to 23 records and read
slower than the producer writes, as consumers that lag do. The destination mirrors the
topic and syncs the groups' committed offsets every 500 ms. Once each group's offsets on the
destination are offsets it committed on the source, the producer stops, the mirror catches up,
the source is killed (SIGKILL), the topic is failed over, and the same three groups start on
the destination and read to the end.

The last synced commit S of a group is what the destination holds for it once the source is
gone (no sync can run after that). For each group and partition p:
  - every record of the destination at an offset >= S[p] is consumed there (none skipped);
  - the records consumed on both clusters are exactly those consumed on the source at offsets
    >= S[p]: what was consumed after the last synced commit is read again, nothing before it.
Every wait is a bounded poll of a condition."""
import json
import subprocess
import threading

import confluent_kafka

from mirra_testlib import ROOT, run_mirra, wait_until
from mirroring import caught_up, describe, ok, watermarks_of

HERE = ROOT / "tests" / "interop"
PARTITIONS = 4
# Per client: commit every N records; records per second it reads on the source (a pace). They
# differ so that each group has its own gap between its last synced commit and the failure.
COMMIT_EVERY = {"confluent-kafka": 20, "kafka-python": 17, "kafkajs": 23}
SOURCE_RATE = {"confluent-kafka": 60, "kafka-python": 50, "kafkajs": 70}
PRODUCE_INTERVAL = 0.004  # seconds between produced records: ~250/s, faster than they read
SYNC_WAIT = 60         # seconds: the first synced commits (clients join, the sync runs)
STEP = 30
TOPIC = "orders"
GROUPS = {"confluent-kafka": "billing", "kafka-python": "audit", "kafkajs": "search"}
BROKER = {"group.min.session.timeout.ms": 1000, "group.initial.rebalance.delay.ms": 0,
          "offsets.topic.num.partitions": 3}


class Producer:
    """Numbered records round-robin over the partitions from a thread, until stop()."""

    def __init__(self, bootstrap):
        self.p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": "all",
                                           "linger.ms": 5, "message.timeout.ms": 30000})
        self.failed, self.acked = [], 0
        self.halt = threading.Event()
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _report(self, err, _msg):
        if err is not None:
            self.failed.append(str(err))
        else:
            self.acked += 1

    def _run(self):
        n = 0
        while not self.halt.wait(PRODUCE_INTERVAL):  # a rate, not a synchronisation
            self.p.produce(TOPIC, value=f"n{n}".encode(), partition=n % PARTITIONS,
                           on_delivery=self._report)
            self.p.poll(0)
            n += 1
        self.sent = n
        self.p.flush(STEP)

    def stop(self):
        self.halt.set()
        self.t.join(STEP + 10)
        assert not self.t.is_alive(), "the producer did not finish flushing"
        assert not self.failed and self.acked == self.sent, (self.sent, self.acked, self.failed)
        return self.sent


class Consumer:
    """One failover_consumer process (a client in its own group) and the events it wrote."""

    def __init__(self, client, bootstrap, out, rate):
        self.client, self.group, self.out = client, GROUPS[client], out
        args = [bootstrap, self.group, TOPIC, str(out), str(COMMIT_EVERY[client]), str(rate)]
        cmd = (["node", str(HERE / "node" / "failover_consumer.js"), *args]
               if client == "kafkajs" else
               ["/usr/bin/python3", str(HERE / "failover_consumer.py"), client, *args])
        out.touch()
        self.err = out.with_suffix(".stderr")
        with open(self.err, "w") as err:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)

    def events(self):
        lines = self.out.read_text().splitlines()
        return [json.loads(line) for line in lines if line.endswith("}")]

    def consumed(self):
        return {(e["p"], e["o"]) for e in self.events() if e["ev"] == "rec"}

    def commits(self):
        """{partition: every offset committed there}."""
        out = {p: set() for p in range(PARTITIONS)}
        for e in self.events():
            if e["ev"] == "commit":
                for p, o in e["offsets"].items():
                    out[int(p)].add(o)
        return out

    def alive(self):
        rc = self.proc.poll()
        assert rc is None, f"{self.client} exited {rc}: {self.err.read_text()[-2000:]}"
        return True

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(STEP)


def mirror(broker, *args):
    return ok(run_mirra("mirror", "--bootstrap-server", broker.bootstrap, *args))


def group_offsets(broker, group):
    """{partition: committed offset} of `group` for TOPIC, from `mirra groups --describe`
    (runbook: watch the offsets sync); {} while the group does not exist there."""
    r = run_mirra("groups", "--bootstrap-server", broker.bootstrap, "--describe",
                  "--group", group)
    if r.returncode != 0:
        assert "does not exist" in r.stderr, r.stderr
        return {}
    out = {}
    for line in r.stdout.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 4 and cols[0] == group and cols[1] == TOPIC and cols[3] != "-":
            out[int(cols[2])] = int(cols[3])
    return out


def synced_a_commit(dst, consumers):
    """Each group's offsets on the destination are, on every partition, offsets the group
    committed on the source (a commit synced, not just any number)."""
    for c in consumers:
        c.alive()
        synced, commits = group_offsets(dst, c.group), c.commits()
        if sorted(synced) != list(range(PARTITIONS)):
            return False
        if not all(synced[p] > 0 and synced[p] in commits[p] for p in synced):
            return False
    return True


def test_failover_story(make_broker, tmp_path):
    src = make_broker(BROKER, name="source")
    dst = make_broker(dict(BROKER, **{"mirror.metadata.refresh.interval.ms": 500}),
                      name="destination")
    ok(run_mirra("topics", "--bootstrap-server", src.bootstrap, "--create", "--topic", TOPIC,
                 "--partitions", str(PARTITIONS)))

    # Runbook, set up: a mirror that syncs the groups' offsets, and the topic added to it.
    cfg = tmp_path / "dr.properties"
    cfg.write_text(f"bootstrap.servers={src.bootstrap}\n"
                   "mirror.groups.include=billing,audit,search\n")
    mirror(dst, "--create", "--mirror", "dr", "--mirror-config", str(cfg))
    assert f'Topic "{TOPIC}"' in mirror(dst, "--add", "--mirror", "dr", "--topic", TOPIC)

    producer = Producer(src.bootstrap)
    on_source = [Consumer(client, src.bootstrap, tmp_path / f"{client}-source.jsonl",
                          SOURCE_RATE[client]) for client in GROUPS]
    on_destination = []
    try:
        # Runbook, watch the offsets sync: each group's offsets reach the destination.
        wait_until(lambda: synced_a_commit(dst, on_source), SYNC_WAIT,
                   "each group's committed offsets to be synced to the destination",
                   interval=0.2)

        # Disaster: the writes end, the mirror has copied everything, the source dies while
        # the consumers are still reading it.
        sent = producer.stop()
        wait_until(lambda: caught_up(src, dst, TOPIC, PARTITIONS), STEP, "the mirror to catch up")
        for c in on_source:
            c.alive()
        src.kill()
        for c in on_source:
            c.kill()

        # Runbook, fail over.
        out = mirror(dst, "--remove", "--mirror", "dr", "--topic", TOPIC)
        rows = [r for r in describe(dst) if r["topic"] == TOPIC]
        assert sorted(r["state"] for r in rows) == ["STOPPED"] * PARTITIONS, (out, rows)
        ends = watermarks_of(dst.bootstrap, TOPIC, PARTITIONS)
        assert sum(ends) == sent, (ends, sent)  # caught up, no transaction: nothing truncated
        synced = {c.group: group_offsets(dst, c.group) for c in on_source}
        assert all(sorted(s) == list(range(PARTITIONS)) for s in synced.values()), synced

        # Runbook, move consumers: the same groups, bootstrap at the destination.
        on_destination = [Consumer(client, dst.bootstrap, tmp_path / f"{client}-dest.jsonl", 0)
                          for client in GROUPS]

        def read_to_the_end():
            for c in on_destination:
                c.alive()
                last = {}
                for p, o in c.consumed():
                    last[p] = max(last.get(p, -1), o)
                if not all(last.get(p, synced[c.group][p] - 1) >= ends[p] - 1
                           for p in range(PARTITIONS)):
                    return False
            return True
        wait_until(read_to_the_end, STEP * 2, "the groups to read the destination to the end",
                   interval=0.2)
    finally:
        producer.halt.set()
        for c in on_source + on_destination:
            c.kill()

    twice_total = 0
    for before, after in zip(on_source, on_destination):
        group, s = before.group, synced[before.group]
        read_before, read_after = before.consumed(), after.consumed()
        commits = before.commits()
        for p in range(PARTITIONS):
            assert s[p] in commits[p], (group, p, s[p])  # a commit of the source, not clamped
        should_read = {(p, o) for p in range(PARTITIONS) for o in range(s[p], ends[p])}
        skipped = should_read - read_after
        assert not skipped, f"{group} skipped {len(skipped)}: {sorted(skipped)[:10]}"
        assert read_after <= should_read, (group, sorted(read_after - should_read)[:10])
        twice = read_before & read_after
        after_sync = {(p, o) for p, o in read_before if o >= s[p]}
        assert twice == after_sync, (group, sorted(twice ^ after_sync)[:10])
        twice_total += len(twice)
        print(f"{before.client} ({group}): S={s}, read on the source {len(read_before)}, "
              f"on the destination {len(read_after)}, twice {len(twice)}")
    # The story has a gap to close: records read after the last synced commit.
    assert twice_total > 0
