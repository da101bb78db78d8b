"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/AbstractPartitionAssignor.java

Classes: AbstractPartitionAssignor -- the assignors that only need each topic's partition count:
``assign(metadata, group_subscription)`` looks the counts up in the ``Cluster`` (topics it does not know are
skipped, as in Kafka) and calls ``assign_partitions(partitions_per_topic, subscriptions)``, which
returns member id -> list of TopicPartition.
"""
from __future__ import annotations

import logging

from kafkalite.clients.consumer.consumer_partition_assignor import (
    Assignment, ConsumerPartitionAssignor, GroupAssignment, GroupSubscription, Subscription,
)
from kafkalite.common.topic_partition import TopicPartition

log = logging.getLogger("kafka.clients.consumer.internals.AbstractPartitionAssignor")


class AbstractPartitionAssignor(ConsumerPartitionAssignor):
    """Kafka: AbstractPartitionAssignor."""

    # Kafka: AbstractPartitionAssignor.assign(Map<String,Integer>, Map<String,Subscription>)
    def assign_partitions(self, partitions_per_topic: dict[str, int],
                          subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        raise NotImplementedError

    # Kafka: AbstractPartitionAssignor.assign(Cluster, GroupSubscription)
    def assign(self, metadata, group_subscription: GroupSubscription) -> GroupAssignment:
        subscriptions = group_subscription.group_subscription
        all_topics = {t for s in subscriptions.values() for t in s.topics}
        partitions_per_topic = {}
        for topic in all_topics:
            count = metadata.partition_count_for_topic(topic)
            if count is not None and count > 0:
                partitions_per_topic[topic] = count
            else:
                log.debug("Skipping assignment for topic %s since no metadata is available", topic)
        raw = self.assign_partitions(partitions_per_topic, subscriptions)
        return GroupAssignment({member: Assignment(parts) for member, parts in raw.items()})

    # Kafka: AbstractPartitionAssignor.partitions
    @staticmethod
    def partitions(topic: str, num_partitions: int) -> list[TopicPartition]:
        return [TopicPartition(topic, i) for i in range(num_partitions)]
