"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/epoch/EpochDrivenReplicationProtocolAcceptanceTest.scala
and the data-loss bugs of controller.md §5.1, on broker *processes* over Debian's ZooKeeper: what a follower
bounce, a ``kill -9`` of a leader, a crash that loses a segment's tail and fast leader changes do to acknowledged
records. ``test_epoch_driven_replication.py`` runs the same scenarios in process, where a test can stop a broker
between two lines of the fetcher; here the brokers are started, stopped (SIGTERM, with controlled shutdown) and
killed the way an operator's do, and every check reads the replicas' segment files (``replica_logs``).

Each test gets a cluster of its own (three brokers, about a second and a half to start): the third broker is the
controller and never a replica, so elections go on while the replicas come and go. After each, the invariants of
controller.md §5.1: every acknowledged record reads back once, offsets are contiguous and strictly increasing,
replicas agree below the high watermark, leader-epoch-checkpoints are monotonic.

Which fix each test guards, and how that is checked (``kafkalite.test.disable.fixes``, strict xfail):
- KAFKA-3919 / KAFKA-1211 (``shouldNotAllowDivergentLogs``, ``offsetsShouldNotGoBackwards``): fix-off variant
  here; without OffsetsForLeaderEpoch the returning follower truncates to its high watermark and keeps the
  records the leader lost, so the logs diverge.
