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
