"""Scenarios of Kafka's SubscriptionStateTest (clients/src/test/java/org/apache/kafka/clients/consumer/internals/SubscriptionStateTest.java)."""
import pytest

from kafkalite.clients.consumer.internals.subscription_state import (
    FetchStates, OffsetResetStrategy, SubscriptionState,
)
from kafkalite.common.topic_partition import TopicPartition

TP0 = TopicPartition("test", 0)
TP1 = TopicPartition("test", 1)
T1P0 = TopicPartition("test1", 0)


def test_partition_assignment():
    state = SubscriptionState()
    assert state.assign_from_user([TP0])
    assert state.assigned_partitions() == {TP0}
    assert not state.has_all_fetch_positions()
    state.seek(TP0, 1)
    assert state.is_fetchable(TP0)
    assert state.all_consumed() == {TP0: 1}


def test_partition_assignment_change_on_manual_assignment():
    state = SubscriptionState()
    assert state.assign_from_user([TP0, TP1])
    assert not state.assign_from_user([TP1, TP0])   # same set: no change
    assert state.assign_from_user([T1P0])
    assert state.assigned_partitions() == {T1P0}
    assert not state.assign_from_user([T1P0])


def test_kept_partitions_keep_their_position():
    state = SubscriptionState()
    state.assign_from_user([TP0, TP1])
    state.seek(TP0, 10)
    state.assign_from_user([TP0, T1P0])
    assert state.position(TP0) == 10
    assert not state.has_valid_position(T1P0)


def test_partition_assignment_change_on_topic_subscription():
    state = SubscriptionState()
    assert state.subscribe(["test"])
    assert not state.subscribe(["test"])
    state.assign_from_subscribed([TP0, TP1])
    assert state.assigned_partitions() == {TP0, TP1}
    with pytest.raises(ValueError, match="non-subscribed topic"):
        state.assign_from_subscribed([T1P0])
    state.unsubscribe()
    assert state.assigned_partitions() == set()


def test_cant_subscribe_topic_and_assign():
    state = SubscriptionState()
    state.subscribe(["test"])
    with pytest.raises(RuntimeError, match="mutually exclusive"):
        state.assign_from_user([TP0])


def test_cant_assign_then_subscribe():
    state = SubscriptionState()
    state.assign_from_user([TP0])
    with pytest.raises(RuntimeError, match="mutually exclusive"):
        state.subscribe(["test"])


def test_unsubscribe_allows_switching():
    state = SubscriptionState()
    state.subscribe(["test"])
    state.unsubscribe()
    state.assign_from_user([TP0])
    assert state.assigned_partitions() == {TP0}


def test_group_subscribe_tracks_the_other_members_topics():
    state = SubscriptionState()
    state.subscribe(["test"])
    assert state.group_subscribe(["test1"])
    assert state.group_subscription == {"test", "test1"}
    state.reset_group_subscription()
    assert state.group_subscription == {"test"}


def test_seek_and_reset():
    state = SubscriptionState(OffsetResetStrategy.EARLIEST)
    state.assign_from_user([TP0, TP1])
    assert state.reset_missing_positions() == []
    assert state.partitions_needing_reset() == {TP0: OffsetResetStrategy.EARLIEST, TP1: OffsetResetStrategy.EARLIEST}
    state.request_offset_reset(TP1, OffsetResetStrategy.LATEST)
    assert state.partitions_needing_reset()[TP1] is OffsetResetStrategy.LATEST
    state.seek(TP0, 5)
    assert state.is_fetchable(TP0) and not state.is_fetchable(TP1)
    assert state.assigned_state(TP1).fetch_state is FetchStates.AWAIT_RESET
    assert state.fetchable_partitions() == [TP0]


def test_no_reset_policy_reports_missing_positions():
    state = SubscriptionState(OffsetResetStrategy.NONE)
    state.assign_from_user([TP0])
    assert state.reset_missing_positions() == [TP0]
    assert not state.has_default_offset_reset_policy()


def test_paused_partitions_are_not_fetchable():
    state = SubscriptionState()
    state.assign_from_user([TP0])
    state.seek(TP0, 0)
    state.pause(TP0)
    assert state.fetchable_partitions() == [] and state.paused_partitions() == {TP0}
    state.resume(TP0)
    assert state.fetchable_partitions() == [TP0]


def test_partition_lag_uses_hw_or_lso():
    state = SubscriptionState()
    state.assign_from_user([TP0])
    state.seek(TP0, 3)
    state.update_high_watermark(TP0, 10)
    state.update_last_stable_offset(TP0, 7)
    assert state.partition_lag(TP0, read_committed=False) == 7
    assert state.partition_lag(TP0, read_committed=True) == 4
