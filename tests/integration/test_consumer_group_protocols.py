"""No Kafka counterpart: consumer-group protocols with real clients (issue 4, "Done when").

- Assignors: kafka-python with ``RoundRobinPartitionAssignor`` and ``RangePartitionAssignor``,
  confluent-kafka (librdkafka) with ``range`` and ``roundrobin``: two members split a 6-partition
  topic, each partition has exactly one owner, every record is consumed once, and the group's
  protocol (as DescribeGroups reports it) is the assignor asked for.
- Cooperative-sticky (librdkafka and kafka-python): a third member joins two that own everything;
  the first two give up only some partitions (KIP-429 incremental rebalance), never all.
- kafkajs (``tests/js/group_consume.js``) and ``kcat -G`` read every record through a group;
  the offsets kcat commits are what kafka-python's admin client lists.
- Static membership (KIP-345): a librdkafka member with ``group.instance.id`` closes (a static
  member sends no LeaveGroup) and comes back within its session timeout; it gets the same
  partitions and the other member sees no rebalance, not even when the old instance's session
  runs out.

The assignment itself is computed by the group leader (a client); the broker picks the protocol
every member supports, hands the leader every subscription and forwards the leader's plan. Every
wait is bounded; the broker is shared by this module, each test uses its own topic and group.
"""
import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from harness import BrokerProcess, wait_until
from test_consumer_groups import GROUP_OVERRIDES, Member, create_topic, produce

kafka = pytest.importorskip("kafka")
confluent_kafka = pytest.importorskip("confluent_kafka")

from kafka import KafkaAdminClient, KafkaConsumer  # noqa: E402
from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor  # noqa: E402
from kafka.coordinator.assignors.range import RangePartitionAssignor  # noqa: E402
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor  # noqa: E402

JS_DIR = Path(__file__).resolve().parents[1] / "js"
PARTITIONS = 6


@pytest.fixture(scope="module")
def gbroker(tmp_path_factory):
    b = BrokerProcess(tmp_path_factory.mktemp("group-protocols-broker"), GROUP_OVERRIDES)
    b.start()
    yield b
    b.stop()
    print(f"\n--- last lines of {b.log_path}:\n{b.log_tail(60)}")


# --- members ---------------------------------------------------------------------------------

def subscribe_knowing_partitions(consumer, topic):
    """Fetch the topic's metadata, then subscribe. Subscribing first lets kafka-python 3.0.12 join
    before it knows the partitions ("No partition metadata"), rejoin at once when it learns them,
    and now and then stall after that second SyncGroup: the broker answers every request (its
    request log shows them all), and the client sends no heartbeat again until it leaves."""
    wait_until(lambda: consumer.partitions_for_topic(topic) == set(range(PARTITIONS)), timeout=15,
               message=f"kafka-python to know the partitions of {topic}")
    consumer.subscribe([topic])


def kafka_python_member(bootstrap, topic, group, assignor, name):
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, auto_offset_reset="earliest",
                      session_timeout_ms=6000, heartbeat_interval_ms=500, auto_commit_interval_ms=200,
                      partition_assignment_strategy=[assignor], client_id=name)
    subscribe_knowing_partitions(c, topic)

    def poll():
        return [r.value for recs in c.poll(timeout_ms=500).values() for r in recs]
    return Member(name, poll, lambda: {tp.partition for tp in c.assignment()}, c.close)


class ConfluentMember(Member):
    """A librdkafka member that also records its rebalance callbacks, in order."""

    def __init__(self, bootstrap, topic, group, strategy, name, **extra):
        self.callbacks = []   # ("assign" | "revoke", sorted partitions)
        self.consumer = confluent_kafka.Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
            "auto.offset.reset": "earliest", "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
            "auto.commit.interval.ms": 200, "partition.assignment.strategy": strategy, **extra})
        self.consumer.subscribe([topic], on_assign=self._on("assign"), on_revoke=self._on("revoke"))
        super().__init__(name, self._poll, lambda: {tp.partition for tp in self.consumer.assignment()},
                         self.consumer.close)

    def _on(self, kind):
        def record(_consumer, partitions):   # the client assigns (incrementally) by itself afterwards
            self.callbacks.append((kind, sorted(tp.partition for tp in partitions)))
        return record

    def _poll(self):
        m = self.consumer.poll(0.1)
        return [m.value()] if m is not None and m.error() is None else []


