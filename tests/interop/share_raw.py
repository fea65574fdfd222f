"""The suite's raw share-group client (tests/pylib/msg_codec.py over real sockets): what
test_share_raw.py and test_share_offsets_raw.py share. A member's share session epoch by epoch,
topics made with CreateTopics, records produced by a real client (confluent-kafka)."""
import uuid

from confluent_kafka import Producer

from mirra_testlib import connect
from msg_codec import Connection

SHARE_FETCH, SHARE_ACK, CREATE_TOPICS, API_VERSIONS = 78, 79, 19, 18


def create_topic(port, name, partitions=1):
    with Connection(connect(port)) as c:
        r = c.call(CREATE_TOPICS, 7, {"topics": [{"name": name, "num_partitions": partitions,
                                                  "replication_factor": 1}],
                                      "timeout_ms": 10000})
    t = r["topics"][0]
    assert t["error_code"] == 0, t
    return t["topic_id"]


def produce(bootstrap, topic, n, size=None):
    """n records to partition 0: "v<i>", or `size` bytes each."""
    p = Producer({"bootstrap.servers": bootstrap})
    for i in range(n):
        value = f"v{i}".encode()
        p.produce(topic, value=value if size is None else value.ljust(size, b"."), partition=0)
    assert p.flush(15) == 0


class Member:
    """One share consumer's session on its own connection, epoch by epoch."""

    def __init__(self, port, topic_id, member_id=None, group="g"):
        self.conn = Connection(connect(port))
        self.topic_id, self.group = topic_id, group
        self.member_id = member_id or str(uuid.uuid4())
        self.epoch = 0

    def _topics(self, acks):
        """Partition 0 of the topic with `acks`: (first, last, [types]) batches."""
        return [{"topic_id": self.topic_id, "partitions": [{
            "partition_index": 0,
            "acknowledgement_batches": [{"first_offset": f, "last_offset": last,
                                         "acknowledge_types": t} for f, last, t in acks]}]}]

    def fetch(self, max_records=100, acks=(), version=1, **extra):
        body = {"group_id": self.group, "member_id": self.member_id,
                "share_session_epoch": self.epoch, "max_wait_ms": 0, "min_bytes": 0,
                "max_bytes": 1 << 20, "max_records": max_records, "batch_size": max_records,
                "topics": self._topics(acks)}
        body.update(extra)
        r = self.conn.call(SHARE_FETCH, version, body)
        assert r["error_code"] == 0, r
        self.epoch += 1
        return r

    def acknowledge(self, acks, version=1, close=False, **extra):
        body = {"group_id": self.group, "member_id": self.member_id,
                "share_session_epoch": -1 if close else self.epoch, "topics": self._topics(acks)}
        body.update(extra)
        r = self.conn.call(SHARE_ACK, version, body)
        self.epoch += 1
        return r


def acquired(r):
    return [(a["first_offset"], a["last_offset"], a["delivery_count"])
            for t in r["responses"] for p in t["partitions"] for a in p["acquired_records"]]


def partition0(r):
    return r["responses"][0]["partitions"][0]


