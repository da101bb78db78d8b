"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/TopicPartition.java

Classes: TopicPartition -- a topic name and a partition number, hashable, printed ``topic-0``
as Kafka prints it (and as log directories are named).
"""
from __future__ import annotations

import attrs


@attrs.frozen(order=True)
class TopicPartition:
    """Kafka: TopicPartition."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"