def stop_all(members):
    for m in members:
        m.stop.set()
    for m in members:
        m.join(timeout=30)
    return [m.error for m in members]


def wait_split(members, timeout=45):
    """Until the members together own every partition, each at least one and none twice."""
    def split():
        owned = [m.owned for m in members]
        return all(owned) and sum(map(len, owned)) == PARTITIONS and set().union(*owned) == set(range(PARTITIONS))
    wait_until(split, timeout=timeout, message=f"{len(members)} members to split {PARTITIONS} partitions")
    return [set(m.owned) for m in members]


def consume_exactly_once(bootstrap, topic, members, count, first=0):
    """Produce values first..first+count-1 and wait until the members together consumed them."""
    produce_from(bootstrap, topic, first, count)
    wanted = [str(i).encode() for i in range(first + count)]
    wait_until(lambda: sum(len(m.consumed) for m in members) >= len(wanted), timeout=45,
               message=f"{len(wanted)} records consumed")
    everything = sorted((v for m in members for v in m.consumed), key=int)
    assert everything == wanted   # no gap, no duplicate


def produce_from(bootstrap, topic, first, count):
    producer = kafka.KafkaProducer(bootstrap_servers=bootstrap, acks=1)
    for i in range(first, first + count):
        producer.send(topic, value=str(i).encode(), partition=i % PARTITIONS)
    producer.flush(timeout=30)
    producer.close()


def committed_offsets(bootstrap, group):
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    try:
        return {tp.partition: om.offset for tp, om in admin.list_group_offsets({group: None})[group].items()}
    finally:
        admin.close()


def describe(bootstrap, group):
    """(state, protocol, {client id: assigned partitions}) as DescribeGroups reports the group."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000)
    try:
        d = admin.describe_groups([group])[group]
    finally:
        admin.close()
    assert d["error"] is None and d["protocol_type"] == "consumer", d
    shares = {m["client_id"]: {p for a in m["member_assignment"]["assigned_partitions"] for p in a["partitions"]}
              for m in d["members"]}
    return d["group_state"], d["protocol_data"], shares


def check_described(bootstrap, group, members, protocol):
    """The broker's view (state, chosen protocol, stored assignments) matches what the members hold."""
    assert describe(bootstrap, group) == ("Stable", protocol, {m.label: m.owned for m in members})


# --- 1. assignors ----------------------------------------------------------------------------

@pytest.mark.parametrize("assignor,protocol,expected", [
    (RangePartitionAssignor, "range", [{0, 1, 2}, {3, 4, 5}]),
    (RoundRobinPartitionAssignor, "roundrobin", [{0, 2, 4}, {1, 3, 5}]),
])
def test_kafka_python_assignor_splits_topic(gbroker, unique_topic, assignor, protocol, expected):
    bootstrap, group = gbroker.bootstrap, unique_topic + "-group"
    create_topic(bootstrap, unique_topic, PARTITIONS)
    members = [kafka_python_member(bootstrap, unique_topic, group, assignor, f"kp-{i}") for i in range(2)]
    for m in members:
        m.start()
    try:
        owned = wait_split(members)
        # Both assignors order members by member id; either way the two shares are these.
        assert sorted(owned, key=min) == expected
        consume_exactly_once(bootstrap, unique_topic, members, 300)
        check_described(bootstrap, group, members, protocol)
    finally:
        assert stop_all(members) == [None, None]


