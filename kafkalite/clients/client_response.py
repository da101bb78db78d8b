"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/ClientResponse.java

Classes: ClientResponse -- what ``NetworkClient.poll`` hands back for a request: the parsed response body,
or the news that the connection dropped (``disconnected``) or that no version both sides know exists
(``version_mismatch``).

Era notes: ``timed_out`` is a separate flag only from Kafka 2.7 (KIP-601 era); in 2.4 a timed-out request
just comes back ``disconnected``. kafkalite sets both so callers can tell the two apart.
"""
from __future__ import annotations

from typing import Any, Callable

import attrs

from kafkalite.protocol.request_header import RequestHeader


@attrs.define
class ClientResponse:
    """Kafka: ClientResponse."""

    request_header: RequestHeader
    callback: Callable[["ClientResponse"], None] | None
    destination: str
    created_time_ms: int
    received_time_ms: int
    disconnected: bool = False
    version_mismatch: Exception | None = None
    response_body: Any = None
    timed_out: bool = False

    # Kafka: ClientResponse.wasDisconnected
    def was_disconnected(self) -> bool:
        return self.disconnected

    # Kafka: ClientResponse.hasResponse
    def has_response(self) -> bool:
        return self.response_body is not None

    # Kafka: ClientResponse.requestLatencyMs
    def request_latency_ms(self) -> int:
        return self.received_time_ms - self.created_time_ms

    # Kafka: ClientResponse.onComplete
    def on_complete(self) -> None:
        if self.callback is not None:
            self.callback(self)
