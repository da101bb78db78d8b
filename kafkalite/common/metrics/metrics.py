"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/metrics/Metrics.java
(with Sensor.java, KafkaMetric.java, MetricConfig.java, Quota.java, QuotaViolationException.java and
common/MetricName.java)

Classes: MetricName, MetricConfig, Quota, QuotaViolationException, KafkaMetric, Sensor, Metrics.

Kafka's "new" metrics library (the one client quotas use, not the broker's Yammer metrics): a ``Sensor``
records values into its stats; a metric whose ``MetricConfig`` carries a ``Quota`` is checked after each
record, and a value outside the bound raises ``QuotaViolationException`` (the value was recorded all the
same -- that is how the quota managers compute the throttle time from the over-quota rate).
Every metric added here is also published in kafkalite's registry (``kafka_metrics_group.METRICS``) as a
gauge named ``<jmx prefix>:type=<group>,name=<name>,<tags...>`` so the Prometheus endpoint shows it; Kafka's
JmxReporter makes the same MBean with the name as an attribute.
Left out: sensor parents, recording levels, metric reporters, Meter/Percentiles, and the expiry of
inactive sensors (Kafka removes a quota sensor after an hour without records; here sensors stay).
"""
from __future__ import annotations

import threading
import time as _time

import attrs

from kafkalite.metrics.kafka_metrics_group import METRICS, Gauge
from kafkalite.metrics.kafka_metrics_group import MetricName as YammerMetricName


@attrs.frozen
class MetricName:
    """Kafka: org.apache.kafka.common.MetricName(name, group, description, tags)."""

    name: str
    group: str
    description: str = attrs.field(default="", eq=False)
    tags: tuple = ()   # ((key, value), ...) in insertion order


@attrs.frozen
class Quota:
    """Kafka: Quota(bound, upper)."""

    bound: float
    upper: bool = True

    # Kafka: Quota.upperBound
    @staticmethod
    def upper_bound(bound: float) -> "Quota":
        return Quota(float(bound), True)

    # Kafka: Quota.acceptable
    def acceptable(self, value: float) -> bool:
        return value <= self.bound if self.upper else value >= self.bound


@attrs.define
class MetricConfig:
    """Kafka: MetricConfig -- samples of time_window_ms each, and an optional quota."""

    quota: Quota | None = None
    samples: int = 2
    event_window: int = 2 ** 63 - 1
    time_window_ms: int = 30_000


class QuotaViolationException(Exception):
    """Kafka: QuotaViolationException(metricName, value, bound)."""

    def __init__(self, metric_name: MetricName, value: float, bound: float):
        super().__init__(f"'{metric_name.name}' violated quota. Actual: {value}, Threshold: {bound}")
        self.metric_name = metric_name
        self.value = value
        self.bound = bound


class KafkaMetric:
    """Kafka: KafkaMetric(lock, metricName, measurable, config, time)."""

    def __init__(self, lock, metric_name: MetricName, measurable, config: MetricConfig, clock):
        self.lock = lock
        self.metric_name = metric_name
        self.measurable = measurable
        self.config = config
        self._clock = clock

    # Kafka: KafkaMetric.measurableValue
    def measurable_value(self, time_ms: int) -> float:
        with self.lock:
            return self.measurable.measure(self.config, time_ms)

    # Kafka: KafkaMetric.metricValue
    def metric_value(self) -> float:
        return self.measurable_value(self._clock())


class Sensor:
    """Kafka: Sensor(registry, name, parents, config, time, inactiveSensorExpirationTimeSeconds, recordingLevel)."""

    def __init__(self, registry: "Metrics", name: str, config: MetricConfig | None, clock,
                 inactive_sensor_expiration_time_seconds: int = 2 ** 31 - 1):
        self.registry = registry
        self.name = name
        self.config = config
        self._clock = clock
        self.inactive_sensor_expiration_time_ms = inactive_sensor_expiration_time_seconds * 1000
        self.last_record_time = clock()
        self.stats: list = []
        self.metrics: list[KafkaMetric] = []
        self.lock = threading.RLock()

    # Kafka: Sensor.record(value, timeMs, checkQuotas)
    def record(self, value: float = 1.0, time_ms: int | None = None, check_quotas: bool = True) -> None:
        if time_ms is None:
            time_ms = self._clock()
        self.last_record_time = time_ms
        with self.lock:
            for stat in self.stats:
                stat.record(self.config or MetricConfig(), value, time_ms)
            if check_quotas:
                self.check_quotas(time_ms)

    # Kafka: Sensor.checkQuotas -- every metric with a quota must be within it
    def check_quotas(self, time_ms: int | None = None) -> None:
        if time_ms is None:
            time_ms = self._clock()
        for metric in self.metrics:
            quota = metric.config.quota
            if quota is not None:
                value = metric.measurable_value(time_ms)
                if not quota.acceptable(value):
                    raise QuotaViolationException(metric.metric_name, value, quota.bound)

    # Kafka: Sensor.add(metricName, stat, config)
    def add(self, metric_name: MetricName, stat, config: MetricConfig | None = None) -> bool:
        with self.lock:
            if metric_name in self.registry.metrics:
                return False
            metric = KafkaMetric(self.lock, metric_name, stat, config or self.config or MetricConfig(), self._clock)
            self.registry.register_metric(metric)
            self.metrics.append(metric)
            self.stats.append(stat)
            return True

    # Kafka: Sensor.hasExpired
    def has_expired(self) -> bool:
        return self._clock() - self.last_record_time > self.inactive_sensor_expiration_time_ms


class Metrics:
    """Kafka: Metrics(config, reporters, time) -- the registry of sensors and metrics."""

    def __init__(self, config: MetricConfig | None = None, clock=None, jmx_prefix: str = "kafka.server",
                 yammer_registry=METRICS):
        self.config = config or MetricConfig()
        self.clock = clock or (lambda: int(_time.time() * 1000))
        self.jmx_prefix = jmx_prefix
        self.yammer_registry = yammer_registry
        self.sensors: dict[str, Sensor] = {}
        self.metrics: dict[MetricName, KafkaMetric] = {}
        self._lock = threading.RLock()

    # Kafka: Metrics.metricName(name, group, description, tags)
    def metric_name(self, name: str, group: str, description: str = "", tags: dict | None = None) -> MetricName:
        return MetricName(name, group, description, tuple((tags or {}).items()))

    # Kafka: Metrics.getSensor
    def get_sensor(self, name: str) -> Sensor | None:
        return self.sensors.get(name)

    # Kafka: Metrics.sensor(name, config, inactiveSensorExpirationTimeSeconds)
    def sensor(self, name: str, config: MetricConfig | None = None,
               inactive_sensor_expiration_time_seconds: int = 2 ** 31 - 1) -> Sensor:
        with self._lock:
            s = self.sensors.get(name)
            if s is None:
                s = Sensor(self, name, config or self.config, self.clock, inactive_sensor_expiration_time_seconds)
                self.sensors[name] = s
            return s

    # Kafka: Metrics.removeSensor
    def remove_sensor(self, name: str) -> None:
        with self._lock:
            s = self.sensors.pop(name, None)
            for metric in (s.metrics if s else []):
                self.remove_metric(metric.metric_name)

    # Kafka: Metrics.registerMetric -- and publish it beside the broker's Yammer metrics
    def register_metric(self, metric: KafkaMetric) -> None:
        with self._lock:
            if metric.metric_name in self.metrics:
                raise ValueError(f"A metric named '{metric.metric_name}' already exists, can't register another one.")
            self.metrics[metric.metric_name] = metric
        if self.yammer_registry is not None:
            self.yammer_registry.new_gauge(self._yammer_name(metric.metric_name), Gauge(metric.metric_value))

    # Kafka: Metrics.removeMetric
    def remove_metric(self, metric_name: MetricName) -> KafkaMetric | None:
        with self._lock:
            metric = self.metrics.pop(metric_name, None)
        if metric is not None and self.yammer_registry is not None:
            self.yammer_registry.remove_metric(self._yammer_name(metric_name))
        return metric

    # Kafka: Metrics.metric
    def metric(self, metric_name: MetricName) -> KafkaMetric | None:
        return self.metrics.get(metric_name)

    def _yammer_name(self, metric_name: MetricName) -> YammerMetricName:
        return YammerMetricName(self.jmx_prefix, metric_name.group, metric_name.name, metric_name.tags)

    # Kafka: Metrics.close
    def close(self) -> None:
        for name in list(self.sensors):
            self.remove_sensor(name)
