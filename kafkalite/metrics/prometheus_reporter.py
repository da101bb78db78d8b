"""No Kafka counterpart: Kafka exposes its Yammer metrics over JMX, and operators usually scrape
them with Prometheus' ``jmx_exporter``; kafkalite serves the same metrics in Prometheus text format
itself, with ``prometheus-client``, on ``http://127.0.0.1:<kafkalite.metrics.port>/metrics``.

Classes: PrometheusReporter(server) with start()/stop(), YammerCollector. Function: prometheus_name.

Naming (the table with every metric is in ``docs/metrics.md``): the MBean
``<group>:type=<Type>,name=<Name>,<tag>=<v>...`` becomes ``<group with _>_<type>_<name>``, all
lower case, and the tags become labels:
``kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce`` →
``kafka_network_requestmetrics_totaltimems{request="Produce",quantile="0.99"}``; dashes become
underscores (the client-quota metric ``kafka.server:type=Produce,name=byte-rate,user=,client-id=c`` →
``kafka_server_produce_byte_rate{user="",client_id="c"}``).
A gauge is a Prometheus gauge; a meter is a counter ``<name>_total`` (its count) plus a gauge
``<name>_oneminuterate``; a histogram is a summary (quantiles 0.5 … 0.999, ``_count``, ``_sum``).
"""
from __future__ import annotations

import collections

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from kafkalite.metrics.broker_metrics import register_broker_metrics, remove_broker_metrics
from kafkalite.metrics.kafka_metrics_group import METRICS, Gauge, Histogram, Meter, MetricName
from kafkalite.utils.logging import Logging


def prometheus_name(name: MetricName) -> str:
    # Kafka's client-quota metrics (byte-rate) and LogCleaner gauges (max-dirty-percent) have dashes, which
    # Prometheus names cannot hold
    return f"{name.group.replace('.', '_')}_{name.type}_{name.name}".lower().replace("-", "_")


def prometheus_labels(label_names: list[str]) -> list[str]:
    """Tag names as Prometheus label names (``client-id`` → ``client_id``)."""
    return [k.replace("-", "_") for k in label_names]


class YammerCollector:
    """A prometheus-client collector reading kafkalite's MetricsRegistry at every scrape."""

    def __init__(self, registry=METRICS):
        self.registry = registry

    def collect(self):
        families: dict[str, list] = collections.defaultdict(list)
        for name, metric in self.registry.all_metrics():
            families[prometheus_name(name)].append((name, metric))
        for base, members in families.items():
            label_names = list(dict.fromkeys(k for n, _ in members for k, _ in n.tags))
            first = members[0][1]
            mbean = members[0][0]
            doc = f"{mbean.group}:type={mbean.type},name={mbean.name}"
            if isinstance(first, Meter):
                counter = CounterMetricFamily(base, doc + " (count)", labels=prometheus_labels(label_names))
                rate = GaugeMetricFamily(base + "_oneminuterate", doc + " (one-minute rate per second)",
                                         labels=prometheus_labels(label_names))
                for n, m in members:
                    labels = self._labels(n, label_names)
                    counter.add_metric(labels, m.count)
                    rate.add_metric(labels, m.one_minute_rate)
                yield counter
                yield rate
            elif isinstance(first, Histogram):
                summary = Metric(base, doc, "summary")
                for n, m in members:
                    tags = dict(n.tags)
                    for q, v in m.snapshot().items():
                        summary.add_sample(base, {**tags, "quantile": str(q)}, v)
                    summary.add_sample(base + "_count", tags, m.count)
                    summary.add_sample(base + "_sum", tags, m.sum)
                yield summary
            elif isinstance(first, Gauge):
                gauge = GaugeMetricFamily(base, doc, labels=prometheus_labels(label_names))
                for n, m in members:
                    try:
                        gauge.add_metric(self._labels(n, label_names), m.value())
                    except Exception:  # noqa: BLE001 -- a component shutting down
                        continue
                yield gauge

    @staticmethod
    def _labels(name: MetricName, label_names: list[str]) -> list[str]:
        tags = dict(name.tags)
        return [tags.get(k, "") for k in label_names]


class PrometheusReporter(Logging):
    """Serves the broker's metrics at http://127.0.0.1:<kafkalite.metrics.port>/metrics."""

    def __init__(self, server, registry=METRICS):
        self.server = server
        self.registry = registry
        self.port = server.config.metrics_port
        self.log_ident = f"[PrometheusReporter brokerId={server.config.broker_id}] "
        self._http = None
        self._thread = None
        self._names: list[MetricName] = []

    def start(self) -> None:
        self._names = register_broker_metrics(self.server, self.registry)
        self.registry.start_sampler()
        prometheus_registry = CollectorRegistry(auto_describe=False)
        prometheus_registry.register(YammerCollector(self.registry))
        self._http, self._thread = start_http_server(self.port, addr="127.0.0.1", registry=prometheus_registry)
        self.port = self._http.server_address[1]
        self.info(f"Serving metrics in Prometheus text format at http://127.0.0.1:{self.port}/metrics")

    def stop(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        self.registry.stop_sampler()
        remove_broker_metrics(self._names, self.registry)
        self._names = []
