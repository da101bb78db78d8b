"""Mirrors Kafka's LogTest (its producer snapshot cases): snapshots at roll and close, a clean restart that
loads the latest snapshot and replays only what follows it, a corrupt snapshot, truncation, retention and the
clean-up after a recovery-point checkpoint."""
import logging
import os

import pytest

from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_file_utils import CLEAN_SHUTDOWN_FILE
from kafkalite.log.producer_state_manager import AppendOrigin, ProducerStateManager
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime

NOW = 1_600_000_000_000
PROPS = {"segment.bytes": 400}


@pytest.fixture
def mock_time():
    return MockTime(now_ms=NOW)


def make_log(tmp_path, mock_time, **kw):
    return Log(str(tmp_path / "topic-0"), LogConfig(dict(PROPS)), time=mock_time, **kw)


class Producer:
    def __init__(self, pid, epoch=0):
        self.pid, self.epoch, self.seq = pid, epoch, 0

    def batch(self, value, transactional=False):
        r = MemoryRecords.with_records(SimpleRecord(NOW, None, value), producer_id=self.pid,
                                       producer_epoch=self.epoch, base_sequence=self.seq,
                                       is_transactional=transactional)
        self.seq += 1
        return r

    def marker(self, commit, coordinator_epoch=0):
        control = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
        return MemoryRecords.with_end_transaction_marker(self.pid, self.epoch,
                                                         EndTransactionMarker(control, coordinator_epoch), NOW)


def snapshot_offsets(log):
    return sorted(int(n.split(".")[0]) for n in os.listdir(log.dir) if n.endswith(".snapshot"))


def clean_close(log, tmp_path):
    log.close()
    open(os.path.join(tmp_path, CLEAN_SHUTDOWN_FILE), "w").close()


@pytest.fixture
def replayed(monkeypatch):
    """The base offsets of the batches that loading replays from the log."""
    offsets = []
    real = ProducerStateManager.load_batch

    def spy(self, batch):
        offsets.append(batch.base_offset)
        return real(self, batch)
    monkeypatch.setattr(ProducerStateManager, "load_batch", spy)
    return offsets


def three_segments_with_an_open_txn(tmp_path, mock_time):
    """Idempotent producer 1 over three segments; producer 2's transaction opens in the last one."""
    log = make_log(tmp_path, mock_time)
    p1, p2 = Producer(1, epoch=4), Producer(2, epoch=1)
    while log.num_segments < 3:
        log.append_as_leader(p1.batch(b"x" * 40), 0)
    txn_start = log.log_end_offset
    log.append_as_leader(p2.batch(b"t", transactional=True), 0)
    log.append_as_leader(p1.batch(b"y"), 0)
    log.update_high_watermark(log.log_end_offset)
    return log, p1, txn_start


def test_roll_and_close_take_snapshots(tmp_path, mock_time):
    log, _, _ = three_segments_with_an_open_txn(tmp_path, mock_time)
    bases = [s.base_offset for s in log.log_segments()]
    assert snapshot_offsets(log) == bases[1:]              # one at each rolled segment's base offset
    end = log.log_end_offset
    log.close()
    assert snapshot_offsets(log) == bases[1:] + [end]
    assert log.latest_producer_snapshot_offset() == end and log.oldest_producer_snapshot_offset() == bases[1]


def test_clean_restart_loads_the_snapshot_and_replays_nothing(tmp_path, mock_time, replayed):
    log, p1, txn_start = three_segments_with_an_open_txn(tmp_path, mock_time)
    end = log.log_end_offset
    clean_close(log, tmp_path)
    again = make_log(tmp_path, mock_time, recovery_point=end)
    assert replayed == []
    entry = again.producer_state_manager.last_entry(1)
    assert (entry.producer_epoch, entry.last_seq) == (4, p1.seq - 1)
    assert len(entry.batch_metadata) == 1                  # only a snapshot keeps a single batch
    again.update_high_watermark(end)
    assert again.first_unstable_offset == txn_start and again.last_stable_offset == txn_start
    again.append_as_leader(p1.batch(b"z"), 0)              # the sequence goes on where it was
    again.close()


