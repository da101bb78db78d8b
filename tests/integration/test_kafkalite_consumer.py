"""No Kafka counterpart: kafkalite's own KafkaConsumer against the kafkalite broker, fed by real clients
(issue 5, "Done when"):

- confluent-kafka and kafka-python producers -> kafkalite's consumer, by assign + seek and through a
  group: the same records (keys, values, headers, timestamps), in order per partition;
- a kafkalite consumer and a confluent-kafka consumer in one group split the partitions between them,
  each partition owned once, every record consumed once;
- committed offsets survive: a new consumer of the group resumes where the last commit left off;
- the cooperative-sticky protocol: two kafkalite consumers end up balanced without either losing the
  partitions it keeps.
Every wait is bounded.
"""
from __future__ import annotations

import time

import pytest

from harness import wait_until
from kafkalite.clients.admin.admin_client import KafkaAdminClient
from kafkalite.clients.admin.admin_types import NewTopic
from kafkalite.clients.consumer.internals.consumer_coordinator import ConsumerRebalanceListener
from kafkalite.clients.consumer.kafka_consumer import KafkaConsumer
from kafkalite.common.topic_partition import TopicPartition

confluent_kafka = pytest.importorskip("confluent_kafka")
kafka = pytest.importorskip("kafka")

GROUP_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "4",
                   "offsets.topic.replication.factor": "1", "group.min.session.timeout.ms": "1000"}
N = 300


@pytest.fixture
def group_broker(broker_factory):
    return broker_factory(GROUP_OVERRIDES)


def create_topic(bootstrap: str, name: str, partitions: int) -> None:
    with KafkaAdminClient({"bootstrap.servers": bootstrap}) as admin:
        admin.create_topics([NewTopic(name, partitions, 1)])
        wait_until(lambda: all(p.leader is not None for p in admin.describe_topics([name])[name].partitions)
                   and len(admin.describe_topics([name])[name].partitions) == partitions,
                   timeout=20, message="leaders for the new topic")


def produce_confluent(bootstrap: str, topic: str, n: int) -> list[tuple]:
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    sent = []
    for i in range(n):
        key, value = f"key-{i % 23}".encode(), f"confluent-{i}".encode()
        p.produce(topic, key=key, value=value, headers=[("seq", str(i).encode())], timestamp=1_600_000_000_000 + i)
        sent.append((key, value))
    assert p.flush(30) == 0
    return sent


def produce_kafka_python(bootstrap: str, topic: str, n: int) -> list[tuple]:
    p = kafka.KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
    sent = []
    for i in range(n):
        key, value = f"key-{i % 5}".encode(), f"kafka-python-{i}".encode()
        p.send(topic, key=key, value=value, headers=[("seq", str(i).encode())])
        sent.append((key, value))
    p.flush(30)
    p.close()
    return sent


def reference_records(bootstrap: str, topic: str, partitions: int) -> dict[int, list[tuple]]:
    """What kafka-python's own consumer reads, per partition in offset order."""
    c = kafka.KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False,
                            consumer_timeout_ms=3000)
    c.assign([kafka.TopicPartition(topic, p) for p in range(partitions)])
    out: dict[int, list[tuple]] = {p: [] for p in range(partitions)}
    for r in c:
        out[r.partition].append((r.offset, r.key, r.value, r.timestamp, [(k, v) for k, v in r.headers]))
    c.close()
    return out


def drain(consumer: KafkaConsumer, expected: int, timeout: float = 30.0) -> list:
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < expected and time.monotonic() < deadline:
        got += list(consumer.poll(200))
    return got


def by_partition(records) -> dict[int, list[tuple]]:
    out: dict[int, list[tuple]] = {}
    for r in records:
        out.setdefault(r.partition, []).append((r.offset, r.key, r.value, r.timestamp, list(r.headers)))
    return out


