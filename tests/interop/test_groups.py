"""Classic consumer groups with real clients: partition ownership, hand-over when a member
closes or is SIGKILLed, commits against what every member processed, kafka-python and
kafkajs groups, committed offsets across a clean restart and a kill -9 of the broker, a static
member's restart without a rebalance, and cooperative-sticky incremental rebalances.

The confluent-kafka members are processes (clients.ConfluentMember) so one can be killed; each
reports its rebalance callbacks, every record it processed and every commit that succeeded,
stamped with CLOCK_MONOTONIC, so the events of all members can be replayed in one order by
`check_history`. Brokers run with short group timings (GROUP_OVERRIDES) and members with a 3 s
session timeout, so evictions take seconds.
"""
import collections
import functools
import re
import threading
import time

import confluent_kafka
import pytest

import clients
from mirra_testlib import wait_until

GROUP_OVERRIDES = {"group.min.session.timeout.ms": 1000, "group.initial.rebalance.delay.ms": 0,
                   "offsets.topic.num.partitions": 3}
SESSION_MS = 3000
HEARTBEAT_MS = 300
MEMBER_CONF = {"session.timeout.ms": SESSION_MS, "heartbeat.interval.ms": HEARTBEAT_MS,
               "max.poll.interval.ms": 10000}
PARTITIONS = 6
REBALANCE_S = 15.0  # a rebalance the test is waiting for, beyond any session timeout


# --- helpers -------------------------------------------------------------------------------------

@pytest.fixture
def group_broker(make_broker):
    """group_broker(name) -> a started broker with GROUP_OVERRIDES. Each must still be running
    at the end of the test: one that died (of a signal, say) is reported with its exit code
    (make_broker checks the exit code of the running ones only)."""
    made = []

    def make(name):
        b = make_broker(GROUP_OVERRIDES, name=name)
        made.append(b)
        return b

    yield make
    dead = [f"{b.name}: exit code {b.proc.poll()}" for b in made if not b.running()]
    assert not dead, f"broker(s) died during the test: {dead}"


class NumberedProducer:
    """Produces "n<number>-p<partition>" round-robin over the partitions, one record every
    `interval` seconds (a rate, not a synchronisation), from a thread until stop().
    `produced` maps (partition, offset) to the value, from the delivery reports."""

    def __init__(self, bootstrap, topic, partitions, interval=0.01):
        self.topic, self.partitions, self.interval = topic, partitions, interval
        self.p = confluent_kafka.Producer({
            "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": False,
            "linger.ms": 5, "message.timeout.ms": 30000})
        self.produced = {}
        self.failed = []
        self.lock = threading.Lock()
        self.halt = threading.Event()
        self.sent = 0
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _report(self, err, msg):
        with self.lock:
            if err is not None:
                self.failed.append(str(err))
            else:
                self.produced[(msg.partition(), msg.offset())] = msg.value().decode()

    def _run(self):
        n = 0
        while not self.halt.wait(self.interval):
            p = n % self.partitions
            self.p.produce(self.topic, value=f"n{n}-p{p}".encode(), partition=p,
                           on_delivery=self._report)
            n += 1
            self.sent = n
            self.p.poll(0)
        self.p.flush(30)

    def count(self):
        with self.lock:
            return len(self.produced)

    def stop(self):
        """Stops, flushes; every record must have been acknowledged. Returns `produced`."""
        self.halt.set()
        self.t.join(40)
        assert not self.t.is_alive(), "the producer did not finish flushing"
        assert not self.failed, f"{len(self.failed)} produce errors: {self.failed[:5]}"
        assert len(self.produced) == self.sent, \
            f"{self.sent} sent, {len(self.produced)} acknowledged"
        return dict(self.produced)


def broker_alive(b):
    """`b` still runs; a broker that died (e.g. of a signal) fails the test with its exit code."""
    rc = b.proc.poll()
    assert rc is None, f"{b.name} died: exit code {rc}" + (
        f" (signal {-rc})" if rc < 0 else "") + f"; log tail:\n{b.tail(20)}"


