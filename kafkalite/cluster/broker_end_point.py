"""Mirrors Kafka 2.4: core/src/main/scala/kafka/cluster/BrokerEndPoint.scala

Classes: BrokerEndPoint -- a broker id with the host and port of one of its listeners: where a
replica fetcher connects to fetch from a partition's leader (the inter-broker listener).
"""
from __future__ import annotations

import attrs


@attrs.frozen
class BrokerEndPoint:
    """Kafka: BrokerEndPoint(id, host, port)."""

    id: int
    host: str
    port: int

    # Kafka: BrokerEndPoint.connectionString
    def connection_string(self) -> str:
        return f"{self.host}:{self.port}"

    def __str__(self) -> str:
        return f"BrokerEndPoint(id={self.id}, host={self.host}:{self.port})"
