"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/ConsumerRecords.java

Classes: ConsumerRecords -- what one ``poll`` returns: the records of each partition, in offset order.
Iterating yields every record, partition by partition.
"""
from __future__ import annotations

from typing import Iterator

from kafkalite.clients.consumer.consumer_record import ConsumerRecord
from kafkalite.common.topic_partition import TopicPartition


class ConsumerRecords:
    """Kafka: ConsumerRecords."""

    def __init__(self, records: dict[TopicPartition, list[ConsumerRecord]] | None = None):
        self._records = records or {}

    # Kafka: ConsumerRecords.records(TopicPartition) / records(String topic)
    def records(self, tp_or_topic) -> list[ConsumerRecord]:
        if isinstance(tp_or_topic, TopicPartition):
            return list(self._records.get(tp_or_topic, ()))
        return [r for tp, rs in self._records.items() if tp.topic == tp_or_topic for r in rs]

    # Kafka: ConsumerRecords.partitions
    def partitions(self) -> set[TopicPartition]:
        return set(self._records)

    # Kafka: ConsumerRecords.count
    def count(self) -> int:
        return sum(len(rs) for rs in self._records.values())

    # Kafka: ConsumerRecords.isEmpty
    def is_empty(self) -> bool:
        return self.count() == 0

    def __iter__(self) -> Iterator[ConsumerRecord]:
        for rs in self._records.values():
            yield from rs

    def __len__(self) -> int:
        return self.count()

    # Kafka: ConsumerRecords.empty
    @staticmethod
    def empty() -> "ConsumerRecords":
        return ConsumerRecords()