def wait_stable(b, members, partitions, timeout, what):
    """Polls every member's status until all report the same generation and between them own
    every partition exactly once, each at least one. Returns {member: status}. Fails at once
    if the broker `b` dies."""
    last = {}

    def cond():
        broker_alive(b)
        sts = {m: m.status() for m in members}
        last["sts"] = {m.name: (s["gen"], s["assignment"]) for m, s in sts.items()}
        gens = {s["gen"] for s in sts.values()}
        owned = sorted(p for s in sts.values() for p in s["assignment"])
        if len(gens) == 1 and gens != {-1} and owned == list(range(partitions)) \
                and all(s["assignment"] for s in sts.values()):
            return sts
        return None
    try:
        return wait_until(cond, timeout, what, interval=0.05)
    except AssertionError as e:
        raise AssertionError(f"{e}; last (generation, assignment) per member: "
                             f"{last.get('sts')}") from None


def assert_balanced(sts, partitions):
    sizes = sorted(len(s["assignment"]) for s in sts.values())
    assert sizes[-1] - sizes[0] <= 1 and sum(sizes) == partitions, \
        f"unbalanced assignment: { {m.name: s['assignment'] for m, s in sts.items()} }"


def seen_offsets(log):
    return {(e["p"], e["o"]) for e in log.snapshot() if e["ev"] == "rec"}


def wait_all_seen(log, produced, timeout=30):
    want = set(produced)
    log.wait(lambda: want <= seen_offsets(log), timeout,
             f"all {len(want)} produced records to be processed")


def end_offsets(bootstrap, topic, partitions):
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "unused"})
    try:
        return {p: c.get_watermark_offsets(confluent_kafka.TopicPartition(topic, p),
                                           timeout=10)[1] for p in range(partitions)}
    finally:
        c.close()


def check_history(events, produced):
    """Replays the members' events in time order and checks the group's delivery guarantees:
    - a partition is owned by at most one member at a time (from its assign callback to its
      revoke / lost callback, close() or death);
    - a member starts a partition exactly at the offset last committed for it when the
      partition was assigned (the log start, 0, if none), and then processes it without a gap
      or a repeat; so a record is processed again only if a previous owner processed it after
      that owner's last successful commit;
    - a member commits only partitions it owns; every record processed is one that was
      produced, with its value; every produced record is processed at least once.
    Returns {"dups": {(p, o): times processed, for those processed more than once},
    "reads": {(p, o): [members in order]}, "commit_failed": [events]}."""
    problems = []
    committed = {}
    owner = {}
    runs = {}
    reads = collections.defaultdict(list)
    for e in events:
        m, ev, t = e["m"], e["ev"], e["t"]
        if ev == "assign":
            for p in e["partitions"]:
                if p in owner and owner[p] != m:
                    problems.append(f"{t:.3f} p{p} assigned to {m} (generation {e['gen']}) while "
                                    f"{owner[p]} still owns it")
                owner[p] = m
                runs[(m, p)] = {"next": committed.get(p, 0), "fresh": True}
        elif ev in ("revoke", "lost"):
            for p in e["partitions"]:
                if owner.get(p) == m:
                    del owner[p]
                runs.pop((m, p), None)
        elif ev in ("closed", "killed", "exit"):
            for p in [p for p, o in owner.items() if o == m]:
                del owner[p]
                runs.pop((m, p), None)
        elif ev == "commit":
            for p, o in e["offsets"]:
                if owner.get(p) != m:
                    problems.append(f"{t:.3f} {m} committed p{p}@{o} without owning p{p} "
                                    f"(owner {owner.get(p)})")
                committed[p] = o
        elif ev == "rec":
            p, o = e["p"], e["o"]
            reads[(p, o)].append(m)
            if (p, o) not in produced:
                problems.append(f"{t:.3f} {m} processed p{p}@{o}, which was never produced")
            elif produced[(p, o)] != e["v"]:
                problems.append(f"{t:.3f} {m} processed p{p}@{o} = {e['v']!r}, produced "
                                f"{produced[(p, o)]!r}")
            run = runs.get((m, p))
            if run is None:
                problems.append(f"{t:.3f} {m} processed p{p}@{o} without owning p{p}")
            elif o != run["next"]:
                why = ("the offset committed when it was assigned" if run["fresh"]
                       else "the next offset after its previous record")
                problems.append(f"{t:.3f} {m} processed p{p}@{o}, expected {run['next']} ({why})")
            if run is not None:
                run["next"], run["fresh"] = o + 1, False
    missing = sorted(set(produced) - set(reads))
    if missing:
        problems.append(f"{len(missing)} produced record(s) never processed: {missing[:10]}")
    assert not problems, (f"{len(problems)} problem(s) in {len(events)} events:\n"
                          + "\n".join(problems[:25]))
    return {"dups": {k: len(v) for k, v in reads.items() if len(v) > 1}, "reads": dict(reads),
            "commit_failed": [e for e in events if e["ev"] == "commit_failed"]}


