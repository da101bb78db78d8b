"""Incremental fetch sessions (KIP-227) seen on the wire: consumers of a 1,000-partition topic, through a proxy
that decodes every Fetch request and response (bench/fetch_wire_proxy.py) and counts the partitions each names.

kafka-python (3.x, FetchSessionHandler) and kafkalite's own consumer open a session with its first, full fetch; after it, requests name only
the partitions whose fetch position moved and responses only the partitions with news. librdkafka (confluent-kafka
2.16) has no KIP-227 client side: it sends every fetch with session epoch -1 ("no session"), and the broker answers
those in full, as Kafka does -- the test pins that, so a librdkafka that learns sessions shows up here.
One broker and one topic for the module (creating 1,000 partitions takes a few seconds)."""
from __future__ import annotations

import uuid

import pytest

from bench.fetch_wire_proxy import FetchWireProxy
from harness import InProcessBroker
from support import free_port, wait_until

TOPIC = "fetch-sessions-1000"
PARTITIONS = 1000


@pytest.fixture(scope="module")
def wired(tmp_path_factory):
    proxy = FetchWireProxy()
    port = free_port()
    broker = InProcessBroker(tmp_path_factory.mktemp("fetch-sessions"), {
        "listeners": f"PLAINTEXT://127.0.0.1:{port}", "advertised.listeners": f"PLAINTEXT://127.0.0.1:{proxy.port}",
        "offsets.topic.replication.factor": "1", "offsets.topic.num.partitions": "1"})
    proxy.set_upstream(port)
    broker.start()
    from kafka.admin import KafkaAdminClient, NewTopic
    admin = KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{proxy.port}")
    try:
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])
    finally:
        admin.close()
    produce(proxy, range(5))
    yield proxy, broker
    broker.stop()
    proxy.close()


def produce(proxy, partitions):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": f"127.0.0.1:{proxy.port}", "linger.ms": 0})
    for i in partitions:
        p.produce(TOPIC, b"value-%d" % i, partition=i)
    assert p.flush(30) == 0


class KafkaPythonConsumer:
    def __init__(self, bootstrap, client_id):
        from kafka import KafkaConsumer
        self.consumer = KafkaConsumer(bootstrap_servers=bootstrap, client_id=client_id, enable_auto_commit=False,
                                      auto_offset_reset="earliest", fetch_max_wait_ms=100)

    def assign(self, partitions):
        from kafka import TopicPartition
        self.consumer.assign([TopicPartition(TOPIC, i) for i in partitions])

    def poll(self):
        return [r.partition for rs in self.consumer.poll(200).values() for r in rs]

    def close(self):
        self.consumer.close()


class KafkaliteConsumer(KafkaPythonConsumer):
    def __init__(self, bootstrap, client_id):
        from kafkalite.clients.consumer.kafka_consumer import KafkaConsumer
        self.consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "client.id": client_id,
                                       "enable.auto.commit": False, "auto.offset.reset": "earliest",
                                       "fetch.max.wait.ms": 100})

    def assign(self, partitions):
        from kafkalite.common.topic_partition import TopicPartition
        self.consumer.assign([TopicPartition(TOPIC, i) for i in partitions])

    def poll(self):
        return [r.partition for r in self.consumer.poll(200)]


@pytest.mark.parametrize("client,new_partitions", [(KafkaPythonConsumer, [500, 501]),
                                                   (KafkaliteConsumer, [600, 601])], ids=["kafka-python", "kafkalite"])
def test_consumer_of_1000_partitions_fetches_incrementally(wired, client, new_partitions):
    proxy, broker = wired
    client_id = f"inc-{uuid.uuid4().hex[:8]}"
    consumer = client(f"127.0.0.1:{proxy.port}", client_id)
    got = []
    try:
        consumer.assign(range(PARTITIONS))

        def poll_until(partitions):
            got.extend(consumer.poll())
            return set(partitions) <= set(got)
        wait_until(lambda: poll_until(range(5)), 30, "the first 5 records")
        # a few idle fetches, then new records in two partitions that had none
        wait_until(lambda: poll_until(range(5)) and len(proxy.fetches(client_id)) >= 6, 30, "idle fetches")
        produce(proxy, new_partitions)
        wait_until(lambda: poll_until(new_partitions), 30, "the 2 new records")
        for _ in range(3):
            consumer.poll()
    finally:
        consumer.close()
    assert sorted(got).count(new_partitions[0]) == sorted(got).count(new_partitions[1]) == 1

    fetches = [f for f in proxy.fetches(client_id) if f.response_partitions >= 0]
    first, later = fetches[0], fetches[1:]
    # the first fetch is a full one opening a session: every partition both ways
    assert (first.session_id, first.session_epoch, first.request_partitions) == (0, 0, PARTITIONS)
    assert first.response_partitions == PARTITIONS and first.response_session_id > 0
    session_id = first.response_session_id
    assert len(later) >= 6
    # then incremental fetches in that session, epochs 1, 2, 3, ...
    assert [(f.session_id, f.session_epoch) for f in later] == [(session_id, i) for i in range(1, len(later) + 1)]
    assert all(f.response_session_id == session_id and f.response_error == 0 for f in later)
    # requests name only partitions whose position moved (or that come back after their data was handed out),
    # mostly none; responses carry only partitions with news -- never the ~990 idle ones
    assert max(f.request_partitions + f.forgotten_partitions for f in later) <= 10
    assert sum(1 for f in later if f.request_partitions == 0) >= 3
    assert max(f.response_partitions for f in later) <= 10
    assert sum(1 for f in later if f.response_partitions == 0) >= 3
    # the new records came in incremental responses
    assert sum(f.partitions_with_records for f in later) == 2
    # the broker's cache holds the session with all 1,000 partitions
    session = broker.server.fetch_manager.cache.get(session_id)
    assert session is not None and session.size() == PARTITIONS and not session.privileged


def test_confluent_kafka_consumer_asks_for_no_session_and_is_answered_in_full(wired):
    from confluent_kafka import Consumer, TopicPartition
    proxy, broker = wired
    client_id = f"ck-{uuid.uuid4().hex[:8]}"
    consumer = Consumer({"bootstrap.servers": f"127.0.0.1:{proxy.port}", "group.id": client_id,
                         "client.id": client_id, "enable.auto.commit": False, "fetch.wait.max.ms": 100})
    got = 0
    try:
        consumer.assign([TopicPartition(TOPIC, i, 0) for i in range(PARTITIONS)])

        def consume():
            nonlocal got
            got += len([m for m in consumer.consume(10, timeout=0.2) if m.error() is None])
            return got >= 5 and len(proxy.fetches(client_id)) >= 3
        wait_until(consume, 30, "the first 5 records and 3 fetches")
    finally:
        consumer.close()
    fetches = [f for f in proxy.fetches(client_id) if f.response_partitions >= 0]
    # librdkafka: session id 0, epoch -1 (FINAL_EPOCH) every time; the broker opens no session and answers all
    assert {(f.session_id, f.session_epoch) for f in fetches} == {(0, -1)}
    assert all(f.request_partitions == f.response_partitions for f in fetches)   # answered in full
    assert max(f.request_partitions for f in fetches) == PARTITIONS
    assert all(f.response_session_id == 0 for f in fetches)
