"""No Kafka counterpart (Kafka's own tests use KafkaServerTestHarness / EmbeddedKafkaCluster):
EmbeddedKafkaCluster, several in-process kafkalite brokers that share one in-process ZooKeeper store
(``zookeeper.connect=embedded:<dir>``), so they register under one ``/brokers/ids``, elect one
controller and split the partitions' leadership between them, as a Kafka cluster does.

    with EmbeddedKafkaCluster(3) as cluster:
        producer = Producer({"bootstrap.servers": cluster.bootstrap_servers})

Each broker has its own ``log.dirs`` and port; ``cluster.brokers[i]`` is an ``EmbeddedKafka``.
``replication_factor`` sets the brokers' ``default.replication.factor``, ``offsets.topic.replication.factor``
and ``transaction.state.log.replication.factor``, ``min_insync_replicas`` their ``min.insync.replicas`` and
``transaction.state.log.min.isr`` (the coordinators' topics are created once that many brokers are up, as
in Kafka):

    with EmbeddedKafkaCluster(3, replication_factor=3, min_insync_replicas=2) as cluster: ...

The followers replicate with their ReplicaFetcherThreads as in a cluster of processes; all brokers
share one Python interpreter, so this is for tests, not for figures. For clusters of broker
*processes* over a real ZooKeeper, see ``config/`` and the README.
"""
from __future__ import annotations

import os
import shutil
import tempfile

from kafkalite.testing.embedded_kafka import EmbeddedKafka


class EmbeddedKafkaCluster:
    """``start()``, ``stop()``, ``brokers``, ``bootstrap_servers``, ``controller()``."""

    def __init__(self, num_brokers: int = 3, base_dir: str | None = None, replication_factor: int = 1,
                 min_insync_replicas: int = 1, **overrides):
        if num_brokers < 1:
            raise ValueError(f"a cluster needs at least one broker, not {num_brokers}")
        if not 1 <= min_insync_replicas <= replication_factor <= num_brokers:
            raise ValueError(f"need 1 <= min_insync_replicas ({min_insync_replicas}) <= replication_factor "
                             f"({replication_factor}) <= num_brokers ({num_brokers})")
        overrides = {"default_replication_factor": replication_factor,
                     "offsets_topic_replication_factor": replication_factor,
                     "transaction_state_log_replication_factor": replication_factor,
                     "transaction_state_log_min_isr": min_insync_replicas,
                     "min_insync_replicas": min_insync_replicas,
                     # the last broker to stop cannot hand its leaderships over: retry quickly, then stop
                     "controlled_shutdown_retry_backoff_ms": 100, **overrides}
        self._own_dir = base_dir is None
        self.base_dir = base_dir or tempfile.mkdtemp(prefix="kafkalite-cluster-")
        zk_connect = "embedded:" + os.path.join(self.base_dir, "zookeeper")
        self.brokers = [
            EmbeddedKafka(log_dir=os.path.join(self.base_dir, f"broker-{i}", "kafka-logs"),
                          broker_id=i, zookeeper_connect=zk_connect, **overrides)
            for i in range(num_brokers)
        ]

    def start(self) -> "EmbeddedKafkaCluster":
        try:
            for broker in self.brokers:
                broker.start()
        except Exception:
            self.stop()
            raise
        return self

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(b.bootstrap_servers for b in self.brokers if b.server is not None)

    def controller(self) -> EmbeddedKafka | None:
        """The broker whose KafkaController is active, if any."""
        for b in self.brokers:
            if b.server is not None and b.server.kafka_controller.is_active():
                return b
        return None

    def stop(self) -> None:
        for broker in reversed(self.brokers):
            broker.stop()
        if self._own_dir:
            shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self) -> "EmbeddedKafkaCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