def uncommitted_reads(events, member, partitions):
    """(p, o) of `partitions` that `member` processed at or after the offset last committed
    for p when it stopped (its "killed" event): what the next owner must read again."""
    committed, reads = {}, set()
    for e in events:
        if e["ev"] == "killed" and e["m"] == member:
            break
        if e["ev"] == "commit":
            committed.update(dict(e["offsets"]))
        elif e["ev"] == "rec" and e["m"] == member and e["p"] in partitions:
            reads.add((e["p"], e["o"]))
    return {(p, o) for p, o in reads if o >= committed.get(p, 0)}


def test_history_check_catches_each_violation():
    """check_history and uncommitted_reads, on which the group tests rest, accept a correct
    hand-over after a kill (the killed member's uncommitted record read again) and reject each
    kind of violation."""
    produced = {(0, o): f"v{o}" for o in range(4)}

    def ev(m, t, kind, **kw):
        return dict(kw, m=m, t=t, ev=kind)

    def rec(m, t, o, v=None):
        return ev(m, t, "rec", p=0, o=o, v=f"v{o}" if v is None else v)

    good = [ev("a", 1, "assign", partitions=[0], gen=1), rec("a", 2, 0), rec("a", 3, 1),
            ev("a", 4, "commit", offsets=[[0, 2]]), rec("a", 5, 2), ev("a", 6, "killed"),
            ev("b", 7, "assign", partitions=[0], gen=2), rec("b", 8, 2), rec("b", 9, 3)]
    hist = check_history(good, produced)
    assert hist["dups"] == {(0, 2): 2}, hist["dups"]
    assert uncommitted_reads(good, "a", [0]) == {(0, 2)}

    def without(*ts):
        return [e for e in good if e["t"] not in ts]

    bad = {
        "the new owner skips the committed offset": without(8),
        "the new owner starts before the committed offset":
            good[:7] + [rec("b", 7.5, 1)] + good[7:],
        "a gap": without(3, 4, 5, 6, 7, 8, 9) + [rec("a", 3, 2), rec("a", 4, 3)],
        "a repeat within one ownership": good[:3] + [rec("a", 3.5, 1)] + good[3:],
        "two owners at once": [e for e in good if e["ev"] != "killed"],
        "a record of a partition not owned": good + [rec("c", 10, 3)],
        "a commit of a partition not owned": good + [ev("c", 10, "commit", offsets=[[0, 4]])],
        "a wrong value": without(9) + [rec("b", 9, 3, "v9")],
        "a record never produced": good + [rec("b", 10, 4)],
        "a produced record never processed": without(9),
    }
    for what, events in bad.items():
        with pytest.raises(AssertionError):
            check_history(events, produced)
            raise RuntimeError(f"check_history accepted {what}")


def last_assign(log, member, gen):
    evs = [e for e in log.of(member.name, "assign") if e["gen"] == gen]
    assert evs, f"{member} has no assign callback in generation {gen}"
    return evs[-1]


# A consumer that closes (or dies) while its long-polling Fetch is parked makes the broker's
# answer hit a closed socket. Mirra logs that as a WARN; it is the peer's doing, not a problem
# of the broker's (Kafka logs it at DEBUG), so only that line is tolerated here.
PEER_GONE = re.compile(r"WARN \[server\] closing connection \d+ from \S+: "
                       r"(sendfile|write): (Broken pipe|Connection reset by peer)$")


def no_broker_problems(b):
    """No WARN or ERROR line other than PEER_GONE while serving the clients."""
    bad = [l for l in b.problems() if not PEER_GONE.search(l)]
    assert not bad, f"{b.name} warned {len(bad)} time(s):\n" + "\n".join(bad[:20])