@pytest.mark.parametrize("strategy,expected", [
    ("range", [{0, 1, 2}, {3, 4, 5}]),
    ("roundrobin", [{0, 2, 4}, {1, 3, 5}]),
])
def test_confluent_assignor_splits_topic(gbroker, unique_topic, strategy, expected):
    bootstrap, group = gbroker.bootstrap, unique_topic + "-group"
    create_topic(bootstrap, unique_topic, PARTITIONS)
    members = [ConfluentMember(bootstrap, unique_topic, group, strategy, f"ck-{i}") for i in range(2)]
    for m in members:
        m.start()
    try:
        owned = wait_split(members)
        assert sorted(owned, key=min) == expected
        consume_exactly_once(bootstrap, unique_topic, members, 300)
        check_described(bootstrap, group, members, strategy)
    finally:
        assert stop_all(members) == [None, None]


def wait_committed(bootstrap, group, count):
    per_partition = count // PARTITIONS
    wait_until(lambda: committed_offsets(bootstrap, group) == {p: per_partition for p in range(PARTITIONS)},
               timeout=30, message=f"the group to commit {per_partition} in every partition")


def check_cooperative_third_member(bootstrap, topic, group, first_two, make_third):
    """Two members own everything and have committed; a third joins. Each of the first two keeps
    at least one partition it had and only ever gives up some of them."""
    before = wait_split(first_two)
    marks = [len(getattr(m, "callbacks", ())) for m in first_two]   # callbacks before the third joins
    consume_exactly_once(bootstrap, topic, first_two, 300)
    wait_committed(bootstrap, group, 300)   # so the partitions that move are not read twice
    third = make_third()
    third.start()
    members = [*first_two, third]
    after = wait_split(members)
    for old, new in zip(before, after[:2]):
        assert new and new < old, (before, after)   # kept some, gave up some, gained nothing
    consume_exactly_once(bootstrap, topic, members, 300, first=300)
    return before, after, third, marks


def test_confluent_cooperative_sticky_third_member_moves_only_some(gbroker, unique_topic):
    bootstrap, group = gbroker.bootstrap, unique_topic + "-group"
    create_topic(bootstrap, unique_topic, PARTITIONS)
    first_two = [ConfluentMember(bootstrap, unique_topic, group, "cooperative-sticky", f"coop-{i}")
                 for i in range(2)]
    for m in first_two:
        m.start()
    members = list(first_two)
    try:
        before, after, third, marks = check_cooperative_third_member(
            bootstrap, unique_topic, group, first_two,
            lambda: ConfluentMember(bootstrap, unique_topic, group, "cooperative-sticky", "coop-2"))
        members.append(third)
        for m, mark, old, new in zip(first_two, marks, before, after):
            revoked = [p for kind, ps in m.callbacks[mark:] if kind == "revoke" for p in ps]
            assert set(revoked) == old - new   # only what moved was revoked (an eager rebalance revokes all)
        # KIP-429's two rounds: the first hands the newcomer nothing (the partitions are still
        # owned), the second what the others released.
        assert [ps for kind, ps in third.callbacks if ps] == [sorted(after[2])]
        assert all(kind == "assign" for kind, _ in third.callbacks)
        check_described(bootstrap, group, members, "cooperative-sticky")
    finally:
        assert stop_all(members) == [None] * len(members)


def test_kafka_python_cooperative_sticky_third_member_moves_only_some(gbroker, unique_topic):
    bootstrap, group = gbroker.bootstrap, unique_topic + "-group"
    create_topic(bootstrap, unique_topic, PARTITIONS)

    def make(i):
        return kafka_python_member(bootstrap, unique_topic, group, CooperativeStickyAssignor, f"kp-coop-{i}")
    first_two = [make(0), make(1)]
    for m in first_two:
        m.start()
    members = list(first_two)
    try:
        third = check_cooperative_third_member(bootstrap, unique_topic, group, first_two, lambda: make(2))[2]
        members.append(third)
        check_described(bootstrap, group, members, "cooperative-sticky")
    finally:
        assert stop_all(members) == [None] * len(members)


# --- 2. kafkajs and kcat ---------------------------------------------------------------------

