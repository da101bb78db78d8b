"""No Kafka counterpart (Kafka's KafkaServerTestHarness tests with several brokers): clusters.

- Three broker processes over Debian's ZooKeeper, started from ``config/server-<i>.properties``
  as the README tells a user to: every broker registers under one ``/brokers/ids`` and knows the
  same controller; a topic's partitions are led by all three; kafka-python, confluent-kafka and
  kcat write to every partition through any broker and read every record back; a consumer group
  spans the brokers; topics created with replication factor 2 and 3 by both admin clients get full
  ISRs, and every replica's log holds what was produced with acks=all.
- The ``kafka_cluster`` pytest fixture: three in-process brokers over one in-process store, with
  ``replication_factor`` and ``min_insync_replicas``.
"""
import re
import subprocess
import time

import pytest

import clients
from cluster_harness import ClusterProcesses, zookeeper_available
from harness import wait_until

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not zookeeper_available():
        pytest.fail("Debian's zookeeper package (and java) are needed: apt-get install -y zookeeper")
    c = ClusterProcesses(tmp_path_factory.mktemp("cluster"), 3).start()
    yield c
    c.stop()


def leaders(bootstrap: str, topic: str) -> dict[int, int]:
    from confluent_kafka.admin import AdminClient
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic=topic, timeout=10)
    return {p: m.leader for p, m in md.topics[topic].partitions.items()}


def broker_count(bootstrap: str) -> int:
    from confluent_kafka.admin import AdminClient
    return len(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).brokers)


def test_every_broker_sees_three_brokers_and_one_controller(cluster):
    controllers = set()
    for b in cluster.brokers:
        out = subprocess.run(["kcat", "-b", b.bootstrap, "-L", "-m", "10"], capture_output=True, text=True,
                             timeout=30, stdin=subprocess.DEVNULL).stdout
        assert " 3 brokers:" in out, out
        controllers |= set(re.findall(r"broker (\d+) at \S+ \(controller\)", out))
    assert len(controllers) == 1, controllers


def test_partitions_spread_over_brokers_and_every_client_reads_back(cluster, unique_topic, tmp_path):
    clients.create_topic(cluster.bootstrap, unique_topic, 6, replication_factor=-1)
    assert sorted(set(leaders(cluster.bootstrap, unique_topic).values())) == [0, 1, 2]
    records = clients.make_records(60, partitions=6)
    # Each client is pointed at one broker only: it must follow the metadata to the others.
    clients.produce_kafka_python(cluster.brokers[0].bootstrap, unique_topic, records[:20], acks="all")
    clients.produce_confluent(cluster.brokers[1].bootstrap, unique_topic, records[20:40], {"acks": "all"})
    for p in range(6):
        part = [r for r in records[40:] if r.partition == p]
        if part:
            clients.produce_kcat(cluster.brokers[2].bootstrap, unique_topic, part, tmp_path,
                                 extra=("-X", "acks=all"))
    got = clients.read_confluent(cluster.brokers[2].bootstrap, unique_topic, range(6), 60)
    assert sorted((c.partition, c.value) for c in got) == sorted((r.partition, r.value) for r in records)
    got = clients.read_kafka_python(cluster.brokers[0].bootstrap, unique_topic, range(6), 60)
    assert len(got) == 60


def test_consumer_group_spans_the_brokers(cluster, unique_topic):
    from confluent_kafka import Consumer
    clients.create_topic(cluster.bootstrap, unique_topic, 6, replication_factor=-1)
    records = clients.make_records(30, partitions=6)
    clients.produce_confluent(cluster.bootstrap, unique_topic, records)
    consumer = Consumer({"bootstrap.servers": cluster.brokers[0].bootstrap, "group.id": unique_topic,
                         "auto.offset.reset": "earliest", "session.timeout.ms": 6000})
    try:
        consumer.subscribe([unique_topic])
        got, deadline = [], time.monotonic() + 60
        while len(got) < 30 and time.monotonic() < deadline:
            got += [m for m in consumer.consume(100, 0.5) if m.error() is None]
        assert sorted(m.value() for m in got) == sorted(r.value for r in records)
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()


def isrs(bootstrap: str, topic: str) -> dict[int, list[int]]:
    from confluent_kafka.admin import AdminClient
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic=topic, timeout=10)
    return {p: sorted(m.isrs) for p, m in md.topics[topic].partitions.items()}