def finish_members(members):
    """Closes the live members (each close() commits in on_revoke and leaves)."""
    for m in members:
        if m.alive():
            m.close()


def kill_all(members):
    for m in members:
        if m.alive():
            m.kill()


# --- three confluent-kafka members: hand-over on close() and on SIGKILL --------------------------

def _handover(group_broker, how):
    b = group_broker(f"groups-{how}")
    topic, group = f"numbers-{how}", f"handover-{how}"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, PARTITIONS)
    log = clients.GroupLog()
    producer = NumberedProducer(b.bootstrap, topic, PARTITIONS)
    members = []
    try:
        members = [clients.ConfluentMember(b.bootstrap, f"m{i}", group, topic, log,
                                           conf=MEMBER_CONF) for i in range(3)]
        sts = wait_stable(b, members, PARTITIONS, 30, "three members sharing the 6 partitions")
        assert_balanced(sts, PARTITIONS)
        gen3 = sts[members[0]]["gen"]
        t_stable = time.monotonic()
        # every member processes and commits in this generation
        log.wait(lambda: all(log.of(m.name, "commit", since=t_stable) for m in members), 20,
                 "a commit by every member")

        victim, survivors = members[0], members[1:]
        victim_parts = sts[victim]["assignment"]
        if how == "kill":
            # no commit after this: the records it processes from here on are read again
            ack = victim.stop_commits()
            log.wait(lambda: len(log.of(victim.name, "rec", since=ack["t"])) >= 10, 20,
                     "10 records processed by the victim after its last commit")
            t0 = victim.kill()
        else:
            t0 = time.monotonic()
            victim.close()
        sts2 = wait_stable(b, survivors, PARTITIONS, SESSION_MS / 1000 + REBALANCE_S,
                           f"the two others to take over after {how}")
        assert_balanced(sts2, PARTITIONS)
        gen2 = sts2[survivors[0]]["gen"]
        assert gen2 > gen3, f"generation {gen2} after {how}, {gen3} before"
        t1 = max(last_assign(log, m, gen2)["t"] for m in survivors)
        took = t1 - t0
        print(f"{how}: taken over in {took:.2f}s (generation {gen3} -> {gen2})")
        if how == "close":
            # close() sends LeaveGroup: the rebalance does not wait for the session timeout
            assert took < SESSION_MS / 1000, \
                f"take-over {took:.2f}s after close(): LeaveGroup did not start a rebalance"
        else:
            # the killed member stays in the group until its session times out (no heartbeat
            # for session.timeout.ms after its last one, at most heartbeat.interval.ms before
            # the kill); then the others rejoin
            low = (SESSION_MS - HEARTBEAT_MS) / 1000 - 0.25
            assert took >= low, (f"take-over {took:.2f}s after SIGKILL: evicted before its "
                                 f"session timeout ({SESSION_MS} ms)")
            assert took <= SESSION_MS / 1000 + REBALANCE_S
        # the survivors go on processing the victim's partitions
        log.wait(lambda: {e["p"] for m in survivors for e in log.of(m.name, "rec", since=t1)}
                 >= set(victim_parts), 20, f"records of {victim_parts} processed by the others")
        produced = producer.stop()
        wait_all_seen(log, produced)
        finish_members(survivors)
    finally:
        producer.halt.set()
        kill_all(members)
    events = log.ordered()
    hist = check_history(events, produced)
    print(f"{how}: {len(produced)} records, {len(hist['dups'])} processed twice, "
          f"failed commits: {hist['commit_failed']}")
    # at least once, and everything processed is committed in the end
    assert ck.committed(group, topic, PARTITIONS) == end_offsets(b.bootstrap, topic, PARTITIONS)
    dups = set(hist["dups"])
    if how == "kill":
        # exactly the records the killed member processed after its last commit are read again
        again = uncommitted_reads(events, victim.name, victim_parts)
        assert again, "the killed member processed nothing after its last commit"
        assert again <= dups, f"not read again: {sorted(again - dups)[:10]}"
        if not hist["commit_failed"]:
            assert dups == again, f"read twice but committed: {sorted(dups - again)[:10]}"
    elif not hist["commit_failed"]:
        # every hand-over was preceded by a commit in on_revoke: nothing is read twice
        assert not dups, f"read twice although every revoke committed: {sorted(dups)[:10]}"
    no_broker_problems(b)


