"""Kafka: GroupMetadataTest -- state transitions, protocol selection, plain and transactional offset commits."""
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_metadata import (CommitRecordMetadataAndOffset, CompletingRebalance, Dead,
                                                        Empty, GroupMetadata, OffsetAndMetadata, PreparingRebalance,
                                                        Stable)
from kafkalite.coordinator.group.member_metadata import MemberMetadata
from kafkalite.utils.time import MockTime


def member(mid, protocols, group="g"):
    return MemberMetadata(mid, group, None, "client", "/127.0.0.1", 30000, 10000, "consumer", protocols)


@pytest.fixture
def group():
    return GroupMetadata("g", Empty, MockTime())


def test_can_rebalance_when_stable_or_completing_or_empty(group):
    assert group.can_rebalance()
    group.transition_to(PreparingRebalance)
    assert not group.can_rebalance()
    group.transition_to(CompletingRebalance)
    assert group.can_rebalance()
    group.transition_to(Stable)
    assert group.can_rebalance()


def test_valid_transition_path_and_dead_is_final(group):
    for state in (PreparingRebalance, CompletingRebalance, Stable, PreparingRebalance, Empty, Dead):
        group.transition_to(state)
        assert group.current_state is state
    group.transition_to(Dead)  # Dead -> Dead is allowed
    for state in (Empty, PreparingRebalance, CompletingRebalance, Stable):
        with pytest.raises(RuntimeError):
            group.transition_to(state)


@pytest.mark.parametrize("path,bad", [
    ((), Stable), ((), CompletingRebalance),
    ((PreparingRebalance,), Stable), ((PreparingRebalance,), PreparingRebalance),
    ((PreparingRebalance, CompletingRebalance), Empty), ((PreparingRebalance, CompletingRebalance), CompletingRebalance),
    ((PreparingRebalance, CompletingRebalance, Stable), Stable), ((PreparingRebalance, CompletingRebalance, Stable), Empty),
])
def test_invalid_transitions_raise_and_keep_state(group, path, bad):
    for state in path:
        group.transition_to(state)
    before = group.current_state
    with pytest.raises(RuntimeError):
        group.transition_to(bad)
    assert group.current_state is before


def test_select_protocol_by_vote(group):
    group.add(member("m1", [("range", b""), ("roundrobin", b"")]))
    assert group.select_protocol() == "range"
    group.add(member("m2", [("roundrobin", b""), ("range", b"")]))
    group.add(member("m3", [("roundrobin", b""), ("range", b"")]))
    assert group.select_protocol() == "roundrobin"


def test_select_protocol_chooses_only_common_protocols(group):
    group.add(member("m1", [("range", b""), ("sticky", b"")]))
    group.add(member("m2", [("sticky", b""), ("range", b"")]))
    group.add(member("m3", [("roundrobin", b""), ("sticky", b"")]))
    assert group.candidate_protocols() == {"sticky"}
    assert group.select_protocol() == "sticky"


def test_select_protocol_on_empty_group_raises(group):
    with pytest.raises(RuntimeError):
        group.select_protocol()


def test_supports_protocols(group):
    assert not group.supports_protocols("consumer", set())   # an empty group needs some protocol
    assert group.supports_protocols("consumer", {"range"})
    group.add(member("m1", [("range", b""), ("roundrobin", b"")]))
    group.transition_to(PreparingRebalance)
    assert group.supports_protocols("consumer", {"roundrobin", "foo"})
    assert not group.supports_protocols("consumer", {"foo"})
    assert not group.supports_protocols("connect", {"range"})


def test_init_next_generation_with_and_without_members(group):
    group.add(member("m1", [("range", b"")]), callback=lambda r: None)
    group.transition_to(PreparingRebalance)
    assert group.has_all_members_joined()
    group.init_next_generation()
    assert (group.generation_id, group.protocol_name, group.current_state) == (1, "range", CompletingRebalance)
    group.maybe_invoke_join_callback(group.get("m1"), None)
    group.transition_to(Stable)
    group.transition_to(PreparingRebalance)
    group.remove("m1")
    group.init_next_generation()
    assert (group.generation_id, group.protocol_name, group.current_state) == (2, None, Empty)


def test_leader_moves_when_leader_removed(group):
    group.add(member("m1", [("range", b"")]))
    group.add(member("m2", [("range", b"")]))
    assert group.leader_id == "m1"
    group.remove("m1")
    assert group.leader_id == "m2"
    group.remove("m2")
    assert group.leader_id is None


def test_pending_offset_commit_becomes_visible_on_append(group):
    tp = TopicPartition("foo", 0)
    om = OffsetAndMetadata(37, None, "", 1, None)
    group.prepare_offset_commit({tp: om})
    assert group.has_offsets() and group.offset(tp) is None
    group.on_offset_commit_append(tp, CommitRecordMetadataAndOffset(5, om))
    assert group.offset(tp) == om and not group.has_pending_offset_commits()
    other = OffsetAndMetadata(40, None, "", 2, None)
    group.prepare_offset_commit({tp: other})
    group.fail_pending_offset_write(tp, other)
    assert group.offset(tp) == om and not group.has_pending_offset_commits()


# ---------------------------------------------------------------- transactional offset commits
TP = TopicPartition("foo", 0)
PRODUCER_ID = 13232


def om(offset):
    return OffsetAndMetadata(offset, None, "", 1, None)