def test_restart_replays_only_the_tail_after_the_latest_snapshot(tmp_path, mock_time, replayed):
    log, p1, txn_start = three_segments_with_an_open_txn(tmp_path, mock_time)
    end = log.log_end_offset
    active_base = log.active_segment.base_offset
    tail = [b.base_offset for b in log.active_segment.log.batches()]
    clean_close(log, tmp_path)
    os.unlink(os.path.join(log.dir, f"{end:020d}.snapshot"))   # the one close took is lost
    again = make_log(tmp_path, mock_time, recovery_point=end)
    assert replayed == tail and tail[0] == active_base     # from the roll snapshot on, nothing before it
    assert again.producer_state_manager.last_entry(1).last_seq == p1.seq - 1
    again.update_high_watermark(end)
    assert again.last_stable_offset == txn_start
    assert snapshot_offsets(again)[-1] == end              # rebuilt state is saved again
    again.close()


def test_corrupt_snapshot_at_restart_is_deleted_and_an_older_one_used(tmp_path, mock_time, replayed, caplog):
    log, p1, txn_start = three_segments_with_an_open_txn(tmp_path, mock_time)
    end = log.log_end_offset
    clean_close(log, tmp_path)
    path = os.path.join(log.dir, f"{end:020d}.snapshot")
    with open(path, "r+b") as f:
        f.seek(10)
        f.write(b"\xff\xff")
    with caplog.at_level(logging.WARNING):
        again = make_log(tmp_path, mock_time, recovery_point=end)
    assert f"Failed to load producer snapshot from '{path}'" in caplog.text
    assert replayed and min(replayed) == again.active_segment.base_offset
    assert again.producer_state_manager.last_entry(1).last_seq == p1.seq - 1
    again.update_high_watermark(end)
    assert again.last_stable_offset == txn_start
    again.close()


def test_truncate_to_reloads_from_an_earlier_snapshot(tmp_path, mock_time, replayed):
    log, p1, txn_start = three_segments_with_an_open_txn(tmp_path, mock_time)
    log.append_as_leader(Producer(2, epoch=1).marker(True), 0, origin=AppendOrigin.COORDINATOR)
    log.update_high_watermark(log.log_end_offset)
    assert log.first_unstable_offset is None
    log.take_producer_snapshot()
    assert snapshot_offsets(log)[-1] == log.log_end_offset
    replayed.clear()
    log.truncate_to(txn_start + 1)                         # the follower loses the marker and p1's last batch
    assert snapshot_offsets(log)[-1] == txn_start + 1      # no snapshot beyond the new end survives
    assert replayed == [log.active_segment.base_offset + i for i in range(txn_start + 1 - log.active_segment.base_offset)]
    assert log.producer_state_manager.last_entry(1).last_seq == p1.seq - 2
    assert log.first_unstable_offset == txn_start


def test_retention_deletes_the_snapshots_of_deleted_segments(tmp_path, mock_time):
    log, _, _ = three_segments_with_an_open_txn(tmp_path, mock_time)
    bases = [s.base_offset for s in log.log_segments()]
    log.maybe_increment_log_start_offset(bases[2])
    assert log.delete_old_segments() == 2
    assert snapshot_offsets(log) == [bases[2]]


def test_snapshots_below_the_recovery_point_go_after_a_checkpoint(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    p = Producer(1)
    while log.num_segments < 5:
        log.append_as_leader(p.batch(b"x" * 40), 0)
    bases = [s.base_offset for s in log.log_segments()]
    assert snapshot_offsets(log) == bases[1:]
    log.recovery_point = bases[2] + 1           # as after a crash, before the rolls' flushes were checkpointed
    assert log.delete_snapshots_after_recovery_point_checkpoint() == bases[2]   # recovery starts in bases[2]
    assert snapshot_offsets(log) == bases[2:]
    log.flush()
    assert log.delete_snapshots_after_recovery_point_checkpoint() == bases[3]   # the last two segments
    assert snapshot_offsets(log) == bases[3:]
