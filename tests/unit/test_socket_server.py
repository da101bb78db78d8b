"""SocketServerTest: the broker's network threads over real loopback sockets (S1-S4, S10-S17, S20-S24, S49).

A SocketServer is built from a KafkaConfig (``listeners=PLAINTEXT://127.0.0.1:0``,
``num.network.threads=2``); a FakeHandler thread stands in for KafkaRequestHandler: it takes requests
from ``data_plane_request_channel`` and, per correlation id, answers ApiVersions with
``Response.for_body``, answers with NoOpAction or CloseConnectionAction, or holds the request for the
test to answer later. Clients are plain blocking sockets speaking the wire protocol.
"""
from __future__ import annotations

import logging
import queue
import socket
import struct
import threading
import time

import pytest
from support import recv_exact, wait_until

from kafkalite.network.request_channel import CloseConnectionAction, NoOpAction, Request, Response
from kafkalite.network.socket_server import SocketServer
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.messages.api_versions import ApiVersion, ApiVersionsRequest, ApiVersionsResponse
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_response, serialize_request
from kafkalite.server.kafka_config import KafkaConfig

pytestmark = pytest.mark.timeout(60)

WAIT_S = 5.0          # bound for anything that should happen
QUIET_S = 0.4         # how long we watch for something that must not happen
API_VERSION = 2


# ------------------------------------------------------------------ wire helpers
def request_bytes(correlation_id: int, version: int = API_VERSION) -> bytes:
    header = RequestHeader(api_key=ApiKeys.API_VERSIONS.id, api_version=version, correlation_id=correlation_id,
                           client_id="socket-server-test")
    payload = serialize_request(header, ApiVersionsRequest())
    return struct.pack(">i", len(payload)) + payload


def read_response(sock, version: int = API_VERSION) -> tuple[int, ApiVersionsResponse]:
    size = struct.unpack(">i", recv_exact(sock, 4))[0]
    return parse_response(ApiKeys.API_VERSIONS, version, recv_exact(sock, size))


def assert_closed_by_broker(sock) -> None:
    sock.settimeout(WAIT_S)
    try:
        data = sock.recv(100)
    except ConnectionResetError:
        return
    assert data == b"", f"expected the broker to close the connection, got {data!r}"


def assert_no_response(sock) -> None:
    sock.settimeout(QUIET_S)
    with pytest.raises(socket.timeout):
        sock.recv(100)
    sock.settimeout(WAIT_S)


def wait_for(cond, what: str) -> None:
    wait_until(cond, WAIT_S, what, interval=0.005)


BODY = ApiVersionsResponse(error_code=0, api_keys=[ApiVersion(api_key=18, min_version=0, max_version=4)])


class FakeHandler(threading.Thread):
    """Takes requests from a RequestChannel. ``actions[correlation_id]`` says what to do: "send" (default),
    "noop", "close" or "hold" (kept in ``held`` for the test). Every request taken is put on ``received``."""

    def __init__(self, channel):
        super().__init__(name="fake-request-handler", daemon=True)
        self.channel = channel
        self.actions: dict[int, str] = {}
        self.received: queue.Queue = queue.Queue()
        self.held: dict[int, Request] = {}
        self.running = threading.Event()
        self.running.set()
        self._paused = threading.Event()
        self._stopping = threading.Event()

    def run(self):
        while not self._stopping.is_set():
            if not self.running.is_set():
                self._paused.set()
                self.running.wait(0.05)
                continue
            self._paused.clear()
            req = self.channel.receive_request(50)
            if not isinstance(req, Request):
                continue
            self.received.put(req)
            action = self.actions.get(req.header.correlation_id, "send")
            if action == "hold":
                self.held[req.header.correlation_id] = req
            else:
                self.answer(req, action)

    def answer(self, req: Request, action: str = "send") -> None:
        if action == "send":
            self.channel.send_response(Response.for_body(req, BODY))
        elif action == "noop":
            self.channel.send_response(Response(req, None, NoOpAction))
        elif action == "close":
            self.channel.send_response(Response(req, None, CloseConnectionAction))

    def pause(self) -> None:
        """Stop taking requests; returns once the handler is no longer inside receive_request."""
        self.running.clear()
        assert self._paused.wait(WAIT_S), "handler did not pause"

    def next_request(self) -> Request:
        try:
            return self.received.get(timeout=WAIT_S)
        except queue.Empty:
            raise AssertionError("no request reached the handler") from None

    def assert_nothing_received(self) -> None:
        try:
            req = self.received.get(timeout=QUIET_S)
        except queue.Empty:
            return
        raise AssertionError(f"unexpected request {req.request_desc()}")

    def stop(self):
        self._stopping.set()
        self.running.set()
        self.join(WAIT_S)