- KAFKA-7415 (a new leader's ``(epoch, LEO)`` entry with no appends): fix-off variant here.
- KAFKA-1211 (follower bounce, then ``kill -9`` of the leader), KAFKA-6361 (``shouldSurviveFastLeaderChange``)
  and KAFKA-7128 (failover right after a rejoin): run with the fixes on only. On processes the losing
  interleavings cannot be forced: the controller takes a bounced follower out of the ISR and it only rejoins once
  it holds everything up to the high watermark, and a follower learns a moved high watermark from the very next
  fetch response (DelayedFetch's case H), so no follower ever truncates acknowledged records while it can still
  be elected. Their fix-off failures are shown where the interleaving can be forced:
  ``test_epoch_driven_replication.py::test_follower_restart_then_leader_crash_keeps_acked_records[KAFKA-1211-off]``,
  ``tests/unit/test_abstract_fetcher_thread.py`` (KAFKA-6361) and ``tests/unit/test_partition.py`` (KAFKA-7128).
"""
import os

import pytest

from cluster_harness import ClusterProcesses, zookeeper_available
from replica_logs import (check_epoch_entries_monotonic, check_offsets_strictly_increase, wait_for_identical_logs)
from support import wait_until, with_and_without_fix

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(180)]

SESSION_TIMEOUT_MS = 4000       # a kill -9'd leader is replaced once ZooKeeper expires its session
OVERRIDES = {
    "replica.lag.time.max.ms": 3000, "replica.fetch.wait.max.ms": 100, "replica.fetch.backoff.ms": 100,
    "zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS, "unclean.leader.election.enable": "false",
    "auto.leader.rebalance.enable": "false",   # leaders move only when a test moves them
}


@pytest.fixture
def start_cluster(tmp_path):
    """``start_cluster(disabled_fixes=frozenset(), **overrides)``: three brokers over a ZooKeeper of their own;
    returns the cluster and the two brokers that are not the controller (the replicas of the test's topic)."""
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    started = []

    def start(disabled_fixes=frozenset(), **extra):
        overrides = {**OVERRIDES, **extra}
        if disabled_fixes:
            overrides["kafkalite.test.disable.fixes"] = ",".join(sorted(disabled_fixes))
        cluster = ClusterProcesses(tmp_path / f"cluster-{len(started)}", 3, overrides).start()
        started.append(cluster)
        controller = cluster.controller_id()
        return cluster, [i for i in range(3) if i != controller]

    yield start
    for cluster in started:
        print(cluster.log_tails(40))
        cluster.stop()


def produce(cluster, topic, values, acks="all", **config) -> list[bytes]:
    """confluent-kafka, one request per record (``linger.ms=0``, flushed each time, so one batch each) unless
    ``config`` says otherwise; returns the values acknowledged, in order, and fails on any delivery error."""
    from confluent_kafka import Producer
    acked, errors = [], []
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": acks, "linger.ms": 0,
                         "message.timeout.ms": 30000, **config})

    def delivered(err, msg):
        (errors if err else acked).append(err or msg.value())

    for value in values:
        producer.produce(topic, value, partition=0, on_delivery=delivered)
        if config.get("linger.ms", 0) == 0:
            producer.flush(30)
    producer.flush(30)
    assert not errors, errors
    return acked


def read_all(cluster, topic, count) -> list[bytes]:
    """Every committed record of partition 0, from offset 0 (waits for ``count``; returns what it got)."""
    from confluent_kafka import Consumer, TopicPartition
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "kafkalite-replication-failures",
                         "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        got = []

        def enough():
            got.extend(m.value() for m in consumer.consume(500, 0.2) if m.error() is None)
            return len(got) >= count
        try:
            wait_until(enough, 20, f"{count} records of {topic}")
        except AssertionError:
            pass
        return got
    finally:
        consumer.close()


def check_epoch_checkpoints(cluster, topic, replicas):
    for i in replicas:
        check_epoch_entries_monotonic(cluster.leader_epoch_entries(i, topic, 0), f"broker {i}'s {topic}-0")


# ---- KAFKA-1211 (KIP-101 scenario 1), as the brief has it: bounce the follower right after an ack, kill -9 the
# leader; every acknowledged record is read from the new leader.

def test_follower_bounce_then_leader_kill_9_keeps_acked_records(start_cluster):
    cluster, (leader, follower) = start_cluster()
    topic = "bounce-then-kill"
    cluster.create_topic(topic, [leader, follower], {"min.insync.replicas": 1})
    acked = produce(cluster, topic, [b"before-%d" % i for i in range(10)])
    cluster.brokers[follower].stop()                       # right after the ack: the follower leaves the ISR...
    acked += produce(cluster, topic, [b"alone-%d" % i for i in range(5)])    # ...and the leader acks alone
    cluster.brokers[follower].start()
    cluster.wait_for_isr(topic, 0, {leader, follower})     # it truncated (by epoch), caught up and rejoined
    state = cluster.partition_state(topic, 0)
    cluster.brokers[leader].kill9()
    new = cluster.wait_for_leader(topic, 0, follower, SESSION_TIMEOUT_MS / 1000 + 15)
    assert new["leader_epoch"] > state["leader_epoch"]
    assert read_all(cluster, topic, len(acked)) == acked
    batches = cluster.log_batches(follower, topic, 0)
    check_offsets_strictly_increase(batches)
    assert batches[-1][1] + 1 == len(acked)
    check_epoch_checkpoints(cluster, topic, [leader, follower])


# ---- KAFKA-3919: shouldNotAllowDivergentLogs / offsetsShouldNotGoBackwards

def segment_position_of(path, offset: int) -> int:
    """The file position of the batch holding ``offset`` in the segment at ``path``."""
    from kafkalite.record.file_records import FileRecords
    records = FileRecords.open(str(path), file_already_exists=True)
    try:
        return records.search_for_offset_with_size(offset, 0).position
    finally:
        records.close()


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-1211"))
def test_should_not_allow_divergent_logs(start_cluster, disabled_fixes):
    # Kafka: EpochDrivenReplicationProtocolAcceptanceTest.shouldNotAllowDivergentLogs and offsetsShouldNotGoBackwards
    cluster, (leader, follower) = start_cluster(disabled_fixes)
    topic = "divergent"
    cluster.create_topic(topic, [leader, follower], {"min.insync.replicas": 1})
    old = produce(cluster, topic, [b"old-%d" % i for i in range(10)])
    wait_for_identical_logs(cluster, topic, 0, [leader, follower], 10)
    cluster.brokers[follower].stop()                       # the ISR is the leader alone...
    cluster.wait_for_isr(topic, 0, {leader})
    [segment] = sorted(cluster.partition_dir(leader, topic, 0).glob("*.log"))
    cut = segment_position_of(segment, 5) + 10
    cluster.brokers[leader].stop()                         # ...then it crashes, losing its tail: no clean-shutdown
    os.remove(cluster.brokers[leader].log_dirs / ".kafka_cleanshutdown")       # marker, offsets 5-9 gone and
    os.truncate(segment, cut)                                                 # offset 5's batch half-written
    cluster.brokers[leader].start()
    cluster.wait_for_leader(topic, 0, leader)
    assert cluster.log_end_offset(leader, topic, 0) == 5, "recovery drops the torn batch and what follows"
    # new records at offsets 5-14, in one compressed batch (offsetsShouldNotGoBackwards)
    new = produce(cluster, topic, [b"new-%d-" % i + b"x" * 100 for i in range(10)],
                  **{"compression.type": "gzip", "linger.ms": 200})
    cluster.brokers[follower].start()
    # without KIP-101 the follower keeps old-5..old-9 (below its high watermark 10) and then fails to append the
    # leader's batch 5-14 at offset 10 (offsets going backwards): its log never matches the leader's
    wait_for_identical_logs(cluster, topic, 0, [leader, follower], 15, timeout=15)
    cluster.wait_for_isr(topic, 0, {leader, follower})
    assert cluster.high_watermark(topic, 0) == 15
    check_offsets_strictly_increase(cluster.log_batches(follower, topic, 0), "the follower's whole log")
    assert read_all(cluster, topic, 15) == old[:5] + new
    check_epoch_checkpoints(cluster, topic, [leader, follower])


# ---- KAFKA-6361: shouldSurviveFastLeaderChange

def survive_fast_leader_changes(start_cluster, rounds):
    # Kafka: EpochDrivenReplicationProtocolAcceptanceTest.shouldSurviveFastLeaderChange
    cluster, replicas = start_cluster()
    topic = "fast-leader-change"
    cluster.create_topic(topic, replicas, {"min.insync.replicas": 1})
    acked = produce(cluster, topic, [b"first"])
    for round_ in range(rounds):
        leader = cluster.leader(topic, 0)
        follower = next(i for i in replicas if i != leader)
        acked += produce(cluster, topic, [b"message-%d" % round_])
        for bounced in (follower, leader):                 # as soon as it replicated, bounce the follower, then
            cluster.brokers[bounced].stop()                # the leader; each time until the ISR is whole again
            cluster.brokers[bounced].start()
            cluster.wait_for_isr(topic, 0, replicas)
        wait_until(lambda: [cluster.log_end_offset(i, topic, 0) for i in replicas] == [len(acked)] * 2, 10,
                   f"round {round_}: every replica's log end offset to be {len(acked)}")
    wait_for_identical_logs(cluster, topic, 0, replicas, cluster.high_watermark(topic, 0))
    assert read_all(cluster, topic, len(acked)) == acked
    check_epoch_checkpoints(cluster, topic, replicas)


def test_should_survive_fast_leader_change(start_cluster):
    survive_fast_leader_changes(start_cluster, 2)


@pytest.mark.slow
def test_should_survive_fast_leader_change_five_rounds(start_cluster):
    survive_fast_leader_changes(start_cluster, 5)


# ---- KAFKA-7128: a failover right after a lagging follower rejoined the ISR keeps committed data

def test_failover_right_after_a_lagging_follower_rejoined_keeps_committed_data(start_cluster):
    # replica.fetch.max.bytes=1: one batch per fetch (KIP-74), so the returning follower needs a round trip per
    # batch it lacks and an ISR that took it in early would be caught short
    cluster, (leader, follower) = start_cluster(**{"replica.fetch.max.bytes": 1})
    topic = "rejoin-then-failover"
    cluster.create_topic(topic, [leader, follower], {"min.insync.replicas": 1})
    acked = produce(cluster, topic, [b"both-%d" % i for i in range(10)])
    cluster.brokers[follower].stop()
    cluster.wait_for_isr(topic, 0, {leader})
    acked += produce(cluster, topic, [b"leader-only-%d" % i for i in range(150)])   # the follower lags by 150
    cluster.brokers[follower].start()
    # the moment it is back in the ISR it may be elected: it must already hold everything committed
    cluster.wait_for_isr(topic, 0, {leader, follower})
    cluster.brokers[leader].kill9()
    cluster.wait_for_leader(topic, 0, follower, SESSION_TIMEOUT_MS / 1000 + 15)
    assert read_all(cluster, topic, len(acked)) == acked
    check_offsets_strictly_increase(cluster.log_batches(follower, topic, 0))
    check_epoch_checkpoints(cluster, topic, [leader, follower])


# ---- KAFKA-7415: a new leader records (epoch, log end offset) even if it appends nothing

@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-7415"))
def test_new_leader_checkpoints_its_epoch_start_offset_without_appends(start_cluster, disabled_fixes):
    cluster, (leader, follower) = start_cluster(disabled_fixes)
    topic = "epoch-start"
    cluster.create_topic(topic, [leader, follower], {"min.insync.replicas": 1})
    produce(cluster, topic, [b"m-%d" % i for i in range(5)])
    wait_for_identical_logs(cluster, topic, 0, [leader, follower], 5)
    first_epoch = cluster.partition_state(topic, 0)["leader_epoch"]
    assert cluster.leader_epoch_entries(follower, topic, 0) == [(first_epoch, 0)]
    cluster.brokers[leader].stop()                          # controlled shutdown: the follower is elected
    new_epoch = cluster.wait_for_leader(topic, 0, follower)["leader_epoch"]
    assert new_epoch > first_epoch
    wait_until(lambda: cluster.leader_epoch_entries(follower, topic, 0) == [(first_epoch, 0), (new_epoch, 5)], 5,
               f"the new leader's leader-epoch-checkpoint to gain ({new_epoch}, 5)")
    cluster.brokers[leader].start()                         # the old leader follows it and keeps its records
    cluster.wait_for_isr(topic, 0, {leader, follower})
    wait_for_identical_logs(cluster, topic, 0, [leader, follower], 5)
    check_epoch_checkpoints(cluster, topic, [leader, follower])