def test_three_members_close_one(group_broker):
    """Three members share a 6-partition topic; one close()s (on_revoke commits, LeaveGroup):
    the other two take its partitions at once and no record is processed twice."""
    _handover(group_broker, "close")


def test_three_members_one_killed(group_broker):
    """Three members; one is SIGKILLed after processing records it never committed: it is
    evicted after its session timeout, the other two take over from its last commit, and
    exactly its uncommitted records are processed twice."""
    _handover(group_broker, "kill")


# --- kafka-python and kafkajs groups ----------------------------------------------------------

def _group_cycle(group_broker, client):
    b = group_broker(f"cycle-{client}")
    topic, group = f"cycle-{client}", f"group-{client}"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, 3)
    recs = [{"partition": p, "key": f"k{i}", "value": f"v{p}-{i}", "headers": [],
             "timestamp": None} for p in range(3) for i in range(10)]
    res = ck.produce(topic, recs)
    assert all("offset" in r for r in res), res
    out = clients.ALL[client](b.bootstrap).group_cycle(topic, group, 30)
    assert out["assignment"] == [0, 1, 2], f"{client}'s assignment: {out['assignment']}"
    got = sorted((r["partition"], r["offset"], r["value"]) for r in out["records"])
    assert got == [(p, i, f"v{p}-{i}") for p in range(3) for i in range(10)], got
    assert out["committed"] == {0: 10, 1: 10, 2: 10}, out["committed"]
    # another client reads the commits back
    assert ck.committed(group, topic, 3) == {0: 10, 1: 10, 2: 10}
    # and the member left: the group is empty at once (not after a session timeout)
    d = ck.describe_group(group)
    assert d["state"] == "Empty" and d["members"] == [], d
    no_broker_problems(b)
    return out


def test_kafka_python_group(group_broker):
    _group_cycle(group_broker, "kafka-python")


def test_kafkajs_group(group_broker):
    out = _group_cycle(group_broker, "kafkajs")
    assert out["join"]["memberId"] and out["join"]["isLeader"], out["join"]


# --- committed offsets survive the broker ------------------------------------------------------