class Broker:
    """A started SocketServer, its FakeHandler and the client sockets a test opened."""

    def __init__(self, tmp_path, start_processing_requests=True, **extra):
        props = {"broker.id": "0", "listeners": "PLAINTEXT://127.0.0.1:0", "num.network.threads": "2",
                 "log.dirs": str(tmp_path), **extra}
        self.config = KafkaConfig.from_props(props)
        self.server = SocketServer(self.config)
        self.server.startup(start_processing_requests=start_processing_requests)
        self.handler = FakeHandler(self.server.data_plane_request_channel)
        self.handler.start()
        self.clients: list[socket.socket] = []

    def port(self, listener: str = "PLAINTEXT") -> int:
        return self.server.bound_port(listener)

    def connect(self, listener: str = "PLAINTEXT") -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port(listener)), timeout=WAIT_S)
        self.clients.append(sock)
        return sock

    def round_trip(self, sock, correlation_id: int) -> Request:
        sock.sendall(request_bytes(correlation_id))
        req = self.handler.next_request()
        assert req.header.correlation_id == correlation_id
        corr, body = read_response(sock)
        assert corr == correlation_id and body == BODY
        return req

    def close(self):
        self.handler.actions.clear()
        for req in list(self.handler.held.values()):   # never leave a processor waiting at shutdown
            self.handler.answer(req, "noop")
        self.handler.running.set()
        for c in self.clients:
            c.close()
        try:
            self.server.shutdown()
        finally:
            self.handler.stop()


@pytest.fixture
def make_broker(tmp_path):
    brokers = []

    def make(**kwargs) -> Broker:
        b = Broker(tmp_path, **kwargs)
        brokers.append(b)
        return b

    yield make
    for b in brokers:
        b.close()


def thread_names() -> set[str]:
    return {t.name for t in threading.enumerate()}


# ------------------------------------------------------------------ threads, ids, round robin
def test_thread_names_are_kafkas(make_broker):
    b = make_broker()
    port = b.port()
    names = thread_names()
    assert f"data-plane-kafka-socket-acceptor-PLAINTEXT-PLAINTEXT-{port}" in names
    assert {"data-plane-kafka-network-thread-0-PLAINTEXT-PLAINTEXT-0",
            "data-plane-kafka-network-thread-0-PLAINTEXT-PLAINTEXT-1"} <= names
    assert not any(n.startswith("control-plane-") for n in names)
    assert sorted(b.server.data_plane_processors) == [0, 1]
    assert b.server.control_plane_request_channel_opt is None


def test_connections_go_round_robin_with_kafka_connection_ids(make_broker):
    b = make_broker()
    port = b.port()
    seen = []
    for i in range(4):
        sock = b.connect()
        req = b.round_trip(sock, 100 + i)
        local_port = sock.getsockname()[1]
        seen.append((req.processor, req.context.connection_id, local_port))
    assert [p for p, _, _ in seen] == [0, 1, 0, 1]
    # Kafka: ConnectionId(localHost, localPort, remoteHost, remotePort, index); the index counts per Processor
    expected_index = [0, 0, 1, 1]
    for (proc, cid, client_port), index in zip(seen, expected_index):
        assert cid == f"127.0.0.1:{port}-127.0.0.1:{client_port}-{index}"
    req = b.round_trip(b.clients[0], 200)
    assert req.context.listener_name == "PLAINTEXT" and req.context.security_protocol == "PLAINTEXT"
    assert req.context.client_address == "127.0.0.1" and req.header.client_id == "socket-server-test"


