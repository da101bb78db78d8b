"""Issue 6, "Done when" 5 (S7): scrape the Prometheus endpoint and find Kafka's metric names, with
values that move the way they should under load: while the one request-handler thread is held and
the data plane's queue (queued.max.requests=2) is full, RequestQueueSize rises to 2 and
RequestHandlerAvgIdlePercent and NetworkProcessorAvgIdlePercent fall towards 0 (they are computed
over the last 5 seconds). Produced bytes and messages show in BrokerTopicMetrics."""
import struct
import threading
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from harness import RawConnection, free_port, wait_until

pytestmark = pytest.mark.timeout(120)

S7 = ["kafka_network_socketserver_networkprocessoravgidlepercent",
      "kafka_network_requestchannel_requestqueuesize",
      "kafka_network_requestchannel_responsequeuesize",
      "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent",
      "kafka_network_requestmetrics_requestspersec",
      "kafka_network_requestmetrics_totaltimems", "kafka_network_requestmetrics_requestqueuetimems",
      "kafka_network_requestmetrics_localtimems", "kafka_network_requestmetrics_remotetimems",
      "kafka_network_requestmetrics_responsequeuetimems", "kafka_network_requestmetrics_responsesendtimems",
      "kafka_server_brokertopicmetrics_bytesinpersec", "kafka_server_brokertopicmetrics_bytesoutpersec",
      "kafka_server_brokertopicmetrics_messagesinpersec",
      "kafka_server_replicamanager_isrshrinkspersec", "kafka_server_replicamanager_isrexpandspersec"]


def scrape(port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples, name, default=None, **labels):
    key = (name, tuple(sorted(labels.items())))
    return samples[key] if default is None else samples.get(key, default)


@pytest.fixture
def server(tmp_path):
    from kafkalite.server.kafka_config import KafkaConfig
    from kafkalite.server.kafka_server import KafkaServer
    s = KafkaServer(KafkaConfig.from_props({
        "broker.id": 0, "log.dirs": str(tmp_path / "logs"), "listeners": "PLAINTEXT://127.0.0.1:0",
        "num.io.threads": 1, "num.network.threads": 1, "queued.max.requests": 2,
        "offsets.topic.replication.factor": 1, "kafkalite.metrics.port": free_port()}))
    s.startup()
    yield s
    s.shutdown()


def test_metric_names_of_s7_and_values_that_move_under_load(server):
    port = server.metrics_reporter.port
    # the registry is the process's (as Yammer's is the JVM's): other tests' requests may be counted
    produce_before = value(scrape(port), "kafka_network_requestmetrics_requestspersec_total", 0.0, request="Produce")
    from confluent_kafka import Consumer, Producer, TopicPartition
    p = Producer({"bootstrap.servers": f"127.0.0.1:{server.bound_port()}", "linger.ms": 0})
    for i in range(10):
        p.produce("metered", b"x" * 100)
        p.flush(15)
    c = Consumer({"bootstrap.servers": f"127.0.0.1:{server.bound_port()}", "group.id": "g", "enable.auto.commit": False})
    c.assign([TopicPartition("metered", 0, 0)])
    got = 0
    for _ in range(50):
        got += len(c.consume(10, timeout=0.5))
        if got >= 10:
            break
    c.close()
    assert got == 10
    before = wait_until(lambda: (lambda s: s if (
        value(s, "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent") > 0.5
        and value(s, "kafka_network_requestmetrics_requestspersec_total", 0.0, request="Produce") == produce_before + 10
        # a client's background request (metadata, fetch) may sit in the queue for a moment: wait for it to drain
        and value(s, "kafka_network_requestchannel_requestqueuesize") == 0)
        else None)(scrape(port)), 15, "an idle handler pool, an empty request queue and the 10 produce requests counted")
    names = {name for name, _ in before}
    for n in S7:
        assert n in names or n + "_total" in names, n
    assert value(before, "kafka_server_brokertopicmetrics_messagesinpersec_total", topic="metered") == 10
    assert value(before, "kafka_server_brokertopicmetrics_bytesinpersec_total", topic="metered") > 1000
    assert value(before, "kafka_server_brokertopicmetrics_bytesoutpersec_total", topic="metered") > 1000
    assert value(before, "kafka_network_requestmetrics_totaltimems_count", request="Produce") >= 10
    assert value(before, "kafka_server_replicamanager_isrshrinkspersec_total") == 0
    assert value(before, "kafka_network_requestchannel_requestqueuesize") == 0
    # the fetch session cache's metrics (KIP-227); librdkafka fetches without a session, so none is cached
    # (tests/integration/test_fetch_sessions.py and test_replication.py see them filled)
    assert value(before, "kafka_server_fetchsessioncache_numincrementalfetchsessions") == 0
    assert value(before, "kafka_server_fetchsessioncache_numincrementalfetchpartitionscached") == 0
    assert value(before, "kafka_server_fetchsessioncache_incrementalfetchsessionevictionspersec_total") == 0

    # Load: hold the only handler thread and fill the queue behind it.
    apis = server.data_plane_request_processor
    release, original = threading.Event(), apis.handle
    apis.handle = lambda r: (release.wait(60) if r.header.client_id == "blocker" else None, original(r))
    conns = []
    try:
        for i in range(4):
            c = RawConnection(server.bound_port())
            c.send_frame(struct.pack(">hhih", 18, 0, i, 7) + b"blocker")
            conns.append(c)
        under_load = wait_until(lambda: (lambda s: s if (
            value(s, "kafka_network_requestchannel_requestqueuesize") == 2
            and value(s, "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent") < 0.2
            and value(s, "kafka_network_socketserver_networkprocessoravgidlepercent") < 0.2) else None)(scrape(port)),
            20, "queue size up and idle percentages down")
        assert value(under_load, "kafka_network_requestchannel_requestqueuesize") == 2
    finally:
        release.set()
    for c in conns:
        c.recv_frame()
        c.close()
    wait_until(lambda: value(scrape(port), "kafka_network_requestchannel_requestqueuesize") == 0, 10, "queue drained")
