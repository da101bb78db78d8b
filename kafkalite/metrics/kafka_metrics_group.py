"""Mirrors Kafka 2.4: core/src/main/scala/kafka/metrics/KafkaMetricsGroup.scala
(and the parts of the Yammer Metrics 2 library it uses: MetricName, MetricsRegistry, Meter,
Histogram, Gauge)

Classes: MetricName, Meter, Histogram, Gauge, WindowedRatioGauge, MetricsRegistry, KafkaMetricsGroup.
Module attribute: ``METRICS`` -- the one registry of the process (Yammer's ``Metrics.defaultRegistry()``).

Kafka's broker registers its operational metrics (S7) with Yammer under JMX names such as
``kafka.network:type=RequestChannel,name=RequestQueueSize``. ``KafkaMetricsGroup`` is the mixin
with ``new_gauge`` / ``new_meter`` / ``new_histogram`` / ``remove_metric``; the name's group is
``kafka.network`` or ``kafka.server``, its type the class that owns the metric, and tags (``request``,
``topic``, ``processor``, ...) are appended in order, as ``explicitMetricName`` does.

Era notes: a Meter keeps its count and Yammer's exponentially weighted one-minute rate (ticked every
5 s, lazily, as Yammer does). A Histogram keeps count, sum and the last 1028 values (Yammer keeps
an exponentially decaying sample of 1028) for percentiles. ``WindowedRatioGauge`` is kafkalite's:
the idle percentages are computed over the last few seconds from a cumulative idle-time counter,
so they move within seconds of a change in load (Kafka's one-minute rate reacts in about a minute).
Left out: Timers (Kafka's *TimeMs metrics are Histograms too), JMX, metric reporters other than
the Prometheus one (``prometheus_reporter.py``).
"""
from __future__ import annotations

import collections
import math
import threading
import time as _time

import attrs

TICK_INTERVAL_S = 5.0
_M1_ALPHA = 1 - math.exp(-TICK_INTERVAL_S / 60.0)
RESERVOIR_SIZE = 1028
QUANTILES = (0.5, 0.75, 0.95, 0.98, 0.99, 0.999)


@attrs.frozen
class MetricName:
    """Yammer: MetricName(group, type, name, scope, mBeanName) -- kafkalite keeps the tags apart."""

    group: str
    type: str
    name: str
    tags: tuple = ()   # ((key, value), ...) in the order Kafka appends them

    # Kafka: KafkaMetricsGroup.explicitMetricName -- the JMX name
    @property
    def mbean_name(self) -> str:
        tags = "".join(f",{k}={v}" for k, v in self.tags)
        return f"{self.group}:type={self.type},name={self.name}{tags}"

    def __str__(self) -> str:
        return self.mbean_name


class Meter:
    """Yammer: Meter -- a count of events and their one-minute rate (events per second)."""

    kind = "meter"

    def __init__(self, event_type: str = "requests", clock=_time.monotonic):
        self.event_type = event_type
        self._clock = clock
        self._lock = threading.Lock()
        self._count = 0
        self._uncounted = 0
        self._rate = 0.0
        self._initialized = False
        self._start = clock()
        self._last_tick = self._start

    # Yammer: Meter.tickIfNecessary -- fold what was marked into the EWMA, once per 5 s passed.
    def _tick_if_necessary(self) -> None:
        now = self._clock()
        ticks = int((now - self._last_tick) // TICK_INTERVAL_S)
        for _ in range(min(ticks, 200)):   # 200 ticks of decay takes any rate to ~0
            instant = self._uncounted / TICK_INTERVAL_S
            self._uncounted = 0
            if self._initialized:
                self._rate += _M1_ALPHA * (instant - self._rate)
            else:
                self._rate, self._initialized = instant, True
        self._last_tick += ticks * TICK_INTERVAL_S

    def mark(self, n: int = 1) -> None:
        with self._lock:
            # Yammer calls tickIfNecessary on every mark; here the "no tick due" case, nearly every call on the
            # produce path, costs one clock read and no Python call (issue 18)
            if self._clock() - self._last_tick >= TICK_INTERVAL_S:
                self._tick_if_necessary()
            self._count += n
            self._uncounted += n

    @property
    def count(self) -> int:
        return self._count

    @property
    def one_minute_rate(self) -> float:
        with self._lock:
            self._tick_if_necessary()
            return self._rate

    @property
    def mean_rate(self) -> float:
        elapsed = self._clock() - self._start
        return self._count / elapsed if elapsed > 0 else 0.0


class Histogram:
    """Yammer: Histogram -- count, sum and percentiles of recent values."""

    kind = "histogram"

    def __init__(self):
        self._lock = threading.Lock()
        self._values: collections.deque = collections.deque(maxlen=RESERVOIR_SIZE)
        self.count = 0
        self.sum = 0.0
        self.max = 0.0

    def update(self, value: float) -> None:
        with self._lock:
            self._values.append(value)
            self.count += 1
            self.sum += value
            if value > self.max:
                self.max = value

    def percentile(self, q: float) -> float:
        """The q-quantile (0..1) of the recent values, nearest-rank; 0 with no values."""
        with self._lock:
            values = sorted(self._values)
        if not values:
            return 0.0
        return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]

    def snapshot(self) -> dict[float, float]:
        with self._lock:
            values = sorted(self._values)
        if not values:
            return {q: 0.0 for q in QUANTILES}
        return {q: values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))] for q in QUANTILES}


class Gauge:
    """Yammer: Gauge -- a value read when someone asks (a callable)."""

    kind = "gauge"

    def __init__(self, fn):
        self.fn = fn

    def value(self) -> float:
        return float(self.fn())


