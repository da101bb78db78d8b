"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/QuotaFactory.scala

Classes: QuotaManagers; functions instantiate, client_produce_config, client_fetch_config, client_request_config,
replication_config, alter_log_dirs_replication_config.

The broker's three client quota managers (fetch, produce, request), built from KafkaConfig's
``quota.consumer.default`` / ``quota.producer.default`` / ``quota.window.num`` / ``quota.window.size.seconds``,
and its three replication quota managers (leader, follower, alter-log-dirs: ReplicationQuotaManager), built
from ``replication.quota.window.*`` / ``alter.log.dirs.replication.quota.window.*`` with no bound (the rates
are dynamic broker configs, set by BrokerConfigHandler), all sharing one Metrics registry.
Left out: custom quota callbacks.
"""
from __future__ import annotations

import logging

import attrs

from kafkalite.common.metrics.metrics import Metrics
from kafkalite.server.client_quota_manager import LONG_MAX, ClientQuotaManager, ClientQuotaManagerConfig, QuotaType
from kafkalite.server.client_request_quota_manager import ClientRequestQuotaManager
from kafkalite.server.replication_quota_manager import ReplicationQuotaManager, ReplicationQuotaManagerConfig

log = logging.getLogger("kafka.server.QuotaFactory")


@attrs.define
class QuotaManagers:
    """Kafka: QuotaFactory.QuotaManagers(fetch, produce, request, leader, follower, alterLogDirs, callback)."""

    fetch: ClientQuotaManager
    produce: ClientQuotaManager
    request: ClientRequestQuotaManager
    leader: ReplicationQuotaManager
    follower: ReplicationQuotaManager
    alter_log_dirs: ReplicationQuotaManager
    metrics: Metrics

    # Kafka: QuotaManagers.shutdown
    def shutdown(self) -> None:
        self.fetch.shutdown()
        self.produce.shutdown()
        self.request.shutdown()
        self.metrics.close()


# Kafka: QuotaFactory.instantiate
def instantiate(cfg, metrics: Metrics, time, thread_name_prefix: str = "") -> QuotaManagers:
    return QuotaManagers(
        ClientQuotaManager(client_fetch_config(cfg), metrics, QuotaType.Fetch, time, thread_name_prefix),
        ClientQuotaManager(client_produce_config(cfg), metrics, QuotaType.Produce, time, thread_name_prefix),
        ClientRequestQuotaManager(client_request_config(cfg), metrics, time, thread_name_prefix),
        ReplicationQuotaManager(replication_config(cfg), metrics, QuotaType.LeaderReplication, time),
        ReplicationQuotaManager(replication_config(cfg), metrics, QuotaType.FollowerReplication, time),
        ReplicationQuotaManager(alter_log_dirs_replication_config(cfg), metrics, QuotaType.AlterLogDirsReplication,
                                time),
        metrics)


# Kafka: QuotaFactory.clientProduceConfig
def client_produce_config(cfg) -> ClientQuotaManagerConfig:
    default = cfg.get("quota.producer.default")
    if default != LONG_MAX:
        log.warning("quota.producer.default has been deprecated in 0.11.0.0 and will be removed in a future release. "
                    "Use dynamic quota defaults instead.")
    return ClientQuotaManagerConfig(default, cfg.get("quota.window.num"), cfg.get("quota.window.size.seconds"))


# Kafka: QuotaFactory.clientFetchConfig
def client_fetch_config(cfg) -> ClientQuotaManagerConfig:
    default = cfg.get("quota.consumer.default")
    if default != LONG_MAX:
        log.warning("quota.consumer.default has been deprecated in 0.11.0.0 and will be removed in a future release. "
                    "Use dynamic quota defaults instead.")
    return ClientQuotaManagerConfig(default, cfg.get("quota.window.num"), cfg.get("quota.window.size.seconds"))


# Kafka: QuotaFactory.clientRequestConfig
def client_request_config(cfg) -> ClientQuotaManagerConfig:
    return ClientQuotaManagerConfig(LONG_MAX, cfg.get("quota.window.num"), cfg.get("quota.window.size.seconds"))


# Kafka: QuotaFactory.replicationConfig
def replication_config(cfg) -> ReplicationQuotaManagerConfig:
    return ReplicationQuotaManagerConfig(num_quota_samples=cfg.get("replication.quota.window.num"),
                                         quota_window_size_seconds=cfg.get("replication.quota.window.size.seconds"))


# Kafka: QuotaFactory.alterLogDirsReplicationConfig
def alter_log_dirs_replication_config(cfg) -> ReplicationQuotaManagerConfig:
    return ReplicationQuotaManagerConfig(
        num_quota_samples=cfg.get("alter.log.dirs.replication.quota.window.num"),
        quota_window_size_seconds=cfg.get("alter.log.dirs.replication.quota.window.size.seconds"))