# ------------------------------------------------------------------ ordering (S12-S16)
def test_pipelined_requests_are_handed_over_one_at_a_time(make_broker):
    b = make_broker()
    b.handler.actions[1] = "hold"
    slow = b.connect()
    slow.sendall(request_bytes(1) + request_bytes(2))      # pipelined in one write
    first = b.handler.next_request()
    assert first.header.correlation_id == 1
    processor = b.server.data_plane_processors[first.processor]
    cid = first.context.connection_id
    wait_for(lambda: processor.num_staged_receives(cid) == 1, "the second request to be staged")

    other = b.connect()                                       # served while the first is held
    b.round_trip(other, 50)
    b.handler.assert_nothing_received()                       # request 2 stays staged: the connection is muted
    assert b.server.data_plane_request_channel.request_queue_size() == 0
    assert processor.num_staged_receives(cid) == 1

    b.handler.answer(b.handler.held.pop(1))
    assert read_response(slow)[0] == 1
    second = b.handler.next_request()
    assert second.header.correlation_id == 2 and second.context.connection_id == cid
    assert read_response(slow)[0] == 2


def test_noop_action_unmutes_without_writing(make_broker):
    b = make_broker()
    b.handler.actions[1] = "noop"
    sock = b.connect()
    sock.sendall(request_bytes(1) + request_bytes(2))
    assert b.handler.next_request().header.correlation_id == 1
    assert b.handler.next_request().header.correlation_id == 2   # unmuted by the NoOp
    corr, _ = read_response(sock)
    assert corr == 2                                             # nothing was written for request 1
    assert_no_response(sock)


def test_close_connection_action_closes(make_broker):
    b = make_broker()
    b.handler.actions[1] = "close"
    sock = b.connect()
    sock.sendall(request_bytes(1))
    assert b.handler.next_request().header.correlation_id == 1
    assert_closed_by_broker(sock)
    wait_for(lambda: b.server.connection_quotas.get("127.0.0.1") == 0, "the connection count to drop")
    b.round_trip(b.connect(), 2)


@pytest.mark.parametrize("payload", [
    b"\x7f\x7f\x00\x00\x00\x00\x00\x01garbage",          # unknown api key
    b"\x00",                                              # too short for a header
    b"\x00\x12\x00\x02\x00\x00\x00\x01\x7f\xff",          # ApiVersions v2, client_id length beyond the frame
], ids=["unknown-api-key", "short", "bad-client-id"])
def test_garbage_header_closes_only_that_connection(make_broker, payload, caplog):
    caplog.set_level(logging.ERROR)
    b = make_broker()
    good = b.connect()
    b.round_trip(good, 1)
    bad = b.connect()
    bad.sendall(struct.pack(">i", len(payload)) + payload)
    assert_closed_by_broker(bad)
    wait_for(lambda: "Closing socket for" in caplog.text, "a log line naming the closed connection")
    b.handler.assert_nothing_received()
    b.round_trip(good, 2)                                 # the other connection is untouched
    assert all(p.thread.is_alive() for p in b.server.data_plane_processors.values())


def test_oversize_request_closes_only_that_connection(make_broker):
    b = make_broker(**{"socket.request.max.bytes": "1000"})
    good = b.connect()
    bad = b.connect()
    bad.sendall(struct.pack(">i", 1001) + b"x" * 100)
    assert_closed_by_broker(bad)
    b.round_trip(good, 1)


def test_request_from_a_peer_that_closed_at_once_is_still_handled(make_broker, caplog):
    caplog.set_level(logging.ERROR)
    b = make_broker()
    b.handler.actions[1] = "hold"
    sock = b.connect()
    sock.sendall(request_bytes(1))
    sock.close()
    req = b.handler.next_request()                        # GRACEFUL close: the staged request is delivered
    assert req.header.correlation_id == 1
    b.handler.answer(b.handler.held.pop(1))               # answering a gone peer fails quietly
    wait_for(lambda: b.server.connection_quotas.get("127.0.0.1") == 0, "the connection count to drop")
    assert "Attempted to decrease connection count" not in caplog.text
    b.round_trip(b.connect(), 2)


def test_idle_connections_are_closed_by_the_broker(make_broker):
    b = make_broker(**{"connections.max.idle.ms": "200"})
    sock = b.connect()
    b.round_trip(sock, 1)
    assert_closed_by_broker(sock)                         # bounded by WAIT_S, expected after ~200 ms
    wait_for(lambda: b.server.connection_quotas.get("127.0.0.1") == 0, "the connection count to drop")


