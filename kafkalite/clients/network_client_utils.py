"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/NetworkClientUtils.java

Classes: NetworkClientUtils -- blocking helpers over a NetworkClient, for callers that own the client's thread
and want one request at a time: the controller's RequestSendThread and the replica fetchers.

Era notes: both loops also stop once ``client.active()`` turns false (``send_and_receive`` does so from Kafka
2.5); 2.4 relies on Java's thread interruption, which Python lacks.
"""
from __future__ import annotations

from kafkalite.clients.client_request import ClientRequest
from kafkalite.clients.client_response import ClientResponse
from kafkalite.clients.node import Node
from kafkalite.utils.time import Time

_FOREVER_MS = 2 ** 31 - 1


class NetworkClientUtils:
    """Kafka: NetworkClientUtils."""

    # Kafka: NetworkClientUtils.isReady
    @staticmethod
    def is_ready(client, node: Node, current_time: int) -> bool:
        client.poll(0, current_time)
        return client.is_ready(node, current_time)

    # Kafka: NetworkClientUtils.awaitReady -- connect (and negotiate versions) within timeout_ms
    @staticmethod
    def await_ready(client, node: Node, timeout_ms: int, time: Time | None = None) -> bool:
        """True once ``node`` is ready; False on timeout; ``IOError`` if the connection failed."""
        if timeout_ms < 0:
            raise ValueError("Timeout needs to be greater than 0")
        time = time or client.time
        start_time = time.milliseconds()
        expiry_time = start_time + timeout_ms
        if NetworkClientUtils.is_ready(client, node, start_time) or client.ready(node, start_time):
            return True
        attempt_start_time = time.milliseconds()
        while not client.is_ready(node, attempt_start_time) and attempt_start_time < expiry_time \
                and client.active():
            if client.connection_failed(node):
                raise IOError(f"Connection to {node} failed.")
            client.poll(expiry_time - attempt_start_time, attempt_start_time)
            attempt_start_time = time.milliseconds()
        return client.is_ready(node, attempt_start_time)

    # Kafka: NetworkClientUtils.sendAndReceive -- send, then poll until this request's response comes back
    @staticmethod
    def send_and_receive(client, request: ClientRequest, time: Time | None = None) -> ClientResponse:
        time = time or client.time
        client.send(request, time.milliseconds())
        while client.active():
            responses = client.poll(_FOREVER_MS, time.milliseconds())
            for response in responses:
                if response.request_header.correlation_id == request.correlation_id:
                    if response.was_disconnected():
                        raise IOError(f"Connection to {response.destination} was disconnected before the "
                                      f"response was read")
                    if response.version_mismatch is not None:
                        raise response.version_mismatch
                    return response
        raise IOError("Client was shutdown before response was read")
