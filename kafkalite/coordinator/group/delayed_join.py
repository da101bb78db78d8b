"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/DelayedJoin.scala

Classes: DelayedJoin, InitialDelayedJoin.

A rebalance parks every member's JoinGroup in the "Rebalance" purgatory under ``GroupKey(group)``.
The DelayedJoin completes when every known member has rejoined (``try_complete`` ->
``GroupCoordinator.try_complete_join``; each JoinGroup calls ``check_and_complete``) or when the
rebalance timeout (the largest ``rebalance_timeout_ms`` of the members) runs out. Either way
``on_complete`` -> ``GroupCoordinator.on_complete_join`` drops the members that did not rejoin,
starts the next generation and answers every parked JoinGroup.

InitialDelayedJoin is used when an Empty group starts its first rebalance: it never completes
early, it waits ``group.initial.rebalance.delay.ms`` and, while new members keep arriving, waits
that long again (never past the rebalance timeout), so a group of consumers starting together
gets one rebalance instead of one per member.

Both use ``group.lock`` as the operation's lock, as Kafka's ``Some(group.lock)``.
Era notes: none. Left out: nothing.
"""
from __future__ import annotations

from kafkalite.server.delayed_operation import DelayedOperation
from kafkalite.server.delayed_operation_key import GroupKey


class DelayedJoin(DelayedOperation):
    """Kafka: DelayedJoin -- waits for all members of a group to rejoin."""

    def __init__(self, coordinator, group, rebalance_timeout_ms: int):
        super().__init__(rebalance_timeout_ms, group.lock)
        self.coordinator = coordinator
        self.group = group

    # Kafka: DelayedJoin.tryComplete
    def try_complete(self) -> bool:
        return self.coordinator.try_complete_join(self.group, self.force_complete)

    # Kafka: DelayedJoin.onExpiration
    def on_expiration(self) -> None:
        self.coordinator.on_expire_join()

    # Kafka: DelayedJoin.onComplete
    def on_complete(self) -> None:
        self.coordinator.on_complete_join(self.group)


class InitialDelayedJoin(DelayedJoin):
    """Kafka: InitialDelayedJoin -- the first rebalance of an Empty group waits for more joiners."""

    def __init__(self, coordinator, purgatory, group, configured_rebalance_delay: int,
                 delay_ms: int, remaining_ms: int):
        super().__init__(coordinator, group, delay_ms)
        self.purgatory = purgatory
        self.configured_rebalance_delay = configured_rebalance_delay
        self.remaining_ms = remaining_ms

    # Kafka: InitialDelayedJoin.tryComplete -- only the timer completes it
    def try_complete(self) -> bool:
        return False

    # Kafka: InitialDelayedJoin.onComplete -- wait again while members keep arriving
    def on_complete(self) -> None:
        with self.group.lock:
            if self.group.new_member_added and self.remaining_ms != 0:
                self.group.new_member_added = False
                delay = min(self.configured_rebalance_delay, self.remaining_ms)
                remaining = max(self.remaining_ms - self.delay_ms, 0)
                self.purgatory.try_complete_else_watch(
                    InitialDelayedJoin(self.coordinator, self.purgatory, self.group,
                                       self.configured_rebalance_delay, delay, remaining),
                    [GroupKey(self.group.group_id)])
            else:
                super().on_complete()
