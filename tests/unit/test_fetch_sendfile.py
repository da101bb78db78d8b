"""No Kafka counterpart (Kafka shows zero-copy in FileRecordsTest with a mocked channel): the two
speed rules of DESIGN §5, proved end to end on an in-process broker with a real client.

- Fetch sends the segment bytes with ``os.sendfile`` (``FileRecords.write_to``): a spy on
  ``os.sendfile`` sees at least every byte of the partition's segment go through it.
- Produce never decodes individual records: with ``DefaultRecord.read_from`` patched to raise,
  a confluent-kafka produce still succeeds, and the records read back afterwards.
"""
import os
import time

import pytest

from kafkalite.record.default_record import DefaultRecord
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.testing.embedded_kafka import EmbeddedKafka
from support import wait_until

confluent_kafka = pytest.importorskip("confluent_kafka")


@pytest.fixture
def embedded():
    broker = EmbeddedKafka().start()
    yield broker
    broker.stop()


def create_topic(bootstrap, name):
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, num_partitions=1, replication_factor=1)])[name].result(timeout=20)

    def has_leader():   # the metadata shows a leader once LeaderAndIsr has reached the broker
        md = admin.list_topics(topic=name, timeout=10).topics[name]
        return md.error is None and md.partitions and md.partitions[0].leader >= 0
    wait_until(has_leader, 15, f"a leader for {name}", interval=0.05)


def produce(bootstrap, topic, count):
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "acks": 1, "linger.ms": 5})
    errors = []
    for i in range(count):
        producer.produce(topic, key=b"k%d" % i, value=b"value-%d" % i, partition=0,
                         on_delivery=lambda err, _m: errors.append(err) if err else None)
    assert producer.flush(30) == 0
    assert errors == []


def read_all(bootstrap, topic, count, timeout=30):
    consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": "unused",
                                         "enable.auto.commit": False})
    try:
        consumer.assign([confluent_kafka.TopicPartition(topic, 0, 0)])
        out, deadline = [], time.monotonic() + timeout
        while len(out) < count and time.monotonic() < deadline:
            for m in consumer.consume(num_messages=500, timeout=0.5):
                assert m.error() is None, m.error()
                out.append((m.offset(), m.key(), m.value()))
        return out
    finally:
        consumer.close()


def test_fetch_sends_segment_bytes_with_sendfile(embedded, monkeypatch):
    create_topic(embedded.bootstrap_servers, "zero-copy")
    produce(embedded.bootstrap_servers, "zero-copy", 2000)
    segment = os.path.join(embedded.log_dir, "zero-copy-0", "00000000000000000000.log")
    segment_size = os.path.getsize(segment)

    calls = []
    real_sendfile = os.sendfile

    def spy(out_fd, in_fd, offset, count):
        sent = real_sendfile(out_fd, in_fd, offset, count)
        calls.append((os.readlink(f"/proc/self/fd/{in_fd}"), sent))
        return sent

    monkeypatch.setattr(os, "sendfile", spy)
    records = read_all(embedded.bootstrap_servers, "zero-copy", 2000)
    assert [o for o, _, _ in records] == list(range(2000))
    assert records[1999][1:] == (b"k1999", b"value-1999")

    from_segment = sum(sent for path, sent in calls if path == segment)
    assert from_segment >= segment_size, f"sendfile carried {from_segment} of the segment's {segment_size} bytes"


def test_produce_never_decodes_records(embedded, monkeypatch):
    create_topic(embedded.bootstrap_servers, "no-decode")
    decoded = []

    def refuse(cls, *args, **kwargs):
        decoded.append(args)
        raise AssertionError("DefaultRecord.read_from called on the produce path")

    monkeypatch.setattr(DefaultRecord, "read_from", classmethod(refuse))
    # The patch bites: decoding any batch now fails.
    with pytest.raises(AssertionError):
        list(MemoryRecords.with_records(SimpleRecord(0, None, b"probe")).records())
    decoded.clear()

    produce(embedded.bootstrap_servers, "no-decode", 500)
    assert decoded == [], "the broker decoded records while appending"

    monkeypatch.undo()
    records = read_all(embedded.bootstrap_servers, "no-decode", 500)
    assert [(o, v) for o, _, v in records] == [(i, b"value-%d" % i) for i in range(500)]
