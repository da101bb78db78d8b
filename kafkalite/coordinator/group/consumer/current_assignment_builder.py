"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/CurrentAssignmentBuilder.java

Classes: CurrentAssignmentBuilder.

Reconciliation: moves one member from its current assignment towards its target, one step per heartbeat,
so that no partition is ever owned by two members.

1. Partitions the member has but the target does not are revoked first: the member keeps its epoch, gets
   only ``current & target`` and waits in UNREVOKED_PARTITIONS until a heartbeat's owned partitions no
   longer hold any of them.
2. Then it moves to the target epoch. Target partitions that another member still holds (their partition
   epoch is set and the holder is not this member) are withheld: UNRELEASED_PARTITIONS, until they are
   released; free ones are assigned at once.
3. With everything in hand the member is STABLE at the target epoch.

Era notes: Kafka 3.7 (KIP-848). While a member revokes it is not given newly free partitions (revoke before
assign); Kafka 4.0 does the same. Left out: nothing.
"""
from __future__ import annotations

import uuid
from typing import Callable

from kafkalite.coordinator.group.consumer.consumer_group_member import Assignment, ConsumerGroupMember, MemberState


class CurrentAssignmentBuilder:
    """Kafka 4.0: CurrentAssignmentBuilder."""

    def __init__(self, member: ConsumerGroupMember):
        self.member = member
        self.target_assignment_epoch = 0
        self.target_assignment: Assignment = {}
        self.current_partition_epoch: Callable[[uuid.UUID, int], int] = lambda t, p: -1
        self.owned_topic_partitions: Assignment | None = None

    # Kafka 4.0: CurrentAssignmentBuilder.withTargetAssignment
    def with_target_assignment(self, epoch: int, assignment: Assignment) -> "CurrentAssignmentBuilder":
        self.target_assignment_epoch = epoch
        self.target_assignment = assignment
        return self

    # Kafka 4.0: CurrentAssignmentBuilder.withCurrentPartitionEpoch -- -1 when nobody holds the partition
    def with_current_partition_epoch(self, fn: Callable[[uuid.UUID, int], int]) -> "CurrentAssignmentBuilder":
        self.current_partition_epoch = fn
        return self

    # Kafka 4.0: CurrentAssignmentBuilder.withOwnedTopicPartitions -- None when the heartbeat did not say
    def with_owned_topic_partitions(self, owned: Assignment | None) -> "CurrentAssignmentBuilder":
        self.owned_topic_partitions = owned
        return self

    # Kafka 4.0: CurrentAssignmentBuilder.build
    def build(self) -> ConsumerGroupMember:
        m = self.member
        if m.state is MemberState.STABLE:
            if m.member_epoch != self.target_assignment_epoch:
                return self.compute_next_assignment(m.member_epoch, m.assigned_partitions)
            return m
        if m.state is MemberState.UNREVOKED_PARTITIONS:
            if self.owns_revoked_partitions(m.partitions_pending_revocation):
                return m
            # Revocation acknowledged: reconcile towards the latest target from the next epoch.
            return self.compute_next_assignment(min(m.member_epoch + 1, self.target_assignment_epoch),
                                                m.assigned_partitions)
        if m.state is MemberState.UNRELEASED_PARTITIONS:
            return self.compute_next_assignment(self.target_assignment_epoch if m.member_epoch ==
                                                self.target_assignment_epoch else m.member_epoch,
                                                m.assigned_partitions)
        raise ValueError(f"member {m.member_id} is in state {m.state}")

    # Kafka 4.0: CurrentAssignmentBuilder.ownsRevokedPartitions
    def owns_revoked_partitions(self, pending: Assignment) -> bool:
        if self.owned_topic_partitions is None:
            return True   # the heartbeat did not say: assume nothing was given up yet
        return any(set(self.owned_topic_partitions.get(t, ())) & ps for t, ps in pending.items())

    # Kafka 4.0: CurrentAssignmentBuilder.computeNextAssignment
    def compute_next_assignment(self, member_epoch: int, current: Assignment) -> ConsumerGroupMember:
        has_unreleased = False
        kept: Assignment = {}
        revoking: Assignment = {}
        acquiring: Assignment = {}
        for topic_id in set(self.target_assignment) | set(current):
            target = self.target_assignment.get(topic_id, set())
            have = current.get(topic_id, set())
            if have & target:
                kept[topic_id] = have & target
            if have - target:
                revoking[topic_id] = have - target
            for p in target - have:
                if self.current_partition_epoch(topic_id, p) == -1:
                    acquiring.setdefault(topic_id, set()).add(p)
                else:
                    has_unreleased = True
        member = self.member.copy()
        if revoking and self.owns_revoked_partitions(revoking):
            # Revoke first: same epoch, no new partitions until the member lets go.
            member.state = MemberState.UNREVOKED_PARTITIONS
            member.update_member_epoch(member_epoch)
            member.assigned_partitions = kept
            member.partitions_pending_revocation = revoking
            return member
        assigned = {t: set(ps) for t, ps in kept.items()}
        for t, ps in acquiring.items():
            assigned.setdefault(t, set()).update(ps)
        member.state = MemberState.UNRELEASED_PARTITIONS if has_unreleased else MemberState.STABLE
        member.update_member_epoch(self.target_assignment_epoch)
        member.assigned_partitions = assigned
        member.partitions_pending_revocation = {}
        return member
