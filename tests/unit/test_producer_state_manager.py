"""Mirrors Kafka's ProducerStateManagerTest (idempotence parts)."""
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.producer_state_manager import AppendOrigin, ProducerStateManager
from kafkalite.protocol.errors import Errors

TP = TopicPartition("t", 0)


def append(psm, pid, epoch, first_seq, last_seq, offset, origin=AppendOrigin.CLIENT):
    info = psm.prepare_update(pid, origin)
    info.append_data_batch(epoch, first_seq, last_seq, 1000, offset, offset + last_seq - first_seq, False)
    psm.update(info)


def test_basic_sequence_and_gap(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    append(psm, 1, 0, 0, 0, 0)
    append(psm, 1, 0, 1, 3, 1)
    assert psm.last_entry(1).last_seq == 3 and psm.last_entry(1).last_data_offset == 3
    with pytest.raises(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.exception_class):
        append(psm, 1, 0, 5, 5, 4)


def test_keeps_last_five_batches(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    for i in range(7):
        append(psm, 1, 0, i, i, i)
    entry = psm.last_entry(1)
    assert [m.first_seq for m in entry.batch_metadata] == [2, 3, 4, 5, 6]
    assert entry.batch_with_sequence_range(6, 6).last_offset == 6
    assert entry.batch_with_sequence_range(0, 0) is None


def test_fencing_and_new_epoch(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    append(psm, 1, 5, 0, 0, 0)
    with pytest.raises(Errors.INVALID_PRODUCER_EPOCH.exception_class):
        append(psm, 1, 4, 1, 1, 1)
    with pytest.raises(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.exception_class):
        append(psm, 1, 6, 3, 3, 1)  # a new epoch must start at sequence 0
    append(psm, 1, 6, 0, 0, 1)
    assert psm.last_entry(1).producer_epoch == 6


def test_unknown_producer_with_nonzero_sequence(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    with pytest.raises(Errors.UNKNOWN_PRODUCER_ID.exception_class):
        append(psm, 9, 0, 4, 4, 0)
    append(psm, 9, 0, 4, 4, 0, origin=AppendOrigin.REPLICATION)  # replication skips sequence checks
    assert psm.last_entry(9).last_seq == 4


def test_sequence_wraps_around(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    append(psm, 1, 0, 0, 0, 0)
    psm.last_entry(1).batch_metadata.clear()
    append(psm, 1, 0, 2**31 - 1, 2**31 - 1, 1, origin=AppendOrigin.REPLICATION)
    append(psm, 1, 0, 0, 0, 2)
    assert psm.last_entry(1).last_seq == 0


def test_expiration_and_truncate(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path), max_producer_id_expiration_ms=100)
    append(psm, 1, 0, 0, 0, 0)
    psm.remove_expired_producers(1050)
    assert psm.last_entry(1) is not None
    psm.remove_expired_producers(1100)
    assert psm.last_entry(1) is None
    append(psm, 2, 0, 0, 0, 0)
    psm.truncate()
    assert psm.is_empty()


# ---- transactions (ProducerStateManagerTest's txn cases) ----
from kafkalite.log.log_offset_metadata import LogOffsetMetadata  # noqa: E402
from kafkalite.log.producer_state_manager import CompletedTxn  # noqa: E402
from kafkalite.record.control_record_type import ControlRecordType  # noqa: E402
from kafkalite.record.end_transaction_marker import EndTransactionMarker  # noqa: E402


def txn_append(psm, pid, epoch, seq, offset, is_transactional=True, origin=AppendOrigin.CLIENT):
    info = psm.prepare_update(pid, origin)
    info.append_data_batch(epoch, seq, seq, 1000, LogOffsetMetadata(offset), offset, is_transactional)
    psm.update(info)


def marker(psm, pid, epoch, offset, commit=True, coordinator_epoch=0):
    info = psm.prepare_update(pid, AppendOrigin.COORDINATOR)
    control = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
    completed = info.append_end_txn_marker(EndTransactionMarker(control, coordinator_epoch), epoch, offset, 2000)
    psm.update(info)
    psm.complete_txn(completed)
    return completed


def test_transaction_opens_and_completes(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    txn_append(psm, 1, 0, 0, 99)
    assert psm.last_entry(1).current_txn_first_offset == 99
    assert psm.first_unstable_offset().message_offset == 99 and psm.first_undecided_offset() == 99
    txn_append(psm, 1, 0, 1, 100)      # a second batch of the same transaction does not move the start
    assert psm.first_undecided_offset() == 99
    completed = marker(psm, 1, 0, 101, commit=False, coordinator_epoch=3)
    assert completed == CompletedTxn(1, 99, 101, True)
    assert psm.last_entry(1).current_txn_first_offset is None and psm.last_entry(1).coordinator_epoch == 3
    assert psm.first_undecided_offset() is None
    # decided, but the marker is not replicated yet: still unstable until the HW passes it
    assert psm.first_unstable_offset().message_offset == 99
    psm.on_high_watermark_updated(101)
    assert psm.first_unstable_offset().message_offset == 99
    psm.on_high_watermark_updated(102)
    assert psm.first_unstable_offset() is None


def test_last_stable_offset_of_completed_txn_is_next_open_txn(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    txn_append(psm, 1, 0, 0, 10)
    txn_append(psm, 2, 0, 0, 11)
    txn_append(psm, 3, 0, 0, 12)
    c = CompletedTxn(1, 10, 13, True)
    assert psm.last_stable_offset(c) == 11
    marker(psm, 1, 0, 13)
    marker(psm, 2, 0, 14)
    assert psm.last_stable_offset(CompletedTxn(3, 12, 15, False)) == 16
    assert sorted(psm.ongoing_txns) == [12]


def test_non_transactional_write_during_transaction_is_invalid(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    txn_append(psm, 1, 0, 0, 0)
    with pytest.raises(Errors.INVALID_TXN_STATE.exception_class):
        txn_append(psm, 1, 0, 1, 1, is_transactional=False)


def test_marker_with_older_producer_epoch_is_fenced(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    txn_append(psm, 1, 3, 0, 0)
    with pytest.raises(Errors.INVALID_PRODUCER_EPOCH.exception_class):
        marker(psm, 1, 2, 1)
    assert psm.last_entry(1).current_txn_first_offset == 0      # nothing changed


def test_marker_with_older_coordinator_epoch_is_fenced(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    txn_append(psm, 1, 0, 0, 0)
    marker(psm, 1, 0, 1, coordinator_epoch=5)
    txn_append(psm, 1, 0, 1, 2)
    with pytest.raises(Errors.TRANSACTION_COORDINATOR_FENCED.exception_class):
        marker(psm, 1, 0, 3, coordinator_epoch=4)
    marker(psm, 1, 0, 3, coordinator_epoch=5)


def test_marker_without_data_completes_a_one_offset_txn(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    assert marker(psm, 7, 0, 50, commit=False) == CompletedTxn(7, 50, 50, True)


def test_producer_with_open_transaction_never_expires(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path), max_producer_id_expiration_ms=10)
    txn_append(psm, 1, 0, 0, 0)
    append(psm, 2, 0, 0, 0, 1)
    psm.remove_expired_producers(1_000_000)
    assert psm.last_entry(1) is not None and psm.last_entry(2) is None


def test_truncate_head_drops_decided_txns_below_log_start(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    txn_append(psm, 1, 0, 0, 0)
    marker(psm, 1, 0, 1)
    psm.truncate_head(2)
    assert psm.first_unstable_offset() is None and psm.map_end_offset == 2
