"""A consumer group with a known lag, for the metrics tests: 30 records over two partitions
(15 each), offsets 4 and 11 committed, so `mirra groups --describe` and /metrics must both show
lags 11 and 4."""
import confluent_kafka
import confluent_kafka.admin

from mirra_testlib import run_mirra

STEP = 30
GROUP = "readers"
LAGS = {"0": 11.0, "1": 4.0}


def make_lagging_group(broker, topic):
    admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([confluent_kafka.admin.NewTopic(topic, 2, 1)])[topic].result(STEP)
    p = confluent_kafka.Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(30):
        p.produce(topic, value=b"v", partition=i % 2)
    assert p.flush(STEP) == 0
    c = confluent_kafka.Consumer({"bootstrap.servers": broker.bootstrap, "group.id": GROUP})
    c.commit(offsets=[confluent_kafka.TopicPartition(topic, 0, 4),
                      confluent_kafka.TopicPartition(topic, 1, 11)], asynchronous=False)
    c.close()


def cli_offsets_and_lags(broker, topic):
    """{partition: (current offset, lag)} as `mirra groups --describe` prints them."""
    r = run_mirra("groups", "--bootstrap-server", broker.bootstrap, "--describe", "--group",
                  GROUP)
    assert r.returncode == 0, (r.stdout, r.stderr)
    return {cols[2]: (int(cols[3]), int(cols[5]))
            for cols in (line.split() for line in r.stdout.splitlines())
            if len(cols) >= 6 and cols[0] == GROUP and cols[1] == topic}
