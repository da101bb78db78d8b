"""No Kafka counterpart: the KIP-848 consumer group protocol with a real client (issue 19, "Done when").

- librdkafka (confluent-kafka) with ``group.protocol=consumer``: three members share a 6-partition topic,
  one leaves, one joins; every member commits each record synchronously; every offset of the known sequence
  is seen exactly once across the group (no duplicates: a partition reaches its new owner only after the old
  one revoked it and committed; no gaps: the new owner starts at the committed offset).
- The same next to a classic group (``group.protocol=classic``) of other members reading the same topic:
  each group sees every record once; ListGroups lists both (protocol types "consumer" and "consumer", the
  consumer group in its KIP-848 state); a classic JoinGroup under the consumer group's id is refused with
  INCONSISTENT_GROUP_PROTOCOL; ``kafka-consumer-groups --describe`` (offsets, ``--members --verbose``,
  ``--state``) shows the consumer group's members, assignment, assignor and state; the committed offsets survive a broker restart and a new member continues from them.

Every wait is bounded; the heartbeat interval is 300 ms so that reconciliation takes a few heartbeats.
"""
from __future__ import annotations

import time

import pytest

from clients import raw_request
from harness import BrokerProcess, RawConnection, run_tool, wait_until

confluent_kafka = pytest.importorskip("confluent_kafka")
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

PARTITIONS = 6
OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "2",
             "offsets.topic.replication.factor": "1", "group.min.session.timeout.ms": "1000",
             "group.consumer.heartbeat.interval.ms": "300", "group.consumer.session.timeout.ms": "10000"}


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = BrokerProcess(tmp_path_factory.mktemp("kip848-broker"), OVERRIDES)
    b.start()
    yield b
    b.stop()
    print(f"\n--- last lines of {b.log_path}:\n{b.log_tail(60)}")


def create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})   # kept alive until the topic is there
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(30)


def produce(bootstrap: str, topic: str, start: int, count: int) -> None:
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(start, start + count):
        p.produce(topic, str(i).encode(), partition=i % PARTITIONS)
    assert p.flush(30) == 0