@pytest.mark.parametrize("producer", [produce_confluent, produce_kafka_python])
def test_assign_and_seek_reads_what_real_producers_wrote(broker, unique_topic, producer):
    create_topic(broker.bootstrap, unique_topic, 3)
    sent = producer(broker.bootstrap, unique_topic, N)
    expected = reference_records(broker.bootstrap, unique_topic, 3)
    assert sum(len(v) for v in expected.values()) == N

    consumer = KafkaConsumer({"bootstrap.servers": broker.bootstrap, "auto.offset.reset": "earliest",
                              "max.poll.records": 37})
    try:
        tps = [TopicPartition(unique_topic, p) for p in range(3)]
        consumer.assign(tps)
        got = drain(consumer, N)
        assert by_partition(got) == {p: v for p, v in expected.items() if v}
        assert sorted((r.key, r.value) for r in got) == sorted(sent)

        # seek back into the middle of partition 0 and read from there again
        middle = expected[0][len(expected[0]) // 2][0]
        consumer.seek(tps[0], middle)
        assert consumer.position(tps[0]) == middle
        again = drain(consumer, len(expected[0]) - len(expected[0]) // 2)
        assert [(r.offset, r.value) for r in again] == [(o, v) for o, _, v, _, _ in expected[0] if o >= middle]

        consumer.seek_to_beginning([tps[1]])
        assert consumer.position(tps[1]) == 0
        consumer.seek_to_end([tps[1]])
        assert consumer.position(tps[1]) == len(expected[1])
        assert consumer.end_offsets(tps) == {tp: len(expected[tp.partition]) for tp in tps}
        assert consumer.beginning_offsets(tps) == {tp: 0 for tp in tps}
    finally:
        consumer.close()


def test_group_consumer_reads_everything_in_order_and_commits_survive(group_broker, unique_topic):
    b = group_broker.bootstrap
    create_topic(b, unique_topic, 4)
    produce_confluent(b, unique_topic, N)
    expected = reference_records(b, unique_topic, 4)
    group = f"g-{unique_topic}"
    config = {"bootstrap.servers": b, "group.id": group, "auto.offset.reset": "earliest",
              "enable.auto.commit": False}
    consumer = KafkaConsumer(config)
    try:
        consumer.subscribe([unique_topic])
        got = drain(consumer, N)
        assert by_partition(got) == {p: v for p, v in expected.items() if v}
        assert consumer.assignment() == {TopicPartition(unique_topic, p) for p in range(4)}
        # commit a position in the middle of partition 0, the rest at the end
        consumer.commit_sync({TopicPartition(unique_topic, 0): 5})
        tps = {TopicPartition(unique_topic, p) for p in range(1, 4)}
        consumer.commit_sync({tp: consumer.position(tp) for tp in tps})
        committed = consumer.committed(set(tps) | {TopicPartition(unique_topic, 0)})
        assert committed[TopicPartition(unique_topic, 0)].offset == 5
    finally:
        consumer.close()

    # a new member of the group resumes from the commits
    second = KafkaConsumer(config)
    try:
        second.subscribe([unique_topic])
        rest = drain(second, len(expected[0]) - 5)
        assert [(r.partition, r.offset) for r in rest] == [(0, o) for o, *_ in expected[0][5:]]
        assert second.poll(300).is_empty()
        # and kafka-python sees the same committed offsets
        kc = kafka.KafkaConsumer(bootstrap_servers=b, group_id=group, enable_auto_commit=False)
        assert kc.committed(kafka.TopicPartition(unique_topic, 0)) == 5
        kc.close()
    finally:
        second.close()


def test_kafkalite_and_confluent_consumers_split_one_group(group_broker, unique_topic):
    b = group_broker.bootstrap
    create_topic(b, unique_topic, 6)
    group = f"mixed-{unique_topic}"
    ours = KafkaConsumer({"bootstrap.servers": b, "group.id": group, "auto.offset.reset": "earliest",
                          "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
                          "partition.assignment.strategy": "range"})
    theirs = confluent_kafka.Consumer({"bootstrap.servers": b, "group.id": group, "auto.offset.reset": "earliest",
                                       "partition.assignment.strategy": "range", "session.timeout.ms": 6000,
                                       "heartbeat.interval.ms": 500})
    try:
        ours.subscribe([unique_topic])
        theirs.subscribe([unique_topic])

        def both_assigned():
            ours.poll(100)
            theirs.poll(0.1)
            a, c = ours.assignment(), {(tp.topic, tp.partition) for tp in theirs.assignment()}
            return a and c and len(a) + len(c) == 6 and {(tp.topic, tp.partition) for tp in a}.isdisjoint(c)

        wait_until(both_assigned, timeout=45, message="both consumers to hold a share of the partitions")
        produce_confluent(b, unique_topic, N)
        ours_seen: list = []
        theirs_seen: list = []
        deadline = time.monotonic() + 30
        while len(ours_seen) + len(theirs_seen) < N and time.monotonic() < deadline:
            ours_seen += [(r.partition, r.offset) for r in ours.poll(100)]
            msg = theirs.poll(0.05)
            while msg is not None:
                if msg.error() is None:
                    theirs_seen.append((msg.partition(), msg.offset()))
                msg = theirs.poll(0)
        seen = ours_seen + theirs_seen
        assert len(seen) == N and len(set(seen)) == N
        # each read only the partitions the group gave it, and both got a share of the records
        assert {p for p, _ in ours_seen} <= {tp.partition for tp in ours.assignment()}
        assert {p for p, _ in theirs_seen} <= {tp.partition for tp in theirs.assignment()}
        assert ours_seen and theirs_seen
    finally:
        theirs.close()
        ours.close()


class Recorder(ConsumerRebalanceListener):
    def __init__(self):
        self.revoked: list[set] = []
        self.assigned: list[set] = []

    def on_partitions_revoked(self, partitions):
        self.revoked.append(set(partitions))

    def on_partitions_assigned(self, partitions):
        self.assigned.append(set(partitions))


def test_cooperative_sticky_keeps_partitions_while_a_member_joins(group_broker, unique_topic):
    b = group_broker.bootstrap
    create_topic(b, unique_topic, 4)
    config = {"bootstrap.servers": b, "group.id": f"coop-{unique_topic}", "auto.offset.reset": "earliest",
              "partition.assignment.strategy": "cooperative-sticky", "heartbeat.interval.ms": 300,
              "session.timeout.ms": 6000}
    first_listener, second_listener = Recorder(), Recorder()
    first, second = KafkaConsumer(config), KafkaConsumer(config)
    try:
        first.subscribe([unique_topic], first_listener)
        wait_until(lambda: first.poll(100) is not None and len(first.assignment()) == 4, timeout=30,
                   message="the first member to own all four partitions")
        before = set(first.assignment())
        second.subscribe([unique_topic], second_listener)

        def balanced():
            first.poll(50)
            second.poll(50)
            return len(first.assignment()) == 2 and len(second.assignment()) == 2
        wait_until(balanced, timeout=45, message="the cooperative rebalance to give each member two partitions")
        assert first.assignment().isdisjoint(second.assignment())
        assert first.assignment() <= before
        # cooperative: the first member only ever revoked the two partitions that moved
        assert set().union(*first_listener.revoked) == before - first.assignment()
        assert set().union(*second_listener.assigned) == second.assignment()
    finally:
        second.close()
        first.close()
