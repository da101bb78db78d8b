"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicaFetcherManager.scala

Classes: ReplicaFetcherManager -- the follower side of replication (S9): ``num.replica.fetchers``
ReplicaFetcherThreads per leader broker, made by ``create_fetcher_thread``.
"""
from __future__ import annotations

from kafkalite.server.abstract_fetcher_manager import AbstractFetcherManager, InitialFetchState
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafkalite.server.replica_fetcher_thread import ReplicaFetcherThread

__all__ = ["InitialFetchState", "ReplicaFetcherManager"]


class ReplicaFetcherManager(AbstractFetcherManager):
    """Kafka: ReplicaFetcherManager(brokerConfig, replicaManager, metrics, time, threadNamePrefix, quotaManager)."""

    def __init__(self, broker_config, replica_manager, time, thread_name_prefix: str | None = None,
                 quota_manager=None):
        super().__init__(f"ReplicaFetcherManager on broker {broker_config.broker_id}", "Replica",
                         broker_config.get("num.replica.fetchers"))
        self.broker_config = broker_config
        self.replica_manager = replica_manager
        self.time = time
        self.thread_name_prefix = thread_name_prefix
        self.quota_manager = quota_manager   # the follower ReplicationQuotaManager (None: unbounded)

    # Kafka: ReplicaFetcherManager.createFetcherThread -- named ReplicaFetcherThread-<fetcherId>-<leaderId>
    def create_fetcher_thread(self, fetcher_id: int, source_broker) -> ReplicaFetcherThread:
        from kafkalite.server.replica_fetcher_thread import ReplicaFetcherThread  # a follower's first leader loads it
        prefix = f"{self.thread_name_prefix}:" if self.thread_name_prefix else ""
        thread_name = f"{prefix}ReplicaFetcherThread-{fetcher_id}-{source_broker.id}"
        return ReplicaFetcherThread(thread_name, fetcher_id, source_broker, self.broker_config,
                                    self.failed_partitions, self.replica_manager, self.time,
                                    quota=self.quota_manager)

    # Kafka: ReplicaFetcherManager.shutdown
    def shutdown(self) -> None:
        self.info("shutting down")
        self.close_all_fetchers()
        self.info("shutdown completed")