class Group:
    """Members of one group, polled in turn on the test's thread; each record is committed at once."""

    def __init__(self, bootstrap: str, topic: str, group_id: str, protocol: str):
        self.bootstrap, self.topic, self.group_id, self.protocol = bootstrap, topic, group_id, protocol
        self.members: dict[str, confluent_kafka.Consumer] = {}
        self.seen: list[tuple[int, int, str]] = []   # (partition, offset, member)
        self.errors: list[str] = []
        self.callbacks: list[tuple[str, str, list[int]]] = []
        self.owner: dict[int, str] = {}
        self.overlaps: list[str] = []
        self.stale_commits = 0

    def add(self, name: str) -> None:
        conf = {"bootstrap.servers": self.bootstrap, "group.id": self.group_id, "group.protocol": self.protocol,
                "auto.offset.reset": "earliest", "enable.auto.commit": False, "client.id": name}
        if self.protocol == "classic":
            conf.update({"session.timeout.ms": 6000, "heartbeat.interval.ms": 300})
        c = confluent_kafka.Consumer(conf)
        # With rebalance callbacks, librdkafka acknowledges a revocation only inside poll(), so the synchronous
        # commit of the last record polled always happens before its partition can move.
        c.subscribe([self.topic], on_assign=lambda _c, tps: self.on_assign(name, tps),
                    on_revoke=lambda _c, tps: self.on_revoke(name, tps), on_lost=lambda _c, tps: self.on_revoke(name, tps))
        self.members[name] = c

    def on_assign(self, name, tps) -> None:
        """Every callback runs on the test's thread, so their order is the order the members learn of their
        partitions: a partition given to one member while another still holds it breaks revoke-before-assign."""
        for tp in tps:
            holder = self.owner.get(tp.partition)
            if holder is not None and holder != name:
                self.overlaps.append(f"partition {tp.partition} assigned to {name} while {holder} holds it")
            self.owner[tp.partition] = name
        self.callbacks.append((name, "assign", sorted(tp.partition for tp in tps)))

    def on_revoke(self, name, tps) -> None:
        for tp in tps:
            if self.owner.get(tp.partition) == name:
                del self.owner[tp.partition]
        self.callbacks.append((name, "revoke", sorted(tp.partition for tp in tps)))

    def close(self, name: str) -> None:
        self.members.pop(name).close()   # commits were synchronous: nothing is pending; leaves the group

    def poll_round(self) -> None:
        for name, c in list(self.members.items()):
            m = c.poll(0.05)
            if m is None:
                continue
            if m.error():
                self.errors.append(f"{name}: {m.error()}")
                continue
            self.seen.append((m.partition(), m.offset(), name))
            wait_until(lambda: self.commit(c, m), timeout=10, message=f"{name} to commit {m.partition()}@{m.offset()}")

    def commit(self, c, m) -> bool:
        """Kafka's consumers retry a commit answered STALE_MEMBER_EPOCH (a heartbeat moved the member to a new
        epoch while the commit was on its way) with the epoch they have now."""
        try:
            c.commit(message=m, asynchronous=False)
            return True
        except confluent_kafka.KafkaException as e:
            if e.args[0].code() != confluent_kafka.KafkaError.STALE_MEMBER_EPOCH:
                raise
            self.stale_commits += 1
            return False

    def poll_until(self, count: int, timeout: float, *others: "Group") -> None:
        deadline = time.monotonic() + timeout
        while len(self.seen) < count:
            assert time.monotonic() < deadline, (
                f"{self.group_id}: {len(self.seen)} of {count} records after {timeout}s; errors {self.errors[-5:]}")
            self.poll_round()
            for g in others:
                g.poll_round()

    def assignments(self) -> dict[str, set[int]]:
        return {n: {tp.partition for tp in c.assignment()} for n, c in self.members.items()}

    def check_exactly_once(self, per_partition: int) -> None:
        offsets = sorted((p, o) for p, o, _ in self.seen)
        duplicates = sorted({x for x in offsets if offsets.count(x) > 1})
        assert not duplicates, f"{self.group_id}: offsets seen twice: {duplicates[:10]}"
        expected = [(p, o) for p in range(PARTITIONS) for o in range(per_partition)]
        assert offsets == expected, f"{self.group_id}: missing {sorted(set(expected) - set(offsets))[:10]}"

    def close_all(self) -> None:
        for name in list(self.members):
            self.close(name)


def run_leave_and_join(bootstrap: str, topic: str, group: Group, *others: Group) -> None:
    """Three members, 300 records; one leaves a third of the way in; a fourth joins; 300 more: all once."""
    for name in ("a", "b", "c"):
        group.add(name)
    for g in others:
        g.poll_round()
    produce(bootstrap, topic, 0, 300)
    group.poll_until(100, 30, *others)

    def shared_by(members: set[str]):
        def check():
            group.poll_round()
            for g in others:
                g.poll_round()
            a = group.assignments()
            return (sorted(p for ps in a.values() for p in ps) == list(range(PARTITIONS))
                    and {n for n, ps in a.items() if len(ps) == 2} == members)
        return check
    wait_until(shared_by({"a", "b", "c"}), timeout=20, message="a, b and c with two partitions each")
    group.close("b")
    group.poll_until(300, 30, *others)
    wait_until(shared_by({"a", "c"}) if False else (lambda: (group.poll_round(), sorted(
        p for ps in group.assignments().values() for p in ps) == list(range(PARTITIONS)))[1]),
        timeout=20, message="a and c owning all six partitions")
    group.add("d")
    wait_until(shared_by({"a", "c", "d"}), timeout=20, message="a, c and d with two partitions each")
    produce(bootstrap, topic, 300, 300)
    group.poll_until(600, 40, *others)
    group.check_exactly_once(per_partition=100)
    assert not group.overlaps, f"{group.overlaps}; callbacks {group.callbacks}"
    assert {m for _, _, m in group.seen} == {"a", "b", "c", "d"}, "every member consumed something"
    assert not group.errors, group.errors


def test_three_consumer_protocol_members_one_leaves_one_joins_exactly_once(broker):
    topic, bootstrap = "kip848-alone", broker.bootstrap
    create_topic(bootstrap, topic)
    group = Group(bootstrap, topic, "kip848-alone-group", "consumer")
    try:
        run_leave_and_join(bootstrap, topic, group)
    finally:
        group.close_all()


