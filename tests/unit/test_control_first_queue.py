"""No Kafka counterpart: S27's priority queue, ``kafkalite.request.priority=control-first``. Control
requests (ApiKeys.cluster_action) leave the data plane's request queue before any other, each class in
arrival order; the queue stays bounded; the default stays Kafka's FIFO."""
import queue

from kafkalite.network.control_first_queue import ControlFirstQueue
from kafkalite.network.request_channel import RequestChannel
from kafkalite.network.request_trace import NO_TRACE
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.server.kafka_config import KafkaConfig


class Req:
    trace = NO_TRACE

    def __init__(self, api_key, name):
        self.api_key, self.name, self.processor = api_key, name, 0


def test_control_requests_go_first_each_class_in_order():
    channel = RequestChannel(10, control_first=True)
    for r in [Req(ApiKeys.PRODUCE, "p1"), Req(ApiKeys.FETCH, "f1"), Req(ApiKeys.LEADER_AND_ISR, "lai"),
              Req(ApiKeys.PRODUCE, "p2"), Req(ApiKeys.UPDATE_METADATA, "um")]:
        channel.send_request(r)
    assert [channel.receive_request(100).name for _ in range(5)] == ["lai", "um", "p1", "f1", "p2"]


def test_the_queue_stays_bounded():
    q = ControlFirstQueue(2)
    q.put(Req(ApiKeys.PRODUCE, "a"))
    q.put(Req(ApiKeys.PRODUCE, "b"))
    try:
        q.put(Req(ApiKeys.LEADER_AND_ISR, "c"), block=False)
        raise AssertionError("a full queue took another request")
    except queue.Full:
        pass


def test_the_broker_config_chooses_the_queue():
    assert not isinstance(RequestChannel(5).request_queue, ControlFirstQueue)
    config = KafkaConfig.from_props({"kafkalite.request.priority": "control-first"})
    assert config.get("kafkalite.request.priority") == "control-first"
    from kafkalite.network.socket_server import SocketServer
    assert isinstance(SocketServer(config).data_plane_request_channel.request_queue, ControlFirstQueue)