# ------------------------------------------------------------------ connection quotas (S2, S24)
def test_a_peer_reset_before_registration_gives_its_quota_slot_back():
    """A peer that resets before its Processor registers the socket makes getpeername() fail; the slot the
    Acceptor took must still be returned (Kafka decrements with the address the socket was accepted from)."""
    from kafkalite.network.request_channel import RequestChannel
    from kafkalite.network.socket_server import ConnectionQuotas, Processor
    from kafkalite.utils.time import SYSTEM
    config = KafkaConfig.from_props({"log.dirs": "/tmp/unused", "max.connections.per.ip": "2"})
    quotas = ConnectionQuotas(config)
    processor = Processor(0, SYSTEM, 1024, RequestChannel(10), quotas, -1, "PLAINTEXT", "PLAINTEXT")
    server = socket.create_server(("127.0.0.1", 0))
    try:
        for _ in range(3):
            client = socket.create_connection(server.getsockname())
            sock, addr = server.accept()
            quotas.inc("PLAINTEXT", addr[0])                   # what the Acceptor does
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()                                     # RST before the Processor sees the socket
            wait_for(lambda: _peer_gone(sock), "the reset to arrive")
            processor.accept(sock, addr)
            processor.configure_new_connections()

            def one_turn():   # the rest of Processor.run's loop: the reset shows up as a disconnect
                processor.poll()
                processor.process_completed_receives()
                processor.process_disconnected()
                return quotas.get("127.0.0.1") == 0

            wait_for(one_turn, "the reset connection's slot back")
    finally:
        server.close()
        processor.selector.close()


def _peer_gone(sock) -> bool:
    try:
        sock.getpeername()
        return False
    except OSError:
        return True


def test_max_connections_per_ip_and_dynamic_update(make_broker):
    b = make_broker(**{"max.connections.per.ip": "2"})
    c1, c2 = b.connect(), b.connect()
    b.round_trip(c1, 1)
    b.round_trip(c2, 2)
    assert b.server.connection_quotas.get("127.0.0.1") == 2
    c3 = b.connect()
    assert_closed_by_broker(c3)                          # refused: accepted, then closed by the Acceptor
    assert b.server.connection_quotas.get("127.0.0.1") == 2

    b.server.connection_quotas.update_max_connections_per_ip(3)   # no restart
    c4 = b.connect()
    b.round_trip(c4, 4)
    assert b.server.connection_quotas.get("127.0.0.1") == 3


def test_closed_connections_free_their_slot(make_broker):
    b = make_broker(**{"max.connections.per.ip": "1"})
    c1 = b.connect()
    b.round_trip(c1, 1)
    c1.close()
    wait_for(lambda: b.server.connection_quotas.get("127.0.0.1") == 0, "the slot to be freed")
    b.round_trip(b.connect(), 2)


def test_override_for_127_0_0_1_applies(make_broker):
    b = make_broker(**{"max.connections.per.ip": "100", "max.connections.per.ip.overrides": "127.0.0.1:1"})
    c1 = b.connect()
    b.round_trip(c1, 1)
    assert_closed_by_broker(b.connect())
    b.server.connection_quotas.update_max_connections_per_ip_override({"127.0.0.1": 2})
    b.round_trip(b.connect(), 2)


def test_override_can_raise_the_limit_for_one_host(make_broker):
    b = make_broker(**{"max.connections.per.ip": "1", "max.connections.per.ip.overrides": "127.0.0.1:3"})
    socks = [b.connect() for _ in range(3)]
    for i, s in enumerate(socks):
        b.round_trip(s, i)
    assert_closed_by_broker(b.connect())


def test_max_connections_makes_the_acceptor_wait_for_a_free_slot(make_broker):
    b = make_broker(**{"max.connections": "1"})
    c1 = b.connect()
    b.round_trip(c1, 1)
    c2 = b.connect()
    c2.sendall(request_bytes(2))
    time.sleep(1.0)          # hold the only slot longer than kafkalite's 0.5 s bound (scenario, not synchronisation)
    c1.close()
    c2.settimeout(WAIT_S)
    assert read_response(c2)[0] == 2


