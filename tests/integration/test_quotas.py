"""No Kafka counterpart (Kafka's BaseQuotaTest / ClientIdQuotaTest / UserQuotaTest cover the same ground in the JVM):
client quotas with real clients, against one broker process with a PLAINTEXT and a SASL_PLAINTEXT (PLAIN) listener.

- ``test_byte_rate_quotas_hold_clients_and_spare_others``: at the same time, a confluent-kafka producer and
  consumer with 1 MiB/s client-id quotas (``kafka-configs --entity-type clients``), a producer and consumer
  of the SASL PLAIN user alice with 1 MiB/s user quotas (``--entity-type users``), and an unthrottled
  producer and consumer. Over 20 s (after a 5 s warm-up: ``quota.window.num=5`` one-second windows, so the
  initial burst the rate window allows is behind us and 20 s holds four whole windows) each throttled
  client moves 1 MiB/s ± 20 %, sees ``throttle_time_ms`` (librdkafka's statistics: ``brokers.*.throttle``),
  the broker shows per-entity ``throttle-time`` / ``byte-rate`` metrics, and the unthrottled clients run at
  several MiB/s.
- ``test_quota_change_takes_effect_at_runtime``: a producer held to 256 KiB/s is let go by raising its quota
  with ``kafka-configs`` (AlterClientQuotas): no restart; and ``--describe`` shows the quotas.
- ``test_kafka_python_sees_throttle_time_in_its_metrics``: kafka-python's ``throttle-time-max`` metric.
The 20 s measurement is the assertion about the quota (bytes over a window), not a timing of code.
"""
from __future__ import annotations

import json
import threading
import time
import urllib.request
import uuid

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")

from harness import BrokerProcess, free_port, run_tool, wait_until  # noqa: E402
from clients import create_topic  # noqa: E402

MIB = 1 << 20
QUOTA = MIB
WARMUP_S, MEASURE_S = 5.0, 20.0
VALUE = b"q" * 1000
PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
              'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')
ALICE = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN", "sasl.username": "alice",
         "sasl.password": "alice-secret"}


@pytest.fixture(scope="module")
def quota_broker(tmp_path_factory):
    plain_port, sasl_port, metrics_port = free_port(), free_port(), free_port()
    b = BrokerProcess(tmp_path_factory.mktemp("quota-broker"), {
        "listeners": f"PLAINTEXT://127.0.0.1:{plain_port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "quota.window.num": "5", "quota.window.size.seconds": "1",
        "kafkalite.metrics.port": str(metrics_port),
        "offsets.topic.replication.factor": "1",
    }, port=plain_port)
    b.sasl_bootstrap = f"127.0.0.1:{sasl_port}"
    b.metrics_port = metrics_port
    b.start()
    try:
        yield b
    finally:
        b.stop()
        print(f"--- quota broker log:\n{b.log_tail(40)}")


def configs(broker, *args) -> str:
    return run_tool("kafka-configs", "--bootstrap-server", broker.bootstrap, *args).stdout


class Meter:
    """(time, bytes) of each message a client moved, and the largest throttle librdkafka reported."""

    def __init__(self):
        self.events: list[tuple[float, int]] = []
        self.max_throttle_ms = 0
        self.lock = threading.Lock()

    def add(self, n: int) -> None:
        with self.lock:
            self.events.append((time.monotonic(), n))

    def stats(self, raw: str) -> None:
        for broker in json.loads(raw).get("brokers", {}).values():
            self.max_throttle_ms = max(self.max_throttle_ms, broker.get("throttle", {}).get("max", 0))

    def rate(self, start: float, end: float) -> float:
        with self.lock:
            return sum(n for t, n in self.events if start <= t < end) / (end - start)


def run_producer(bootstrap, topic, client_id, meter, until, extra=None, max_bytes=None):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "client.id": client_id, "linger.ms": 5,
                                  "batch.size": 65536, "queue.buffering.max.kbytes": 2048,
                                  "message.timeout.ms": 120000, "statistics.interval.ms": 500,
                                  "stats_cb": meter.stats, **(extra or {})})
    sent = 0

    def delivered(err, msg):
        if err is None:
            meter.add(len(msg.value()))

    while time.monotonic() < until() and (max_bytes is None or sent < max_bytes):
        try:
            p.produce(topic, VALUE, callback=delivered)
            sent += len(VALUE)
        except BufferError:
            p.poll(0.05)
        p.poll(0)
    p.flush(30 if max_bytes else 0)
    p.poll(0.6)   # one more statistics callback


def run_consumer(bootstrap, topic, client_id, meter, until, extra=None, max_bytes=None):
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "client.id": client_id,
                                  "group.id": f"g-{uuid.uuid4().hex[:8]}", "enable.auto.commit": False,
                                  "max.partition.fetch.bytes": 262144, "statistics.interval.ms": 500,
                                  "stats_cb": meter.stats, **(extra or {})})
    c.assign([confluent_kafka.TopicPartition(topic, 0, confluent_kafka.OFFSET_BEGINNING)])
    got = 0
    try:
        while time.monotonic() < until() and (max_bytes is None or got < max_bytes):
            for m in c.consume(500, 0.2):
                if m.error() is None:
                    meter.add(len(m.value()))
                    got += len(m.value())
    finally:
        c.close()


