"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/RecordMetadata.java

Classes: RecordMetadata -- where the broker put one record: topic, partition, offset and timestamp
(what the future returned by ``KafkaProducer.send`` resolves to).

``offset`` is -1 when it is unknown (``acks=0``: the broker sends no answer). ``timestamp`` is the
broker's LogAppendTime when the topic uses it, otherwise the record's CreateTime.
Left out: the deprecated ``checksum``.
"""
from __future__ import annotations

import attrs

from kafkalite.common.topic_partition import TopicPartition

UNKNOWN_PARTITION = -1


@attrs.frozen
class RecordMetadata:
    """Kafka: RecordMetadata."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    serialized_key_size: int = -1
    serialized_value_size: int = -1

    # Kafka: RecordMetadata.hasOffset
    def has_offset(self) -> bool:
        return self.offset != -1

    # Kafka: RecordMetadata.hasTimestamp
    def has_timestamp(self) -> bool:
        return self.timestamp != -1

    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}@{self.offset}"
