"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java
(scheduleConsumerGroupSessionTimeout and scheduleConsumerGroupRebalanceTimeout: the timers of one member)

Classes: ConsumerGroupSessionTimeout, ConsumerGroupRebalanceTimeout.

Kafka 4.0 keeps these as keyed timers of the coordinator runtime; here they are delayed operations in the
group coordinator's "Heartbeat" purgatory under ``MemberKey(group, member)``, as 2.4's DelayedHeartbeat is.
Each heartbeat completes the member's pending session timeout and parks a new one (``deadline`` tells them
apart); if one expires the member is fenced: removed from the group, whose epoch is bumped. A rebalance
timeout is parked when a member is asked to revoke partitions; it completes once the member moved on and, if
it expires first, fences the member too.

Era notes: Kafka 3.7 (KIP-848). Left out: nothing.
"""
from __future__ import annotations

from kafkalite.server.delayed_operation import DelayedOperation


class ConsumerGroupSessionTimeout(DelayedOperation):
    """Kafka 4.0: GroupMetadataManager.scheduleConsumerGroupSessionTimeout -- one session's timer."""

    def __init__(self, manager, group, member_id: str, deadline: int, timeout_ms: int):
        super().__init__(timeout_ms, group.lock)
        self.manager = manager
        self.group = group
        self.member_id = member_id
        self.deadline = deadline

    # Kafka 4.0: GroupMetadataManager.scheduleConsumerGroupSessionTimeout (a newer heartbeat cancels it)
    def try_complete(self) -> bool:
        member = self.group.members.get(self.member_id)
        if member is None or self.manager.session_deadlines.get((self.group.group_id, self.member_id)) != self.deadline:
            return self.force_complete()
        return False

    def on_expiration(self) -> None:
        self.manager.on_session_timeout(self.group, self.member_id, self.deadline)

    def on_complete(self) -> None:
        pass


class ConsumerGroupRebalanceTimeout(DelayedOperation):
    """Kafka 4.0: GroupMetadataManager.scheduleConsumerGroupRebalanceTimeout -- time to revoke."""

    def __init__(self, manager, group, member_id: str, member_epoch: int, timeout_ms: int):
        super().__init__(timeout_ms, group.lock)
        self.manager = manager
        self.group = group
        self.member_id = member_id
        self.member_epoch = member_epoch

    def _still_revoking(self) -> bool:
        from kafkalite.coordinator.group.consumer.consumer_group_member import MemberState
        member = self.group.members.get(self.member_id)
        return (member is not None and member.member_epoch == self.member_epoch
                and member.state is MemberState.UNREVOKED_PARTITIONS)

    # Kafka 4.0: GroupMetadataManager.cancelConsumerGroupRebalanceTimeout (the member revoked)
    def try_complete(self) -> bool:
        return False if self._still_revoking() else self.force_complete()

    def on_expiration(self) -> None:
        if self._still_revoking():
            self.manager.on_rebalance_timeout(self.group, self.member_id, self.member_epoch)

    def on_complete(self) -> None:
        pass
