"""No Kafka counterpart (Kafka's TransactionsTest.testSendOffsetsWithGroupId is the nearest): a
consume-transform-produce step with confluent-kafka (librdkafka) -- the transactional producer's
``send_offsets_to_transaction`` sends TxnOffsetCommit to the group coordinator, and the group's
committed offset changes only when ``commit_transaction`` has had its markers written, never on
``abort_transaction``.

The committed offset is read by a separate read_uncommitted consumer of the same group (its
OffsetFetch does not ask for stable offsets, so it sees exactly what the coordinator has made
visible); a read_committed consumer's OffsetFetch asks for stable offsets (KIP-447) and must see the
same value once the transaction is over.
"""
import uuid

import pytest

from harness import wait_until

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka import TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TIMEOUT = 30


def create_topics(bootstrap, *names):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(n, num_partitions=1, replication_factor=1) for n in names],
                                      operation_timeout=10).values():
        future.result(timeout=TIMEOUT)


def produce_plain(bootstrap, topic, values):
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap})
    for v in values:
        producer.produce(topic, value=v)
    assert producer.flush(TIMEOUT) == 0


def committed_offset(bootstrap, group, topic, isolation="read_uncommitted"):
    """The group's committed offset of partition 0 as OffsetFetch answers it (-1001: none)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                  "isolation.level": isolation, "enable.auto.commit": False})
    try:
        [tp] = c.committed([TopicPartition(topic, 0)], timeout=TIMEOUT)
        return tp.offset
    finally:
        c.close()


def consume(consumer, count):
    got = []

    def more():
        msg = consumer.poll(0.2)
        if msg is not None and msg.error() is None:
            got.append(msg)
        return len(got) >= count
    wait_until(more, TIMEOUT, f"{count} records")
    return got


def test_send_offsets_to_transaction_visible_on_commit_only(fresh_broker):
    bootstrap = fresh_broker.bootstrap
    suffix = uuid.uuid4().hex[:8]
    source, sink, group = f"txn-in-{suffix}", f"txn-out-{suffix}", f"txn-group-{suffix}"
    create_topics(bootstrap, source, sink)
    produce_plain(bootstrap, source, [f"in-{i}".encode() for i in range(10)])

    consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                                         "isolation.level": "read_committed"})
    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "transactional.id": f"txn-{suffix}",
                                         "transaction.timeout.ms": 60000})
    try:
        consumer.subscribe([source])
        records = consume(consumer, 10)
        producer.init_transactions(TIMEOUT)

        # 1. commit: the offsets become the group's committed offset, only once the transaction commits
        producer.begin_transaction()
        for r in records:
            producer.produce(sink, value=r.value().upper())
        producer.send_offsets_to_transaction([TopicPartition(source, 0, records[-1].offset() + 1)],
                                             consumer.consumer_group_metadata(), TIMEOUT)
        assert committed_offset(bootstrap, group, source) == confluent_kafka.OFFSET_INVALID
        producer.commit_transaction(TIMEOUT)
        assert wait_until(lambda: committed_offset(bootstrap, group, source) == 10, TIMEOUT,
                          "the committed transaction's offset")
        assert committed_offset(bootstrap, group, source, "read_committed") == 10

        # 2. abort: the offsets sent in the transaction are dropped; the committed offset stays
        produce_plain(bootstrap, source, [f"in-{i}".encode() for i in range(10, 15)])
        more = consume(consumer, 5)
        producer.begin_transaction()
        producer.produce(sink, value=b"never")
        producer.send_offsets_to_transaction([TopicPartition(source, 0, more[-1].offset() + 1)],
                                             consumer.consumer_group_metadata(), TIMEOUT)
        producer.abort_transaction(TIMEOUT)
        # a read_committed OffsetFetch waits for stable offsets: once answered, the abort has been applied
        assert committed_offset(bootstrap, group, source, "read_committed") == 10
        assert committed_offset(bootstrap, group, source) == 10

        # 3. and a later commit of the same group still works
        producer.begin_transaction()
        producer.send_offsets_to_transaction([TopicPartition(source, 0, 15)], consumer.consumer_group_metadata(),
                                             TIMEOUT)
        producer.commit_transaction(TIMEOUT)
        assert committed_offset(bootstrap, group, source, "read_committed") == 15
    finally:
        consumer.close()
