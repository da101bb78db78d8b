"""NetworkClientTest: kafkalite's NetworkClient against a tiny broker double on a real listening socket.

The double speaks just enough of the protocol: it parses request headers, answers ApiVersions (supporting only
ApiVersions v0-2 and Metadata v0-4, so a new client must downgrade, KIP-511) and answers Metadata with an empty
body, unless a test gives it another behaviour.
"""
from __future__ import annotations

import socket
import struct
import threading
import time

import pytest

from kafkalite.clients.cluster_connection_states import ConnectionState
from kafkalite.clients.network_client import IllegalStateException, NetworkClient
from kafkalite.clients.network_client_utils import NetworkClientUtils
from kafkalite.clients.node import Node
from kafkalite.network.selector import Selector
from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors, UnsupportedVersionException
from kafkalite.protocol.messages.api_versions import ApiVersion, ApiVersionsResponse
from kafkalite.protocol.messages.metadata import MetadataRequest, MetadataResponse
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.response_header import ResponseHeader
from kafkalite.utils.time import MockTime
from socket_doubles import SocketBrokerDouble, recv_frame

pytestmark = pytest.mark.timeout(30)

OLD_API_VERSIONS_MAX = 2
OLD_METADATA_MAX = 4



class BrokerDouble(SocketBrokerDouble):
    """Accepts connections; per request calls ``self.on_request(conn, header)`` on its own thread."""

    def __init__(self):
        self.headers: list[RequestHeader] = []
        self.hold_metadata = False       # never answer Metadata
        self.close_on_metadata = False   # drop the connection on Metadata
        self.wrong_correlation = False
        self.api_versions_gate = threading.Event()   # ApiVersions is answered once this is set
        self.api_versions_gate.set()
        super().__init__(8)

    def node(self, node_id=0):
        return Node(node_id, "127.0.0.1", self.port)

    def _serve(self, conn):
        try:
            while True:
                frame = recv_frame(conn)
                header, _ = RequestHeader.parse(frame)
                self.headers.append(header)
                if not self.on_request(conn, header):
                    conn.close()
                    return
        except (EOFError, OSError):
            pass

    def respond(self, conn, header, body, body_version, header_version=0):
        cid = header.correlation_id + (1 if self.wrong_correlation else 0)
        payload = ResponseHeader(correlation_id=cid).to_bytes(header_version) + schema.write(body, body_version)
        conn.sendall(struct.pack(">i", len(payload)) + payload)

    def on_request(self, conn, header) -> bool:
        if header.api_key == ApiKeys.API_VERSIONS.id:
            self.api_versions_gate.wait(10)
            if header.api_version > OLD_API_VERSIONS_MAX:
                body = ApiVersionsResponse(error_code=Errors.UNSUPPORTED_VERSION.code,
                                           api_keys=[ApiVersion(api_key=18, min_version=0,
                                                                max_version=OLD_API_VERSIONS_MAX)])
                self.respond(conn, header, body, 0)
            else:
                body = ApiVersionsResponse(error_code=0, api_keys=[
                    ApiVersion(api_key=18, min_version=0, max_version=OLD_API_VERSIONS_MAX),
                    ApiVersion(api_key=3, min_version=0, max_version=OLD_METADATA_MAX)])
                self.respond(conn, header, body, header.api_version)
            return True
        if header.api_key == ApiKeys.METADATA.id:
            if self.close_on_metadata:
                return False
            if not self.hold_metadata:
                self.respond(conn, header, MetadataResponse(), header.api_version)
            return True
        return False



@pytest.fixture
def broker():
    b = BrokerDouble()
    yield b
    b.close()


def new_client(time=None, **kw):
    from kafkalite.utils.time import SYSTEM
    t = time or SYSTEM
    return NetworkClient(Selector(time=t), client_id="test-client", time=t, **kw)


