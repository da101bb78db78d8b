"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/ConsumerPartitionAssignor.java

Classes: RebalanceProtocol, Subscription, Assignment, GroupSubscription, GroupAssignment,
ConsumerPartitionAssignor (the interface).

The group leader runs an assignor over every member's ``Subscription`` (its topics, its ``owned_partitions``
for cooperative rebalancing, and assignor-private ``user_data``) and sends each member an ``Assignment``.
``supported_protocols`` tells the coordinator whether the assignor can do the cooperative (incremental)
protocol of KIP-429 as well as the eager one.

Left out: ``onAssignment``'s ``ConsumerGroupMetadata`` argument and ``version()``.
"""
from __future__ import annotations

import enum

import attrs

from kafkalite.common.topic_partition import TopicPartition


class RebalanceProtocol(enum.Enum):
    """Kafka: ConsumerPartitionAssignor.RebalanceProtocol."""
    EAGER = 0
    COOPERATIVE = 1


@attrs.define
class Subscription:
    """Kafka: ConsumerPartitionAssignor.Subscription."""
    topics: list[str]
    user_data: bytes | None = None
    owned_partitions: list[TopicPartition] = attrs.field(factory=list)
    group_instance_id: str | None = None


@attrs.define
class Assignment:
    """Kafka: ConsumerPartitionAssignor.Assignment."""
    partitions: list[TopicPartition]
    user_data: bytes | None = None


@attrs.define
class GroupSubscription:
    """Kafka: ConsumerPartitionAssignor.GroupSubscription -- member id to subscription."""
    group_subscription: dict[str, Subscription]


@attrs.define
class GroupAssignment:
    """Kafka: ConsumerPartitionAssignor.GroupAssignment -- member id to assignment."""
    group_assignment: dict[str, Assignment]


class ConsumerPartitionAssignor:
    """Kafka: ConsumerPartitionAssignor (interface)."""

    # Kafka: ConsumerPartitionAssignor.subscriptionUserData
    def subscription_user_data(self, topics: set[str]) -> bytes | None:
        return None

    # Kafka: ConsumerPartitionAssignor.assign(Cluster, GroupSubscription)
    def assign(self, metadata, group_subscription: GroupSubscription) -> GroupAssignment:
        raise NotImplementedError

    # Kafka: ConsumerPartitionAssignor.onAssignment
    def on_assignment(self, assignment: Assignment, generation: int) -> None:
        pass

    # Kafka: ConsumerPartitionAssignor.supportedProtocols
    def supported_protocols(self) -> list[RebalanceProtocol]:
        return [RebalanceProtocol.EAGER]

    # Kafka: ConsumerPartitionAssignor.name
    def name(self) -> str:
        raise NotImplementedError
