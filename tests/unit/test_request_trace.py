"""The request trace (kafkalite's, issue 6 item 5): with ``kafkalite.request.trace=true`` (which sets
``kafka.request.logger`` to DEBUG) one produce request's trip is logged hop by hop, in order, each
hop on the thread Kafka's design puts it on. No Kafka counterpart test: Kafka's request log prints
only the time breakdown (RequestChannel.updateRequestMetrics)."""
import logging
import re

import pytest
from support import wait_until

from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.kafka_server import KafkaServer

HOPS = ["read", "queued", "dequeued", "handler", "response-queued", "response-dequeued", "sent"]


class Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture
def traced_broker(tmp_path):
    logger = logging.getLogger("kafka.request.logger")
    old_level = logger.level
    capture = Capture()
    logger.addHandler(capture)
    server = KafkaServer(KafkaConfig.from_props({
        "broker.id": 0, "listeners": "PLAINTEXT://127.0.0.1:0", "log.dirs": str(tmp_path / "logs"),
        "kafkalite.request.trace": "true", "offsets.topic.replication.factor": 1, "num.network.threads": 1}))
    server.startup()
    yield server, capture
    server.shutdown()
    logger.removeHandler(capture)
    logger.setLevel(old_level)


def await_lines(capture, prefix, timeout=10.0):
    """The trace line is logged once the Processor has sent the response -- possibly just after the
    client has read it -- so wait (bounded) for it to appear."""
    return wait_until(lambda: [line for line in capture.lines if line.startswith(prefix)], timeout,
                      f"a '{prefix}' line", interval=0.01)


def hops_of(line):
    """[(hop, thread, ms, detail)] from one 'Request trace' line."""
    return [(m.group(1), m.group(2), float(m.group(3)), m.group(4) or "")
            for m in re.finditer(r"([\w-]+)\[(\S+) \+([\d.]+)ms(?: ([^\]]*))?\]", line.split(": ", 1)[1])]


@pytest.mark.timeout(60)
def test_one_produce_request_shows_every_hop_in_order_with_thread_names(traced_broker):
    server, capture = traced_broker
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": f"127.0.0.1:{server.bound_port()}", "acks": "all",
                  "enable.idempotence": False})
    errors = []
    server.admin_manager.admin_zk_client.create_topic("traced", 1, 1)
    assert server.metadata_cache.wait_for(lambda c: c.contains("traced"), 10)
    p.produce("traced", b"hello", on_delivery=lambda err, msg: errors.append(err))
    assert p.flush(20) == 0 and errors == [None], errors
    produce = await_lines(capture, "Request trace: PRODUCE")
    assert produce, capture.lines[-5:]
    hops = hops_of(produce[-1])
    names = [h[0] for h in hops]
    # acks=all on a single broker: the DelayedProduce is created and completed at once, inside the
    # handler -- the trace shows no purgatory wait. Every other hop, in Kafka's order:
    assert [n for n in names if n != "accepted"] == HOPS, names
    threads = {h[0]: h[1] for h in hops}
    network = "data-plane-kafka-network-thread-0-PLAINTEXT-PLAINTEXT-0"
    assert threads["read"] == threads["queued"] == threads["response-dequeued"] == threads["sent"] == network
    assert threads["dequeued"].startswith("data-plane-kafka-request-handler-")
    assert threads["handler"] == threads["response-queued"] == threads["dequeued"]
    assert dict((h[0], h[3]) for h in hops)["handler"] == "KafkaApis.handle PRODUCE"
    times = [h[2] for h in hops]
    assert times == sorted(times)


@pytest.mark.timeout(60)
def test_first_request_of_a_connection_starts_at_the_acceptor(traced_broker):
    server, capture = traced_broker
    from confluent_kafka.admin import AdminClient
    AdminClient({"bootstrap.servers": f"127.0.0.1:{server.bound_port()}"}).list_topics(timeout=10)
    first = await_lines(capture, "Request trace: API_VERSIONS")
    assert first
    hops = hops_of(first[0])
    assert hops[0][0] == "accepted" and hops[0][1].startswith("data-plane-kafka-socket-acceptor-PLAINTEXT-PLAINTEXT-")
    assert hops[1][0] == "read"


def test_no_hops_are_collected_when_the_logger_is_above_debug(tmp_path):
    from kafkalite.network.request_channel import Request, RequestContext, request_logger
    from kafkalite.protocol.request_header import RequestHeader
    old = request_logger.level
    request_logger.setLevel(logging.INFO)
    try:
        payload = memoryview(b"\x00\x12\x00\x00\x00\x00\x00\x07\x00\x01x")   # ApiVersions v0 header
        header, offset = RequestHeader.parse(payload)
        req = Request(0, RequestContext(header, "c", "127.0.0.1", "PLAINTEXT"), 0, payload, offset)
        req.trace.hop("read")
        assert not req.trace.enabled and req.trace.line() == ""
    finally:
        request_logger.setLevel(old)
