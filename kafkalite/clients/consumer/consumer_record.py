"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/ConsumerRecord.java

Classes: ConsumerRecord -- one record as ``poll`` hands it out: topic, partition, offset, timestamp and its
type, the deserialized key and value, the headers and the serialized sizes.
Also OffsetAndMetadata (Kafka: consumer/OffsetAndMetadata.java), what ``committed`` returns.

Left out: the checksum (gone from the v2 format) and the leader epoch.
"""
from __future__ import annotations

from typing import Any

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.record.timestamp_type import TimestampType


@attrs.define
class ConsumerRecord:
    """Kafka: ConsumerRecord."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    timestamp_type: TimestampType
    key: Any
    value: Any
    headers: list[tuple[str, bytes | None]] = attrs.field(factory=list)
    serialized_key_size: int = -1
    serialized_value_size: int = -1

    # No Kafka counterpart: a ConsumerRecord's TopicPartition (every caller wants it)
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)


@attrs.frozen
class OffsetAndMetadata:
    """Kafka: OffsetAndMetadata -- a committed position and its free-text metadata."""

    offset: int
    metadata: str = ""
