#!/usr/bin/python3
"""Runs one Python Kafka client scenario against capture_broker (called by capture_all.sh).

Usage: /usr/bin/python3 drive_python.py <confluent-kafka|kafka-python> <scenario> <port>

Must run under Debian's /usr/bin/python3: python3-confluent-kafka and python3-kafka are Debian
packages. The records are the ones golden_test.cc expects (keep the two in step):
  record i (0 <= i < 10): key "k<i>", value "golden-<client>-<scenario>-<i>", header "h" = "v<i>"
  confluent-kafka also sends an 11th record: key "k10", null value, no headers.
"""
import sys

TOPIC = "golden"
COUNT = 10


def records(client, scenario):
    for i in range(COUNT):
        yield (f"k{i}".encode(), f"golden-{client}-{scenario}-{i}".encode(), [("h", f"v{i}".encode())])


def confluent(scenario, bootstrap):
    import confluent_kafka

    conf = {
        "bootstrap.servers": bootstrap,
        "linger.ms": 200,  # one batch for all records
        "message.timeout.ms": 10000,
        "socket.timeout.ms": 5000,
    }
    if scenario == "idempotent":
        conf["enable.idempotence"] = True
    else:
        conf["compression.type"] = scenario
    errors = []

    def on_delivery(err, _msg):
        if err is not None:
            errors.append(err)

    p = confluent_kafka.Producer(conf)
    for key, value, headers in records("confluent-kafka", scenario):
        p.produce(TOPIC, value=value, key=key, headers=headers, on_delivery=on_delivery)
    p.produce(TOPIC, value=None, key=f"k{COUNT}".encode(), on_delivery=on_delivery)
    left = p.flush(15)
    if left or errors:
        sys.exit(f"confluent-kafka {scenario}: {left} undelivered, errors {errors}")


def kafka_python(scenario, bootstrap):
    import kafka

    kwargs = {"bootstrap_servers": bootstrap, "linger_ms": 200, "request_timeout_ms": 10000}
    if scenario != "none":
        kwargs["compression_type"] = scenario
    p = kafka.KafkaProducer(**kwargs)
    futures = [p.send(TOPIC, key=k, value=v, headers=h) for k, v, h in records("kafka-python", scenario)]
    p.flush(15)
    for f in futures:
        f.get(timeout=1)  # raises on failure
    p.close(5)


def main():
    client, scenario, port = sys.argv[1], sys.argv[2], sys.argv[3]
    bootstrap = f"127.0.0.1:{port}"
    {"confluent-kafka": confluent, "kafka-python": kafka_python}[client](scenario, bootstrap)


if __name__ == "__main__":
    main()