def _member(bootstrap, group, topic, partitions):
    """An in-process confluent-kafka member of `group`, polled until it owns every partition."""
    c = confluent_kafka.Consumer(dict(MEMBER_CONF, **{
        "bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
        "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100}))
    c.subscribe([topic])
    early = []

    def owns_all():
        m = c.poll(0.05)
        if m is not None:
            early.append(m)
        return sorted(tp.partition for tp in c.assignment()) == list(range(partitions))

    wait_until(owns_all, 30, f"a member of {group} to own all {partitions} partitions",
               interval=0)
    return c, early


def _resume(bootstrap, group, topic, partitions, more):
    """A new member: its committed() offsets and the first record it processes of each
    partition; it then processes `more` records per partition and commits its positions.
    Returns (committed, first offsets, newly committed)."""
    c, early = _member(bootstrap, group, topic, partitions)
    try:
        tps = [confluent_kafka.TopicPartition(topic, p) for p in range(partitions)]
        committed = {tp.partition: tp.offset for tp in c.committed(tps, timeout=15)}
        first, count, pos = {}, collections.Counter(), {}
        msgs = list(early)

        def enough():
            m = msgs.pop(0) if msgs else c.poll(0.05)
            if m is not None:
                assert m.error() is None, m.error()
                p = m.partition()
                first.setdefault(p, m.offset())
                if count[p] < more:
                    count[p] += 1
                    pos[p] = m.offset() + 1
            return len(first) == partitions and all(count[p] >= more for p in range(partitions))

        wait_until(enough, 30, "records of every partition", interval=0)
        c.commit(offsets=[confluent_kafka.TopicPartition(topic, p, o) for p, o in pos.items()],
                 asynchronous=False)
        return committed, first, pos
    finally:
        c.close()


def test_committed_offsets_survive_restart_and_kill9(group_broker):
    b = group_broker("groups-durable")
    topic, group = "durable-numbers", "durable-group"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, 3)
    res = ck.produce(topic, [{"partition": p, "key": None, "value": f"{p}-{i}", "headers": [],
                              "timestamp": None} for p in range(3) for i in range(40)])
    assert all("offset" in r for r in res), res
    # a member commits explicit offsets and leaves
    c, _ = _member(b.bootstrap, group, topic, 3)
    first_commit = {0: 7, 1: 13, 2: 21}
    try:
        c.commit(offsets=[confluent_kafka.TopicPartition(topic, p, o)
                          for p, o in first_commit.items()], asynchronous=False)
    finally:
        c.close()

    b.restart()  # clean: SIGTERM, exit 0
    committed, first, pos = _resume(b.bootstrap, group, topic, 3, more=5)
    assert committed == first_commit, f"committed after a restart: {committed}"
    assert first == first_commit, f"resumed at {first} after a restart, committed {first_commit}"
    assert pos == {p: o + 5 for p, o in first_commit.items()}, pos

    assert b.kill() == -9
    b.start()
    committed, first, _ = _resume(b.bootstrap, group, topic, 3, more=1)
    assert committed == pos, f"committed after kill -9: {committed}, acknowledged {pos}"
    assert first == pos, f"resumed at {first} after kill -9, committed {pos}"


# --- a static member restarts without a rebalance ----------------------------------------------

def test_static_member_restart_no_rebalance(group_broker):
    """A member with group.instance.id closes (a static member sends no LeaveGroup) and a new
    consumer with the same instance id joins within the session timeout: it gets the same
    partitions in the same generation, and the other member sees no rebalance at all (no
    callback, same generation) for longer than a session timeout after the restart."""
    session_ms = 4000
    conf = dict(MEMBER_CONF, **{"session.timeout.ms": session_ms})
    b = group_broker("groups-static")
    topic, group = "static-numbers", "static-group"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, PARTITIONS)
    log = clients.GroupLog()
    members = []
    try:
        other = clients.ConfluentMember(b.bootstrap, "dynamic", group, topic, log, conf=conf,
                                        heartbeats=True)
        members.append(other)
        wait_stable(b, [other], PARTITIONS, 30, "the first member owning every partition")
        static = clients.ConfluentMember(b.bootstrap, "static", group, topic, log,
                                         conf=dict(conf, **{"group.instance.id": "static-1"}))
        members.append(static)
        sts = wait_stable(b, members, PARTITIONS, 30, "two members sharing the partitions")
        assert_balanced(sts, PARTITIONS)
        gen = sts[other]["gen"]
        before = [e for e in log.of(other.name) if e["ev"] in ("assign", "revoke", "lost")]
        desc = ck.describe_group(group)
        assert desc["state"] == "Stable" and len(desc["members"]) == 2, desc

        reopened = static.reopen()
        t_closed = [e for e in log.of(static.name, "closed")][-1]["t"]
        a = log.wait(lambda: next(iter(log.of(static.name, "assign", since=reopened["t"])), None),
                     session_ms / 1000, "the restarted static member's assignment")
        assert a["gen"] == gen, f"restarted static member in generation {a['gen']}, was {gen}"
        assert a["partitions"] == sts[static]["assignment"], (a, sts[static])
        # the other member keeps heartbeating without a rebalance for longer than the old
        # instance's session timeout
        log.wait(lambda: any(e["t"] > t_closed + session_ms / 1000 + 2 * HEARTBEAT_MS / 1000
                             for e in log.of(other.name, "hb")),
                 session_ms / 1000 + REBALANCE_S,
                 "heartbeats of the other member past the old instance's session timeout")
        after = [e for e in log.of(other.name) if e["ev"] in ("assign", "revoke", "lost")]
        assert after == before, f"the other member saw a rebalance: {after[len(before):]}"
        now = {m: m.status() for m in members}
        assert now[other]["gen"] == gen and now[static]["gen"] == gen, \
            {m.name: s["gen"] for m, s in now.items()}
        assert now[other]["assignment"] == sts[other]["assignment"], now[other]
        assert now[static]["assignment"] == sts[static]["assignment"], now[static]
        desc = ck.describe_group(group)
        assert desc["state"] == "Stable" and len(desc["members"]) == 2, desc
        finish_members(members)
    finally:
        kill_all(members)
    no_broker_problems(b)


# --- cooperative-sticky -------------------------------------------------------------------------

def test_cooperative_sticky(group_broker):
    """cooperative-sticky (KIP-429): a third member joining takes one partition from each of
    the two others, which keep the rest throughout (only the moved partitions are revoked);
    when it closes, the two others get its partitions without revoking any of theirs."""
    conf = dict(MEMBER_CONF, **{"partition.assignment.strategy": "cooperative-sticky"})
    b = group_broker("groups-coop")
    topic, group = "coop-numbers", "coop-group"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, PARTITIONS)
    log = clients.GroupLog()
    producer = NumberedProducer(b.bootstrap, topic, PARTITIONS)
    members = []
    # No periodic commits, only those in on_revoke and at close: librdkafka before 2.8
    # (librdkafka issue 4059; Debian 12 has 2.0.2) drops its whole assignment as lost when a
    # commit sent outside the rebalance callbacks meets the generation a second JoinGroup has
    # already bumped. Kafka's coordinator answers that commit ILLEGAL_GENERATION as Mirra's does
    # (tests/groups/group_coordinator_test.cc), so on a slow machine the old client loses its
    # partitions against either broker; this test is about what the coordinator hands out.
    member = functools.partial(clients.ConfluentMember, b.bootstrap, group=group, topic=topic,
                               log=log, conf=conf, commit_ms=0)
    try:
        a = member(name="a")
        b_ = member(name="b")
        members += [a, b_]
        sts = wait_stable(b, members, PARTITIONS, 30, "two members sharing the partitions")
        assert_balanced(sts, PARTITIONS)
        t_join = time.monotonic()
        c = member(name="c")
        members.append(c)
        sts3 = wait_stable(b, members, PARTITIONS, 30, "three members sharing the partitions")
        assert_balanced(sts3, PARTITIONS)
        for m in (a, b_):
            revoked = sorted(p for e in log.of(m.name, since=t_join)
                             if e["ev"] in ("revoke", "lost") for p in e["partitions"])
            moved = sorted(set(sts[m]["assignment"]) - set(sts3[m]["assignment"]))
            assert revoked == moved, (f"{m} revoked {revoked} when c joined; it had "
                                      f"{sts[m]['assignment']}, now {sts3[m]['assignment']}")
            assert set(sts3[m]["assignment"]) <= set(sts[m]["assignment"]), \
                f"{m} got new partitions when c joined: {sts[m]} -> {sts3[m]}"
            assert not [e for e in log.of(m.name, "lost")], f"{m} lost its partitions"
        # every member processes records in the three-member generation
        t3 = time.monotonic()
        log.wait(lambda: all(log.of(m.name, "rec", since=t3) for m in members), 20,
                 "records processed by every member")
        t_leave = time.monotonic()
        c.close()
        sts2 = wait_stable(b, [a, b_], PARTITIONS, SESSION_MS / 1000 + REBALANCE_S,
                           "the two others to take c's partitions")
        assert_balanced(sts2, PARTITIONS)
        for m in (a, b_):
            gone = [e for e in log.of(m.name, since=t_leave) if e["ev"] in ("revoke", "lost")]
            assert not gone, f"{m} gave up partitions when c left: {gone}"
            assert set(sts3[m]["assignment"]) <= set(sts2[m]["assignment"]), (sts3[m], sts2[m])
        produced = producer.stop()
        wait_all_seen(log, produced)
        finish_members([a, b_])
    finally:
        producer.halt.set()
        kill_all(members)
    hist = check_history(log.ordered(), produced)
    assert ck.committed(group, topic, PARTITIONS) == end_offsets(b.bootstrap, topic, PARTITIONS)
    if not hist["commit_failed"]:
        assert not hist["dups"], f"read twice although every revoke committed: " \
                                 f"{sorted(hist['dups'])[:10]}"
    no_broker_problems(b)


