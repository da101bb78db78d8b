"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicationQuotaManager.scala

Classes: ReplicationQuotaManagerConfig, ReplicaQuota, UnboundedQuota, ReplicationQuotaManager.
Constant: ALL_REPLICAS (Kafka: Constants.AllReplicas).

Replication quotas (KIP-73) cap the bytes per second that replication of *throttled* replicas may use on a
broker, so that moving a replica (a reassignment, a new broker catching up) does not starve producers and
consumers. The broker has three of these managers (QuotaFactory): ``LeaderReplication`` (what this broker,
as leader, sends to followers: ``leader.replication.throttled.rate``), ``FollowerReplication`` (what this
broker, as follower, fetches: ``follower.replication.throttled.rate``) and ``AlterLogDirsReplication``
(what it copies between its own log dirs: ``replica.alter.log.dirs.io.max.bytes.per.second``). The rates
are dynamic broker configs (``/config/brokers/<id>``, set by BrokerConfigHandler through ``update_quota``);
which replicas are throttled comes from the topic configs ``leader.replication.throttled.replicas`` /
``follower.replication.throttled.replicas`` (TopicConfigHandler through ``mark_throttled`` /
``remove_throttle``).

The bytes of throttled partitions are recorded in one sensor per manager, a ``SimpleRate`` named
``byte-rate`` in group ``<QuotaType>`` (``kafka.server:type=LeaderReplication``, attribute ``byte-rate``), whose
MetricConfig carries the quota; ``is_quota_exceeded`` asks the sensor whether the rate is over it. A
recorded value is never refused: the leader answers an out-of-sync follower's fetch of a throttled
partition with no records while the rate is over (ReplicaManager.should_leader_throttle), the follower
leaves such partitions out of its fetch (ReplicaFetcherThread.should_follower_throttle), the
ReplicaAlterLogDirsThread fetches nothing -- until the rate falls back under the bound.

