"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/NetworkClient.java

Classes: NetworkClient, InFlightRequest (Kafka's NetworkClient.InFlightRequest), MetadataUpdater (the interface;
its ``Metadata``-backed implementation, ``DefaultMetadataUpdater``, lives in ``clients/metadata.py`` and serves the
producer and the consumer; the admin client and the broker's own clients pass none).

The request/response layer every kafkalite client sits on, the controller's channel to each broker included.
It runs on the **same** ``Selector``, ``KafkaChannel``, ``NetworkReceive`` and ``NetworkSend`` as the broker
(S48). One thread owns a client; only ``wakeup()`` and ``initiate_close()`` may be called from others.

``poll(timeout, now)`` does, in Kafka's order:
1. ``selector.poll`` (at most ``min(timeout, request_timeout_ms)``);
2. ``handle_completed_sends``: a request that expects no response is done once written;
3. ``handle_completed_receives``: parse header + body at the request's version, check the correlation id;
   an ApiVersions answer to our own handshake request goes to ``handle_api_versions_response``;
4. ``handle_disconnections``: every request pending on a lost connection completes with ``disconnected``;
5. ``handle_connections``: a new connection first sends ApiVersions (S41-S42);
6. ``handle_initiate_api_version_requests`` and ``handle_timed_out_requests``;
7. ``complete_responses``: run the callbacks, and return the responses.

Version negotiation: on every new connection the client sends ApiVersions at its newest version. A broker
that does not know that version answers v0 with UNSUPPORTED_VERSION and its own ApiVersions range (KIP-511);
the client retries at the newest version in that range (or v0). Until the broker's ``NodeApiVersions`` are
known the node is not ready. Each later request goes out at min(client max, broker max).

Era notes: ``initiate_close()``/``active()`` come from Kafka 2.5 (KAFKA-8920); Python cannot interrupt a thread
blocked in ``poll`` the way the JVM does, so a RequestSendThread is stopped through them.
Left out: metrics sensors, SASL/auth errors, ``ClientDnsLookup``, throttling delays (KIP-219), the
``MetadataUpdater`` implementation (see ``clients/metadata.py``).
"""
from __future__ import annotations

import enum
import logging
from typing import Any, Callable

import attrs

from kafkalite.clients.client_request import ClientRequest, RequestBuilder
from kafkalite.clients.client_response import ClientResponse
from kafkalite.clients.cluster_connection_states import ClusterConnectionStates
from kafkalite.clients.in_flight_requests import InFlightRequests
from kafkalite.clients.node import Node
from kafkalite.clients.node_api_versions import NodeApiVersions
from kafkalite.network.kafka_channel import ChannelState, SslAuthenticationException
from kafkalite.network.network_send import NetworkSend
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors, UnsupportedVersionException
from kafkalite.protocol.messages.api_versions import ApiVersionsRequest
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_response, serialize_request
from kafkalite.utils.time import SYSTEM, Time

log = logging.getLogger("kafka.clients.NetworkClient")

CLIENT_SOFTWARE_NAME = "kafkalite"
CLIENT_SOFTWARE_VERSION = "0.1.0"


class IllegalStateException(RuntimeError):
    """Kafka: java.lang.IllegalStateException."""


class MetadataUpdater:
    """Kafka: MetadataUpdater -- the hooks a client's metadata logic gets from the NetworkClient."""

    def is_update_due(self, now: int) -> bool:
        return False

    # Kafka: MetadataUpdater.maybeUpdate -- may send a Metadata request; returns ms until the next check
    def maybe_update(self, now: int) -> int:
        return 2 ** 31 - 1

    def handle_server_disconnect(self, now: int, node_id: str) -> None:
        pass

    # Kafka: MetadataUpdater.handleFatalException
    def handle_fatal_exception(self, exception: Exception) -> None:
        pass

    def handle_successful_response(self, request_header, now: int, response) -> None:
        pass

    def request_update(self) -> None:
        pass

    def close(self) -> None:
        pass


class State(enum.Enum):
    ACTIVE = 0
    CLOSING = 1
    CLOSED = 2


@attrs.define
class InFlightRequest:
    """Kafka: NetworkClient.InFlightRequest -- a request on the wire, with what is needed to complete it."""

    header: RequestHeader
    created_time_ms: int
    destination: str
    callback: Callable | None
    expect_response: bool
    is_internal_request: bool   # ApiVersions handshakes and metadata requests made by the client itself
    request: Any
    send: NetworkSend
    send_time_ms: int
    request_timeout_ms: int

    # Kafka: InFlightRequest.completed
    def completed(self, response, time_ms: int) -> ClientResponse:
        return ClientResponse(self.header, self.callback, self.destination, self.created_time_ms, time_ms,
                              False, None, response)

    # Kafka: InFlightRequest.disconnected
    def disconnected(self, time_ms: int, timed_out: bool = False) -> ClientResponse:
        return ClientResponse(self.header, self.callback, self.destination, self.created_time_ms, time_ms,
                              True, None, None, timed_out)


class NetworkClient:
    """Kafka: NetworkClient."""

    def __init__(self, selector, metadata_updater: MetadataUpdater | None = None, client_id: str = "",
                 max_in_flight_requests_per_connection: int = 5, reconnect_backoff_ms: int = 50,
                 reconnect_backoff_max_ms: int = 1000, request_timeout_ms: int = 30000, time: Time = SYSTEM,
                 discover_broker_versions: bool = True, log_context: str = ""):
        self.selector = selector
        self.metadata_updater = metadata_updater or MetadataUpdater()
        self.client_id = client_id
        self.in_flight_requests = InFlightRequests(max_in_flight_requests_per_connection)
        self.connection_states = ClusterConnectionStates(reconnect_backoff_ms, reconnect_backoff_max_ms)
        self.default_request_timeout_ms = request_timeout_ms
        self.time = time
        self.discover_broker_versions = discover_broker_versions
        self.log_context = log_context
        self.authentication_exceptions: dict[str, Exception] = {}    # Kafka: ClusterConnectionStates' per node
        self.api_versions: dict[str, NodeApiVersions] = {}           # Kafka: ApiVersions
        self.nodes_needing_api_versions_fetch: dict[str, int] = {}   # node -> ApiVersions version to send
        self.aborted_sends: list[ClientResponse] = []
        self.correlation = 0
        self.state = State.ACTIVE

    # ------------------------------------------------------------ readiness

    # Kafka: NetworkClient.ready -- True if a request can go now; otherwise start connecting if allowed
    def ready(self, node: Node, now: int) -> bool:
        if node.is_empty():
            raise ValueError(f"Cannot connect to empty node {node}")
        if self.is_ready(node, now):
            return True
        if self.connection_states.can_connect(node.id_string, now):
            self.initiate_connect(node, now)
        return False

    # Kafka: NetworkClient.isReady
    def is_ready(self, node: Node, now: int) -> bool:
        return not self.metadata_updater.is_update_due(now) and self.can_send_request(node.id_string, now)

    # Kafka: NetworkClient.canSendRequest
    def can_send_request(self, node: str, now: int) -> bool:
        return (self.connection_states.is_ready(node, now) and self.selector.is_channel_ready(node)
                and self.in_flight_requests.can_send_more(node))

    # Kafka: NetworkClient.connectionFailed
    def connection_failed(self, node: Node) -> bool:
        return self.connection_states.is_disconnected(node.id_string)

    # Kafka: NetworkClient.connectionDelay
    def connection_delay(self, node: Node, now: int) -> int:
        return self.connection_states.connection_delay(node.id_string, now)

    # Kafka: ClusterConnectionStates.isConnecting (NetworkClient asks its connectionStates)
    def is_connecting(self, node: Node) -> bool:
        return self.connection_states.is_connecting(node.id_string)

    # ------------------------------------------------------------ sending

    # Kafka: NetworkClient.newClientRequest
    def new_client_request(self, node_id: str, api_key: ApiKeys, body, version: int | None = None,
                           expect_response: bool = True, callback=None, created_time_ms: int | None = None,
                           request_timeout_ms: int | None = None) -> ClientRequest:
        self.correlation += 1
        return ClientRequest(str(node_id), api_key, body, self.correlation, self.client_id,
                             self.time.milliseconds() if created_time_ms is None else created_time_ms,
                             expect_response,
                             self.default_request_timeout_ms if request_timeout_ms is None else request_timeout_ms,
                             callback, version)

    # Kafka: NetworkClient.send
    def send(self, request: ClientRequest, now: int) -> None:
        self.do_send(request, False, now)

    # Kafka: NetworkClient.doSend(ClientRequest, boolean, long) -- pick the version, then send
    def do_send(self, client_request: ClientRequest, is_internal_request: bool, now: int) -> None:
        self._ensure_active()
        node_id = client_request.destination
        if not is_internal_request and not self.can_send_request(node_id, now):
            raise IllegalStateException(f"Attempt to send a request to node {node_id} which is not ready.")
        api = client_request.api_key
        builder = client_request.body if isinstance(client_request.body, RequestBuilder) else None
        oldest = latest = client_request.version
        if builder is not None and oldest is None:
            oldest, latest = builder.oldest_allowed_version, builder.latest_allowed_version
        try:
            node_versions = self.api_versions.get(node_id)
            if node_versions is None:
                # Not negotiated (discover_broker_versions=False): the newest version we may use.
                version = api.max_version if latest is None else latest
            else:
                version = node_versions.latest_usable_version(api, oldest, latest)
        except UnsupportedVersionException as e:
            log.debug("%sVersion mismatch when attempting to send %s with correlation id %d to %s",
                      self.log_context, api.api_name, client_request.correlation_id, node_id)
            header = RequestHeader(api_key=api.id, api_version=api.max_version,
                                   correlation_id=client_request.correlation_id, client_id=client_request.client_id)
            self.aborted_sends.append(ClientResponse(header, client_request.callback, node_id,
                                                     client_request.created_time_ms, now, False, e, None))
            return
        header = RequestHeader(api_key=api.id, api_version=version, correlation_id=client_request.correlation_id,
                               client_id=client_request.client_id)
        if builder is not None:
            client_request = attrs.evolve(client_request, body=builder.build(version))
        self._do_send(client_request, is_internal_request, now, header)

    # Kafka: NetworkClient.doSend(ClientRequest, boolean, long, AbstractRequest)
    def _do_send(self, client_request: ClientRequest, is_internal_request: bool, now: int,
                 header: RequestHeader) -> None:
        destination = client_request.destination
        log.debug("%sSending %s request with header %s and timeout %d to node %s: %s", self.log_context,
                  client_request.api_key.api_name, header, client_request.request_timeout_ms, destination,
                  client_request.body)
        send = NetworkSend(destination, [serialize_request(header, client_request.body)])
        self.in_flight_requests.add(InFlightRequest(
            header, client_request.created_time_ms, destination, client_request.callback,
            client_request.expect_response, is_internal_request, client_request.body, send, now,
            client_request.request_timeout_ms))
        self.selector.send(send)

    # ------------------------------------------------------------ polling

    # Kafka: NetworkClient.poll
    def poll(self, timeout_ms: int, now: int) -> list[ClientResponse]:
        self._ensure_active()
        if self.aborted_sends:
            # version mismatches found in send(): hand them back without waiting for the network
            responses = list(self.aborted_sends)
            self.aborted_sends.clear()
            self.complete_responses(responses)
            return responses
        metadata_timeout = self.metadata_updater.maybe_update(now)
        try:
            self.selector.poll(max(0, min(timeout_ms, metadata_timeout, self.default_request_timeout_ms)))
        except OSError as e:
            log.error("%sUnexpected error during I/O: %s", self.log_context, e)
        updated_now = self.time.milliseconds()
        responses: list[ClientResponse] = []
        self.handle_completed_sends(responses, updated_now)
        self.handle_completed_receives(responses, updated_now)
        self.handle_disconnections(responses, updated_now)
        self.handle_connections()
        self.handle_initiate_api_version_requests(updated_now)
        self.handle_timed_out_requests(responses, updated_now)
        self.complete_responses(responses)
        return responses

    # Kafka: NetworkClient.completeResponses -- a failing callback never stops the others
    def complete_responses(self, responses: list[ClientResponse]) -> None:
        for response in responses:
            try:
                response.on_complete()
            except Exception:   # noqa: BLE001
                log.error("%sUncaught error in request completion:", self.log_context, exc_info=True)

    # Kafka: NetworkClient.handleCompletedSends
    def handle_completed_sends(self, responses: list, now: int) -> None:
        for send in self.selector.completed_sends:
            request = self.in_flight_requests.last_sent(send.destination)
            if not request.expect_response:
                self.in_flight_requests.complete_last_sent(send.destination)
                responses.append(request.completed(None, now))

    # Kafka: NetworkClient.handleCompletedReceives
    def handle_completed_receives(self, responses: list, now: int) -> None:
        for receive in self.selector.completed_receives:
            source = receive.source
            req = self.in_flight_requests.complete_next(source)
            correlation_id, body = parse_response(req.header.api_key, req.header.api_version, receive.payload())
            self.correlate(req.header, correlation_id)
            log.debug("%sReceived %s response from node %s for request with header %s: %s", self.log_context,
                      ApiKeys.for_id(req.header.api_key).api_name, source, req.header, body)
            if req.is_internal_request and req.header.api_key == ApiKeys.API_VERSIONS.id:
                self.handle_api_versions_response(responses, req, now, body)
            else:
                if req.is_internal_request:
                    self.metadata_updater.handle_successful_response(req.header, now, body)
                responses.append(req.completed(body, now))

    # Kafka: NetworkClient.correlate
    @staticmethod
    def correlate(request_header: RequestHeader, correlation_id: int) -> None:
        if request_header.correlation_id != correlation_id:
            raise IllegalStateException(f"Correlation id for response ({correlation_id}) does not match request "
                                        f"({request_header.correlation_id}), request header: {request_header}")

    # Kafka: NetworkClient.handleApiVersionsResponse
    def handle_api_versions_response(self, responses: list, req: InFlightRequest, now: int, response) -> None:
        node = req.destination
        if response.error_code != Errors.NONE.code:
            if req.header.api_version == 0 or response.error_code != Errors.UNSUPPORTED_VERSION.code:
                log.warning("%sReceived error %s from node %s when making an ApiVersionsRequest with correlation "
                            "id %d. Disconnecting.", self.log_context, Errors.for_code(response.error_code).name,
                            node, req.header.correlation_id)
                self.selector.close_connection(node)
                self.process_disconnection(responses, node, now, ChannelState.LOCAL_CLOSE)
            else:
                # KIP-511: the broker told us its ApiVersions range; retry at the newest version both know.
                retry_version = 0
                for key in response.api_keys:
                    if key.api_key == ApiKeys.API_VERSIONS.id:
                        retry_version = min(key.max_version, ApiKeys.API_VERSIONS.max_version)
                log.debug("%sNode %s does not support ApiVersions v%d; retrying with v%d", self.log_context,
                          node, req.header.api_version, retry_version)
                self.nodes_needing_api_versions_fetch[node] = retry_version
            return
        node_version_info = NodeApiVersions(response.api_keys)
        self.api_versions[node] = node_version_info
        self.connection_states.ready(node)
        log.debug("%sRecorded API versions for node %s: %s", self.log_context, node, node_version_info)

    # Kafka: NetworkClient.handleDisconnections
    def handle_disconnections(self, responses: list, now: int) -> None:
        for node, state in list(self.selector.disconnected.items()):
            log.debug("%sNode %s disconnected.", self.log_context, node)
            self.process_disconnection(responses, node, now, state)
        if self.selector.disconnected:
            self.metadata_updater.request_update()

    # Kafka: NetworkClient.handleConnections
    def handle_connections(self) -> None:
        for node in self.selector.connected:
            if self.discover_broker_versions:
                self.connection_states.checking_api_versions(node)
                self.nodes_needing_api_versions_fetch[node] = ApiKeys.API_VERSIONS.max_version
                log.debug("%sCompleted connection to node %s. Fetching API versions.", self.log_context, node)
            else:
                self.connection_states.ready(node)
                log.debug("%sCompleted connection to node %s. Ready.", self.log_context, node)

    # Kafka: NetworkClient.handleInitiateApiVersionRequests
    def handle_initiate_api_version_requests(self, now: int) -> None:
        for node, version in list(self.nodes_needing_api_versions_fetch.items()):
            if self.selector.is_channel_ready(node) and self.in_flight_requests.can_send_more(node):
                log.debug("%sInitiating API versions fetch from node %s.", self.log_context, node)
                body = ApiVersionsRequest(client_software_name=CLIENT_SOFTWARE_NAME,
                                          client_software_version=CLIENT_SOFTWARE_VERSION)
                request = self.new_client_request(node, ApiKeys.API_VERSIONS, body, version=version, created_time_ms=now)
                header = RequestHeader(api_key=ApiKeys.API_VERSIONS.id, api_version=version,
                                       correlation_id=request.correlation_id, client_id=self.client_id)
                self._do_send(request, True, now, header)
                del self.nodes_needing_api_versions_fetch[node]

    # Kafka: NetworkClient.handleTimedOutRequests
    def handle_timed_out_requests(self, responses: list, now: int) -> None:
        for node in self.in_flight_requests.nodes_with_timed_out_requests(now):
            self.selector.close_connection(node)
            log.debug("%sDisconnecting from node %s due to request timeout.", self.log_context, node)
            self.process_disconnection(responses, node, now, ChannelState.LOCAL_CLOSE, timed_out=True)
        if responses and any(r.timed_out for r in responses):
            self.metadata_updater.request_update()

    # Kafka: NetworkClient.processDisconnection
    def process_disconnection(self, responses: list, node_id: str, now: int, disconnect_state: ChannelState,
                              timed_out: bool = False) -> None:
        self.connection_states.disconnected(node_id, now)
        self.api_versions.pop(node_id, None)
        self.nodes_needing_api_versions_fetch.pop(node_id, None)
        if disconnect_state is ChannelState.NOT_CONNECTED:
            log.warning("%sConnection to node %s could not be established. Broker may not be available.",
                        self.log_context, node_id)
        elif disconnect_state is ChannelState.AUTHENTICATION_FAILED:
            exception = self.selector.authentication_exceptions.pop(node_id, None) or \
                SslAuthenticationException("SSL handshake failed")
            self.authentication_exceptions[node_id] = exception
            self.metadata_updater.handle_fatal_exception(exception)
            log.error("%sConnection to node %s failed authentication due to: %s", self.log_context, node_id,
                      exception)
        self.cancel_in_flight_requests(node_id, now, responses, timed_out)
        self.metadata_updater.handle_server_disconnect(now, node_id)

    # Kafka: NetworkClient.authenticationException -- why the last connection to ``node`` failed authentication
    def authentication_exception(self, node) -> Exception | None:
        return self.authentication_exceptions.get(getattr(node, "id_string", node))

    # Kafka 3.x: NetworkClient.cancelInFlightRequests
    def cancel_in_flight_requests(self, node_id: str, now: int, responses: list | None, timed_out: bool = False
                                  ) -> None:
        for request in self.in_flight_requests.clear_all(node_id):
            log.debug("%sCancelled request %s with correlation id %d due to node %s being disconnected",
                      self.log_context, request.request, request.header.correlation_id, node_id)
            if not request.is_internal_request and responses is not None:
                responses.append(request.disconnected(now, timed_out))

    # ------------------------------------------------------------ connections

    # Kafka: NetworkClient.initiateConnect
    def initiate_connect(self, node: Node, now: int) -> None:
        node_conn_id = node.id_string
        try:
            self.connection_states.connecting(node_conn_id, now, node.host)
            self.selector.connect(node_conn_id, (node.host, node.port))
        except OSError as e:
            self.connection_states.disconnected(node_conn_id, now)
            self.metadata_updater.request_update()
            log.warning("%sError connecting to node %s: %s", self.log_context, node, e)

    # Kafka: NetworkClient.leastLoadedNode -- fewest in-flight requests among nodes not blacked out
    def least_loaded_node(self, nodes: list[Node], now: int) -> Node | None:
        found, in_flight = None, 2 ** 31 - 1
        for node in nodes:
            current = self.in_flight_requests.count(node.id_string)
            if current == 0 and self.is_ready(node, now):
                return node   # ready and idle: can't do better
            if not self.connection_states.is_blacked_out(node.id_string, now) and current < in_flight:
                found, in_flight = node, current
        return found

    # Kafka: NetworkClient.inFlightRequestCount
    def in_flight_request_count(self, node_id: str | None = None) -> int:
        return self.in_flight_requests.count(node_id)

    # Kafka: NetworkClient.hasInFlightRequests
    def has_in_flight_requests(self, node_id: str | None = None) -> bool:
        return not self.in_flight_requests.is_empty(node_id)

    # Kafka: NetworkClient.disconnect -- close now; pending requests complete as disconnected at the next poll
    def disconnect(self, node_id: str) -> None:
        if self.connection_states.is_disconnected(node_id) or node_id not in self.connection_states.node_state:
            return
        self.selector.close_connection(node_id)
        now = self.time.milliseconds()
        responses: list[ClientResponse] = []
        self.cancel_in_flight_requests(node_id, now, responses)
        self.connection_states.disconnected(node_id, now)
        self.api_versions.pop(node_id, None)
        self.nodes_needing_api_versions_fetch.pop(node_id, None)
        self.aborted_sends.extend(responses)

    # Kafka: NetworkClient.close(String) -- forget the node entirely; its requests are dropped silently
    def close(self, node_id: str | None = None) -> None:
        if node_id is None:
            self._close_all()
            return
        self.selector.close_connection(node_id)
        self.cancel_in_flight_requests(node_id, self.time.milliseconds(), None)
        self.connection_states.remove(node_id)
        self.api_versions.pop(node_id, None)
        self.nodes_needing_api_versions_fetch.pop(node_id, None)

    # Kafka: NetworkClient.close()
    def _close_all(self) -> None:
        if self.state is State.CLOSED:
            return
        self.state = State.CLOSED
        self.selector.close()
        self.metadata_updater.close()

    # Kafka: NetworkClient.wakeup
    def wakeup(self) -> None:
        self.selector.wakeup()

    # Kafka 2.5: NetworkClient.initiateClose -- safe from another thread
    def initiate_close(self) -> None:
        if self.state is State.ACTIVE:
            self.state = State.CLOSING
        self.wakeup()

    # Kafka 2.5: NetworkClient.active
    def active(self) -> bool:
        return self.state is State.ACTIVE

    def _ensure_active(self) -> None:
        if self.state is State.CLOSED:
            raise IllegalStateException("Cannot use NetworkClient after it has been closed")