# --- static membership: fencing and session expiry (KIP-345) -------------------------------------

def _static_consumer(bootstrap, group, topic, instance, errors=None, **extra):
    """A confluent-kafka consumer with group.instance.id; the errors librdkafka reports to its
    error callback are appended to `errors`."""
    conf = dict(MEMBER_CONF, **{
        "bootstrap.servers": bootstrap, "group.id": group, "group.instance.id": instance,
        "enable.auto.commit": False, "auto.offset.reset": "earliest"}, **extra)
    if errors is not None:
        conf["error_cb"] = errors.append
    c = confluent_kafka.Consumer(conf)
    c.subscribe([topic])
    return c


def _poll_error(c):
    """Polls once (which also serves the error callback); the error it returned, or None."""
    m = c.poll(0.05)
    return m.error() if m is not None and m.error() is not None else None


def _fatal(e):
    """librdkafka hands a fatal error to poll() as one with code _FATAL (its text names the
    cause); fatal() is set only on the error callback's."""
    return e.fatal() or e.code() == confluent_kafka.KafkaError._FATAL


def test_replaced_static_member_is_fenced(group_broker):
    """A second consumer with the same group.instance.id takes the membership over; the first
    is told FENCED_INSTANCE_ID on its next heartbeat (fatal in librdkafka) and stops, instead
    of hearing UNKNOWN_MEMBER_ID, rejoining and taking the slot back, over and over."""
    b = group_broker("groups-fenced")
    topic, group = "fenced-numbers", "fenced-group"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, 2)
    errors, second_errors = [], []
    first = _static_consumer(b.bootstrap, group, topic, "fenced-1", errors)
    second = None
    try:
        wait_until(lambda: _poll_error(first) is None and len(first.assignment()) == 2, 30,
                   "the first consumer owning both partitions")
        mark = b.mark()
        second = _static_consumer(b.bootstrap, group, topic, "fenced-1", second_errors)

        def first_fenced():
            e = _poll_error(first)
            if e is not None:
                errors.append(e)
            _poll_error(second)
            return any(_fatal(e) for e in errors)
        wait_until(first_fenced, SESSION_MS / 1000 + REBALANCE_S,
                   "a fatal error for the replaced consumer")
        assert any("fenced" in e.str().lower() for e in errors if _fatal(e)), \
            [e.str() for e in errors]
        # the new consumer keeps the membership: no other takeover for several sessions
        t0 = time.monotonic()
        wait_until(lambda: _poll_error(second) is None and len(second.assignment()) == 2,
                   REBALANCE_S, "the second consumer owning both partitions")
        while time.monotonic() - t0 < 2 * SESSION_MS / 1000:
            _poll_error(second)
        assert not [e for e in second_errors if _fatal(e)], [e.str() for e in second_errors]
        takeovers = [l for l in b.log(mark).splitlines() if "static member fenced-1 rejoined" in l]
        assert len(takeovers) == 1, "the instance changed hands more than once:\n" + \
            "\n".join(takeovers[:10])
        assert len(second.assignment()) == 2
        second.close()
        second = None
    finally:
        first.close()
        if second is not None:
            second.close()


