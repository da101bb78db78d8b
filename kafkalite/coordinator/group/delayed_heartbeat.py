"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/DelayedHeartbeat.scala

Classes: DelayedHeartbeat.

Session-timeout detection. After each heartbeat (and each join or sync) the coordinator
completes the member's current DelayedHeartbeat and parks a new one, due at
``latest_heartbeat + session_timeout_ms``, in the "Heartbeat" purgatory under
``MemberKey(group, member)``. If the member heartbeats again first, ``check_and_complete`` finds it
alive (``try_complete_heartbeat``) and it completes quietly. If the deadline passes,
``on_expiration`` -> ``GroupCoordinator.on_expire_heartbeat`` removes the member and rebalances.

``is_pending`` marks the heartbeat of a pending member (handed an id with MEMBER_ID_REQUIRED): it
completes when the member joins, and on expiry just forgets the pending id.
The operation's lock is ``group.lock``. Era notes: none. Left out: nothing.
"""
from __future__ import annotations

from kafkalite.server.delayed_operation import DelayedOperation


class DelayedHeartbeat(DelayedOperation):
    """Kafka: DelayedHeartbeat -- expires a member whose session timed out."""

    def __init__(self, coordinator, group, member_id: str, is_pending: bool,
                 heartbeat_deadline: int, session_timeout: int):
        super().__init__(session_timeout, group.lock)
        self.coordinator = coordinator
        self.group = group
        self.member_id = member_id
        self.is_pending = is_pending
        self.heartbeat_deadline = heartbeat_deadline

    # Kafka: DelayedHeartbeat.tryComplete
    def try_complete(self) -> bool:
        return self.coordinator.try_complete_heartbeat(self.group, self.member_id, self.is_pending,
                                                       self.heartbeat_deadline, self.force_complete)

    # Kafka: DelayedHeartbeat.onExpiration
    def on_expiration(self) -> None:
        self.coordinator.on_expire_heartbeat(self.group, self.member_id, self.is_pending, self.heartbeat_deadline)

    # Kafka: DelayedHeartbeat.onComplete
    def on_complete(self) -> None:
        self.coordinator.on_complete_heartbeat()