# ------------------------------------------------------------------ back-pressure (S4)
def test_full_request_queue_stops_reading_and_loses_nothing(make_broker):
    b = make_broker(**{"queued.max.requests": "1", "num.network.threads": "1"})
    channel = b.server.data_plane_request_channel
    b.handler.pause()
    socks = [b.connect() for _ in range(3)]
    for i, s in enumerate(socks):
        s.sendall(request_bytes(i))
    wait_for(lambda: channel.request_queue_size() == 1, "the queue to fill")
    time.sleep(QUIET_S)                                   # watch: the queue must not overflow or drop
    assert channel.request_queue_size() == 1
    assert b.handler.received.empty()

    b.handler.running.set()                               # resume
    got = sorted(b.handler.next_request().header.correlation_id for _ in range(3))
    assert got == [0, 1, 2]
    for i, s in enumerate(socks):
        assert read_response(s)[0] == i


# ------------------------------------------------------------------ control plane (S20-S23)
def test_control_plane_acceptor_processor_and_channel(make_broker):
    b = make_broker(**{"listeners": "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                       "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                       "control.plane.listener.name": "CONTROLLER"})
    s = b.server
    cp_acceptor, cp_processor = s.control_plane_acceptor_opt, s.control_plane_processor_opt
    assert cp_acceptor is not None and cp_processor is not None
    assert cp_acceptor.processors == [cp_processor]
    assert cp_processor.control_plane and cp_processor.listener_name == "CONTROLLER"
    assert [ep.listener_name for ep in s.data_plane_acceptors] == ["PLAINTEXT"]
    assert len(s.data_plane_processors) == 2 and cp_processor.id not in s.data_plane_processors
    assert s.control_plane_request_channel_opt.queue_size == 20
    assert s.data_plane_request_channel.queue_size == 500
    names = thread_names()
    cp_port = b.port("CONTROLLER")
    assert f"control-plane-kafka-socket-acceptor-CONTROLLER-PLAINTEXT-{cp_port}" in names
    assert f"control-plane-kafka-network-thread-0-CONTROLLER-PLAINTEXT-{cp_processor.id}" in names
    assert sum(n.startswith("control-plane-kafka-network-thread-") for n in names) == 1

    sock = b.connect("CONTROLLER")
    sock.sendall(request_bytes(7))
    req = s.control_plane_request_channel_opt.receive_request(WAIT_S * 1000)
    assert isinstance(req, Request) and req.header.correlation_id == 7
    assert req.from_control_plane and req.processor == cp_processor.id
    assert req.context.listener_name == "CONTROLLER"
    b.handler.assert_nothing_received()                   # nothing on the data plane
    s.control_plane_request_channel_opt.send_response(Response.for_body(req, BODY))
    assert read_response(sock) == (7, BODY)
    b.round_trip(b.connect(), 8)                          # the data plane still works


def test_startup_without_processing_requests(make_broker):
    others = set(threading.enumerate())                   # threads of brokers other tests may still run
    b = make_broker(start_processing_requests=False)
    port = b.port()                                       # bound already
    ours = {t.name for t in set(threading.enumerate()) - others}
    assert f"data-plane-kafka-socket-acceptor-PLAINTEXT-PLAINTEXT-{port}" in ours
    assert not any(n.startswith("data-plane-kafka-network-thread-") for n in ours)
    sock = b.connect()
    sock.sendall(request_bytes(1))
    b.handler.assert_nothing_received()
    b.server.start_processing_requests()
    assert b.handler.next_request().header.correlation_id == 1
    assert read_response(sock)[0] == 1
    assert "data-plane-kafka-network-thread-0-PLAINTEXT-PLAINTEXT-0" in thread_names()


def test_processors_write_a_response_as_they_hand_it_over(make_broker):
    """Session 10 (docs/benchmarks.md "Per-request turnaround"): a Processor's Selector writes a response as
    Processor.sendResponse hands it over, instead of waiting a select round for OP_WRITE."""
    b = make_broker()
    assert all(p.selector.write_at_once for p in b.server.all_processors())
    sock = b.connect()
    for cid in range(3):
        b.round_trip(sock, cid)
