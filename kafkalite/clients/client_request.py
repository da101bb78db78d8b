"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/ClientRequest.java

Classes: ClientRequest -- a request on its way to one node, before the NetworkClient has put a header on it.

Kafka's ClientRequest carries a ``requestBuilder`` that builds the body at the version the NetworkClient
picks. kafkalite's message classes are mostly version-free data classes, so ``body`` is either the message
itself or, where the layout depends on the version (LeaderAndIsr groups partitions by topic from v2), a
``RequestBuilder`` (Kafka: ``AbstractRequest.Builder``) whose ``build(version)`` is called once the version is
known. Without a pinned ``version``, ``NetworkClient.do_send`` picks min(client's newest, broker's newest)
from the node's ``NodeApiVersions``.

Classes: ClientRequest, RequestBuilder.
Left out: ``makeHeader`` (done in ``NetworkClient.do_send``).
"""
from __future__ import annotations

from typing import Any, Callable

import attrs

from kafkalite.protocol.api_keys import ApiKeys


class RequestBuilder:
    """Kafka: AbstractRequest.Builder -- builds a request body at the version the NetworkClient chose."""

    def __init__(self, api_key: ApiKeys, oldest_allowed_version: int | None = None,
                 latest_allowed_version: int | None = None):
        self.api_key = api_key
        self.oldest_allowed_version = api_key.min_version if oldest_allowed_version is None \
            else oldest_allowed_version
        self.latest_allowed_version = api_key.max_version if latest_allowed_version is None \
            else latest_allowed_version

    # Kafka: AbstractRequest.Builder.build(short version)
    def build(self, version: int):
        raise NotImplementedError


@attrs.define
class ClientRequest:
    """Kafka: ClientRequest."""

    destination: str                     # the node's id string
    api_key: ApiKeys
    body: Any                            # the request message (e.g. ``LeaderAndIsrRequest``)
    correlation_id: int
    client_id: str | None
    created_time_ms: int
    expect_response: bool = True
    request_timeout_ms: int = 30000
    callback: Callable[[Any], None] | None = None   # Kafka: RequestCompletionHandler.onComplete(ClientResponse)
    version: int | None = None           # pinned version; None = negotiate

    def __str__(self) -> str:
        return (f"ClientRequest(expectResponse={self.expect_response}, callback={self.callback}, "
                f"destination={self.destination}, correlationId={self.correlation_id}, "
                f"clientId={self.client_id}, createdTimeMs={self.created_time_ms}, "
                f"requestBuilder={self.api_key.api_name})")