def poll_until(client, condition, timeout_s=5.0, now=None):
    """Poll until ``condition(responses_so_far)`` holds; bounded by a real-time deadline."""
    got = []
    deadline = time.monotonic() + timeout_s
    while not condition(got):
        assert time.monotonic() < deadline, f"condition not met; responses: {got}"
        got.extend(client.poll(50, client.time.milliseconds() if now is None else now))
    return got


def test_connect_and_api_versions_downgrade(broker):
    client = new_client()
    node = broker.node()
    assert not client.ready(node, client.time.milliseconds())   # connecting, not ready yet
    assert NetworkClientUtils.await_ready(client, node, 5000)
    # First ApiVersions at the client's newest version, refused; then the broker's newest (v2).
    av = [h for h in broker.headers if h.api_key == ApiKeys.API_VERSIONS.id]
    assert [h.api_version for h in av] == [ApiKeys.API_VERSIONS.max_version, OLD_API_VERSIONS_MAX]
    assert client.connection_states.connection_state("0") is ConnectionState.READY
    assert client.api_versions["0"].latest_usable_version(ApiKeys.METADATA) == OLD_METADATA_MAX
    client.close()


def test_not_ready_until_api_versions_negotiated(broker):
    client = new_client()
    node = broker.node()
    broker.api_versions_gate.clear()
    client.ready(node, client.time.milliseconds())
    # Connected at TCP level, ApiVersions sent but unanswered: no user request may go yet.
    poll_until(client, lambda _: client.in_flight_request_count("0") == 1)
    assert client.connection_states.connection_state("0") is ConnectionState.CHECKING_API_VERSIONS
    assert client.selector.is_channel_ready("0")
    assert not client.is_ready(node, client.time.milliseconds())
    with pytest.raises(IllegalStateException):
        client.send(client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[])),
                    client.time.milliseconds())
    broker.api_versions_gate.set()
    poll_until(client, lambda _: client.is_ready(node, client.time.milliseconds()))
    client.close()


def test_request_uses_min_of_client_and_broker_versions_and_correlates(broker):
    client = new_client()
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    request = client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[]))
    response = NetworkClientUtils.send_and_receive(client, request)
    assert isinstance(response.response_body, MetadataResponse)
    assert response.request_header.api_version == OLD_METADATA_MAX
    assert response.request_header.correlation_id == request.correlation_id
    sent = [h for h in broker.headers if h.api_key == ApiKeys.METADATA.id]
    assert sent[-1].api_version == OLD_METADATA_MAX and sent[-1].client_id == "test-client"
    client.close()


def test_callback_is_invoked_and_responses_in_order(broker):
    client = new_client()
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    seen = []
    ids = []
    for _ in range(3):
        req = client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[]),
                                        callback=lambda r: seen.append(r.request_header.correlation_id))
        ids.append(req.correlation_id)
        poll_until(client, lambda _: client.is_ready(node, client.time.milliseconds()))
        client.send(req, client.time.milliseconds())
    poll_until(client, lambda _: len(seen) == 3)
    assert seen == ids
    assert client.in_flight_request_count() == 0
    client.close()


def test_correlation_id_mismatch_raises(broker):
    client = new_client()
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    broker.wrong_correlation = True
    client.send(client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[])),
                client.time.milliseconds())
    with pytest.raises(IllegalStateException, match="Correlation id"):
        poll_until(client, lambda _: False)
    client.close()


def test_max_in_flight_requests(broker):
    client = new_client(max_in_flight_requests_per_connection=2)
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    broker.hold_metadata = True
    for _ in range(2):
        poll_until(client, lambda _: client.is_ready(node, client.time.milliseconds()))
        client.send(client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[])),
                    client.time.milliseconds())
    poll_until(client, lambda _: client.in_flight_requests.requests["0"][0].send.completed())
    assert client.in_flight_request_count("0") == 2
    assert not client.is_ready(node, client.time.milliseconds())
    with pytest.raises(IllegalStateException):
        client.send(client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[])),
                    client.time.milliseconds())
    client.close()


