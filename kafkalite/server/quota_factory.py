"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/QuotaFactory.scala

Classes: QuotaManagers; functions instantiate, client_produce_config, client_fetch_config, client_request_config.

The broker's three client quota managers (fetch, produce, request), built from KafkaConfig's
``quota.consumer.default`` / ``quota.producer.default`` / ``quota.window.num`` / ``quota.window.size.seconds``,
sharing one Metrics registry. Left out: the replication quota managers (leader, follower, alter-log-dirs:
``leader.replication.throttled.rate`` and friends) and custom quota callbacks.
"""
from __future__ import annotations

import logging

import attrs

from kafkalite.common.metrics.metrics import Metrics
from kafkalite.server.client_quota_manager import LONG_MAX, ClientQuotaManager, ClientQuotaManagerConfig, QuotaType
from kafkalite.server.client_request_quota_manager import ClientRequestQuotaManager

log = logging.getLogger("kafka.server.QuotaFactory")


@attrs.define
class QuotaManagers:
    """Kafka: QuotaFactory.QuotaManagers(fetch, produce, request, leader, follower, alterLogDirs, callback)."""

    fetch: ClientQuotaManager
    produce: ClientQuotaManager
    request: ClientRequestQuotaManager
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
