"""Mirrors Kafka's LogTest (its transaction cases): the last stable offset, the aborted-transaction index
and read_committed reads, through appends, markers, high-watermark moves, truncation, retention and
recovery at start-up."""
import os

import pytest

from kafkalite.log.fetch_data_info import FetchIsolation
from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_file_utils import CLEAN_SHUTDOWN_FILE
from kafkalite.log.producer_state_manager import AppendOrigin
from kafkalite.log.transaction_index import AbortedTxn
from kafkalite.protocol.errors import Errors
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime

NOW = 1_600_000_000_000


@pytest.fixture
def mock_time():
    return MockTime(now_ms=NOW)


def make_log(tmp_path, mock_time, **kw):
    props = kw.pop("props", {})
    return Log(str(tmp_path / "topic-0"), LogConfig(props), time=mock_time, **kw)


class Producer:
    """A transactional producer's batches, with its sequence numbers."""

    def __init__(self, pid, epoch=0):
        self.pid, self.epoch, self.seq = pid, epoch, 0

    def batch(self, *values, transactional=True):
        r = MemoryRecords.with_records(*[SimpleRecord(NOW, None, v) for v in values], producer_id=self.pid,
                                       producer_epoch=self.epoch, base_sequence=self.seq,
                                       is_transactional=transactional)
        self.seq += len(values)
        return r

    def marker(self, commit, coordinator_epoch=0, epoch=None):
        control = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
        return MemoryRecords.with_end_transaction_marker(
            self.pid, self.epoch if epoch is None else epoch, EndTransactionMarker(control, coordinator_epoch), NOW)


def append_marker(log, producer, commit, **kw):
    return log.append_as_leader(producer.marker(commit, **kw), 0, origin=AppendOrigin.COORDINATOR)


def hw_to_end(log):
    log.update_high_watermark(log.log_end_offset)


def read_values(log, start=0, isolation=FetchIsolation.FETCH_TXN_COMMITTED):
    fetch = log.read(start, 1 << 20, isolation=isolation)
    values = [r.value for b in fetch.records.batches() if not b.is_control_batch for r in b]
    return values, fetch.aborted_transactions