def test_pending_txn_offset_commit_invisible_until_commit(group):
    # Kafka: GroupMetadataTest.testTransactionalOffsetCommit (the producer's commit shows only on COMMIT)
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(37)})
    assert group.has_offsets() and group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert group.offset(TP) is None
    group.on_txn_offset_commit_append(PRODUCER_ID, TP, CommitRecordMetadataAndOffset(3, om(37)))
    assert group.offset(TP) is None and group.has_pending_offset_commits_for_topic_partition(TP)
    group.complete_pending_txn_offset_commit(PRODUCER_ID, is_commit=True)
    assert group.offset(TP) == om(37)
    assert group.offset_with_record_metadata(TP) == CommitRecordMetadataAndOffset(3, om(37))
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert not group.has_pending_offset_commits_for_topic_partition(TP)


def test_aborted_txn_offset_commit_is_dropped(group):
    # Kafka: GroupMetadataTest.testTransactionalCommitIsAbortedAndConsumerCommitWins (abort half)
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(37)})
    group.on_txn_offset_commit_append(PRODUCER_ID, TP, CommitRecordMetadataAndOffset(3, om(37)))
    group.complete_pending_txn_offset_commit(PRODUCER_ID, is_commit=False)
    assert group.offset(TP) is None and not group.has_offsets()
    assert group.active_producers() == set()


def test_failed_txn_offset_commit_leaves_no_pending_state(group):
    # Kafka: GroupMetadataTest.testFailedTxnOffsetCommitLeavesNoPendingState
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(37)})
    group.fail_pending_txn_offset_commit(PRODUCER_ID, TP)
    assert not group.has_offsets() and not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    # a marker that comes anyway changes nothing
    group.complete_pending_txn_offset_commit(PRODUCER_ID, is_commit=True)
    assert group.offset(TP) is None


def test_consumer_commit_appended_later_beats_transactional_commit(group):
    # Kafka: GroupMetadataTest.testConsumerBeatsTransactionalOffsetCommit -- the later record in the log wins
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(37)})
    group.on_txn_offset_commit_append(PRODUCER_ID, TP, CommitRecordMetadataAndOffset(3, om(37)))
    group.prepare_offset_commit({TP: om(40)})
    group.on_offset_commit_append(TP, CommitRecordMetadataAndOffset(4, om(40)))
    group.complete_pending_txn_offset_commit(PRODUCER_ID, is_commit=True)
    assert group.offset(TP) == om(40)


def test_transactional_commit_appended_later_beats_consumer_commit(group):
    # Kafka: GroupMetadataTest.testTransactionBeatsConsumerOffsetCommit
    group.prepare_offset_commit({TP: om(40)})
    group.on_offset_commit_append(TP, CommitRecordMetadataAndOffset(3, om(40)))
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(37)})
    group.on_txn_offset_commit_append(PRODUCER_ID, TP, CommitRecordMetadataAndOffset(4, om(37)))
    assert group.offset(TP) == om(40)
    group.complete_pending_txn_offset_commit(PRODUCER_ID, is_commit=True)
    assert group.offset(TP) == om(37)


def test_complete_before_append_is_an_error(group):
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(37)})
    with pytest.raises(RuntimeError):
        group.complete_pending_txn_offset_commit(PRODUCER_ID, is_commit=True)


def test_pending_offsets_of_one_producer_do_not_affect_another(group):
    # Kafka: GroupMetadataTest.testOffsetCommitsWithMultipleProducers (in spirit)
    other, tp1 = PRODUCER_ID + 1, TopicPartition("foo", 1)
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(10)})
    group.prepare_txn_offset_commit(other, {tp1: om(20)})
    group.on_txn_offset_commit_append(PRODUCER_ID, TP, CommitRecordMetadataAndOffset(1, om(10)))
    group.on_txn_offset_commit_append(other, tp1, CommitRecordMetadataAndOffset(2, om(20)))
    assert group.active_producers() == {PRODUCER_ID, other}
    group.complete_pending_txn_offset_commit(other, is_commit=False)
    assert group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert group.offset(tp1) is None and group.offset(TP) is None
    group.complete_pending_txn_offset_commit(PRODUCER_ID, is_commit=True)
    assert group.all_offsets() == {TP: om(10)}


def test_remove_offsets_drops_pending_transactional_offsets_of_those_partitions(group):
    # Kafka: GroupMetadata.removeOffsets also forgets what producers have pending for a removed partition
    tp1 = TopicPartition("foo", 1)
    group.prepare_offset_commit({TP: om(1)})
    group.on_offset_commit_append(TP, CommitRecordMetadataAndOffset(1, om(1)))
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(5), tp1: om(6)})
    assert group.remove_offsets([TP]) == {TP: om(1)}
    assert not group.has_pending_offset_commits_for_topic_partition(TP)
    assert group.has_pending_offset_commits_for_topic_partition(tp1)


def test_expiration_leaves_pending_transactional_offsets(group):
    # Kafka: GroupMetadata.removeExpiredOffsets looks at committed offsets only
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(5)})
    assert group.remove_expired_offsets(10**12, 1) == {}
    assert group.has_pending_offset_commits_from_producer(PRODUCER_ID) and group.has_offsets()


def test_received_consistent_offset_commits(group):
    assert group.has_received_consistent_offset_commits()
    group.prepare_txn_offset_commit(PRODUCER_ID, {TP: om(5)})
    assert group.has_received_consistent_offset_commits()
    group.prepare_offset_commit({TP: om(6)})
    assert not group.has_received_consistent_offset_commits()

