"""Mirrors Kafka 2.4's replication tests with real processes (core/src/test/.../ReplicationTest-like system
tests; Kafka's own are ``ReplicaFetchTest``, ``IsrExpirationTest`` and the ducktape replication tests):
three kafkalite broker processes over Debian's ZooKeeper, started from ``config/server-<i>.properties``
(replication factor 3, ``min.insync.replicas=2``).

- kafka-python, confluent-kafka and kcat produce with acks=all to partitions led by each broker in turn
  and each reads every record back; the followers' logs hold the leader's batches (offsets, leader epochs
  and CRCs) byte for byte.
- A follower that stops fetching (SIGSTOP) leaves the ISR in ZooKeeper within ``replica.lag.time.max.ms``
  and a margin; acks=all keeps succeeding with two in sync and fails with NOT_ENOUGH_REPLICAS with one; a
  follower restarted, or resumed, truncates, catches up and rejoins the ISR; the controller passes ISR
  changes on to every broker's Metadata answers; IsrShrinksPerSec,
  IsrExpandsPerSec, UnderReplicatedPartitions and UnderMinIsrPartitionCount move on the leader.
- A follower stopped with SIGTERM leaves the ISR at once (the controller takes a broker that shuts down, or
  whose registration goes, out of every ISR: ReplicaStateMachine's OfflineReplica), not
  ``replica.lag.time.max.ms`` later, in ZooKeeper and in Metadata; acks=all goes on with two in sync, and
  the restarted follower catches up on what it missed and rejoins.
- DeleteRecords (confluent-kafka's delete_records) is answered with the low watermark once every live
  follower's log start offset got there (DelayedDeleteRecords); a paused follower makes it time out.
"""
import threading
import time

import pytest

from kafka.admin import NewTopic

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from harness import wait_until
from support import free_port
from test_metrics_endpoint import scrape, value

pytestmark = pytest.mark.cluster

LAG_MS = 3000
METRICS_PORTS = [free_port() for _ in range(3)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    c = ClusterProcesses(tmp_path_factory.mktemp("replication"), 3, overrides={
        "replica.lag.time.max.ms": LAG_MS, "replica.fetch.wait.max.ms": 100,
        # a paused broker must stay registered: the leader's isr-expiration is what is tested, not ZooKeeper's
        "zookeeper.session.timeout.ms": 30000,
    }, broker_overrides=lambda i: {"kafkalite.metrics.port": METRICS_PORTS[i]}).start()
    yield c
    for i in range(3):
        c.resume(i)
    c.stop()


def wait_for_full_isr(cluster, topic, partitions, rf=3, timeout=30):
    wait_until(lambda: all(len(cluster.partition_state(topic, p)["isr"]) == rf for p in range(partitions)),
               timeout, f"every partition of {topic} to have {rf} replicas in sync")


def wait_for_identical_logs(cluster, topic, partition, replicas):
    def identical():
        logs = [cluster.log_batches(i, topic, partition) for i in replicas]
        return logs[0] if logs[0] and all(log == logs[0] for log in logs) else None
    return wait_until(identical, 20, f"{topic}-{partition}'s replicas to hold the same batches")


def test_three_clients_produce_acks_all_and_every_replica_holds_the_leaders_batches(cluster, unique_topic, tmp_path):
    clients.create_topic(cluster.bootstrap, unique_topic, 3, replication_factor=-1)
    wait_for_full_isr(cluster, unique_topic, 3)
    leaders = {p: cluster.partition_state(unique_topic, p)["leader"] for p in range(3)}
    assert sorted(leaders.values()) == [0, 1, 2], leaders      # each broker leads one partition
    records = clients.make_records(90, partitions=3)
    clients.produce_kafka_python(cluster.brokers[0].bootstrap, unique_topic, records[:30], acks="all")
    clients.produce_confluent(cluster.brokers[1].bootstrap, unique_topic, records[30:60], {"acks": "all"})
    for p in range(3):
        part = [r for r in records[60:] if r.partition == p]
        if part:
            clients.produce_kcat(cluster.brokers[2].bootstrap, unique_topic, part, tmp_path, extra=("-X", "acks=all"))
    want = sorted((r.partition, r.value) for r in records)
    got = clients.read_confluent(cluster.bootstrap, unique_topic, range(3), 90)
    assert sorted((c.partition, c.value) for c in got) == want
    got = clients.read_kafka_python(cluster.brokers[0].bootstrap, unique_topic, range(3), 90)
    assert sorted((c.partition, c.value) for c in got) == want
    got = clients.read_kcat(cluster.brokers[1].bootstrap, unique_topic, 90)
    assert sorted((c.partition, c.value) for c in got) == want
    for p in range(3):
        batches = wait_for_identical_logs(cluster, unique_topic, p, range(3))
        ends = [last for _, last, _, _ in batches]
        assert ends == sorted(ends) and ends[-1] + 1 == sum(1 for r in records if r.partition == p)
        assert {epoch for _, _, epoch, _ in batches} == {cluster.partition_state(unique_topic, p)["leader_epoch"]}
    # followers fetch in incremental fetch sessions (KIP-227): every leader caches one per follower fetcher
    for i in range(3):
        assert leader_metric(cluster, i, "kafka_server_fetchsessioncache_numincrementalfetchsessions") >= 2
        assert leader_metric(cluster, i, "kafka_server_fetchsessioncache_numincrementalfetchpartitionscached") >= 2


class AcksAllProducer:
    """A confluent-kafka producer with acks=all whose sends report (error name or None, seconds taken)."""

    def __init__(self, bootstrap, topic):
        from confluent_kafka import Producer
        self.topic = topic
        self.producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "retries": 0,
                                  "request.timeout.ms": 30000, "message.timeout.ms": 60000})

    def send(self, value: bytes, timeout: float = 40):
        result, start = [], time.monotonic()
        self.producer.produce(self.topic, value, partition=0, on_delivery=lambda err, msg: result.append(
            err.name() if err else None))
        self.producer.flush(timeout)
        assert result, f"no delivery report for {value!r} within {timeout}s"
        return result[0], time.monotonic() - start