def test_lso_holds_at_first_open_txn_then_moves_after_marker(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    plain = MemoryRecords.with_records(SimpleRecord(NOW, None, b"plain"))
    log.append_as_leader(plain, 0)                       # offset 0
    p1, p2 = Producer(1), Producer(2)
    log.append_as_leader(p1.batch(b"a", b"b"), 0)        # 1-2, txn of p1 opens at 1
    log.append_as_leader(p2.batch(b"c"), 0)              # 3, txn of p2 opens at 3
    hw_to_end(log)
    assert log.high_watermark == 4 and log.first_unstable_offset == 1 and log.last_stable_offset == 1
    assert read_values(log) == ([b"plain"], [])
    append_marker(log, p1, commit=True)                  # 4
    # the marker is above the HW: p1's transaction is decided but not yet stable
    assert log.last_stable_offset == 1
    hw_to_end(log)
    assert log.last_stable_offset == 3                   # now held by p2's open transaction
    append_marker(log, p2, commit=False)                 # 5
    hw_to_end(log)
    assert log.first_unstable_offset is None and log.last_stable_offset == log.high_watermark == 6
    values, aborted = read_values(log)
    assert values == [b"plain", b"a", b"b", b"c"]        # the reader drops c itself, from the aborted list
    assert aborted == [(2, 3)]
    # read_uncommitted reads carry no aborted list
    assert read_values(log, isolation=FetchIsolation.FETCH_HIGH_WATERMARK)[1] is None
    assert log.active_segment.txn_index.all_aborted_txns() == [AbortedTxn(2, 3, 5, 6)]


def test_aborted_txn_index_records_lso_of_other_open_txn(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    p1, p2 = Producer(1), Producer(2)
    log.append_as_leader(p1.batch(b"a"), 0)    # 0
    log.append_as_leader(p2.batch(b"b"), 0)    # 1
    append_marker(log, p2, commit=False)       # 2: aborted while p1 still open at 0
    assert log.active_segment.txn_index.all_aborted_txns() == [AbortedTxn(2, 1, 2, 0)]
    assert log.collect_aborted_transactions(0, 3) == [AbortedTxn(2, 1, 2, 0)]


def test_zombie_marker_and_client_control_batch_refused(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    p = Producer(1, epoch=3)
    log.append_as_leader(p.batch(b"a"), 0)
    with pytest.raises(Errors.INVALID_PRODUCER_EPOCH.exception_class):
        append_marker(log, p, commit=True, epoch=2)
    with pytest.raises(Errors.INVALID_RECORD.exception_class, match="not allowed to write control records"):
        log.append_as_leader(p.marker(True), 0)                     # only coordinators write markers
    assert log.log_end_offset == 1 and log.first_unstable_offset == 0
    append_marker(log, p, commit=True, coordinator_epoch=4)
    p.epoch = 3
    log.append_as_leader(p.batch(b"b"), 0)
    with pytest.raises(Errors.TRANSACTION_COORDINATOR_FENCED.exception_class):
        append_marker(log, p, commit=True, coordinator_epoch=3)


def test_non_transactional_write_in_open_txn_is_invalid_txn_state(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    p = Producer(1)
    log.append_as_leader(p.batch(b"a"), 0)
    with pytest.raises(Errors.INVALID_TXN_STATE.exception_class):
        log.append_as_leader(p.batch(b"b", transactional=False), 0)


def test_coordinator_transactional_write_is_tracked(tmp_path, mock_time):
    """The group coordinator's transactional offset commit (origin COORDINATOR) opens a transaction too."""
    log = Log(str(tmp_path / "__consumer_offsets-0"), LogConfig({}), time=mock_time)
    p = Producer(9)
    log.append_as_leader(p.batch(b"offset-commit"), 0, origin=AppendOrigin.COORDINATOR)
    hw_to_end(log)
    assert log.last_stable_offset == 0
    append_marker(log, p, commit=True)
    hw_to_end(log)
    assert log.last_stable_offset == 2


def test_follower_appends_build_the_same_state(tmp_path, mock_time):
    leader = make_log(tmp_path / "l", mock_time)
    p1, p2 = Producer(1), Producer(2)
    leader.append_as_leader(p1.batch(b"a"), 0)
    leader.append_as_leader(p2.batch(b"b"), 0)
    append_marker(leader, p1, commit=False)
    follower = make_log(tmp_path / "f", mock_time)
    follower.append_as_follower(MemoryRecords(bytearray(_file_bytes(leader.read(0, 1 << 20).records))))
    hw_to_end(follower)
    assert follower.last_stable_offset == 1
    assert follower.active_segment.txn_index.all_aborted_txns() == leader.active_segment.txn_index.all_aborted_txns()
    assert follower.producer_state_manager.last_entry(2).current_txn_first_offset == 1


def _file_bytes(file_records):
    with open(file_records.file, "rb") as f:
        f.seek(file_records.start)
        return f.read(file_records.size_in_bytes())


def test_truncation_reopens_transaction_and_trims_index(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    p = Producer(1)
    log.append_as_leader(p.batch(b"a"), 0)     # 0
    append_marker(log, p, commit=False)        # 1
    hw_to_end(log)
    assert log.last_stable_offset == 2 and len(log.active_segment.txn_index.all_aborted_txns()) == 1
    log.truncate_to(1)                         # the follower loses the marker
    assert log.active_segment.txn_index.all_aborted_txns() == []
    assert log.first_unstable_offset == 0 and log.last_stable_offset == 0
    log.truncate_fully_and_start_at(10)
    assert log.first_unstable_offset is None and log.last_stable_offset == 10


def test_open_txn_holds_lso_after_clean_restart_and_index_survives(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    p1, p2 = Producer(1), Producer(2)
    log.append_as_leader(p1.batch(b"a"), 0)    # 0
    append_marker(log, p1, commit=False)       # 1
    log.append_as_leader(p2.batch(b"b"), 0)    # 2, stays open
    log.close()
    open(os.path.join(tmp_path, CLEAN_SHUTDOWN_FILE), "w").close()
    again = make_log(tmp_path, mock_time, recovery_point=3)
    hw_to_end(again)
    assert again.first_unstable_offset == 2 and again.last_stable_offset == 2
    assert again.active_segment.txn_index.all_aborted_txns() == [AbortedTxn(1, 0, 1, 2)]
    assert read_values(again) == ([b"a"], [(1, 0)])
    again.close()


def test_recovery_rebuilds_txn_index_and_truncates_corrupt_tail(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, props={"segment.bytes": 400})
    p1, p2 = Producer(1), Producer(2)
    for i in range(6):
        log.append_as_leader(p1.batch(b"x%d" % i), 0)
    append_marker(log, p1, commit=False)
    log.append_as_leader(p2.batch(b"y"), 0)
    append_marker(log, p2, commit=False)
    assert log.num_segments > 1
    expected = [(s.base_offset, s.txn_index.all_aborted_txns()) for s in log.log_segments()]
    assert sum(len(t) for _, t in expected) == 2
    last = log.active_segment
    log.close()
    # a crash: no clean-shutdown marker, every .txnindex lost, garbage after the last batch
    for name in os.listdir(tmp_path / "topic-0"):
        if name.endswith(".txnindex"):
            os.unlink(tmp_path / "topic-0" / name)
    with open(last.log.file, "ab") as f:
        f.write(b"\x00\x01garbage" * 10)
    again = make_log(tmp_path, mock_time, props={"segment.bytes": 400}, recovery_point=0)
    assert [(s.base_offset, s.txn_index.all_aborted_txns()) for s in again.log_segments()] == expected
    hw_to_end(again)
    assert again.last_stable_offset == again.log_end_offset
    again.close()


def test_recovery_of_an_open_txn_before_a_torn_marker(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    p = Producer(1)
    log.append_as_leader(p.batch(b"a"), 0)     # 0
    append_marker(log, p, commit=False)        # 1
    seg = log.active_segment
    size = seg.size
    log.close()
    with open(seg.log.file, "r+b") as f:       # the marker batch is cut in half
        f.truncate(size - 10)
    again = make_log(tmp_path, mock_time, recovery_point=0)
    hw_to_end(again)
    assert again.log_end_offset == 1 and again.last_stable_offset == 0
    assert again.active_segment.txn_index.all_aborted_txns() == []
    again.close()


def test_retention_deletes_txn_index_and_moves_first_unstable_offset(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, props={"segment.bytes": 300})
    p1, p2 = Producer(1), Producer(2)
    log.append_as_leader(p1.batch(b"a"), 0)
    append_marker(log, p1, commit=False)
    while log.num_segments < 3:
        log.append_as_leader(p2.batch(b"y" * 50, transactional=False), 0)
    first = log.log_segments()[0]
    assert first.txn_index.all_aborted_txns() and os.path.exists(first.txn_index.file)
    hw_to_end(log)
    log.maybe_increment_log_start_offset(log.log_segments()[1].base_offset)
    log.delete_old_segments()
    assert not os.path.exists(first.txn_index.file)
    assert log.first_unstable_offset is None


def test_delete_records_inside_open_txn_keeps_lso_at_log_start(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    other = MemoryRecords.with_records
    p = Producer(1)
    log.append_as_leader(p.batch(b"a"), 0)                                  # 0, open
    log.append_as_leader(other(SimpleRecord(NOW, None, b"n1")), 0)          # 1
    log.append_as_leader(other(SimpleRecord(NOW, None, b"n2")), 0)          # 2
    hw_to_end(log)
    assert log.last_stable_offset == 0
    log.maybe_increment_log_start_offset(2)
    assert log.first_unstable_offset == 2 and log.last_stable_offset == 2


def test_load_skips_a_batch_the_producer_state_refuses(tmp_path, mock_time, caplog):
    """No Kafka counterpart: a zombie marker that reached the file around the checks does not stop the load."""
    log = make_log(tmp_path, mock_time)
    p = Producer(1, epoch=3)
    log.append_as_leader(p.batch(b"a"), 0)                    # 0, open
    zombie = p.marker(True, epoch=2, coordinator_epoch=0)
    zombie.first_batch().set_last_offset(1)
    log.active_segment.append(largest_offset=1, largest_timestamp=NOW, shallow_offset_of_max_timestamp=1,
                              records=zombie)
    log.close()
    again = make_log(tmp_path, mock_time, recovery_point=0)   # recovery and load both replay it
    assert again.log_end_offset == 2
    hw_to_end(again)
    assert again.first_unstable_offset == 0 and again.last_stable_offset == 0
    assert "Skipping batch at offset 1 of producer 1" in caplog.text
    again.close()
