"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/RangeAssignor.java

Classes: RangeAssignor -- topic by topic: sort the topic's consumers by member id, give each
``partitions // consumers`` consecutive partitions, and one more to each of the first
``partitions % consumers`` consumers. With two consumers C0, C1 and topics t0, t1 of three partitions
each: C0 gets t0p0, t0p1, t1p0, t1p1 and C1 gets t0p2, t1p2 (the first members get the extras of every
topic -- the known imbalance of this assignor).
"""
from __future__ import annotations

from kafkalite.clients.consumer.consumer_partition_assignor import Subscription
from kafkalite.clients.consumer.internals.abstract_partition_assignor import AbstractPartitionAssignor
from kafkalite.common.topic_partition import TopicPartition


class RangeAssignor(AbstractPartitionAssignor):
    """Kafka: RangeAssignor."""

    # Kafka: RangeAssignor.name
    def name(self) -> str:
        return "range"

    # Kafka: RangeAssignor.consumersPerTopic
    @staticmethod
    def consumers_per_topic(subscriptions: dict[str, Subscription]) -> dict[str, list[str]]:
        result: dict[str, list[str]] = {}
        for member_id, subscription in subscriptions.items():
            for topic in subscription.topics:
                result.setdefault(topic, []).append(member_id)
        return result

    # Kafka: RangeAssignor.assign
    def assign_partitions(self, partitions_per_topic: dict[str, int],
                          subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        assignment: dict[str, list[TopicPartition]] = {member: [] for member in subscriptions}
        for topic, consumers in self.consumers_per_topic(subscriptions).items():
            num_partitions = partitions_per_topic.get(topic)
            if num_partitions is None:
                continue
            consumers = sorted(consumers)
            per_consumer, with_extra = divmod(num_partitions, len(consumers))
            partitions = self.partitions(topic, num_partitions)
            for i, member in enumerate(consumers):
                start = per_consumer * i + min(i, with_extra)
                length = per_consumer + (1 if i < with_extra else 0)
                assignment[member].extend(partitions[start:start + length])
        return assignment