def metadata_isr(bootstrap, topic):
    from confluent_kafka.admin import AdminClient
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic=topic, timeout=10)
    return sorted(md.topics[topic].partitions[0].isrs)


def leader_metric(cluster, leader, name, default=0.0):
    return value(scrape(METRICS_PORTS[leader]), name, default)


def test_a_stopped_follower_leaves_the_isr_and_a_restarted_one_rejoins(cluster, unique_topic):
    # the controller leads: the paused followers must not include it (a paused controller sends no metadata)
    controller = cluster.controller_id()
    replicas = [controller] + [b for b in range(3) if b != controller]
    admin = clients.KafkaPythonAdmin(cluster.bootstrap).admin
    try:
        admin.create_topics([NewTopic(unique_topic, -1, -1, replica_assignments={0: replicas})])
    finally:
        admin.close()
    wait_for_full_isr(cluster, unique_topic, 1)
    state = cluster.partition_state(unique_topic, 0)
    leader = state["leader"]
    first, second = [b for b in state["isr"] if b != leader]
    shrinks = leader_metric(cluster, leader, "kafka_server_replicamanager_isrshrinkspersec_total")
    expands = leader_metric(cluster, leader, "kafka_server_replicamanager_isrexpandspersec_total")
    producer = AcksAllProducer(cluster.bootstrap, unique_topic)
    assert producer.send(b"three in sync")[0] is None

    # one follower stops fetching: the next acks=all produce waits until the leader drops it from the ISR
    cluster.pause(first)
    paused_at = time.monotonic()
    shrunk_after = []
    watcher = threading.Thread(target=lambda: shrunk_after.append(wait_until(
        lambda: first not in cluster.partition_state(unique_topic, 0)["isr"] and time.monotonic() - paused_at,
        30, "the ISR to shrink")))
    watcher.start()
    error, _ = producer.send(b"two in sync")
    watcher.join(40)
    assert error is None
    assert shrunk_after and shrunk_after[0] < (LAG_MS + LAG_MS / 2 + 4000) / 1000, shrunk_after
    assert sorted(cluster.partition_state(unique_topic, 0)["isr"]) == sorted([leader, second])
    assert leader_metric(cluster, leader, "kafka_server_replicamanager_underreplicatedpartitions") == 1
    # isr-change-propagation -> /isr_change_notification -> the controller's UpdateMetadata: clients see it
    wait_until(lambda: metadata_isr(cluster.brokers[second].bootstrap, unique_topic) == sorted([leader, second]),
               20, "Metadata to show the smaller ISR")

    # a second one stops: the ISR is below min.insync.replicas=2
    cluster.pause(second)
    error, _ = producer.send(b"one in sync")
    assert error in ("NOT_ENOUGH_REPLICAS_AFTER_APPEND", "NOT_ENOUGH_REPLICAS"), error
    assert cluster.partition_state(unique_topic, 0)["isr"] == [leader]
    assert producer.send(b"refused")[0] == "NOT_ENOUGH_REPLICAS"
    assert leader_metric(cluster, leader, "kafka_server_replicamanager_underminisrpartitioncount") == 1
    assert leader_metric(cluster, leader, "kafka_server_replicamanager_isrshrinkspersec_total") >= shrinks + 2

    # the second resumes; the first is restarted (its fetcher truncates by leader epoch, then catches up)
    cluster.resume(second)
    wait_until(lambda: second in cluster.partition_state(unique_topic, 0)["isr"], 30, "the resumed follower to rejoin")
    cluster.resume(first)
    cluster.brokers[first].stop()
    cluster.brokers[first].start(60)
    wait_for_full_isr(cluster, unique_topic, 1, timeout=60)
    assert producer.send(b"three in sync again")[0] is None
    wait_for_identical_logs(cluster, unique_topic, 0, range(3))
    assert leader_metric(cluster, leader, "kafka_server_replicamanager_isrexpandspersec_total") >= expands + 2
    assert leader_metric(cluster, leader, "kafka_server_replicamanager_underreplicatedpartitions") == 0
    # the record answered NOT_ENOUGH_REPLICAS_AFTER_APPEND is in the log (it was appended before the shrink)
    expected = [b"three in sync", b"two in sync"] + ([b"one in sync"] if error.endswith("AFTER_APPEND") else []) \
        + [b"three in sync again"]
    got = clients.read_confluent(cluster.bootstrap, unique_topic, [0], len(expected))
    assert [c.value for c in got] == expected


