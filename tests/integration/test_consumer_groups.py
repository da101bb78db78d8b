"""No Kafka counterpart: consumer groups with real clients (issue 4, "Done when").

- kafka-python, confluent-kafka and aiokafka share one group on a 6-partition topic: every
  partition has exactly one owner and every record is consumed exactly once.
- A member killed with SIGKILL (no LeaveGroup) is removed after its session timeout and its
  partitions move; a member that leaves makes the group rebalance at once.
- Committed offsets survive a broker restart; an unknown group has no committed offsets.
Every wait is bounded; nothing sleeps to synchronise.
"""
import asyncio
import subprocess
import sys
import threading
import time

import pytest

from harness import wait_until

kafka = pytest.importorskip("kafka")
confluent_kafka = pytest.importorskip("confluent_kafka")
aiokafka = pytest.importorskip("aiokafka")

from kafka import KafkaConsumer, KafkaProducer, TopicPartition  # noqa: E402

# Topics are auto-created with num.partitions=6 when first produced to or subscribed.
GROUP_OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "4",
                   "offsets.topic.replication.factor": "1", "group.min.session.timeout.ms": "1000",
                   "num.partitions": "6", "auto.create.topics.enable": "true"}


@pytest.fixture
def group_broker(broker_factory):
    return broker_factory(GROUP_OVERRIDES)


def create_topic(bootstrap, name, partitions):
    """Through auto-creation (num.partitions=6): send one metadata request and wait for the leaders."""
    assert partitions == 6
    producer = KafkaProducer(bootstrap_servers=bootstrap, max_block_ms=30_000)
    try:
        assert producer.partitions_for(name) == set(range(6))   # blocks until the leaders are known
    finally:
        producer.close()


def produce(bootstrap, topic, count, partitions):
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1)
    for i in range(count):
        producer.send(topic, key=str(i).encode(), value=str(i).encode(), partition=i % partitions)
    producer.flush(timeout=30)
    producer.close()


class Member(threading.Thread):
    """One group member on its own thread: records what it owns and what it consumed."""

    def __init__(self, name, poll_once, assignment, close):
        super().__init__(name=f"member-{name}", daemon=True)
        self.label, self.poll_once, self.assignment, self.close = name, poll_once, assignment, close
        self.consumed, self.owned, self.stop, self.error = [], set(), threading.Event(), None

    def run(self):
        try:
            while not self.stop.is_set():
                self.consumed.extend(self.poll_once())
                self.owned = self.assignment()
        except Exception as e:  # noqa: BLE001 -- reported by the test
            self.error = e
        finally:
            self.close()


def kafka_python_member(bootstrap, topic, group):
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, auto_offset_reset="earliest",
                      session_timeout_ms=6000, heartbeat_interval_ms=500)

    def poll():
        return [r.value for recs in c.poll(timeout_ms=200).values() for r in recs]
    return Member("kafka-python", poll, lambda: {tp.partition for tp in c.assignment()}, c.close)


def confluent_member(bootstrap, topic, group):
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                  "auto.offset.reset": "earliest", "session.timeout.ms": 6000,
                                  "heartbeat.interval.ms": 500})
    c.subscribe([topic])

    def poll():
        m = c.poll(0.2)
        return [m.value()] if m is not None and m.error() is None else []
    return Member("confluent", poll, lambda: {tp.partition for tp in c.assignment()}, c.close)


def aiokafka_member(bootstrap, topic, group):
    loop = asyncio.new_event_loop()

    async def make():   # aiokafka objects must be created inside the loop that runs them
        return aiokafka.AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                         auto_offset_reset="earliest", session_timeout_ms=6000,
                                         heartbeat_interval_ms=500)

    c = loop.run_until_complete(make())
    started = []

    def poll():
        if not started:
            loop.run_until_complete(c.start())
            started.append(True)
        batches = loop.run_until_complete(c.getmany(timeout_ms=200))
        return [r.value for recs in batches.values() for r in recs]

    def close():
        if started:
            loop.run_until_complete(c.stop())
        loop.close()
    return Member("aiokafka", poll, lambda: {tp.partition for tp in c.assignment()}, close)


