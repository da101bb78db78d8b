"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/CooperativeStickyAssignor.java

Classes: CooperativeStickyAssignor -- the sticky assignment of ``AbstractStickyAssignor``, made safe for
the cooperative protocol (KIP-429): a partition that should move from one member to another is first
taken away from its owner only. Its new owner does not get it in this rebalance; the old owner sees it
missing from its assignment, revokes it (``on_partitions_revoked``) and rejoins at once, and the second
rebalance hands the now-unowned partition to the new member. No partition is ever owned by two members,
and partitions that do not move are never revoked -- consumers keep fetching them throughout.
"""
from __future__ import annotations

from kafkalite.clients.consumer.consumer_partition_assignor import RebalanceProtocol, Subscription
from kafkalite.clients.consumer.internals.abstract_sticky_assignor import AbstractStickyAssignor
from kafkalite.common.topic_partition import TopicPartition


class CooperativeStickyAssignor(AbstractStickyAssignor):
    """Kafka: CooperativeStickyAssignor."""

    COOPERATIVE_STICKY_ASSIGNOR_NAME = "cooperative-sticky"

    # Kafka: CooperativeStickyAssignor.name
    def name(self) -> str:
        return self.COOPERATIVE_STICKY_ASSIGNOR_NAME

    # Kafka: CooperativeStickyAssignor.supportedProtocols
    def supported_protocols(self) -> list[RebalanceProtocol]:
        return [RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER]

    # Kafka: CooperativeStickyAssignor.assign
    def assign_partitions(self, partitions_per_topic: dict[str, int],
                          subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        assignments = super().assign_partitions(partitions_per_topic, subscriptions)
        partitions_transferring = self.partitions_transferring(subscriptions, assignments)
        self.adjust_assignment(assignments, partitions_transferring)
        return assignments

    # Kafka: CooperativeStickyAssignor.adjustAssignment (the set computed inline in Kafka)
    @staticmethod
    def partitions_transferring(subscriptions: dict[str, Subscription],
                                assignments: dict[str, list[TopicPartition]]) -> set[TopicPartition]:
        owner = {tp: m for m, s in subscriptions.items() for tp in s.owned_partitions}
        return {tp for m, parts in assignments.items() for tp in parts if tp in owner and owner[tp] != m}

    # Kafka: CooperativeStickyAssignor.adjustAssignment -- the new owner waits one rebalance
    @staticmethod
    def adjust_assignment(assignments: dict[str, list[TopicPartition]],
                          partitions_transferring: set[TopicPartition]) -> None:
        for member, parts in assignments.items():
            assignments[member] = [tp for tp in parts if tp not in partitions_transferring]
