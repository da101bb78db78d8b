"""No Kafka counterpart: kafkalite's own producer against a kafkalite broker started from server.properties,
read back by real clients.

- confluent-kafka and kafka-python consumers (assign + seek to 0) see exactly the records kafkalite's producer
  sent, in order per partition, at the offsets its futures reported;
- keyed records land on the partitions confluent-kafka's ``murmur2_random`` partitioner (the Java client's
  algorithm) chooses for the same keys;
- ``bin/kafka-producer-perf-test`` prints Kafka's summary line.
"""
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clients import ConfluentAdmin
from kafkalite.clients.producer.kafka_producer import KafkaProducer

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
PARTITIONS = 3
N = 300


def create_topic(bootstrap, topic, partitions=PARTITIONS):
    admin = ConfluentAdmin(bootstrap)
    try:
        assert admin.create(topic, partitions) is None
    finally:
        admin.close()


def produce_with_kafkalite(bootstrap, topic, **config):
    producer = KafkaProducer({"bootstrap.servers": bootstrap, "linger.ms": 5, **config})
    sent = []
    try:
        futures = []
        for i in range(N):
            key, value = f"key-{i % 37}".encode(), f"value-{i}".encode()
            futures.append((key, value, producer.send(topic, value, key=key, headers=[("h", str(i).encode())])))
        producer.flush(30)
        for key, value, future in futures:
            md = future.get(10)
            sent.append((md.partition, md.offset, key, value))
    finally:
        producer.close(10)
    return sent


def by_partition(rows):
    out = {}
    for partition, offset, key, value in sorted(rows):
        out.setdefault(partition, []).append((offset, key, value))
    return out


def consume_confluent(bootstrap, topic, count):
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
        rows, deadline = [], time.monotonic() + 30
        while len(rows) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                rows.append((msg.partition(), msg.offset(), msg.key(), msg.value()))
        return rows
    finally:
        consumer.close()


def consume_kafka_python(bootstrap, topic, count):
    from kafka import KafkaConsumer, TopicPartition
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, group_id=None)
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        for tp in tps:
            consumer.seek(tp, 0)
        rows, deadline = [], time.monotonic() + 30
        while len(rows) < count and time.monotonic() < deadline:
            for tp, records in consumer.poll(500).items():
                rows += [(r.partition, r.offset, r.key, r.value) for r in records]
        return rows
    finally:
        consumer.close()


@pytest.mark.parametrize("config", [{}, {"enable.idempotence": True, "compression.type": "gzip"}],
                         ids=["plain", "idempotent-gzip"])
def test_real_consumers_read_what_kafkalite_produced(broker, unique_topic, config):
    create_topic(broker.bootstrap, unique_topic)
    sent = produce_with_kafkalite(broker.bootstrap, unique_topic, **config)
    expected = by_partition(sent)
    # in order per partition: offsets 0..n-1 in send order
    for partition, rows in expected.items():
        assert [offset for offset, _, _ in rows] == list(range(len(rows)))
    for consume in (consume_confluent, consume_kafka_python):
        assert by_partition(consume(broker.bootstrap, unique_topic, N)) == expected, consume.__name__


def test_keyed_records_land_where_the_java_partitioner_puts_them(broker, unique_topic):
    from confluent_kafka import Producer
    create_topic(broker.bootstrap, unique_topic)
    sent = produce_with_kafkalite(broker.bootstrap, unique_topic)
    ours = {key: partition for partition, _, key, _ in sent}
    theirs = {}
    producer = Producer({"bootstrap.servers": broker.bootstrap, "partitioner": "murmur2_random"})
    for key in ours:
        producer.produce(unique_topic, b"x", key=key,
                         on_delivery=lambda err, msg: theirs.__setitem__(msg.key(), msg.partition()))
    assert producer.flush(30) == 0
    assert theirs == ours
    assert len(set(ours.values())) == PARTITIONS     # the keys do spread over all partitions


# A line Kafka's ProducerPerformance printed (Kafka 2.4), made into a pattern by replacing its numbers.
RECORDED_SUMMARY = ("100000 records sent, 14537.722448 records/sec (14.20 MB/sec), 1640.35 ms avg latency, "
                    "2108.00 ms max latency, 1713 ms 50th, 2064 ms 95th, 2090 ms 99th, 2105 ms 99.9th.")


def _pattern_from(line: str) -> re.Pattern:
    pattern = re.escape(line)
    # numbers, but not the percentile labels (50th ... 99.9th), which must stay as Kafka prints them
    pattern = re.sub(r"\d+\\\.(\d+)(?![\d]*th)", lambda m: r"\d+\." + r"\d" * len(m.group(1)), pattern)
    pattern = re.sub(r"(?<![\\.d\d])\d+(?![\d.]*\\\.\d)(?![\d\\.]*th)", r"\\d+", pattern)
    return re.compile("^" + pattern + "$")


def test_summary_pattern_matches_the_recorded_line():
    pattern = _pattern_from(RECORDED_SUMMARY)
    assert pattern.match(RECORDED_SUMMARY)
    assert "50th" in pattern.pattern and r"99\.9th" in pattern.pattern
    # a line with Java's %f written as %.1f is not Kafka's format
    assert not pattern.match(RECORDED_SUMMARY.replace("14537.722448", "14537.7"))


def test_producer_perf_test_prints_kafkas_summary_line(broker, unique_topic):
    out = subprocess.run(
        [str(ROOT / "bin" / "kafka-producer-perf-test"), "--topic", unique_topic, "--num-records", "5000",
         "--record-size", "100", "--throughput", "-1", "--producer-props", f"bootstrap.servers={broker.bootstrap}",
         "acks=1"],
        capture_output=True, text=True, timeout=90, env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert _pattern_from(RECORDED_SUMMARY).match(last), last
    assert last.startswith("5000 records sent, ")