def test_a_follower_stopped_with_sigterm_leaves_the_isr_at_once_and_rejoins(cluster, unique_topic):
    controller = cluster.controller_id()
    replicas = [controller] + [b for b in range(3) if b != controller]
    admin = clients.KafkaPythonAdmin(cluster.bootstrap).admin
    try:
        admin.create_topics([NewTopic(unique_topic, -1, -1, replica_assignments={0: replicas})])
    finally:
        admin.close()
    wait_for_full_isr(cluster, unique_topic, 1)
    leader, stopped, other = replicas
    producer = AcksAllProducer(cluster.bootstrap, unique_topic)
    assert producer.send(b"three in sync")[0] is None
    under_replicated = leader_metric(cluster, leader, "kafka_server_replicamanager_underreplicatedpartitions")
    cluster.brokers[stopped].stop()
    # out of the ISR by the time the process has exited, not replica.lag.time.max.ms later
    assert sorted(cluster.partition_state(unique_topic, 0)["isr"]) == sorted([leader, other])
    wait_until(lambda: metadata_isr(cluster.brokers[other].bootstrap, unique_topic) == sorted([leader, other]),
               20, "Metadata to show the smaller ISR")
    values = [b"two in sync %d" % i for i in range(5)]
    for v in values:
        assert producer.send(v)[0] is None
    # this partition and any other of the leader's that the stopped broker followed
    assert leader_metric(cluster, leader, "kafka_server_replicamanager_underreplicatedpartitions") > under_replicated
    cluster.brokers[stopped].start(60)
    wait_for_full_isr(cluster, unique_topic, 1)
    assert producer.send(b"three in sync again")[0] is None
    wait_for_identical_logs(cluster, unique_topic, 0, range(3))
    assert cluster.log_batches(stopped, unique_topic, 0)[-1][1] == len(values) + 1
    wait_until(lambda: leader_metric(cluster, leader, "kafka_server_replicamanager_underreplicatedpartitions")
               == under_replicated, 30, f"UnderReplicatedPartitions back to {under_replicated}")


def test_delete_records_answers_once_every_live_replica_moved_its_log_start_offset(cluster, unique_topic):
    """Kafka's DelayedDeleteRecords: confluent-kafka's delete_records is answered with the partition's low
    watermark (the smallest log start offset over the live replicas) once the followers' fetches report the new
    start; a follower that stops fetching (SIGSTOP: still registered, so still live) holds the answer until the
    operation timeout, REQUEST_TIMED_OUT, and once it fetches again the same deletion completes."""
    from confluent_kafka import KafkaException, TopicPartition as CTP
    from confluent_kafka.admin import AdminClient
    clients.create_topic(cluster.bootstrap, unique_topic, 1, replication_factor=-1)
    wait_for_full_isr(cluster, unique_topic, 1)
    clients.produce_confluent(cluster.bootstrap, unique_topic, clients.make_records(10, partitions=1), {"acks": "all"})
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    [future] = admin.delete_records([CTP(unique_topic, 0, 6)], operation_timeout=20).values()
    assert future.result(30).low_watermark == 6
    leader = cluster.leader(unique_topic, 0)
    follower = next(i for i in range(3) if i != leader)
    cluster.pause(follower)
    try:
        [future] = admin.delete_records([CTP(unique_topic, 0, 8)], operation_timeout=2, request_timeout=20).values()
        with pytest.raises(KafkaException) as e:
            future.result(30)
        assert e.value.args[0].name() == "REQUEST_TIMED_OUT", e.value
    finally:
        cluster.resume(follower)
    [future] = admin.delete_records([CTP(unique_topic, 0, 8)], operation_timeout=20).values()
    assert future.result(30).low_watermark == 8