class WindowedRatioGauge(Gauge):
    """kafkalite's idle-percent gauge: d(idle nanos) / d(wall nanos x threads) over the last
    ``window_s`` seconds. ``sample()`` is called by the registry's sampler thread (every 0.5 s)
    and on every read."""

    def __init__(self, idle_nanos_fn, threads_fn=lambda: 1, window_s: float = 5.0, clock=_time.monotonic_ns):
        super().__init__(self._ratio)
        self.idle_nanos_fn = idle_nanos_fn
        self.threads_fn = threads_fn
        self.window_ns = int(window_s * 1e9)
        self._clock = clock
        self._lock = threading.Lock()
        self._samples: collections.deque = collections.deque()

    def sample(self) -> None:
        now = self._clock()
        with self._lock:
            self._samples.append((now, self.idle_nanos_fn()))
            while len(self._samples) > 2 and now - self._samples[1][0] >= self.window_ns:
                self._samples.popleft()

    def _ratio(self) -> float:
        self.sample()
        with self._lock:
            (t0, i0), (t1, i1) = self._samples[0], self._samples[-1]
        threads = max(1, self.threads_fn())
        if t1 <= t0:
            return 1.0
        return max(0.0, min(1.0, (i1 - i0) / ((t1 - t0) * threads)))


class MetricsRegistry:
    """Yammer: MetricsRegistry -- metrics by name; ``new_*`` return the existing one if present,
    except gauges, where the newest registration wins (a restarted component re-registers)."""

    def __init__(self):
        self._lock = threading.RLock()
        self.metrics: dict[MetricName, object] = {}
        self._sampler: threading.Thread | None = None
        self._sampler_stop = threading.Event()

    def _get_or_add(self, name: MetricName, factory):
        with self._lock:
            metric = self.metrics.get(name)
            if metric is None:
                metric = self.metrics[name] = factory()
            return metric

    def new_meter(self, name: MetricName, event_type: str = "requests") -> Meter:
        return self._get_or_add(name, lambda: Meter(event_type))

    def new_histogram(self, name: MetricName) -> Histogram:
        return self._get_or_add(name, Histogram)

    def new_gauge(self, name: MetricName, gauge: Gauge) -> Gauge:
        with self._lock:
            self.metrics[name] = gauge
        return gauge

    def remove_metric(self, name: MetricName) -> None:
        with self._lock:
            self.metrics.pop(name, None)

    def all_metrics(self) -> list[tuple[MetricName, object]]:
        with self._lock:
            return sorted(self.metrics.items(), key=lambda kv: kv[0].mbean_name)

    def get(self, mbean_name: str):
        """The metric with this JMX name (``kafka.network:type=...,name=...``), or None."""
        with self._lock:
            for name, metric in self.metrics.items():
                if name.mbean_name == mbean_name:
                    return metric
        return None

    def clear(self) -> None:
        with self._lock:
            self.metrics.clear()

    # The sampler thread keeps the windowed gauges' samples fresh between scrapes.
    def start_sampler(self, interval_s: float = 0.5) -> None:
        with self._lock:
            if self._sampler is not None and self._sampler.is_alive():
                return
            self._sampler_stop.clear()
            self._sampler = threading.Thread(target=self._sample_loop, args=(interval_s,),
                                             name="kafkalite-metrics-sampler", daemon=True)
            self._sampler.start()

    def stop_sampler(self) -> None:
        self._sampler_stop.set()
        if self._sampler is not None:
            self._sampler.join(5)
            self._sampler = None

    def _sample_loop(self, interval_s: float) -> None:
        while not self._sampler_stop.wait(interval_s):
            with self._lock:
                gauges = [m for m in self.metrics.values() if isinstance(m, WindowedRatioGauge)]
            for g in gauges:
                try:
                    g.sample()
                except Exception:  # noqa: BLE001 -- a gauge of a component shutting down
                    pass


METRICS = MetricsRegistry()


class KafkaMetricsGroup:
    """Kafka: KafkaMetricsGroup -- the mixin through which a broker class names its metrics.
    A class sets ``metrics_group`` ("kafka.network"/"kafka.server") and ``metrics_type``
    (defaults to the class name)."""

    metrics_group: str = "kafka.server"
    metrics_type: str | None = None
    metrics_registry: MetricsRegistry = METRICS

    # Kafka: KafkaMetricsGroup.metricName
    def metric_name(self, name: str, tags: dict | None = None) -> MetricName:
        return MetricName(self.metrics_group, self.metrics_type or type(self).__name__, name,
                          tuple((tags or {}).items()))

    # Kafka: KafkaMetricsGroup.newGauge
    def new_gauge(self, name: str, fn, tags: dict | None = None) -> Gauge:
        gauge = fn if isinstance(fn, Gauge) else Gauge(fn)
        return self.metrics_registry.new_gauge(self.metric_name(name, tags), gauge)

    # Kafka: KafkaMetricsGroup.newMeter
    def new_meter(self, name: str, event_type: str = "requests", tags: dict | None = None) -> Meter:
        return self.metrics_registry.new_meter(self.metric_name(name, tags), event_type)

    # Kafka: KafkaMetricsGroup.newHistogram
    def new_histogram(self, name: str, tags: dict | None = None) -> Histogram:
        return self.metrics_registry.new_histogram(self.metric_name(name, tags))

    # Kafka: KafkaMetricsGroup.removeMetric
    def remove_metric(self, name: str, tags: dict | None = None) -> None:
        self.metrics_registry.remove_metric(self.metric_name(name, tags))


class MetricsGroup(KafkaMetricsGroup):
    """A KafkaMetricsGroup not tied to an instance: ``MetricsGroup("kafka.network", "RequestChannel")``."""

    def __init__(self, group: str, type_: str, registry: MetricsRegistry = METRICS):
        self.metrics_group = group
        self.metrics_type = type_
        self.metrics_registry = registry
