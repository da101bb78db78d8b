"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/epoch/EpochDrivenReplicationProtocolAcceptanceTest.scala
(and the KIP-101 scenarios): what leader epochs protect, on in-process clusters (the ``kafka_cluster_factory``
fixture) where the test can stop a broker at exactly the moment a scenario needs.

- KAFKA-1211 (KIP-101 scenario 1): a follower that restarts knowing an old high watermark, then the leader
  crashes before the follower fetched again: with leader epochs the follower keeps the acknowledged records
  and serves them as the new leader; truncating to the high watermark (the old rule) loses them.
- KAFKA-3919 (``shouldNotAllowDivergentLogs``, ``offsetsShouldNotGoBackwards``): a leader that lost the tail
  of its log in a crash takes new records at the same offsets; the returning follower must drop its old
  ones, leaving byte-identical logs with offsets that only go up.
- KAFKA-6361 (``shouldSurviveFastLeaderChange``): rounds of produce, follower bounce, leader bounce; no
  replica ever loses a record.
The first two run twice: as Kafka does, and with the fix switched off (``kafkalite.test.disable.fixes``),
where they are expected to fail (strict xfail).
"""
import os

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.server.abstract_fetcher_manager import InitialFetchState
from support import wait_until, with_and_without_fix

TOPIC = "epochs"
TP = TopicPartition(TOPIC, 0)


def start_cluster(factory, num_brokers, disabled_fixes, **overrides):
    return factory(num_brokers, replication_factor=2, min_insync_replicas=1, replica_fetch_wait_max_ms=50,
                   kafkalite_test_disable_fixes=",".join(sorted(disabled_fixes)), **overrides)


def create_topic(cluster, replicas):
    from kafka.admin import KafkaAdminClient, NewTopic   # kafka-python: librdkafka 2.16 refuses a bare assignment
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers)
    try:
        admin.create_topics([NewTopic(TOPIC, -1, -1, replica_assignments={0: replicas})])
    finally:
        admin.close()
    wait_until(lambda: partition(cluster, replicas[0]) is not None and partition(cluster, replicas[0]).is_leader()
               and partition(cluster, replicas[0]).in_sync_replica_ids == set(replicas), 20, "a full ISR")


def partition(cluster, i):
    server = cluster.brokers[i].server
    return None if server is None else server.replica_manager.get_partition(TP)


def produce(cluster, values, acks="all"):
    from confluent_kafka import Producer
    errors = []
    p = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": acks, "linger.ms": 0})
    for v in values:
        p.produce(TOPIC, v, partition=0, on_delivery=lambda err, msg: errors.append(err) if err else None)
        p.flush(20)
    assert not errors, errors


def read_all(cluster, expected_count):
    from confluent_kafka import Consumer
    from confluent_kafka import TopicPartition as CTP
    c = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "epochs", "enable.auto.commit": False})
    try:
        c.assign([CTP(TOPIC, 0, 0)])
        got = []

        def enough():
            got.extend(m for m in c.consume(100, 0.2) if m.error() is None)
            return len(got) >= expected_count
        try:
            wait_until(enough, 15, f"{expected_count} records")
        except AssertionError:
            pass
        return got
    finally:
        c.close()


def batches(cluster, i):
    log = partition(cluster, i).log
    return [(b.base_offset, b.last_offset, b.partition_leader_epoch, b.checksum)
            for seg in log.log_segments() for b in seg.log.batches()]


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-1211"))
def test_follower_restart_then_leader_crash_keeps_acked_records(kafka_cluster_factory, disabled_fixes):
    cluster = start_cluster(kafka_cluster_factory, 3, disabled_fixes)
    create_topic(cluster, [1, 2])
    produce(cluster, [b"m1", b"m2"])                     # both acknowledged: both brokers have them
    follower = partition(cluster, 2)
    wait_until(lambda: follower.log.log_end_offset == 2, 10, "the follower to have both records")
    rm = cluster.brokers[2].server.replica_manager
    leader_end_point = rm.metadata_cache.get_alive_broker(1).broker_end_point(rm.config.inter_broker_listener_name)
    # KIP-101 scenario 1: the follower restarts knowing the high watermark only up to m1 (a follower learns
    # it one fetch after the records); it stops fetching and starts again from its high watermark
    rm.replica_fetcher_manager.remove_fetcher_for_partitions({TP})
    follower.log.update_high_watermark(1)
    with rm.replica_state_change_lock:                    # the election's LeaderAndIsr waits for the restart
        cluster.brokers[1].stop()                         # the leader crashes before the follower fetched
        rm.replica_fetcher_manager.add_fetcher_for_partitions(
            {TP: InitialFetchState(leader_end_point, follower.get_leader_epoch(), follower.log.high_watermark)})
        fetcher = next(t for t in rm.replica_fetcher_manager.fetcher_thread_map.values() if t.fetch_state(TP))
        wait_until(lambda: fetcher.fetch_state(TP) is None or fetcher.fetch_state(TP).delayed_until_ms > 0, 10,
                   "the restarted follower's first attempt to reach the dead leader")
    wait_until(lambda: follower.is_leader(), 20, "the follower to be elected")
    assert [m.value() for m in read_all(cluster, 2)] == [b"m1", b"m2"]


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-1211"))
def test_should_not_allow_divergent_logs(kafka_cluster_factory, disabled_fixes):
    # Kafka: shouldNotAllowDivergentLogs / offsetsShouldNotGoBackwards (KAFKA-3919)
    cluster = start_cluster(kafka_cluster_factory, 2, disabled_fixes)
    create_topic(cluster, [0, 1])
    produce(cluster, [b"old-%d" % i for i in range(10)])
    wait_until(lambda: partition(cluster, 1).log.log_end_offset == 10, 10, "the follower to have every record")
    leader, follower = cluster.brokers[0], cluster.brokers[1]
    follower.stop()                                       # the ISR is the leader alone...
    wait_until(lambda: partition(cluster, 0).in_sync_replica_ids == {0}, 10, "the follower to leave the ISR")
    cut = partition(cluster, 0).log.log_segments()[0].log.search_for_offset_with_size(5, 0).position + 10
    segment_file = partition(cluster, 0).log.log_segments()[0].log.file
    leader.stop()                                         # ...then the leader crashes, losing its tail:
    os.remove(os.path.join(leader.log_dir, ".kafka_cleanshutdown"))
    os.truncate(segment_file, cut)                        # offsets 5-9 are gone, offset 5's batch half-written
    leader.start()
    wait_until(lambda: partition(cluster, 0) is not None and partition(cluster, 0).is_leader(), 20, "the leader back")
    assert partition(cluster, 0).log.log_end_offset == 5
    produce(cluster, [b"new-%d-" % i + b"x" * 200 for i in range(10)], acks="1")   # new records at offsets 5-14
    follower.start()
    wait_until(lambda: partition(cluster, 0).in_sync_replica_ids == {0, 1}, 20, "the follower to rejoin the ISR")
    wait_until(lambda: batches(cluster, 1) == batches(cluster, 0), 10, "byte-identical logs")
    offsets = [last for _, last, _, _ in batches(cluster, 1)]
    assert offsets == sorted(set(offsets)) and offsets[-1] == 14


def both_replicas_back(cluster, written):
    replicas = [partition(cluster, i) for i in (0, 1)]
    return (all(p is not None and p.log.log_end_offset >= written for p in replicas)
            and any(p.is_leader() and len(p.in_sync_replica_ids) == 2 for p in replicas))


def test_should_survive_fast_leader_change(kafka_cluster_factory):
    # Kafka: shouldSurviveFastLeaderChange (KAFKA-6361); the unit tests of AbstractFetcherThread show the
    # truncation rule this depends on failing without the fix
    cluster = start_cluster(kafka_cluster_factory, 2, frozenset())
    create_topic(cluster, [0, 1])
    produce(cluster, [b"first"])
    written = 1
    for round_ in range(3):
        leader = next(i for i in (0, 1) if partition(cluster, i).is_leader())
        follower = 1 - leader
        produce(cluster, [b"round-%d" % round_])
        written += 1
        for bounced in (follower, leader):
            cluster.brokers[bounced].stop()
            cluster.brokers[bounced].start()
            # the leader's ISR can still hold a follower that restarted faster than replica.lag.time.max.ms:
            # wait for both replicas to exist again, not only for the leader's view
            wait_until(lambda: both_replicas_back(cluster, written), 30,
                       f"both replicas back with the ISR whole after bouncing broker {bounced}")
        assert [partition(cluster, i).log.log_end_offset for i in (0, 1)] == [written, written]