def test_closed_static_members_expire_with_their_session(group_broker):
    """Static members of closed consumers (a static member sends no LeaveGroup) are removed
    when their session times out, within the coordinator's documented slack
    (src/groups/README.md): then DeleteGroups succeeds."""
    from kafka.admin import KafkaAdminClient
    session_ms = 4000
    b = group_broker("groups-static-expiry")
    topic, group = "expiry-numbers", "expiry-group"
    ck = clients.ConfluentKafka(b.bootstrap)
    ck.create_topic(topic, 4)
    cs = [_static_consumer(b.bootstrap, group, topic, f"expiry-{i}",
                           **{"session.timeout.ms": session_ms}) for i in range(2)]

    def shared():
        for c in cs:
            _poll_error(c)
        return sorted(len(c.assignment()) for c in cs) == [2, 2]
    wait_until(shared, 30, "two static members sharing the partitions")
    for c in cs:
        c.close()
    closed = time.monotonic()
    admin = KafkaAdminClient(bootstrap_servers=b.bootstrap)
    try:
        def deleted():
            (name, error), = admin.delete_consumer_groups([group])
            return error.errno == 0
        # the last heartbeat was before close(); the sweep runs every 100 ms (slack: 1 s)
        wait_until(deleted, session_ms / 1000 + 1.0, f"DeleteGroups of {group} succeeding")
        print(f"static members gone {time.monotonic() - closed:.2f}s after close()")
    finally:
        admin.close()
    no_broker_problems(b)
