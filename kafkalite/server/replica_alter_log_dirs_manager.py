"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicaAlterLogDirsManager.scala

Classes: ReplicaAlterLogDirsManager -- the ReplicaAlterLogDirsThreads of this broker (KIP-113):
``num.replica.alter.log.dirs.threads`` of them (one per log dir by default), named
``ReplicaAlterLogDirsThread-<fetcherId>``. Every partition being moved has this broker itself as its "source
broker" (``BrokerEndPoint(broker id, "localhost", -1)``: nothing is sent over the network), so the fetcher id
alone, from the hash of the partition, picks its thread.
"""
from __future__ import annotations

from kafkalite.server.abstract_fetcher_manager import AbstractFetcherManager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafkalite.server.replica_alter_log_dirs_thread import ReplicaAlterLogDirsThread


class ReplicaAlterLogDirsManager(AbstractFetcherManager):
    """Kafka: ReplicaAlterLogDirsManager(brokerConfig, replicaManager, quotaManager, brokerTopicStats)."""

    def __init__(self, broker_config, replica_manager, time, quota_manager=None):
        super().__init__(f"ReplicaAlterLogDirsManager on broker {broker_config.broker_id}", "ReplicaAlterLogDirs",
                         broker_config.get_num_replica_alter_log_dirs_threads())
        self.broker_config = broker_config
        self.replica_manager = replica_manager
        self.time = time
        self.quota_manager = quota_manager   # the alter-log-dirs ReplicationQuotaManager (None: unbounded)

    # Kafka: ReplicaAlterLogDirsManager.createFetcherThread
    def create_fetcher_thread(self, fetcher_id: int, source_broker) -> ReplicaAlterLogDirsThread:
        from kafkalite.server.replica_alter_log_dirs_thread import ReplicaAlterLogDirsThread  # the first move loads it
        return ReplicaAlterLogDirsThread(f"ReplicaAlterLogDirsThread-{fetcher_id}", source_broker, self.broker_config,
                                         self.failed_partitions, self.replica_manager, self.time,
                                         quota=self.quota_manager)

    # Kafka: ReplicaAlterLogDirsManager.shutdown
    def shutdown(self) -> None:
        self.info("shutting down")
        self.close_all_fetchers()
        self.info("shutdown completed")
