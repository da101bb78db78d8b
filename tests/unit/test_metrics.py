"""Tests of kafkalite/metrics (Kafka's KafkaMetricsGroup and the Yammer classes it uses, the
Prometheus export). Kafka has no unit test of Yammer itself; these check what the broker relies on:
names as Kafka's MBeans, meter counts and rates, histogram percentiles, idle ratios over a window."""
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from kafkalite.metrics.kafka_metrics_group import (Histogram, Meter, MetricName, MetricsGroup, MetricsRegistry,
                                                   WindowedRatioGauge)
from kafkalite.metrics.prometheus_reporter import YammerCollector, prometheus_name
from kafkalite.metrics.request_metrics import TIME_METRICS, RequestMetrics


class FakeClock:
    def __init__(self, t=0.0):
        self.t = t

    def __call__(self):
        return self.t


def test_metric_name_is_kafkas_mbean_name():
    n = MetricName("kafka.network", "RequestMetrics", "TotalTimeMs", (("request", "Produce"),))
    assert n.mbean_name == "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce"
    assert prometheus_name(n) == "kafka_network_requestmetrics_totaltimems"


def test_meter_counts_and_one_minute_rate_follows_yammer():
    clock = FakeClock()
    m = Meter(clock=clock)
    m.mark(50)
    assert m.count == 50 and m.one_minute_rate == 0.0   # no 5 s tick yet
    clock.t = 5.0
    assert m.one_minute_rate == 10.0                     # first tick: the instant rate 50/5
    clock.t = 65.0                                       # a minute of silence decays it
    assert 0 < m.one_minute_rate < 10.0 * 0.4


def test_histogram_percentiles_count_and_sum():
    h = Histogram()
    for v in range(1, 101):
        h.update(float(v))
    assert h.count == 100 and h.sum == 5050.0
    assert h.percentile(0.5) == 50.0 and h.percentile(0.99) == 99.0
    assert h.snapshot()[0.999] == 100.0


def test_windowed_ratio_forgets_the_past():
    now = [0]
    idle = [0]
    g = WindowedRatioGauge(lambda: idle[0], lambda: 2, window_s=5.0, clock=lambda: now[0])
    for _ in range(10):   # 10 s fully idle, two threads
        now[0] += 1_000_000_000
        idle[0] += 2_000_000_000
        g.sample()
    assert g.value() == 1.0
    for _ in range(6):    # then 6 s fully busy: the window holds only busy time
        now[0] += 1_000_000_000
        g.sample()
    assert g.value() == 0.0


def test_registry_returns_the_same_meter_and_newest_gauge():
    reg = MetricsRegistry()
    group = MetricsGroup("kafka.server", "BrokerTopicMetrics", reg)
    assert group.new_meter("BytesInPerSec") is group.new_meter("BytesInPerSec")
    group.new_gauge("G", lambda: 1)
    group.new_gauge("G", lambda: 2)
    assert reg.get("kafka.server:type=BrokerTopicMetrics,name=G").value() == 2.0
    group.remove_metric("G")
    assert reg.get("kafka.server:type=BrokerTopicMetrics,name=G") is None


def test_prometheus_text_has_meters_histograms_and_gauges(monkeypatch):
    reg = MetricsRegistry()
    monkeypatch.setattr(RequestMetrics, "metrics_registry", reg)
    rm = RequestMetrics("Produce")
    rm.update({m: 2.0 for m in TIME_METRICS})
    rm.update({m: 4.0 for m in TIME_METRICS})
    MetricsGroup("kafka.network", "RequestChannel", reg).new_gauge("RequestQueueSize", lambda: 7)
    prom = CollectorRegistry(auto_describe=False)
    prom.register(YammerCollector(reg))
    families = {f.name: f for f in text_string_to_metric_families(generate_latest(prom).decode())}
    rate = families["kafka_network_requestmetrics_requestspersec"]
    assert rate.type == "counter"
    assert [(s.labels, s.value) for s in rate.samples if s.name.endswith("_total")] == [({"request": "Produce"}, 2.0)]
    total = {(s.name, s.labels.get("quantile")): s.value for s in families["kafka_network_requestmetrics_totaltimems"].samples}
    assert total[("kafka_network_requestmetrics_totaltimems_count", None)] == 2
    assert total[("kafka_network_requestmetrics_totaltimems_sum", None)] == 6.0
    assert total[("kafka_network_requestmetrics_totaltimems", "0.99")] == 4.0
    assert families["kafka_network_requestchannel_requestqueuesize"].samples[0].value == 7.0
