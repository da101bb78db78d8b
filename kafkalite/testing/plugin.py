"""No Kafka counterpart: kafkalite's pytest plugin (registered as the ``kafkalite`` pytest11 entry
point). Fixtures:

- ``kafka_broker`` -- one in-process broker per test, on a free port, with its own temporary
  ``log.dirs``; ``kafka_broker.bootstrap_servers`` is the address for any Kafka client.
- ``kafka_broker_session`` -- the same, shared by a whole test session.
- ``kafka_cluster`` -- three in-process brokers over one shared in-process ZooKeeper store
  (``EmbeddedKafkaCluster``); ``kafka_cluster.bootstrap_servers`` lists all three.
- ``kafka_cluster_factory`` -- ``kafka_cluster_factory(num_brokers, replication_factor=1,
  min_insync_replicas=1, **broker_overrides)`` for other sizes or settings (``replication_factor=3``,
  ``num_partitions=6``, ``auto_create_topics_enable=False`` …); every cluster it made is stopped
  after the test.
"""
from __future__ import annotations

import pytest

from kafkalite.testing.embedded_kafka import EmbeddedKafka
from kafkalite.testing.embedded_kafka_cluster import EmbeddedKafkaCluster


@pytest.fixture
def kafka_broker(tmp_path):
    broker = EmbeddedKafka(log_dir=str(tmp_path / "kafka-logs")).start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_broker_session(tmp_path_factory):
    broker = EmbeddedKafka(log_dir=str(tmp_path_factory.mktemp("kafkalite") / "kafka-logs")).start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def kafka_cluster_factory(tmp_path):
    clusters: list[EmbeddedKafkaCluster] = []

    def start(num_brokers: int = 3, replication_factor: int = 1, min_insync_replicas: int = 1,
              **overrides) -> EmbeddedKafkaCluster:
        cluster = EmbeddedKafkaCluster(num_brokers, base_dir=str(tmp_path / f"cluster-{len(clusters)}"),
                                       replication_factor=replication_factor,
                                       min_insync_replicas=min_insync_replicas, **overrides)
        clusters.append(cluster)
        return cluster.start()

    try:
        yield start
    finally:
        for cluster in clusters:
            cluster.stop()


@pytest.fixture
def kafka_cluster(kafka_cluster_factory):
    return kafka_cluster_factory(3)