def test_consumer_group_beside_a_classic_group_on_one_topic(broker):
    topic, bootstrap = "kip848-mixed", broker.bootstrap
    create_topic(bootstrap, topic)
    modern = Group(bootstrap, topic, "kip848-mixed-consumer", "consumer")
    classic = Group(bootstrap, topic, "kip848-mixed-classic", "classic")
    try:
        classic.add("x")
        classic.add("y")
        run_leave_and_join(bootstrap, topic, modern, classic)
        classic.poll_until(600, 30, modern)
        classic.check_exactly_once(per_partition=100)

        # ListGroups: both, the consumer group as KIP-848 states it
        from kafkalite.protocol.messages.list_groups import ListGroupsRequest
        from kafkalite.protocol.messages.join_group import JoinGroupRequest, JoinGroupRequestProtocol
        conn = RawConnection(broker.port)
        listed = {g.group_id: g for g in raw_request(conn, 16, 4, ListGroupsRequest(states_filter=[])).groups}
        assert listed["kip848-mixed-consumer"].protocol_type == "consumer"
        assert listed["kip848-mixed-consumer"].group_state in ("Stable", "Reconciling")
        assert listed["kip848-mixed-classic"].group_state in ("Stable", "PreparingRebalance", "CompletingRebalance")
        # a classic member may not join the consumer-protocol group
        joined = raw_request(conn, 11, 5, JoinGroupRequest(
            group_id="kip848-mixed-consumer", session_timeout_ms=6000, rebalance_timeout_ms=6000, member_id="",
            protocol_type="consumer", protocols=[JoinGroupRequestProtocol(name="range", metadata=b"")]))
        assert joined.error_code == 23, f"INCONSISTENT_GROUP_PROTOCOL expected, got {joined.error_code}"

        # kafka-consumer-groups --describe: three members, two partitions each, offsets at the end
        out = run_tool("kafka-consumer-groups", "--bootstrap-server", bootstrap, "--describe",
                       "--group", "kip848-mixed-consumer").stdout
        rows = [line.split() for line in out.splitlines() if line.startswith("kip848-mixed-consumer ")]
        assert sorted(int(r[2]) for r in rows) == list(range(PARTITIONS)), out
        assert all(r[3] == "100" and r[5] == "0" for r in rows), out       # CURRENT-OFFSET 100, LAG 0
        assert sorted({r[8] for r in rows}) == ["a", "c", "d"], out           # CLIENT-ID column
        out = run_tool("kafka-consumer-groups", "--bootstrap-server", bootstrap, "--describe", "--members",
                       "--verbose", "--group", "kip848-mixed-consumer").stdout
        members = [line.split() for line in out.splitlines() if line.startswith("kip848-mixed-consumer ")]
        assert sorted(m[3] for m in members) == ["a", "c", "d"] and {m[4] for m in members} == {"2"}, out
        assert sorted(p for m in members for p in m[5].split("(")[1].rstrip(")").split(",")) == list("012345"), out
        out = run_tool("kafka-consumer-groups", "--bootstrap-server", bootstrap, "--describe", "--state",
                       "--group", "kip848-mixed-consumer").stdout
        assert out.split("\n")[-2].split()[-3:] == ["uniform", "Stable", "3"], out   # ASSIGNMENT-STRATEGY STATE #MEMBERS
        modern.close_all()
        classic.close_all()

        # Offsets survive a restart; the group itself is not persisted (docs/consumer-group-protocol.md):
        # a new member joins with epoch 0 and continues where the old ones committed.
        broker.stop()
        broker.start()
        produce(bootstrap, topic, 600, 60)
        again = Group(bootstrap, topic, "kip848-mixed-consumer", "consumer")
        again.add("e")
        again.poll_until(60, 40)
        assert sorted((p, o) for p, o, _ in again.seen) == [(p, o) for p in range(PARTITIONS)
                                                           for o in range(100, 110)]
        again.close_all()
    finally:
        modern.close_all()
        classic.close_all()