def replica_log_sizes(cluster, topic: str, partition: int) -> dict[int, int]:
    """Bytes in the .log files of ``topic``-``partition`` on each broker that has the partition's dir."""
    sizes = {}
    for i, b in enumerate(cluster.brokers):
        d = b.log_dirs / f"{topic}-{partition}"
        if d.is_dir():
            sizes[i] = sum(f.stat().st_size for f in d.glob("*.log"))
    return sizes


@pytest.mark.parametrize("rf", [2, 3])
def test_replicated_topics_get_full_isrs_and_every_replica_holds_the_records(cluster, unique_topic, rf):
    from clients import ConfluentAdmin, KafkaPythonAdmin
    assert KafkaPythonAdmin(cluster.brokers[0].bootstrap).create(unique_topic, 2, replication_factor=rf) is None
    assert ConfluentAdmin(cluster.brokers[1].bootstrap).create(unique_topic + "-c", 1, replication_factor=rf) is None
    wait_until(lambda: all(len(i) == rf for i in isrs(cluster.bootstrap, unique_topic).values()), 30,
               f"ISRs of {rf} replicas")
    records = clients.make_records(40, partitions=2)
    clients.produce_confluent(cluster.bootstrap, unique_topic, records, {"acks": "all"})
    # acks=all answered: every replica in the ISR has the records (the leader's HW passed them)
    for p in range(2):
        sizes = replica_log_sizes(cluster, unique_topic, p)
        assert len(sizes) == rf and len(set(sizes.values())) == 1 and min(sizes.values()) > 0, sizes
    got = clients.read_confluent(cluster.bootstrap, unique_topic, range(2), 40)
    assert sorted(c.value for c in got) == sorted(r.value for r in records)


def test_a_restarted_broker_serves_its_partitions_again(cluster, unique_topic):
    clients.create_topic(cluster.bootstrap, unique_topic, 3, replication_factor=-1)
    records = clients.make_records(30, partitions=3)
    clients.produce_confluent(cluster.bootstrap, unique_topic, records)
    victim = cluster.brokers[2]
    victim.kill9()
    # As with Kafka, the broker can register again only once ZooKeeper has expired the dead
    # process's session (zookeeper.session.timeout.ms, 6 s) and deleted its /brokers/ids/2.
    wait_until(lambda: broker_count(cluster.brokers[0].bootstrap) == 2, 30, "the dead broker's session to expire")
    victim.start()
    wait_until(lambda: all(l >= 0 for l in leaders(cluster.brokers[0].bootstrap, unique_topic).values()), 30,
               "every partition to have a leader again")
    got = clients.read_confluent(cluster.bootstrap, unique_topic, range(3), 30)
    assert sorted(c.value for c in got) == sorted(r.value for r in records)


def test_kafka_cluster_fixture(kafka_cluster, unique_topic):
    assert len(kafka_cluster.brokers) == 3 and kafka_cluster.controller() is not None
    clients.create_topic(kafka_cluster.bootstrap_servers, unique_topic, 6)
    assert sorted(set(leaders(kafka_cluster.bootstrap_servers, unique_topic).values())) == [0, 1, 2]
    records = clients.make_records(60, partitions=6)
    clients.produce_confluent(kafka_cluster.bootstrap_servers, unique_topic, records, {"acks": "all"})
    got = clients.read_confluent(kafka_cluster.bootstrap_servers, unique_topic, range(6), 60)
    assert sorted(c.value for c in got) == sorted(r.value for r in records)



def test_kafka_cluster_fixture_replicates(kafka_cluster_factory, unique_topic):
    cluster = kafka_cluster_factory(3, replication_factor=3, min_insync_replicas=2, replica_fetch_wait_max_ms=50)
    clients.create_topic(cluster.bootstrap_servers, unique_topic, 3, replication_factor=-1)   # the default: 3
    wait_until(lambda: all(len(i) == 3 for i in isrs(cluster.bootstrap_servers, unique_topic).values()), 30,
               "ISRs of 3 replicas")
    records = clients.make_records(30, partitions=3)
    clients.produce_confluent(cluster.bootstrap_servers, unique_topic, records, {"acks": "all"})
    from kafkalite.common.topic_partition import TopicPartition
    for p in range(3):
        ends = {b.server.replica_manager.get_partition(TopicPartition(unique_topic, p)).log.log_end_offset
                for b in cluster.brokers}
        assert ends == {10}, ends
