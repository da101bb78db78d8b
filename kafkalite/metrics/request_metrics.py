"""Mirrors Kafka 2.4: core/src/main/scala/kafka/network/RequestChannel.scala (object RequestMetrics
and class RequestMetrics)

Classes: RequestMetrics. Function: request_metrics(api_name).

One set of metrics per request type (tag ``request=Produce``, ``Fetch``, ``LeaderAndIsr``, ...),
under ``kafka.network:type=RequestMetrics``: the meter ``RequestsPerSec`` and six histograms of
the request's trip, in milliseconds (S13, S7):
``RequestQueueTimeMs`` (waiting in the RequestChannel), ``LocalTimeMs`` (the handler thread's own
work), ``RemoteTimeMs`` (waiting in a purgatory), ``ResponseQueueTimeMs`` (waiting in the
Processor's response queue), ``ResponseSendTimeMs`` (writing it) and ``TotalTimeMs``.
``Request.update_request_metrics`` feeds them once per request, when its response is sent.

Era notes: Kafka 2.4 also tags RequestsPerSec with ``version``; kafkalite counts per request
type only. Left out: ThrottleTimeMs, MessageConversionsTimeMs, TemporaryMemoryBytes,
RequestBytes, ErrorsPerSec, the separate follower/consumer Fetch names.
"""
from __future__ import annotations

import threading

from kafkalite.metrics.kafka_metrics_group import KafkaMetricsGroup

TIME_METRICS = ("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs",
                "ResponseSendTimeMs", "TotalTimeMs")


class RequestMetrics(KafkaMetricsGroup):
    """Kafka: RequestMetrics(name) -- the metrics of one request type."""

    metrics_group = "kafka.network"
    metrics_type = "RequestMetrics"

    def __init__(self, name: str):
        self.name = name
        tags = {"request": name}
        self.requests_per_sec = self.new_meter("RequestsPerSec", "requests", tags)
        self.histograms = {m: self.new_histogram(m, tags) for m in TIME_METRICS}

    # Called once per completed request with its timings (ms) -- see Request.update_request_metrics.
    def update(self, timings: dict) -> None:
        self.requests_per_sec.mark()
        for metric, histogram in self.histograms.items():
            histogram.update(timings[metric])


_by_name: dict[str, RequestMetrics] = {}
_lock = threading.Lock()


# Kafka: RequestMetrics.metricsMap -- one RequestMetrics per request name, made on first use.
def request_metrics(name: str) -> RequestMetrics:
    metrics = _by_name.get(name)
    if metrics is None:
        with _lock:
            metrics = _by_name.get(name)
            if metrics is None:
                metrics = _by_name[name] = RequestMetrics(name)
    return metrics


def reset() -> None:
    """Forget the cached RequestMetrics (after ``METRICS.clear()``, e.g. between benchmark runs)."""
    with _lock:
        _by_name.clear()
