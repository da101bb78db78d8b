"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/consumer/ConsumerGroupMember.java
and modern/MemberState.java

Classes: MemberState, ConsumerGroupMember.

A member of a consumer-protocol group: its epochs (``member_epoch`` is the epoch of the assignment it has
reached; ``previous_member_epoch`` lets a member whose last response was lost be accepted once), its
subscription, the partitions it may use (``assigned_partitions``) and those it must give up first
(``partitions_pending_revocation``). Kafka's member is immutable and rebuilt by a Builder; here
``copy()`` + attribute updates play the Builder.

Era notes: Kafka 3.7 (KIP-848). Left out: the classic-protocol member metadata of Kafka 4.0's online
upgrade (a classic member inside a consumer group), the topic regex.
"""
from __future__ import annotations

import copy
import enum
import uuid
from dataclasses import dataclass, field

Assignment = dict[uuid.UUID, set[int]]


class MemberState(enum.Enum):
    """Kafka 4.0: MemberState."""
    STABLE = "stable"                                # it has its target assignment
    UNREVOKED_PARTITIONS = "unrevoked_partitions"    # it must revoke partitions before going on
    UNRELEASED_PARTITIONS = "unreleased_partitions"  # it waits for partitions other members still hold
    UNKNOWN = "unknown"


@dataclass
class ConsumerGroupMember:
    """Kafka 4.0: ConsumerGroupMember."""
    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: MemberState = MemberState.STABLE
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: list[str] = field(default_factory=list)
    server_assignor_name: str | None = None
    assigned_partitions: Assignment = field(default_factory=dict)
    partitions_pending_revocation: Assignment = field(default_factory=dict)

    def copy(self) -> "ConsumerGroupMember":
        return copy.deepcopy(self)

    # Kafka 4.0: ConsumerGroupMember.Builder.updateMemberEpoch
    def update_member_epoch(self, epoch: int) -> None:
        self.previous_member_epoch = self.member_epoch
        self.member_epoch = epoch

    # Kafka 4.0: ConsumerGroupMember.isReconciledTo
    def is_reconciled_to(self, target_assignment_epoch: int) -> bool:
        return self.state is MemberState.STABLE and self.member_epoch == target_assignment_epoch
