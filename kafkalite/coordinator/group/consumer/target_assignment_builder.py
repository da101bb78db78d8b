"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/TargetAssignmentBuilder.java

Classes: TargetAssignmentBuilder.

Computes a consumer group's next target assignment: the group's members (with a member being added, updated
or removed in this very heartbeat applied first), each with its subscribed topic ids (resolved through the
subscription metadata) and its current target partitions, go to the group's server-side assignor. The result
is the new target for the given group epoch, which becomes the group's assignment epoch.

Era notes: Kafka 3.7 (KIP-848). Left out: writing the result as ConsumerGroupTargetAssignment records;
handing a departed static member's target to the member that replaces it (Kafka's staticMembers map; here the
new member is simply a new member).
"""
from __future__ import annotations

import uuid

from kafkalite.coordinator.group.consumer.assignors import AssignmentSpec, MemberSubscription
from kafkalite.coordinator.group.consumer.consumer_group_member import Assignment, ConsumerGroupMember


class TargetAssignmentBuilder:
    """Kafka 4.0: TargetAssignmentBuilder."""

    def __init__(self, group_id: str, group_epoch: int, assignor):
        self.group_id = group_id
        self.group_epoch = group_epoch
        self.assignor = assignor
        self.members: dict[str, ConsumerGroupMember] = {}
        self.target_assignment: dict[str, Assignment] = {}
        self.subscription_metadata: dict[str, tuple[uuid.UUID, int]] = {}
        self.updated_members: dict[str, ConsumerGroupMember | None] = {}

    # Kafka 4.0: TargetAssignmentBuilder.withMembers / withTargetAssignment / withSubscriptionMetadata
    def with_members(self, members: dict[str, ConsumerGroupMember]) -> "TargetAssignmentBuilder":
        self.members = members
        return self

    def with_target_assignment(self, target: dict[str, Assignment]) -> "TargetAssignmentBuilder":
        self.target_assignment = target
        return self

    def with_subscription_metadata(self, metadata: dict[str, tuple[uuid.UUID, int]]) -> "TargetAssignmentBuilder":
        self.subscription_metadata = metadata
        return self

    # Kafka 4.0: TargetAssignmentBuilder.addOrUpdateMember / removeMember
    def add_or_update_member(self, member: ConsumerGroupMember) -> "TargetAssignmentBuilder":
        self.updated_members[member.member_id] = member
        return self

    def remove_member(self, member_id: str) -> "TargetAssignmentBuilder":
        self.updated_members[member_id] = None
        return self

    # Kafka 4.0: TargetAssignmentBuilder.build -- member id -> {topic id: partitions}
    def build(self) -> dict[str, Assignment]:
        members = dict(self.members)
        for member_id, member in self.updated_members.items():
            if member is None:
                members.pop(member_id, None)
            else:
                members[member_id] = member
        subscriptions = {}
        for member_id, member in members.items():
            topic_ids = {self.subscription_metadata[t][0] for t in member.subscribed_topic_names
                         if t in self.subscription_metadata}
            subscriptions[member_id] = MemberSubscription(topic_ids, self.target_assignment.get(member_id, {}))
        counts = {tid: n for tid, n in self.subscription_metadata.values()}
        return self.assignor.assign(AssignmentSpec(subscriptions, counts))
