"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/SubscriptionState.java

Classes: SubscriptionType, OffsetResetStrategy, FetchStates, TopicPartitionState, SubscriptionState.

The consumer's book of what it reads and from where. A consumer either subscribes to topics
(``AUTO_TOPICS``: the group coordinator hands out the partitions through ``assign_from_subscribed``) or
assigns partitions itself (``USER_ASSIGNED``); mixing the two raises, with Kafka's message.
Each assigned partition has a ``TopicPartitionState``: its fetch state (INITIALIZING until a position is
known, FETCHING, AWAIT_RESET while a ListOffsets for the reset policy is due), its ``position`` (the next
offset to fetch), the last high watermark / last stable offset seen, and whether the user paused it.

Era notes: 2.4 also has AWAIT_VALIDATION (KIP-320 leader-epoch validation) and ``FetchPosition`` with
the leader epoch; kafkalite's position is a plain offset. Left out: pattern subscriptions
(``AUTO_PATTERN``), preferred read replicas (KIP-392).
"""
from __future__ import annotations

import enum
import threading

from kafkalite.common.topic_partition import TopicPartition


class SubscriptionType(enum.Enum):
    """Kafka: SubscriptionState.SubscriptionType."""
    NONE = 0
    AUTO_TOPICS = 1
    USER_ASSIGNED = 3


class OffsetResetStrategy(enum.Enum):
    """Kafka: OffsetResetStrategy -- what ``auto.offset.reset`` may say."""
    LATEST = "latest"
    EARLIEST = "earliest"
    NONE = "none"


class FetchStates(enum.Enum):
    """Kafka: SubscriptionState.FetchStates."""
    INITIALIZING = 0
    FETCHING = 1
    AWAIT_RESET = 2

    # Kafka: FetchState.hasPosition
    def has_position(self) -> bool:
        return self is FetchStates.FETCHING


class TopicPartitionState:
    """Kafka: SubscriptionState.TopicPartitionState."""

    def __init__(self):
        self.fetch_state = FetchStates.INITIALIZING
        self.position: int | None = None
        self.high_watermark: int | None = None
        self.log_start_offset: int | None = None
        self.last_stable_offset: int | None = None
        self.paused = False
        self.reset_strategy: OffsetResetStrategy | None = None

    # Kafka: TopicPartitionState.reset
    def reset(self, strategy: OffsetResetStrategy) -> None:
        self.fetch_state = FetchStates.AWAIT_RESET
        self.reset_strategy = strategy
        self.position = None

    # Kafka: TopicPartitionState.seekUnvalidated / seekValidated
    def seek(self, offset: int) -> None:
        self.fetch_state = FetchStates.FETCHING
        self.position = offset
        self.reset_strategy = None

    # Kafka: TopicPartitionState.isFetchable
    def is_fetchable(self) -> bool:
        return not self.paused and self.fetch_state.has_position()


class SubscriptionState:
    """Kafka: SubscriptionState."""

    SUBSCRIPTION_EXCEPTION_MESSAGE = \
        "Subscription to topics, partitions and pattern are mutually exclusive"

    def __init__(self, default_reset_strategy: OffsetResetStrategy = OffsetResetStrategy.LATEST):
        self.lock = threading.RLock()   # Kafka makes every method synchronized
        self.subscription_type = SubscriptionType.NONE
        self.subscription: set[str] = set()
        self.group_subscription: set[str] = set()   # every member's topics (the leader fetches them all)
        self.assignment: dict[TopicPartition, TopicPartitionState] = {}
        self.default_reset_strategy = default_reset_strategy
        self.rebalance_listener = None
        self.assignment_id = 0          # bumps on every assignment change

    # Kafka: SubscriptionState.setSubscriptionType
    def set_subscription_type(self, t: SubscriptionType) -> None:
        if self.subscription_type is SubscriptionType.NONE:
            self.subscription_type = t
        elif self.subscription_type is not t:
            raise RuntimeError(self.SUBSCRIPTION_EXCEPTION_MESSAGE)

    # Kafka: SubscriptionState.subscribe(Set<String>, ConsumerRebalanceListener) -> changeSubscription
    def subscribe(self, topics, listener=None) -> bool:
        with self.lock:
            self.set_subscription_type(SubscriptionType.AUTO_TOPICS)
            self.rebalance_listener = listener
            topics = set(topics)
            if topics == self.subscription:
                return False
            self.subscription = topics
            self.group_subscription |= topics
            return True

    # Kafka: SubscriptionState.groupSubscribe -- the leader also tracks the other members' topics
    def group_subscribe(self, topics) -> bool:
        with self.lock:
            if self.subscription_type is not SubscriptionType.AUTO_TOPICS:
                raise RuntimeError(self.SUBSCRIPTION_EXCEPTION_MESSAGE)
            before = set(self.group_subscription)
            self.group_subscription = self.subscription | set(topics)
            return self.group_subscription != before

    # Kafka: SubscriptionState.resetGroupSubscription
    def reset_group_subscription(self) -> None:
        with self.lock:
            self.group_subscription = set(self.subscription)

    # Kafka: SubscriptionState.assignFromUser -- returns True if the assignment changed
    def assign_from_user(self, partitions) -> bool:
        with self.lock:
            self.set_subscription_type(SubscriptionType.USER_ASSIGNED)
            partitions = list(dict.fromkeys(partitions))
            if set(partitions) == set(self.assignment):
                return False
            self._set_assignment(partitions)
            return True

    # Kafka: SubscriptionState.assignFromSubscribed -- the coordinator's assignment after a rebalance
    def assign_from_subscribed(self, partitions) -> None:
        with self.lock:
            if self.subscription_type is not SubscriptionType.AUTO_TOPICS:
                raise ValueError("Attempt to dynamically assign partitions while manual assignment in use")
            for tp in partitions:
                if tp.topic not in self.subscription:
                    raise ValueError(f"Assigned partition {tp} for non-subscribed topic.")
            self._set_assignment(list(partitions))

    def _set_assignment(self, partitions: list[TopicPartition]) -> None:
        # partitions kept keep their state (position); new ones start INITIALIZING
        self.assignment = {tp: self.assignment.get(tp) or TopicPartitionState() for tp in partitions}
        self.assignment_id += 1

    # Kafka: SubscriptionState.unsubscribe
    def unsubscribe(self) -> None:
        with self.lock:
            self.subscription = set()
            self.group_subscription = set()
            self.assignment = {}
            self.assignment_id += 1
            self.subscription_type = SubscriptionType.NONE
            self.rebalance_listener = None

    # Kafka: SubscriptionState.partitionsAutoAssigned
    def has_auto_assigned_partitions(self) -> bool:
        return self.subscription_type is SubscriptionType.AUTO_TOPICS

    # Kafka: SubscriptionState.partitionsAutoAssigned
    def partitions_auto_assigned(self) -> bool:
        return self.subscription_type is SubscriptionType.AUTO_TOPICS

    # Kafka: SubscriptionState.assignedPartitions
    def assigned_partitions(self) -> set[TopicPartition]:
        with self.lock:
            return set(self.assignment)

    # Kafka: SubscriptionState.assignedPartitionsList (insertion order)
    def assigned_partitions_list(self) -> list[TopicPartition]:
        with self.lock:
            return list(self.assignment)

    # Kafka: SubscriptionState.isAssigned
    def is_assigned(self, tp: TopicPartition) -> bool:
        return tp in self.assignment

    def assigned_state(self, tp: TopicPartition) -> TopicPartitionState:
        state = self.assignment.get(tp)
        if state is None:
            raise RuntimeError(f"No current assignment for partition {tp}")
        return state

    # Kafka: SubscriptionState.seek / seekUnvalidated
    def seek(self, tp: TopicPartition, offset: int) -> None:
        with self.lock:
            self.assigned_state(tp).seek(offset)

    # Kafka: SubscriptionState.position
    def position(self, tp: TopicPartition) -> int | None:
        with self.lock:
            return self.assigned_state(tp).position

    # Kafka: SubscriptionState.hasValidPosition
    def has_valid_position(self, tp: TopicPartition) -> bool:
        with self.lock:
            return self.assigned_state(tp).fetch_state.has_position()

    # Kafka: SubscriptionState.requestOffsetReset
    def request_offset_reset(self, tp: TopicPartition, strategy: OffsetResetStrategy | None = None) -> None:
        with self.lock:
            self.assigned_state(tp).reset(strategy or self.default_reset_strategy)

    # Kafka: SubscriptionState.isOffsetResetNeeded
    def is_offset_reset_needed(self, tp: TopicPartition) -> bool:
        return self.assigned_state(tp).fetch_state is FetchStates.AWAIT_RESET

    # Kafka: SubscriptionState.hasDefaultOffsetResetPolicy
    def has_default_offset_reset_policy(self) -> bool:
        return self.default_reset_strategy is not OffsetResetStrategy.NONE

    # Kafka: SubscriptionState.resetMissingPositions -- INITIALIZING partitions take the default policy
    def reset_missing_positions(self) -> list[TopicPartition]:
        """Returns the partitions that have no position and no reset policy (Kafka throws
        NoOffsetForPartitionException for them)."""
        with self.lock:
            missing = []
            for tp, state in self.assignment.items():
                if state.fetch_state is FetchStates.INITIALIZING:
                    if self.default_reset_strategy is OffsetResetStrategy.NONE:
                        missing.append(tp)
                    else:
                        state.reset(self.default_reset_strategy)
            return missing

    # Kafka: SubscriptionState.partitionsNeedingReset
    def partitions_needing_reset(self) -> dict[TopicPartition, OffsetResetStrategy]:
        with self.lock:
            return {tp: s.reset_strategy for tp, s in self.assignment.items()
                    if s.fetch_state is FetchStates.AWAIT_RESET}

    # Kafka 3.x: SubscriptionState.initializingPartitions
    def initializing_partitions(self) -> list[TopicPartition]:
        with self.lock:
            return [tp for tp, s in self.assignment.items() if s.fetch_state is FetchStates.INITIALIZING]

    # Kafka: SubscriptionState.hasAllFetchPositions
    def has_all_fetch_positions(self) -> bool:
        with self.lock:
            return all(s.fetch_state.has_position() for s in self.assignment.values())

    # Kafka: SubscriptionState.fetchablePartitions
    def fetchable_partitions(self) -> list[TopicPartition]:
        with self.lock:
            return [tp for tp, s in self.assignment.items() if s.is_fetchable()]

    # Kafka: SubscriptionState.isFetchable
    def is_fetchable(self, tp: TopicPartition) -> bool:
        with self.lock:
            state = self.assignment.get(tp)
            return state is not None and state.is_fetchable()

    # Kafka: SubscriptionState.allConsumed -- the positions to commit
    def all_consumed(self) -> dict[TopicPartition, int]:
        with self.lock:
            return {tp: s.position for tp, s in self.assignment.items() if s.fetch_state.has_position()}

    # Kafka: SubscriptionState.pause / resume / isPaused / pausedPartitions
    def pause(self, tp: TopicPartition) -> None:
        self.assigned_state(tp).paused = True

    def resume(self, tp: TopicPartition) -> None:
        self.assigned_state(tp).paused = False

    def is_paused(self, tp: TopicPartition) -> bool:
        return self.assigned_state(tp).paused

    def paused_partitions(self) -> set[TopicPartition]:
        return {tp for tp, s in self.assignment.items() if s.paused}

    # Kafka: SubscriptionState.updateHighWatermark / updateLastStableOffset / updateLogStartOffset
    def update_high_watermark(self, tp: TopicPartition, hw: int) -> None:
        self.assigned_state(tp).high_watermark = hw

    def update_last_stable_offset(self, tp: TopicPartition, lso: int) -> None:
        self.assigned_state(tp).last_stable_offset = lso

    def update_log_start_offset(self, tp: TopicPartition, offset: int) -> None:
        self.assigned_state(tp).log_start_offset = offset

    # Kafka: SubscriptionState.partitionLag
    def partition_lag(self, tp: TopicPartition, read_committed: bool) -> int | None:
        state = self.assigned_state(tp)
        end = state.last_stable_offset if read_committed else state.high_watermark
        if end is None or state.position is None:
            return None
        return end - state.position