def test_three_clients_share_a_group_exactly_once(group_broker, unique_topic):
    bootstrap, partitions, count = group_broker.bootstrap, 6, 600
    create_topic(bootstrap, unique_topic, partitions)
    produce(bootstrap, unique_topic, count, partitions)
    group = unique_topic + "-group"
    members = [make(bootstrap, unique_topic, group)
               for make in (kafka_python_member, confluent_member, aiokafka_member)]
    for m in members:
        m.start()
    try:
        def split_exactly():
            # a member may still hold an older generation's assignment for a moment after a rebalance:
            # wait (bounded) until every partition has exactly one owner
            owned = [m.owned for m in members]
            return all(owned) and sum(len(o) for o in owned) == partitions \
                and set().union(*owned) == set(range(partitions))

        wait_until(lambda: sum(len(m.consumed) for m in members) >= count and split_exactly(), timeout=90,
                   message="all records consumed, and the six partitions split among three members")
        everything = [v for m in members for v in m.consumed]
        assert sorted(everything, key=int) == [str(i).encode() for i in range(count)]   # no gap, no duplicate
    finally:
        for m in members:
            m.stop.set()
        for m in members:
            m.join(timeout=30)
    assert [m.error for m in members] == [None, None, None]


def test_leave_rebalances_at_once_and_killed_member_expires(group_broker, unique_topic, tmp_path):
    bootstrap = group_broker.bootstrap
    create_topic(bootstrap, unique_topic, 6)
    group = unique_topic + "-group"
    stayer = kafka_python_member(bootstrap, unique_topic, group)
    stayer.start()
    try:
        wait_until(lambda: stayer.owned == set(range(6)), timeout=30, message="first member owns everything")
        # a second member in a subprocess, killed without LeaveGroup
        script = tmp_path / "member.py"
        script.write_text(
            "import sys\nfrom kafka import KafkaConsumer\n"
            f"c = KafkaConsumer({unique_topic!r}, bootstrap_servers={bootstrap!r}, group_id={group!r},"
            " session_timeout_ms=3000, heartbeat_interval_ms=300)\n"
            "while True:\n    c.poll(timeout_ms=200)\n    if c.assignment():\n        print('assigned', flush=True)\n")
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: len(stayer.owned) == 3, timeout=30, message="rebalance onto two members")
            proc.kill()
            killed_at = time.monotonic()
            wait_until(lambda: stayer.owned == set(range(6)), timeout=30, message="killed member expired")
            assert time.monotonic() - killed_at >= 1.0   # it took a session timeout, not a LeaveGroup
        finally:
            proc.kill()
            proc.wait(timeout=10)
        # a member that leaves: the stayer gets its partitions back within one rebalance
        leaver = confluent_member(bootstrap, unique_topic, group)
        leaver.start()
        wait_until(lambda: len(stayer.owned) == 3 and len(leaver.owned) == 3, timeout=30, message="two members")
        leaver.stop.set()
        leaver.join(timeout=30)
        wait_until(lambda: stayer.owned == set(range(6)), timeout=10, message="rebalance after LeaveGroup")
    finally:
        stayer.stop.set()
        stayer.join(timeout=30)


def test_committed_offsets_survive_restart_and_unknown_group_has_none(broker_factory, unique_topic):
    b = broker_factory(GROUP_OVERRIDES)
    create_topic(b.bootstrap, unique_topic, 6)
    produce(b.bootstrap, unique_topic, 60, 6)   # 10 records in each partition
    tp = TopicPartition(unique_topic, 0)
    c = KafkaConsumer(bootstrap_servers=b.bootstrap, group_id="g-restart", enable_auto_commit=False,
                      auto_offset_reset="earliest")
    c.assign([tp])
    got = []
    wait_until(lambda: got.extend(r for recs in c.poll(timeout_ms=200).values() for r in recs) or len(got) >= 6,
               timeout=30, message="first records")
    c.commit({tp: kafka.OffsetAndMetadata(6, "", -1)})
    c.close()
    b.stop()
    b.start()
    c = KafkaConsumer(bootstrap_servers=b.bootstrap, group_id="g-restart", enable_auto_commit=False)
    assert c.committed(tp) == 6
    unknown = KafkaConsumer(bootstrap_servers=b.bootstrap, group_id="never-used", enable_auto_commit=False)
    assert unknown.committed(tp) is None   # OffsetFetch answered offset -1, no error
    c.assign([tp])
    rest = []
    wait_until(lambda: rest.extend(r.offset for recs in c.poll(timeout_ms=200).values() for r in recs)
               or len(rest) >= 4, timeout=30, message="resume")
    assert rest == [6, 7, 8, 9]
    c.close()
    unknown.close()
