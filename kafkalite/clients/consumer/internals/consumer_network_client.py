"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerNetworkClient.java

Classes: ConsumerNetworkClient -- the consumer's (and kafkalite's admin client's) thread-safe face of a
``NetworkClient``: ``send`` queues a request in ``unsent`` and returns a ``RequestFuture``; ``poll`` moves
queued requests onto connections that are ready, runs one ``NetworkClient.poll`` and completes futures.
Both the application thread and the heartbeat thread call it, so one lock guards the NetworkClient (as in
Kafka, where the lock is the ConsumerNetworkClient itself).

Era notes: ``pending_completion`` and wakeups of a blocked ``poll`` from ``KafkaConsumer.wakeup`` are left
out; a request that cannot be sent within ``request.timeout.ms`` fails with a TimeoutException (Kafka's
``UnsentRequests.removeExpiredRequests``). Metadata requests are the NetworkClient's own (its
``DefaultMetadataUpdater``); ``await_metadata_update`` only asks for one and polls until it has come.
"""
from __future__ import annotations

import logging
import threading

from kafkalite.clients.client_request import ClientRequest
from kafkalite.clients.consumer.internals.request_future import RequestFuture
from kafkalite.clients.metadata import Metadata
from kafkalite.clients.network_client import NetworkClient
from kafkalite.clients.node import Node
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors

log = logging.getLogger("kafka.clients.consumer.internals.ConsumerNetworkClient")


class ConsumerNetworkClient:
    """Kafka: ConsumerNetworkClient."""

    MAX_POLL_TIMEOUT_MS = 5000

    # Kafka: ConsumerNetworkClient.<init>
    def __init__(self, client: NetworkClient, metadata: Metadata, time, request_timeout_ms: int = 30000):
        self.client = client
        self.metadata = metadata
        self.time = time
        self.request_timeout_ms = request_timeout_ms
        self.lock = threading.RLock()
        self.unsent: dict[Node, list[tuple[ClientRequest, RequestFuture]]] = {}

    # Kafka: ConsumerNetworkClient.send -- queue; the request goes out at the next poll
    def send(self, node: Node, api_key: ApiKeys, body, version: int | None = None) -> RequestFuture:
        future = RequestFuture()

        def on_complete(response):
            if response.version_mismatch is not None:
                future.raise_(response.version_mismatch)
            elif response.timed_out:
                future.raise_(Errors.REQUEST_TIMED_OUT.exception(
                    f"{api_key.api_name} request to node {node.id} timed out"))
            elif response.was_disconnected():
                future.raise_(Errors.NETWORK_EXCEPTION.exception(
                    f"Disconnected from node {node.id} before the {api_key.api_name} response came"))
            else:
                future.complete(response.response_body)

        with self.lock:
            request = self.client.new_client_request(node.id_string, api_key, body, version=version,
                                                     callback=on_complete,
                                                     request_timeout_ms=self.request_timeout_ms)
            self.unsent.setdefault(node, []).append((request, future))
        self.client.wakeup()
        return future

    # Kafka: ConsumerNetworkClient.poll(Timer, PollCondition)
    def poll(self, timeout_ms: int = 0, future: RequestFuture | None = None) -> None:
        with self.lock:
            now = self.time.milliseconds()
            self.try_send(now)
            if future is not None and future.is_done():
                timeout_ms = 0
            # Never block while requests wait for a connection: connecting needs polls.
            if self.unsent:
                timeout_ms = min(timeout_ms, 50)
            self.client.poll(min(max(0, timeout_ms), self.MAX_POLL_TIMEOUT_MS), now)
            now = self.time.milliseconds()
            self.check_disconnects(now)
            self.try_send(now)
            self.fail_expired_requests(now)
        self.metadata.maybe_throw_any_exception()   # a failed authentication ends the caller's poll

    # Kafka: ConsumerNetworkClient.poll(RequestFuture, Timer) -- block until done or the time is up
    def poll_future(self, future: RequestFuture, timeout_ms: int) -> bool:
        deadline = self.time.milliseconds() + timeout_ms
        while not future.is_done():
            remaining = deadline - self.time.milliseconds()
            if remaining <= 0:
                return False
            self.poll(remaining, future)
        return True

    # Kafka: ConsumerNetworkClient.trySend
    def try_send(self, now: int) -> None:
        for node in list(self.unsent):
            queue = self.unsent[node]
            while queue and self.client.ready(node, now):
                request, _ = queue.pop(0)
                self.client.send(request, now)
            if not queue:
                del self.unsent[node]

    # Kafka: ConsumerNetworkClient.checkDisconnects -- fail what waits for a node we cannot reach
    def check_disconnects(self, now: int) -> None:
        for node in list(self.unsent):
            if self.client.connection_failed(node) and not self.client.is_connecting(node):
                for _, future in self.unsent.pop(node):
                    future.raise_(Errors.NETWORK_EXCEPTION.exception(f"Could not connect to node {node.id}"))

    # Kafka: ConsumerNetworkClient.UnsentRequests.removeExpiredRequests
    def fail_expired_requests(self, now: int) -> None:
        for node in list(self.unsent):
            keep = []
            for request, future in self.unsent[node]:
                if now - request.created_time_ms > request.request_timeout_ms:
                    future.raise_(Errors.REQUEST_TIMED_OUT.exception(
                        f"Failed to send request to node {node.id} within {request.request_timeout_ms} ms"))
                else:
                    keep.append((request, future))
            if keep:
                self.unsent[node] = keep
            else:
                del self.unsent[node]

    # Kafka: ConsumerNetworkClient.pendingRequestCount
    def pending_request_count(self, node: Node | None = None) -> int:
        with self.lock:
            if node is None:
                return sum(len(q) for q in self.unsent.values()) + self.client.in_flight_request_count()
            return len(self.unsent.get(node, ())) + self.client.in_flight_request_count(node.id_string)

    # Kafka: ConsumerNetworkClient.hasPendingRequests
    def has_pending_requests(self, node: Node) -> bool:
        return self.pending_request_count(node) > 0

    # Kafka: ConsumerNetworkClient.isUnavailable
    def is_unavailable(self, node: Node) -> bool:
        with self.lock:
            return self.client.connection_failed(node) and self.client.connection_delay(
                node, self.time.milliseconds()) > 0

    # Kafka: ConsumerNetworkClient.leastLoadedNode
    def least_loaded_node(self, nodes: list[Node]) -> Node | None:
        with self.lock:
            return self.client.least_loaded_node(nodes, self.time.milliseconds())

    # Kafka: ConsumerNetworkClient.disconnectAsync
    def disconnect(self, node: Node) -> None:
        with self.lock:
            self.client.disconnect(node.id_string)

    # Kafka: ConsumerNetworkClient.wakeup
    def wakeup(self) -> None:
        self.client.wakeup()

    # Kafka: ConsumerNetworkClient.close
    def close(self) -> None:
        with self.lock:
            self.client.close()

    # Kafka: ConsumerNetworkClient.awaitMetadataUpdate -- request an update, poll until update_version moves
    def await_metadata_update(self, timeout_ms: int) -> bool:
        deadline = self.time.milliseconds() + timeout_ms
        version = self.metadata.request_update()
        while True:   # Kafka's do { poll(timer) } while (...): at least one poll, even with no time left
            self.poll(max(0, deadline - self.time.milliseconds()))
            if self.metadata.update_version != version or self.time.milliseconds() >= deadline:
                return self.metadata.update_version > version
