"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/network/SocketServerTest.scala (the Processor's loop):
the six phases of one turn in Kafka's order (S3), a failing turn that does not end the loop, and the
Acceptor's hand-off waking a Processor that is blocked in select (S10)."""
import socket
import threading

from kafkalite.network.request_channel import RequestChannel
from kafkalite.network.socket_server import ConnectionQuotas, Processor
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.utils.time import SYSTEM

PHASES = ["configure_new_connections", "process_new_responses", "poll", "process_completed_receives",
          "process_completed_sends", "process_disconnected"]


def new_processor() -> Processor:
    config = KafkaConfig.from_props({"listeners": "PLAINTEXT://127.0.0.1:0"})
    quotas = ConnectionQuotas(config)
    quotas.add_listener("PLAINTEXT")
    return Processor(0, SYSTEM, 1 << 20, RequestChannel(10, "test"), quotas, -1, "PLAINTEXT", "PLAINTEXT")


def run_turns(processor: Processor, turns: int, fail_in: str | None = None) -> list[str]:
    """Run ``processor.run`` with every phase recording its name; stop after ``turns`` turns."""
    calls = []
    failed = []
    for name in PHASES:
        def phase(name=name):
            calls.append(name)
            if name == fail_in and not failed:
                failed.append(name)
                raise RuntimeError("a phase failed")
            if name == PHASES[-1] and calls.count(name) >= turns:
                processor.initiate_shutdown()
        setattr(processor, name, phase)
    thread = threading.Thread(target=processor.run, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the processor did not stop"
    return calls


def test_run_calls_the_six_phases_in_kafkas_order():
    assert run_turns(new_processor(), 2) == PHASES * 2


def test_a_failing_turn_does_not_end_the_loop():
    calls = run_turns(new_processor(), 1, fail_in="poll")
    assert calls[:3] == PHASES[:3], "the turn should stop at the failing phase"
    assert calls[3:] == PHASES, "the loop must go on with the next turn"


def test_accept_wakes_a_processor_blocked_in_select():
    processor = new_processor()
    real_poll = processor.selector.poll
    processor.selector.poll = lambda timeout_ms: real_poll(60_000 if timeout_ms else 0)   # block for a minute
    thread = threading.Thread(target=processor.run, daemon=True)
    thread.start()
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    accepted, address = server.accept()
    try:
        done = threading.Event()
        real_register = processor.selector.register

        def register(connection_id, sock):
            real_register(connection_id, sock)
            done.set()
        processor.selector.register = register
        processor.accept(accepted, address)
        # Without wakeup() the processor would notice the connection only when select returns, a minute on.
        assert done.wait(10), "the new connection was not registered: accept() did not wake the selector"
    finally:
        processor.initiate_shutdown()
        processor.wakeup()
        thread.join(10)
        client.close()
        server.close()


def test_an_idle_processor_counts_its_select_wait_as_idle():
    """S7: NetworkProcessorAvgIdlePercent is the time spent waiting in select (Kafka's io-wait-ratio)."""
    import time
    processor = new_processor()
    thread = threading.Thread(target=processor.run, daemon=True)
    start = time.monotonic_ns()
    thread.start()
    try:
        time.sleep(0.5)   # measuring an idle interval, not waiting for an event
        elapsed = time.monotonic_ns() - start
        assert processor.idle_nanos / elapsed > 0.5, f"idle {processor.idle_nanos / elapsed:.2f} of the time"
    finally:
        processor.initiate_shutdown()
        processor.wakeup()
        thread.join(10)


def test_connection_id_round_trips_through_its_string_form():
    from kafkalite.network.socket_server import ConnectionId
    cid = ConnectionId("127.0.0.1", 9092, "::1", 51234, 7)
    assert str(cid) == "127.0.0.1:9092-::1:51234-7"
    assert ConnectionId.from_string(str(cid)) == cid


def test_a_processor_is_a_data_plane_one_unless_told_otherwise():
    # the control plane (S21) is opt-in: its requests are tagged from_control_plane and its thread says so
    processor = new_processor()
    assert not processor.control_plane
    assert processor.log_ident.startswith("[data-plane-kafka-network-thread-0-PLAINTEXT-PLAINTEXT-0]")


def test_starting_the_processors_twice_starts_them_once():
    # Kafka: Acceptor.startProcessors is guarded by processorsStarted (SocketServer.startProcessingRequests may
    # be called again, e.g. by a second startup path)
    from kafkalite.network.socket_server import SocketServer
    config = KafkaConfig.from_props({"listeners": "PLAINTEXT://127.0.0.1:0", "num.network.threads": "1"})
    server = SocketServer(config, SYSTEM)
    server.startup(start_processing_requests=False)
    try:
        server.start_processing_requests()
        server.start_processing_requests()        # a second Thread.start() would raise RuntimeError
        assert sum(1 for t in threading.enumerate() if t.name.startswith("data-plane-kafka-network-thread")) == 1
    finally:
        server.shutdown()


class _Request:
    def __init__(self):
        self.metrics_updates = 0

    def update_request_metrics(self, network_thread_time_nanos: int = 0) -> None:
        self.metrics_updates += 1


class _Response:
    def __init__(self):
        self.request = _Request()


def test_a_response_in_flight_when_its_connection_goes_still_updates_the_request_metrics():
    # Kafka: Processor.processDisconnected and close(connectionId) --
    # inflightResponses.remove(connectionId).foreach(updateRequestMetrics)
    processor = new_processor()
    gone, closed = "127.0.0.1:9092-127.0.0.1:50001-0", "127.0.0.1:9092-127.0.0.1:50002-0"
    for cid in (gone, closed):
        processor.connection_quotas.inc("PLAINTEXT", "127.0.0.1")
        processor.inflight_responses[cid] = _Response()
    by_peer, by_us = processor.inflight_responses[gone], processor.inflight_responses[closed]
    processor.selector.disconnected[gone] = None
    processor.process_disconnected()
    assert by_peer.request.metrics_updates == 1 and gone not in processor.inflight_responses
    processor.open_or_closing_channel = lambda cid: object()
    processor.selector.close_connection = lambda cid: None
    processor.close(closed)
    assert by_us.request.metrics_updates == 1 and closed not in processor.inflight_responses