def prefill(bootstrap, topic, nbytes):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap, "client.id": "prefill", "linger.ms": 20})
    for _ in range(nbytes // len(VALUE)):
        while True:
            try:
                p.produce(topic, VALUE)
                break
            except BufferError:
                p.poll(0.05)
    assert p.flush(60) == 0


def metrics_text(broker) -> str:
    return urllib.request.urlopen(f"http://127.0.0.1:{broker.metrics_port}/metrics", timeout=5).read().decode()


def test_byte_rate_quotas_hold_clients_and_spare_others(quota_broker):
    b = quota_broker
    for t in ("quota-in", "quota-data"):
        create_topic(b.bootstrap, t)
    prefill(b.bootstrap, "quota-data", 48 * MIB)   # read by three consumers at once, before any quota exists
    configs(b, "--entity-type", "clients", "--entity-name", "quota-producer", "--alter",
            "--add-config", f"producer_byte_rate={QUOTA}")
    configs(b, "--entity-type", "clients", "--entity-name", "quota-consumer", "--alter",
            "--add-config", f"consumer_byte_rate={QUOTA}")
    configs(b, "--entity-type", "users", "--entity-name", "alice", "--alter",
            "--add-config", f"producer_byte_rate={QUOTA},consumer_byte_rate={QUOTA}")
    described = configs(b, "--entity-type", "users", "--entity-name", "alice", "--describe")
    assert f"Quota configs for user-principal 'alice' are consumer_byte_rate={float(QUOTA)}, " \
           f"producer_byte_rate={float(QUOTA)}" in described

    meters = {name: Meter() for name in ("producer", "consumer", "alice-producer", "alice-consumer",
                                         "free-producer", "free-consumer")}
    start = time.monotonic()
    end = start + WARMUP_S + MEASURE_S
    stop_at = lambda: end   # noqa: E731
    threads = [
        threading.Thread(target=run_producer, args=(b.bootstrap, "quota-in", "quota-producer", meters["producer"],
                                                    stop_at)),
        threading.Thread(target=run_consumer, args=(b.bootstrap, "quota-data", "quota-consumer", meters["consumer"],
                                                    stop_at)),
        threading.Thread(target=run_producer, args=(b.sasl_bootstrap, "quota-in", "alice-producer",
                                                    meters["alice-producer"], stop_at, ALICE)),
        threading.Thread(target=run_consumer, args=(b.sasl_bootstrap, "quota-data", "alice-consumer",
                                                    meters["alice-consumer"], stop_at, ALICE)),
    ]
    for t in threads:
        t.start()
    # the unthrottled clients, while the others are held: a fixed amount, as fast as they can, inside the window
    time.sleep(WARMUP_S)   # noqa: not synchronisation -- the free clients start inside the measured window
    free = [threading.Thread(target=run_producer, args=(b.bootstrap, "quota-in", "free-producer",
                                                        meters["free-producer"], stop_at), kwargs={"max_bytes": 16 * MIB}),
            threading.Thread(target=run_consumer, args=(b.bootstrap, "quota-data", "free-consumer",
                                                        meters["free-consumer"], stop_at), kwargs={"max_bytes": 16 * MIB})]
    for t in free:
        t.start()
    for t in threads + free:
        t.join(WARMUP_S + MEASURE_S + 60)
        assert not t.is_alive()

    window = (start + WARMUP_S, start + WARMUP_S + MEASURE_S)
    report = {name: (round(m.rate(*window) / MIB, 3), m.max_throttle_ms) for name, m in meters.items()}
    print("MiB/s and max throttle_time_ms:", report)
    for name in ("producer", "consumer", "alice-producer", "alice-consumer"):
        rate, throttle = report[name]
        assert 0.8 <= rate <= 1.2, f"{name} moved {rate} MiB/s, its quota is 1 MiB/s: {report}"
        assert throttle > 0, f"{name} never saw throttle_time_ms: {report}"
    for name in ("free-producer", "free-consumer"):
        m = meters[name]
        moved = sum(n for _, n in m.events)
        took = m.events[-1][0] - m.events[0][0]
        assert moved >= 15 * MIB and moved / took > 3 * MIB, f"{name}: {moved} bytes in {took:.1f} s: {report}"
        assert m.max_throttle_ms == 0, report

    # per-entity metrics (Kafka's kafka.server:type=Produce|Fetch,user=..,client-id=.. throttle-time / byte-rate)
    lines = metrics_text(b).splitlines()

    def metric(name, user, client_id):
        return [line for line in lines if line.startswith(name + "{") and f'user="{user}"' in line
                and f'client_id="{client_id}"' in line]
    assert metric("kafka_server_produce_throttle_time", "", "quota-producer"), lines[-40:]
    assert metric("kafka_server_fetch_byte_rate", "alice", ""), lines[-40:]
    assert metric("kafka_server_produce_byte_rate", "alice", ""), lines[-40:]


def test_quota_change_takes_effect_at_runtime(quota_broker):
    b = quota_broker
    create_topic(b.bootstrap, "quota-runtime")
    low = 256 * 1024
    configs(b, "--entity-type", "clients", "--entity-name", "runtime-producer", "--alter",
            "--add-config", f"producer_byte_rate={low}")
    assert f"Quota configs for client-id 'runtime-producer' are producer_byte_rate={float(low)}" in \
        configs(b, "--entity-type", "clients", "--entity-name", "runtime-producer", "--describe")
    meter = Meter()
    deadline = [time.monotonic() + 60]
    t = threading.Thread(target=run_producer, args=(b.bootstrap, "quota-runtime", "runtime-producer", meter,
                                                    lambda: deadline[0]))
    t.start()
    try:
        wait_until(lambda: meter.max_throttle_ms > 0, 30, "the producer to be throttled at 256 KiB/s")
        held_from = time.monotonic()
        wait_until(lambda: time.monotonic() > held_from + 4, 10, "4 s of throttled producing")
        held = meter.rate(held_from, time.monotonic())
        configs(b, "--entity-type", "clients", "--entity-name", "runtime-producer", "--alter",
                "--add-config", f"producer_byte_rate={64 * MIB}")
        changed = time.monotonic()
        # no restart: within a few seconds the same connection runs far above the old quota
        wait_until(lambda: meter.rate(changed, time.monotonic()) > 4 * low and time.monotonic() > changed + 2, 20,
                   f"the producer to speed up past 1 MiB/s once its quota is raised (was {held / 1024:.0f} KiB/s)")
        assert held < 1.5 * low, f"{held / 1024:.0f} KiB/s under a 256 KiB/s quota"
    finally:
        deadline[0] = 0
        t.join(60)


def test_kafka_python_sees_throttle_time_in_its_metrics(quota_broker):
    """kafka-python reads throttle_time_ms from every response into its ``throttle-time`` sensor."""
    from kafka import KafkaProducer
    b = quota_broker
    create_topic(b.bootstrap, "quota-kp")
    configs(b, "--entity-type", "clients", "--entity-name", "kp-producer", "--alter",
            "--add-config", "producer_byte_rate=65536")
    producer = KafkaProducer(bootstrap_servers=b.bootstrap, client_id="kp-producer", linger_ms=5)
    try:
        for _ in range(1500):   # 1.5 MB: far past what 4 windows of 64 KiB/s allow
            producer.send("quota-kp", VALUE)
        wait_until(lambda: producer.metrics().get("producer-metrics", {}).get("throttle-time-max", 0) > 0, 30,
                   "kafka-python to report a throttle time")
    finally:
        try:
            producer.close(timeout=0)   # the rest of the 1.5 MB is dropped
        except Exception:  # noqa: BLE001 -- kafka-python's close(0) raises KafkaTimeoutError with records unsent
            pass


def test_request_quota_throttle_time_in_every_api_that_has_the_field(quota_broker):
    """``request_percentage``: once a client id's handler time is over its share, each response version with a
    ``throttle_time_ms`` field carries the throttle (at most one quota window), whatever the API."""
    from harness import RawConnection
    from clients import raw_request
    from kafkalite.protocol.messages import api_versions, find_coordinator, metadata
    b = quota_broker
    configs(b, "--entity-type", "clients", "--entity-name", "kafkalite-raw-test", "--alter",
            "--add-config", "request_percentage=0.001")
    calls = [(18, 2, api_versions.ApiVersionsRequest()),
             (3, 4, metadata.MetadataRequest(topics=[], allow_auto_topic_creation=False)),
             (10, 1, find_coordinator.FindCoordinatorRequest(key="g", key_type=0))]
    with RawConnection(int(b.bootstrap.rsplit(":", 1)[1]), timeout=30) as conn:
        # metadata v0 has no throttle field: answered all the same, and its time counts
        raw_request(conn, 3, 0, metadata.MetadataRequest(topics=[]), correlation_id=1)
        wait_until(lambda: raw_request(conn, 3, 4, metadata.MetadataRequest(topics=[],
                                                                            allow_auto_topic_creation=False),
                                       correlation_id=2).throttle_time_ms > 0, 20, "a throttled Metadata")
        for i, (api_key, version, body) in enumerate(calls, start=3):
            throttle = raw_request(conn, api_key, version, body, correlation_id=i).throttle_time_ms
            assert 0 < throttle <= 1000, (api_key, version, throttle)
    configs(b, "--entity-type", "clients", "--entity-name", "kafkalite-raw-test", "--alter",
            "--delete-config", "request_percentage")
