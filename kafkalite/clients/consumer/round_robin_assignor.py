"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/RoundRobinAssignor.java

Classes: RoundRobinAssignor -- lay out every subscribed partition (sorted by topic, then partition) and
deal them to the consumers (sorted by member id) in a circle, skipping a consumer that is not
subscribed to the partition's topic. With equal subscriptions the counts differ by at most one.
"""
from __future__ import annotations

from kafkalite.clients.consumer.consumer_partition_assignor import Subscription
from kafkalite.clients.consumer.internals.abstract_partition_assignor import AbstractPartitionAssignor
from kafkalite.common.topic_partition import TopicPartition


class RoundRobinAssignor(AbstractPartitionAssignor):
    """Kafka: RoundRobinAssignor."""

    # Kafka: RoundRobinAssignor.name
    def name(self) -> str:
        return "roundrobin"

    # Kafka: RoundRobinAssignor.assign
    def assign_partitions(self, partitions_per_topic: dict[str, int],
                          subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        assignment: dict[str, list[TopicPartition]] = {member: [] for member in subscriptions}
        members = sorted(subscriptions)
        if not members:
            return assignment
        position = 0   # Kafka: CircularIterator over the sorted members
        for tp in self.all_partitions_sorted(partitions_per_topic, subscriptions):
            for _ in range(len(members)):
                member = members[position % len(members)]
                position += 1
                if tp.topic in subscriptions[member].topics:
                    assignment[member].append(tp)
                    break
        return assignment

    # Kafka: RoundRobinAssignor.allPartitionsSorted
    def all_partitions_sorted(self, partitions_per_topic: dict[str, int],
                              subscriptions: dict[str, Subscription]) -> list[TopicPartition]:
        topics = sorted({t for s in subscriptions.values() for t in s.topics if t in partitions_per_topic})
        return [tp for t in topics for tp in self.partitions(t, partitions_per_topic[t])]
