"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DelayedOperationKey.scala

Classes: DelayedOperationKey (interface: ``key_label``), TopicPartitionOperationKey (DelayedProduce
and DelayedFetch watch a partition), GroupKey (DelayedJoin watches a group), MemberKey
(DelayedHeartbeat watches one member), TopicKey (delayed topic creation/deletion).

A purgatory files each waiting operation under one or more of these keys; an event on that
partition, group or member then calls ``purgatory.check_and_complete(key)``. Keys are frozen
attrs classes, so equal keys hash equal, as Scala case classes do.

Era notes: Scala's companion ``TopicPartitionOperationKey.apply(topicPartition)`` is the class
method ``TopicPartitionOperationKey.from_topic_partition(tp)``.
Omitted: nothing.
"""
from __future__ import annotations

import attrs

from kafkalite.common.topic_partition import TopicPartition


class DelayedOperationKey:
    """Kafka: kafka.server.DelayedOperationKey -- a watch key with a label for metrics."""

    __slots__ = ()   # the attrs subclasses (one TopicPartitionOperationKey per partition) are slotted

    global_label = "All"  # Kafka: DelayedOperationKey.globalLabel

    # Kafka: DelayedOperationKey.keyLabel
    @property
    def key_label(self) -> str:
        raise NotImplementedError


@attrs.frozen
class TopicPartitionOperationKey(DelayedOperationKey):
    """Kafka: TopicPartitionOperationKey -- used by delayed produce and delayed fetch."""

    topic: str
    partition: int

    # Kafka: TopicPartitionOperationKey.apply(topicPartition)
    @classmethod
    def from_topic_partition(cls, topic_partition: TopicPartition) -> TopicPartitionOperationKey:
        return cls(topic_partition.topic, topic_partition.partition)

    @property
    def key_label(self) -> str:
        return f"{self.topic}-{self.partition}"


@attrs.frozen
class MemberKey(DelayedOperationKey):
    """Kafka: MemberKey -- used by delayed heartbeat (one consumer group member)."""

    group_id: str
    consumer_id: str

    @property
    def key_label(self) -> str:
        return f"{self.group_id}-{self.consumer_id}"


@attrs.frozen
class GroupKey(DelayedOperationKey):
    """Kafka: GroupKey -- used by delayed join (the whole group's rebalance)."""

    group_id: str

    @property
    def key_label(self) -> str:
        return self.group_id


@attrs.frozen
class TopicKey(DelayedOperationKey):
    """Kafka: TopicKey -- used by delayed create/delete topics operations."""

    topic: str

    @property
    def key_label(self) -> str:
        return self.topic