def test_disconnect_completes_pending_requests(broker):
    client = new_client()
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    broker.close_on_metadata = True
    req = client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[]))
    client.send(req, client.time.milliseconds())
    got = poll_until(client, lambda rs: rs)
    assert len(got) == 1 and got[0].was_disconnected() and not got[0].has_response()
    assert got[0].request_header.correlation_id == req.correlation_id
    assert client.connection_failed(node)
    assert "0" not in client.api_versions      # versions are negotiated again on reconnect
    # send_and_receive turns the next drop into an IOError.
    # The client reconnects once the reconnect backoff has passed, negotiating versions again.
    poll_until(client, lambda _: client.connection_delay(node, client.time.milliseconds()) == 0)
    assert NetworkClientUtils.await_ready(client, node, 5000)
    with pytest.raises(IOError, match="disconnected"):
        NetworkClientUtils.send_and_receive(
            client, client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[])))
    client.close()


def test_local_disconnect_completes_pending_requests(broker):
    client = new_client()
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    broker.hold_metadata = True
    client.send(client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[])),
                client.time.milliseconds())
    client.disconnect("0")
    got = client.poll(0, client.time.milliseconds())
    assert len(got) == 1 and got[0].was_disconnected()
    assert client.in_flight_request_count() == 0
    client.close()


def test_request_timeout():
    b = BrokerDouble()
    b.hold_metadata = True
    mock = MockTime()
    client = new_client(time=mock, request_timeout_ms=1000)
    node = b.node()
    client.ready(node, mock.milliseconds())
    poll_until(client, lambda _: client.is_ready(node, mock.milliseconds()))
    req = client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[]))
    client.send(req, mock.milliseconds())
    got = client.poll(0, mock.milliseconds())
    assert got == []
    mock.sleep(1001)
    got = poll_until(client, lambda rs: rs)
    assert got[0].was_disconnected() and got[0].timed_out
    assert client.connection_failed(node)
    client.close()
    b.close()


def test_expect_response_false_completes_on_send(broker):
    client = new_client()
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    broker.hold_metadata = True
    client.send(client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[]),
                                          expect_response=False), client.time.milliseconds())
    got = poll_until(client, lambda rs: rs)
    assert not got[0].was_disconnected() and got[0].response_body is None
    assert client.in_flight_request_count() == 0
    client.close()


def test_unsupported_version_gives_version_mismatch(broker):
    client = new_client()
    node = broker.node()
    assert NetworkClientUtils.await_ready(client, node, 5000)
    req = client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[]), version=9)
    client.send(req, client.time.milliseconds())
    got = client.poll(0, client.time.milliseconds())
    assert isinstance(got[0].version_mismatch, UnsupportedVersionException)
    with pytest.raises(UnsupportedVersionException):
        NetworkClientUtils.send_and_receive(
            client, client.new_client_request("0", ApiKeys.FETCH, object()))   # broker lists no Fetch
    client.close()


def test_connection_refused_is_reported_and_backs_off():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()   # nothing listens here now
    client = new_client(reconnect_backoff_ms=10_000, reconnect_backoff_max_ms=10_000)
    node = Node(7, "127.0.0.1", port)
    with pytest.raises(IOError):
        NetworkClientUtils.await_ready(client, node, 5000)
    now = client.time.milliseconds()
    assert client.connection_failed(node)
    assert client.connection_states.is_blacked_out("7", now)
    assert not client.ready(node, now)   # inside the backoff: no new attempt
    assert client.connection_states.connection_state("7") is ConnectionState.DISCONNECTED
    client.close()


def test_least_loaded_node(broker):
    client = new_client()
    a, b = broker.node(0), broker.node(1)
    assert NetworkClientUtils.await_ready(client, a, 5000)
    assert NetworkClientUtils.await_ready(client, b, 5000)
    broker.hold_metadata = True
    client.send(client.new_client_request("0", ApiKeys.METADATA, MetadataRequest(topics=[])),
                client.time.milliseconds())
    assert client.least_loaded_node([a, b], client.time.milliseconds()) == b
    client.close()