def test_kafkajs_consumer_group_reads_everything(gbroker, unique_topic):
    bootstrap, group, count = gbroker.bootstrap, unique_topic + "-group", 120
    create_topic(bootstrap, unique_topic, PARTITIONS)
    produce(bootstrap, unique_topic, count, PARTITIONS)
    proc = subprocess.run(["node", str(JS_DIR / "group_consume.js"), bootstrap, unique_topic, group, str(count)],
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"group_consume.js exited {proc.returncode}: {proc.stderr[-3000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ok"], f"kafkajs failed: {out['error']} {proc.stderr[-3000:]}"
    records = out["result"]["records"]
    assert sorted((r["value"] for r in records), key=int) == [str(i) for i in range(count)]
    assert sorted(out["result"]["assigned"]) == list(range(PARTITIONS))
    # kafkajs commits what it resolved before it leaves the group
    assert committed_offsets(bootstrap, group) == {p: count // PARTITIONS for p in range(PARTITIONS)}


def test_kcat_balanced_consumer_reads_everything_and_commits(gbroker, unique_topic):
    bootstrap, group, count = gbroker.bootstrap, unique_topic + "-group", 120
    create_topic(bootstrap, unique_topic, PARTITIONS)
    produce(bootstrap, unique_topic, count, PARTITIONS)
    proc = subprocess.run(["kcat", "-b", bootstrap, "-G", group, unique_topic, "-c", str(count), "-e", "-q", "-J",
                           "-X", "auto.offset.reset=earliest", "-X", "session.timeout.ms=6000"],
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"kcat -G exited {proc.returncode}: {proc.stderr[-3000:]}"
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert sorted((r["payload"] for r in records), key=int) == [str(i) for i in range(count)]
    # kcat closes the consumer, which commits the offsets it consumed (enable.auto.commit)
    assert committed_offsets(bootstrap, group) == {p: count // PARTITIONS for p in range(PARTITIONS)}


# --- 3. static membership --------------------------------------------------------------------

@pytest.mark.slow
def test_static_member_restart_keeps_partitions_without_rebalance(gbroker, unique_topic):
    bootstrap, group = gbroker.bootstrap, unique_topic + "-group"
    create_topic(bootstrap, unique_topic, PARTITIONS)
    static = {"group.instance.id": unique_topic + "-static", "session.timeout.ms": 10000}
    other = ConfluentMember(bootstrap, unique_topic, group, "range", "dynamic")
    first = ConfluentMember(bootstrap, unique_topic, group, "range", "static-1", **static)
    for m in (other, first):
        m.start()
    members = [other, first]
    try:
        owned_other, owned_static = wait_split([other, first])
        wait_until(lambda: other.callbacks and other.callbacks[-1] == ("assign", sorted(owned_other)),
                   timeout=10, message="the dynamic member's last callback to be its assignment")
        callbacks = list(other.callbacks)
        log_from = gbroker.log_size()

        first.stop.set()        # close(): librdkafka sends no LeaveGroup for a static member
        first.join(timeout=30)
        closed_at = time.monotonic()
        again = ConfluentMember(bootstrap, unique_topic, group, "range", "static-2", **static)
        again.start()
        members.append(again)
        wait_until(lambda: again.owned == owned_static, timeout=9, message="the static member's old partitions")
        assert time.monotonic() - closed_at < 10   # within the session timeout
        # Past the session timeout of the instance that closed: its old member id is gone by now,
        # and that must not have started a rebalance either.
        wait_until(lambda: time.monotonic() - closed_at > 11.5 or other.callbacks != callbacks, timeout=15,
                   message="the old instance's session timeout to pass")
        assert other.callbacks == callbacks and other.owned == owned_other
        assert again.owned == owned_static and again.callbacks == [("assign", sorted(owned_static))]
        log = gbroker.log_text(log_from)
        assert not re.search(rf"Preparing to rebalance group {re.escape(group)}\b", log), log
        assert "will not trigger rebalance" in log, log
    finally:
        assert stop_all(members) == [None] * len(members)
