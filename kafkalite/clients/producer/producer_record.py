"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/ProducerRecord.java

Classes: ProducerRecord -- what a caller hands to ``KafkaProducer.send``: topic, optional partition,
optional timestamp (None = now, CreateTime), key, value and headers (a list of ``(str, bytes|None)``).

Left out: the ``Headers`` class (a plain list of pairs is used), the null-topic checks of the constructor
beyond a ValueError for negative partitions or timestamps.
"""
from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class ProducerRecord:
    """Kafka: ProducerRecord."""

    topic: str
    value: Any = None
    key: Any = None
    partition: int | None = None
    timestamp: int | None = None
    headers: tuple = attrs.field(default=(), converter=lambda h: tuple(h or ()))

    def __attrs_post_init__(self):
        if self.topic is None:
            raise ValueError("Topic cannot be null.")
        if self.timestamp is not None and self.timestamp < 0:
            raise ValueError(f"Invalid timestamp: {self.timestamp}. Timestamp should always be non-negative or null.")
        if self.partition is not None and self.partition < 0:
            raise ValueError(f"Invalid partition: {self.partition}. Partition number should always be "
                             "non-negative or null.")
