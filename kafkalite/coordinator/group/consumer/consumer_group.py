"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroup.java
(with the parts of modern/ModernGroup.java it inherits)

Classes: ConsumerGroupState, ConsumerGroup.

A consumer-protocol group: its members, the group epoch (bumped by every change of membership, subscription or
subscribed topic metadata), the target assignment and the epoch it was computed for (the assignment epoch),
and the epoch of the member that holds each partition (``partition_epochs``: what reconciliation asks before
it hands a partition to a new owner). The state is derived:

- Empty: no members;
- Assigning: the group epoch is ahead of the assignment epoch (a new target is due);
- Reconciling: some member has not reached the target yet;
- Stable: every member has.

Offsets are not here: they stay in the classic GroupMetadata of the same id (group_metadata_manager.py), which
is what OffsetCommit/OffsetFetch and ``__consumer_offsets`` already use. ``validate_offset_commit`` is Kafka's
check of the member id and epoch of an OffsetCommit v9 aimed at this group.

Era notes: Kafka 3.7 (KIP-848). Left out: the regex subscription, the online upgrade/downgrade between the
classic and the consumer protocol (Kafka 3.8+), rack-aware metadata, persisting this state as
ConsumerGroupMetadata/Member/TargetAssignment records (docs/consumer-group-protocol.md).
"""
from __future__ import annotations

import enum
import threading
import uuid

from kafkalite.coordinator.group.consumer.consumer_group_member import Assignment, ConsumerGroupMember
from kafkalite.protocol.errors import Errors


class ConsumerGroupState(enum.Enum):
    """Kafka 4.0: ConsumerGroup.ConsumerGroupState."""
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


class ConsumerGroup:
    """Kafka 4.0: ConsumerGroup."""

    PROTOCOL_TYPE = "consumer"

    def __init__(self, group_id: str):
        self.group_id = group_id
        self.lock = threading.RLock()
        self.group_epoch = 0
        self.members: dict[str, ConsumerGroupMember] = {}
        self.static_members: dict[str, str] = {}            # instance id -> member id
        self.target_assignment: dict[str, Assignment] = {}
        self.target_assignment_epoch = 0
        self.assignor_name = ""
        # Kafka's subscriptionMetadata: topic name -> (topic id, partition count) of every subscribed topic
        self.subscription_metadata: dict[str, tuple[uuid.UUID, int]] = {}
        self.partition_epochs: dict[tuple[uuid.UUID, int], tuple[int, str]] = {}
        self.is_dead = False

    # Kafka 4.0: ConsumerGroup.state
    def state(self) -> ConsumerGroupState:
        if self.is_dead:
            return ConsumerGroupState.DEAD
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.target_assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        if any(not m.is_reconciled_to(self.target_assignment_epoch) for m in self.members.values()):
            return ConsumerGroupState.RECONCILING
        return ConsumerGroupState.STABLE

    # Kafka 4.0: ConsumerGroup.getOrMaybeCreateMember
    def get_or_maybe_create_member(self, member_id: str, create: bool) -> ConsumerGroupMember:
        member = self.members.get(member_id)
        if member is None:
            if not create:
                raise KeyError(member_id)
            member = ConsumerGroupMember(member_id)
        return member

    # Kafka 4.0: ConsumerGroup.updateMember -- keeps the partition epochs in step with the member
    def update_member(self, member: ConsumerGroupMember) -> None:
        old = self.members.get(member.member_id)
        if old is not None:
            self._remove_partition_epochs(old)
        self.members[member.member_id] = member
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        self._add_partition_epochs(member)

    # Kafka 4.0: ConsumerGroup.removeMember
    def remove_member(self, member_id: str) -> ConsumerGroupMember | None:
        old = self.members.pop(member_id, None)
        if old is not None:
            self._remove_partition_epochs(old)
            if old.instance_id is not None and self.static_members.get(old.instance_id) == member_id:
                del self.static_members[old.instance_id]
        self.target_assignment.pop(member_id, None)
        return old

    # Kafka 4.0: ConsumerGroup.staticMember
    def static_member(self, instance_id: str | None) -> ConsumerGroupMember | None:
        member_id = self.static_members.get(instance_id) if instance_id is not None else None
        return self.members.get(member_id) if member_id is not None else None

    # Kafka 4.0: ConsumerGroup.currentPartitionEpoch -- -1 when no other member holds it
    def current_partition_epoch(self, topic_id: uuid.UUID, partition: int, asking_member: str | None = None) -> int:
        held = self.partition_epochs.get((topic_id, partition))
        if held is None or held[1] == asking_member:
            return -1
        return held[0]

    def _add_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for assignment in (member.assigned_partitions, member.partitions_pending_revocation):
            for t, ps in assignment.items():
                for p in ps:
                    held = self.partition_epochs.get((t, p))
                    if held is not None and held[1] != member.member_id:
                        raise RuntimeError(f"partition {t}-{p} of group {self.group_id} is held by {held[1]}; "
                                           f"{member.member_id} cannot take it")
                    self.partition_epochs[(t, p)] = (member.member_epoch, member.member_id)

    def _remove_partition_epochs(self, member: ConsumerGroupMember) -> None:
        for assignment in (member.assigned_partitions, member.partitions_pending_revocation):
            for t, ps in assignment.items():
                for p in ps:
                    if self.partition_epochs.get((t, p), (0, None))[1] == member.member_id:
                        del self.partition_epochs[(t, p)]

    # Kafka 4.0: ModernGroup.subscribedTopicNames
    def subscribed_topic_names(self) -> set[str]:
        return {t for m in self.members.values() for t in m.subscribed_topic_names}

    # Kafka 4.0: ModernGroup.computeSubscriptionMetadata -- topic_lookup(name) -> (id, partitions) or None
    def compute_subscription_metadata(self, topic_lookup) -> dict[str, tuple[uuid.UUID, int]]:
        out = {}
        for name in sorted(self.subscribed_topic_names()):
            found = topic_lookup(name)
            if found is not None:
                out[name] = found
        return out

    # Kafka 4.0: ConsumerGroup.validateOffsetCommit -- None when the commit may go on
    def validate_offset_commit(self, member_id: str, member_epoch: int, is_transactional: bool,
                               api_version: int) -> Errors | None:
        if member_epoch < 0 and not self.members:
            return None   # an admin client or a consumer that only assign()s: allowed while nobody is in
        member = self.members.get(member_id)
        if member is None:
            return Errors.UNKNOWN_MEMBER_ID
        if not is_transactional and api_version < 9:
            return Errors.UNSUPPORTED_VERSION   # consumer-protocol members commit with v9+
        return self.validate_member_epoch(member_epoch, member.member_epoch)

    # Kafka 4.0: ConsumerGroup.validateMemberEpoch -- any other epoch is stale (the member retries with the
    # epoch its next heartbeat gives it)
    @staticmethod
    def validate_member_epoch(received: int, expected: int) -> Errors | None:
        return Errors.STALE_MEMBER_EPOCH if received != expected else None

    # Kafka 4.0: ConsumerGroup.validateOffsetFetch (OffsetFetch v9 names a member; older versions do not)
    def validate_offset_fetch(self, member_id: str | None, member_epoch: int) -> Errors | None:
        if member_id is None or member_epoch < 0:
            return None
        member = self.members.get(member_id)
        if member is None:
            return Errors.UNKNOWN_MEMBER_ID
        return self.validate_member_epoch(member_epoch, member.member_epoch)