Left out: the expiry of the sensor after an hour without records (kafkalite's Metrics keep sensors).
"""
from __future__ import annotations

import threading

import attrs

from kafkalite.common.metrics.metrics import MetricConfig, Metrics, Quota, QuotaViolationException
from kafkalite.common.metrics.stats import SimpleRate
from kafkalite.utils.logging import Logging

LONG_MAX = 2 ** 63 - 1
QUOTA_BYTES_PER_SECOND_DEFAULT = LONG_MAX   # Kafka: ReplicationQuotaManagerConfig.QuotaBytesPerSecondDefault
DEFAULT_NUM_QUOTA_SAMPLES = 11              # Kafka: "Always have 10 whole windows + 1 current window"
DEFAULT_QUOTA_WINDOW_SIZE_SECONDS = 1
INACTIVE_SENSOR_EXPIRATION_TIME_SECONDS = 3600
ALL_REPLICAS = (-1,)                        # Kafka: Constants.AllReplicas -- the topic config was "*"


@attrs.frozen
class ReplicationQuotaManagerConfig:
    """Kafka: ReplicationQuotaManagerConfig(quotaBytesPerSecondDefault, numQuotaSamples, quotaWindowSizeSeconds)."""

    quota_bytes_per_second_default: int = QUOTA_BYTES_PER_SECOND_DEFAULT
    num_quota_samples: int = DEFAULT_NUM_QUOTA_SAMPLES
    quota_window_size_seconds: int = DEFAULT_QUOTA_WINDOW_SIZE_SECONDS


class ReplicaQuota:
    """Kafka: ReplicaQuota -- what the fetch paths ask of a replication quota."""

    def record(self, value: int) -> None:
        raise NotImplementedError

    def is_throttled(self, topic_partition) -> bool:
        raise NotImplementedError

    def is_quota_exceeded(self) -> bool:
        raise NotImplementedError


class _UnboundedQuota(ReplicaQuota):
    """Kafka: QuotaFactory.UnboundedQuota -- consumers' fetches and the alter-log-dirs thread's local
    reads: nothing is throttled, nothing recorded."""

    def record(self, value: int) -> None:
        pass

    def is_throttled(self, topic_partition) -> bool:
        return False

    def is_quota_exceeded(self) -> bool:
        return False


UnboundedQuota = _UnboundedQuota()


class ReplicationQuotaManager(ReplicaQuota, Logging):
    """Kafka: ReplicationQuotaManager(config, metrics, replicationType, time)."""

    def __init__(self, config: ReplicationQuotaManagerConfig, metrics: Metrics, replication_type, time):
        self.config = config
        self.metrics = metrics
        self.replication_type = replication_type
        self.time = time
        self.lock = threading.RLock()
        self.throttled_partitions: dict[str, tuple[int, ...]] = {}   # topic -> partition ids, or ALL_REPLICAS
        self.quota: Quota | None = None    # None until BrokerConfigHandler sets one: never exceeded
        self.rate_metric_name = metrics.metric_name("byte-rate", str(replication_type),
                                                    f"Tracking byte-rate for {replication_type}")
        self._sensor = None
        self.log_ident = f"[ReplicationQuotaManager type={replication_type}] "

    # Kafka: ReplicationQuotaManager.updateQuota -- the sensor's metric takes the new bound at once
    def update_quota(self, quota: Quota) -> None:
        with self.lock:
            self.quota = quota
            metric = self.metrics.metric(self.rate_metric_name)
            if metric is not None:
                metric.config = self.get_quota_metric_config(quota)

    # Kafka: ReplicationQuotaManager.isQuotaExceeded
    def is_quota_exceeded(self) -> bool:
        sensor = self.sensor()
        try:
            sensor.check_quotas()
        except QuotaViolationException as qve:
            if self.is_trace_enabled():
                self.trace(f"{self.replication_type}: Quota violated for sensor ({sensor.name}), metric: "
                           f"({qve.metric_name}), metric-value: ({qve.value}), bound: ({qve.bound})")
            return True
        return False

    # Kafka: ReplicationQuotaManager.isThrottled
    def is_throttled(self, topic_partition) -> bool:
        partitions = self.throttled_partitions.get(topic_partition.topic)
        if partitions is None:
            return False
        return partitions is ALL_REPLICAS or topic_partition.partition in partitions

    # Kafka: ReplicationQuotaManager.record -- recorded even when it takes the rate over the quota
    def record(self, value: int) -> None:
        sensor = self.sensor()
        try:
            sensor.record(value)
        except QuotaViolationException as qve:
            if self.is_trace_enabled():
                self.trace(f"Record: Quota violated, but ignored, for sensor ({sensor.name}), metric: "
                           f"({qve.metric_name}), value : ({qve.value}), bound: ({qve.bound}), "
                           f"recordedValue ({value})")

    # Kafka: ReplicationQuotaManager.markThrottled -- the partitions replace the topic's earlier ones;
    # without partitions, every replica of the topic
    def mark_throttled(self, topic: str, partitions=ALL_REPLICAS) -> None:
        self.throttled_partitions[topic] = partitions if partitions is ALL_REPLICAS else tuple(partitions)

    # Kafka: ReplicationQuotaManager.removeThrottle
    def remove_throttle(self, topic: str) -> None:
        self.throttled_partitions.pop(topic, None)

    # Kafka: ReplicationQuotaManager.upperBound -- the double bound as a long (Java's toLong saturates)
    def upper_bound(self) -> int:
        with self.lock:
            return min(int(self.quota.bound), LONG_MAX) if self.quota is not None else LONG_MAX

    # Kafka: ReplicationQuotaManager.getQuotaMetricConfig
    def get_quota_metric_config(self, quota: Quota | None) -> MetricConfig:
        return MetricConfig(quota=quota, samples=self.config.num_quota_samples,
                            time_window_ms=self.config.quota_window_size_seconds * 1000)

    # Kafka: ReplicationQuotaManager.sensor -- SensorAccess.getOrCreate: one sensor named after the type
    # (kept once it holds its metric, so no fetch thread sees it half made)
    def sensor(self):
        sensor = self._sensor
        if sensor is not None:
            return sensor
        with self.lock:
            if self._sensor is None:
                config = self.get_quota_metric_config(self.quota)
                sensor = self.metrics.sensor(str(self.replication_type), config,
                                             INACTIVE_SENSOR_EXPIRATION_TIME_SECONDS)
                sensor.add(self.rate_metric_name, SimpleRate(), config)
                self._sensor = sensor
            return self._sensor
