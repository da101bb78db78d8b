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


# ---- snapshots (ProducerStateManagerTest's snapshot cases) ----
import logging  # noqa: E402
import os  # noqa: E402

from kafkalite.log.producer_state_manager import CorruptSnapshotException, read_snapshot  # noqa: E402


def snapshot_offsets(dir_):
    return sorted(int(name.split(".")[0]) for name in os.listdir(dir_) if name.endswith(".snapshot"))


def reloaded(dir_, log_start=0, log_end=100, now=1000, **kw):
    psm = ProducerStateManager(TP, str(dir_), **kw)
    psm.truncate_and_reload(log_start, log_end, now)
    return psm


def test_snapshot_round_trip_keeps_open_transactions(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    for seq in range(3):
        append(psm, 1, 2, seq, seq, seq)                  # idempotent producer 1: offsets 0..2
    txn_append(psm, 2, 5, 0, 3)                           # producer 2 opens a transaction at 3
    marker(psm, 2, 5, 4, commit=True, coordinator_epoch=7)
    txn_append(psm, 2, 5, 1, 5)                           # and another one at 5, left open
    psm.update_map_end_offset(6)
    psm.take_snapshot()
    assert snapshot_offsets(tmp_path) == [6] and psm.latest_snapshot_offset() == 6

    again = reloaded(tmp_path, log_end=6)
    assert again.map_end_offset == 6
    one, two = again.last_entry(1), again.last_entry(2)
    assert (one.producer_epoch, one.last_seq, one.last_data_offset) == (2, 2, 2)
    assert len(one.batch_metadata) == 1                   # a snapshot keeps only the last batch (as 2.4)
    assert (two.producer_epoch, two.coordinator_epoch, two.current_txn_first_offset) == (5, 7, 5)
    assert again.first_undecided_offset() == 5 and again.first_unstable_offset().message_offset == 5
    # the loaded state goes on checking sequences, and closes the transaction
    with pytest.raises(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.exception_class):
        append(again, 1, 2, 4, 4, 6)
    append(again, 1, 2, 3, 3, 6)
    assert marker(again, 2, 5, 7, commit=False, coordinator_epoch=7) == CompletedTxn(2, 5, 7, True)


def test_take_snapshot_only_when_the_state_moved(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    psm.take_snapshot()                                   # nothing yet at offset 0
    assert snapshot_offsets(tmp_path) == []
    append(psm, 1, 0, 0, 0, 0)
    psm.update_map_end_offset(1)
    psm.take_snapshot()
    os.unlink(tmp_path / "00000000000000000001.snapshot")
    psm.take_snapshot()                                   # still at 1: not written again
    assert snapshot_offsets(tmp_path) == []


def test_corrupt_snapshot_is_deleted_and_an_older_one_loaded(tmp_path, caplog):
    psm = ProducerStateManager(TP, str(tmp_path))
    append(psm, 1, 0, 0, 0, 0)
    psm.update_map_end_offset(1)
    psm.take_snapshot()
    append(psm, 1, 0, 1, 1, 1)
    psm.update_map_end_offset(2)
    psm.take_snapshot()
    path = tmp_path / "00000000000000000002.snapshot"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF                                      # one flipped bit in the last entry
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptSnapshotException, match="CRC"):
        read_snapshot(str(path))
    with caplog.at_level(logging.WARNING):
        again = reloaded(tmp_path, log_end=2)
    assert "Failed to load producer snapshot" in caplog.text
    assert snapshot_offsets(tmp_path) == [1]
    assert again.map_end_offset == 1 and again.last_entry(1).last_seq == 0


@pytest.mark.parametrize("damage", [b"", b"\x00\x02" + b"\x00" * 8, b"\x00\x01\x00\x00"])
def test_unreadable_snapshot_falls_back_to_the_log_start(tmp_path, damage):
    (tmp_path / "00000000000000000005.snapshot").write_bytes(damage)
    psm = reloaded(tmp_path, log_start=3, log_end=9)
    assert snapshot_offsets(tmp_path) == [] and psm.map_end_offset == 3 and psm.is_empty()


def test_truncate_and_reload_keeps_snapshots_inside_the_log(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    for offset in range(4):
        append(psm, 1, 0, offset, offset, offset)
        psm.update_map_end_offset(offset + 1)
        psm.take_snapshot()
    assert snapshot_offsets(tmp_path) == [1, 2, 3, 4]
    psm.truncate_and_reload(1, 3, 1000)                   # log start 1, truncated to end at 3
    assert snapshot_offsets(tmp_path) == [2, 3]           # at or below the log start and beyond the end go
    assert psm.map_end_offset == 3 and psm.last_entry(1).last_seq == 2
    # already at the end: nothing reloaded, only the head truncated
    append(psm, 1, 0, 3, 3, 3)
    psm.truncate_and_reload(2, 3, 1000)
    assert psm.last_entry(1).last_seq == 3 and snapshot_offsets(tmp_path) == [3]


def test_reload_drops_expired_producers_but_keeps_open_transactions(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path), max_producer_id_expiration_ms=100)
    append(psm, 1, 0, 0, 0, 0)                            # timestamp 1000
    txn_append(psm, 2, 0, 0, 1)
    psm.update_map_end_offset(2)
    psm.take_snapshot()
    again = reloaded(tmp_path, log_end=2, now=5000, max_producer_id_expiration_ms=100)
    assert again.last_entry(1) is None and again.last_entry(2).current_txn_first_offset == 1


def test_truncate_head_and_truncate_delete_snapshots(tmp_path):
    psm = ProducerStateManager(TP, str(tmp_path))
    for offset in range(3):
        append(psm, 1, 0, offset, offset, offset)
        psm.update_map_end_offset(offset + 1)
        psm.take_snapshot()
    psm.truncate_head(2)
    assert snapshot_offsets(tmp_path) == [2, 3] and psm.oldest_snapshot_offset() == 2
    psm.truncate()
    assert snapshot_offsets(tmp_path) == [] and psm.latest_snapshot_offset() is None
