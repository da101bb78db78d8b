"""Kafka: TransactionMetadataTest (+ TransactionLogTest) -- the state machine's transitions, epoch bumps (with
KIP-360's retries) and the __transaction_state record format."""
import struct

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction import transaction_log as TransactionLog
from kafkalite.coordinator.transaction.transaction_metadata import (
    NO_PRODUCER_EPOCH, VALID_PREVIOUS_STATES, CompleteAbort, CompleteCommit, Dead, Empty, Ongoing, PrepareAbort,
    PrepareCommit, PrepareEpochFence, TransactionMetadata, TransactionState, is_valid_transition)
from kafkalite.protocol.errors import Errors

TP0, TP1 = TopicPartition("topic", 0), TopicPartition("topic", 1)


def metadata(state=Empty, epoch=0, partitions=(), start=-1, pid=10):
    return TransactionMetadata("txn", pid, epoch, 60_000, state, set(partitions), start, 100)


def transit(m, prepared):
    m.complete_transition_to(prepared)
    return m


def test_valid_previous_states_are_kafkas():
    assert VALID_PREVIOUS_STATES[PrepareCommit] == {Ongoing}
    assert VALID_PREVIOUS_STATES[PrepareAbort] == {Ongoing, PrepareEpochFence}
    assert VALID_PREVIOUS_STATES[CompleteCommit] == {PrepareCommit}
    assert VALID_PREVIOUS_STATES[Empty] == {Empty, CompleteCommit, CompleteAbort}
    assert VALID_PREVIOUS_STATES[Dead] == {Empty, CompleteAbort, CompleteCommit}
    assert is_valid_transition(Ongoing, PrepareEpochFence) and not is_valid_transition(Empty, PrepareCommit)
    assert [s.byte for s in TransactionState] == list(range(8))


def test_init_from_no_epoch_bumps_to_zero():
    m = metadata(epoch=NO_PRODUCER_EPOCH)
    error, t = m.prepare_increment_producer_epoch(30_000, None, 200)
    assert error is Errors.NONE and t.producer_epoch == 0 and t.txn_state is Empty
    transit(m, t)
    assert (m.producer_epoch, m.txn_timeout_ms, m.state, m.pending_state) == (0, 30_000, Empty, None)


def test_epoch_bump_then_add_partitions_then_commit_cycle():
    m = metadata(epoch=3)
    transit(m, m.prepare_increment_producer_epoch(60_000, None, 200)[1])
    assert m.producer_epoch == 4
    transit(m, m.prepare_add_partitions({TP0}, 300))
    assert (m.state, m.topic_partitions, m.txn_start_timestamp) == (Ongoing, {TP0}, 300)
    transit(m, m.prepare_add_partitions({TP1}, 400))
    assert m.topic_partitions == {TP0, TP1} and m.txn_start_timestamp == 300   # the clock started at the first
    transit(m, m.prepare_abort_or_commit(PrepareCommit, 500))
    assert m.state is PrepareCommit
    m.remove_partition(TP0)
    m.remove_partition(TP1)
    transit(m, m.prepare_complete(600))
    assert (m.state, m.topic_partitions, m.txn_last_update_timestamp) == (CompleteCommit, set(), 600)


def test_a_second_prepare_while_one_is_pending_is_refused():
    m = metadata()
    m.prepare_add_partitions({TP0}, 1)
    assert m.pending_transition_in_progress()
    with pytest.raises(RuntimeError, match="already a pending state"):
        m.prepare_add_partitions({TP1}, 2)


def test_illegal_transition_is_refused():
    with pytest.raises(RuntimeError, match="not a valid previous state"):
        metadata(Empty).prepare_abort_or_commit(PrepareCommit, 1)


def test_completing_a_transition_other_than_the_pending_one_fails():
    m = metadata()
    other = metadata().prepare_add_partitions({TP0}, 1)
    m.prepare_increment_producer_epoch(1, None, 1)
    with pytest.raises(RuntimeError, match="failed transition"):
        m.complete_transition_to(other)


def test_remove_partition_only_while_preparing():
    with pytest.raises(RuntimeError):
        metadata(Ongoing, partitions={TP0}).remove_partition(TP0)


def test_fence_bumps_epoch_and_then_abort_is_allowed():
    m = metadata(Ongoing, epoch=5, partitions={TP0}, start=50)
    fence = m.prepare_fence_producer_epoch()
    assert (fence.txn_state, fence.producer_epoch, m.pending_state) == (PrepareEpochFence, 6, PrepareEpochFence)
    assert is_valid_transition(Ongoing, PrepareAbort)


def test_exhausted_epoch_rotates_producer_id():
    m = metadata(epoch=32766)
    assert m.is_producer_epoch_exhausted()
    with pytest.raises(RuntimeError):
        m.prepare_increment_producer_epoch(1, None, 1)
    m.pending_state = None
    t = m.prepare_producer_id_rotation(77, 1000, 5)
    transit(m, t)
    assert (m.producer_id, m.producer_epoch, m.last_producer_id) == (77, 0, 10)


def test_kip360_bump_with_the_current_epoch_and_its_retry():
    m = metadata(epoch=4)
    error, t = m.prepare_increment_producer_epoch(1000, 4, 10)
    assert error is Errors.NONE and (t.producer_epoch, t.last_producer_epoch) == (5, 4)
    transit(m, t)
    error, retry = m.prepare_increment_producer_epoch(1000, 4, 11)   # the answer was lost: same bump again
    assert error is Errors.NONE and retry.producer_epoch == 5
    m.pending_state = None
    error, stale = m.prepare_increment_producer_epoch(1000, 2, 12)
    assert error is Errors.PRODUCER_FENCED and stale is None and m.pending_state is None


def test_transaction_log_key_is_version_0_and_the_transactional_id():
    assert TransactionLog.key_to_bytes("txn") == struct.pack(">hh", 0, 3) + b"txn"
    assert TransactionLog.read_txn_record_key(TransactionLog.key_to_bytes("t-1")).transactional_id == "t-1"


def test_transaction_log_value_round_trip():
    m = metadata(Ongoing, epoch=2, partitions={TP0}, start=50)
    t = m.prepare_add_partitions({TP1, TopicPartition("other", 3)}, 70)
    value = TransactionLog.value_to_bytes(t)
    # version, producer id, epoch, timeout, status byte
    assert value[:17] == struct.pack(">hqhib", 0, 10, 2, 60_000, Ongoing.byte)
    back = TransactionLog.read_txn_record_value("txn", value)
    assert (back.producer_id, back.producer_epoch, back.txn_timeout_ms, back.state) == (10, 2, 60_000, Ongoing)
    assert back.topic_partitions == {TP0, TP1, TopicPartition("other", 3)}
    assert (back.txn_start_timestamp, back.txn_last_update_timestamp) == (50, 70)
    assert TransactionLog.read_txn_record_value("txn", None) is None


def test_empty_state_is_written_with_a_null_partition_array():
    m = metadata(epoch=NO_PRODUCER_EPOCH)
    value = TransactionLog.value_to_bytes(m.prepare_increment_producer_epoch(1000, None, 5)[1])
    assert value[17:21] == struct.pack(">i", -1)
    assert TransactionLog.read_txn_record_value("txn", value).topic_partitions == set()
