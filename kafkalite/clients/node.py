"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/Node.java

Classes: Node -- one broker as a client sees it: id, host, port and optional rack.

``id_string`` is the connection id a ``NetworkClient`` gives the broker's channel in its ``Selector``
(Kafka keys every per-node map by this string).
Left out: nothing of substance (Kafka caches the hash code; attrs does the equality).
"""
from __future__ import annotations

import attrs


@attrs.frozen
class Node:
    """Kafka: org.apache.kafka.common.Node."""

    id: int
    host: str
    port: int
    rack: str | None = None

    # Kafka: Node.noNode
    @classmethod
    def no_node(cls) -> "Node":
        return cls(-1, "", -1)

    # Kafka: Node.isEmpty
    def is_empty(self) -> bool:
        return self.host == "" or self.port < 0

    # Kafka: Node.idString
    @property
    def id_string(self) -> str:
        return str(self.id)

    # Kafka: Node.hasRack
    def has_rack(self) -> bool:
        return self.rack is not None

    def __str__(self) -> str:
        return f"{self.host}:{self.port} (id: {self.id} rack: {self.rack})"
