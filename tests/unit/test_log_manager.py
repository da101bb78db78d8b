"""Mirrors Kafka's LogManagerTest (the parts that apply)."""
import collections
import os
import re
import threading

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_manager import LogManager
from kafkalite.protocol.errors import Errors
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime

TP = TopicPartition("orders", 0)


def recs(n=1, ts=1_600_000_000_000):
    return MemoryRecords.with_records(*[SimpleRecord(ts + i, None, b"x" * 30) for i in range(n)])


class RecordingScheduler:
    def __init__(self):
        self.tasks = []

    def schedule(self, name, fn, delay_ms, period_ms):
        self.tasks.append((name, fn, delay_ms, period_ms))


def test_create_load_and_clean_shutdown(tmp_path):
    lm = LogManager([str(tmp_path)], LogConfig({"segment.bytes": 200}), time=MockTime())
    log = lm.get_or_create_log(TP)
    assert lm.get_or_create_log(TP) is log and log.dir == str(tmp_path / "orders-0")
    for _ in range(6):
        log.append_as_leader(recs(), 0)
    lm.shutdown()
    assert os.path.exists(tmp_path / ".kafka_cleanshutdown")
    assert open(tmp_path / "recovery-point-offset-checkpoint").read() == "0\n1\norders 0 6\n"
    lm2 = LogManager([str(tmp_path)], LogConfig({"segment.bytes": 200}), time=MockTime())
    assert not os.path.exists(tmp_path / ".kafka_cleanshutdown")  # removed once loaded
    again = lm2.get_log(TP)
    assert again.log_end_offset == 6 and again.recovery_point == 6 and again.num_segments == log.num_segments
    lm2.shutdown()


def test_logs_load_in_num_recovery_threads_per_data_dir(tmp_path, monkeypatch):
    # Kafka 2.4 LogManager.loadLogs: a pool of num.recovery.threads.per.data.dir threads per log dir, a job per log
    lm = LogManager([str(tmp_path)], LogConfig())
    for p in range(12):
        lm.get_or_create_log(TopicPartition("orders", p)).append_as_leader(recs(p + 1), 0)
    lm.shutdown()
    loaded_by = {}
    load_log = LogManager._load_log

    def recording(self, log_dir, *args):
        loaded_by[os.path.basename(log_dir)] = threading.current_thread().name
        return load_log(self, log_dir, *args)
    monkeypatch.setattr(LogManager, "_load_log", recording)
    lm2 = LogManager([str(tmp_path)], LogConfig(), num_recovery_threads_per_data_dir=3)
    assert {lm2.get_log(TopicPartition("orders", p)).log_end_offset for p in range(12)} == set(range(1, 13))
    assert len(loaded_by) == 12 and all(re.fullmatch(r"pool-\d+-thread-[123]", n) for n in loaded_by.values())
    lm2.shutdown()
    # one log that fails to load: every other job still ran, then the failure is raised (here: start-up stops)
    def failing(self, log_dir, *args):
        if log_dir.endswith("orders-5"):
            raise RuntimeError("orders-5 cannot load")
        loaded_by[os.path.basename(log_dir)] = "again"
        return load_log(self, log_dir, *args)
    loaded_by.clear()
    monkeypatch.setattr(LogManager, "_load_log", failing)
    with pytest.raises(RuntimeError, match="orders-5"):
        LogManager([str(tmp_path)], LogConfig(), num_recovery_threads_per_data_dir=3)
    assert len(loaded_by) == 11


def test_dir_lock_keeps_second_manager_out(tmp_path):
    lm = LogManager([str(tmp_path)], LogConfig())
    with pytest.raises(RuntimeError, match="Failed to acquire lock"):
        LogManager([str(tmp_path)], LogConfig())
    lm.shutdown()


def test_startup_schedules_kafkas_tasks(tmp_path):
    sched = RecordingScheduler()
    lm = LogManager([str(tmp_path)], LogConfig(), scheduler=sched, retention_check_ms=1234)
    lm.startup()
    names = [t[0] for t in sched.tasks]
    assert names[:4] == ["kafka-log-retention", "kafka-log-flusher", "kafka-recovery-point-checkpoint",
                         "kafka-log-start-offset-checkpoint"]
    retention = sched.tasks[0]
    assert retention[1] == lm.cleanup_logs and retention[3] == 1234
    lm.shutdown()


def test_cleanup_logs_applies_retention_and_checkpoints_start_offset(tmp_path):
    mock_time = MockTime()
    lm = LogManager([str(tmp_path)], LogConfig({"segment.bytes": 150, "retention.ms": 1000}), time=mock_time)
    log = lm.get_or_create_log(TP)
    for i in range(5):
        log.append_as_leader(recs(2, ts=mock_time.milliseconds() - (5000 if i < 3 else 0)), 0)
    log.update_high_watermark(log.log_end_offset)
    assert lm.cleanup_logs() == 3 and log.log_start_offset == 6
    lm.checkpoint_log_start_offsets()  # start == first segment base: nothing to record, as in Kafka
    assert open(tmp_path / "log-start-offset-checkpoint").read() == "0\n0\n"
    log.maybe_increment_log_start_offset(log.log_start_offset + 1)  # DeleteRecords inside a segment
    lm.checkpoint_log_start_offsets()
    assert open(tmp_path / "log-start-offset-checkpoint").read() == f"0\n1\norders 0 {log.log_start_offset}\n"
    lm.shutdown()


def test_topic_config_override(tmp_path):
    lm = LogManager([str(tmp_path)], LogConfig({"segment.bytes": 1000}), topic_configs={"orders": {"retention.ms": "5"}})
    log = lm.get_or_create_log(TP)
    assert log.config.retention_ms == 5 and log.config.segment_size == 1000
    lm.update_topic_config("orders", {"retention.ms": "77"})
    assert log.config.retention_ms == 77 and "retention.ms" in log.config.overridden_configs
    lm.shutdown()


def test_async_delete_renames_then_removes(tmp_path):
    sched, mock_time = RecordingScheduler(), MockTime()
    lm = LogManager([str(tmp_path)], LogConfig({"file.delete.delay.ms": 1000}), scheduler=sched, time=mock_time)
    log = lm.get_or_create_log(TP)
    log.append_as_leader(recs(), 0)
    lm.async_delete(TP)
    assert lm.get_log(TP) is None and log.dir.endswith("-delete") and os.path.isdir(log.dir)
    assert sched.tasks[-1][:3] == ("kafka-delete-logs", lm.delete_logs, 1000)
    mock_time.sleep(1000)
    lm.delete_logs()
    assert not os.path.exists(log.dir) and not os.path.exists(tmp_path / "orders-0")
    lm.shutdown()


def test_delete_logs_deletes_only_logs_whose_delay_has_passed(tmp_path):
    # Kafka's deleteLogs: a log queued later waits out its own file.delete.delay.ms.
    sched, mock_time = RecordingScheduler(), MockTime()
    lm = LogManager([str(tmp_path)], LogConfig({"file.delete.delay.ms": 2000}), scheduler=sched, time=mock_time)
    first, second = lm.get_or_create_log(TP), lm.get_or_create_log(TopicPartition("orders", 1))
    lm.async_delete(TP)
    mock_time.sleep(1900)
    lm.async_delete(TopicPartition("orders", 1))
    mock_time.sleep(100)              # the first log's delay has passed, the second's has not
    sched.tasks.clear()
    lm.delete_logs()
    assert not os.path.exists(first.dir)
    assert os.path.isdir(second.dir) and second.active_segment.log.fd >= 0
    assert sched.tasks == [("kafka-delete-logs", lm.delete_logs, 1900, -1)]   # again when the second is due
    mock_time.sleep(1899)
    lm.delete_logs()
    assert os.path.isdir(second.dir)
    mock_time.sleep(1)
    lm.delete_logs()
    assert not os.path.exists(second.dir) and lm.logs_to_be_deleted == collections.deque()
    lm.shutdown()


def test_unclean_shutdown_recovers(tmp_path):
    lm = LogManager([str(tmp_path)], LogConfig())
    log = lm.get_or_create_log(TP)
    for _ in range(3):
        log.append_as_leader(recs(), 0)
    path = log.active_segment.log.file
    log.close()
    lm._dir_locks and [os.close(fd) for fd in lm._dir_locks]  # simulate a crash: no marker written
    with open(path, "ab") as f:
        f.write(b"\x00" * 7)
    lm2 = LogManager([str(tmp_path)], LogConfig())
    assert lm2.get_log(TP).log_end_offset == 3 and os.path.getsize(path) == 3 * recs().size_in_bytes()
    lm2.shutdown()


# ---- future logs: moving a replica to another log dir (KIP-113; Kafka's LogManagerTest, future-log cases)

def copy_into(future, current):
    """What the ReplicaAlterLogDirsThread does: append the current log's batches to the future log."""
    while future.log_end_offset < current.log_end_offset:
        data = current.read(future.log_end_offset, 1 << 20, None, True)
        future.append_as_follower(MemoryRecords.readable_records(data.records.read_bytes()))


def two_dir_manager(tmp_path, **kw):
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    return LogManager(dirs, LogConfig({"segment.bytes": 200}), time=MockTime(), **kw), dirs


def test_future_log_is_created_in_the_preferred_dir_only(tmp_path):
    lm, (a, b) = two_dir_manager(tmp_path)
    current = lm.get_or_create_log(TP)
    assert current.parent_dir == a and not current.is_future
    with pytest.raises(RuntimeError, match="without having a preferred log directory"):
        lm.get_or_create_log(TP, is_future=True)
    lm.maybe_update_preferred_log_dir(TP, a)          # the current log's dir: not remembered
    assert TP not in lm.preferred_log_dirs
    lm.maybe_update_preferred_log_dir(TP, b)
    future = lm.get_or_create_log(TP, is_future=True)
    assert future.is_future and future.parent_dir == b and future.topic_partition == TP
    assert re.fullmatch(r"orders-0\.[0-9a-f]{32}-future", os.path.basename(future.dir))
    assert TP not in lm.preferred_log_dirs             # satisfied
    assert lm.get_log(TP) is current and lm.get_log(TP, is_future=True) is future
    assert lm.get_or_create_log(TP, is_future=True) is future
    assert set(lm.all_logs()) == {current, future} and set(lm.logs_by_topic("orders")) == {current, future}
    lm.shutdown()


def test_a_new_partition_goes_to_its_preferred_dir(tmp_path):
    lm, (a, b) = two_dir_manager(tmp_path)
    lm.maybe_update_preferred_log_dir(TP, b)
    assert lm.get_or_create_log(TP).parent_dir == b   # nextLogDirs would have picked a
    assert lm.get_or_create_log(TopicPartition("orders", 1)).parent_dir == a
    lm.shutdown()


def test_is_log_dir_online_knows_only_the_configured_dirs(tmp_path):
    lm, (a, b) = two_dir_manager(tmp_path)
    assert lm.is_log_dir_online(a) and lm.is_log_dir_online(b)
    with pytest.raises(Errors.LOG_DIR_NOT_FOUND.exception_class):
        lm.is_log_dir_online(str(tmp_path / "c"))
    lm.shutdown()


def test_replace_current_with_future_log(tmp_path):
    lm, (a, b) = two_dir_manager(tmp_path)
    current = lm.get_or_create_log(TP)
    for _ in range(6):
        current.append_as_leader(recs(), 0)
    current.update_high_watermark(4)
    lm.maybe_update_preferred_log_dir(TP, b)
    future = lm.get_or_create_log(TP, is_future=True)
    copy_into(future, current)
    assert future.log_end_offset == 6

    lm.replace_current_with_future_log(TP)
    assert lm.get_log(TP) is future and lm.get_log(TP, is_future=True) is None
    assert future.dir == os.path.join(b, "orders-0") and not future.is_future and future.high_watermark == 4
    [gone] = [n for n in os.listdir(a) if n.startswith("orders-0")]
    assert re.fullmatch(r"orders-0\.[0-9a-f]{32}-delete", gone)
    assert [log for log, _ in lm.logs_to_be_deleted] == [current]
    # the old dir's checkpoint forgot the partition; the new dir's knows it
    assert "orders" not in open(os.path.join(a, "recovery-point-offset-checkpoint")).read()
    lm.checkpoint_log_recovery_offsets()
    assert "orders 0" in open(os.path.join(b, "recovery-point-offset-checkpoint")).read()
    lm.time.sleep(lm.current_default_config.file_delete_delay_ms)
    lm.delete_logs()
    assert not [n for n in os.listdir(a) if n.startswith("orders-0")]
    lm.shutdown()


def test_a_future_log_is_loaded_as_one_after_a_restart(tmp_path):
    lm, (a, b) = two_dir_manager(tmp_path)
    for _ in range(3):
        lm.get_or_create_log(TP).append_as_leader(recs(), 0)
    lm.maybe_update_preferred_log_dir(TP, b)
    future = lm.get_or_create_log(TP, is_future=True)
    copy_into(future, lm.get_log(TP))
    future_dir = future.dir
    lm.shutdown()

    again, _ = two_dir_manager(tmp_path)
    assert again.get_log(TP).parent_dir == a and again.get_log(TP).log_end_offset == 3
    loaded = again.get_log(TP, is_future=True)
    assert loaded.dir == future_dir and loaded.is_future and loaded.log_end_offset == 3
    assert again.async_delete(TP, is_future=True) is loaded and again.get_log(TP, is_future=True) is None
    assert again.get_log(TP) is not None
    again.shutdown()


def test_truncation_of_the_future_log_leaves_the_current_one(tmp_path):
    lm, (a, b) = two_dir_manager(tmp_path)
    current = lm.get_or_create_log(TP)
    for _ in range(4):
        current.append_as_leader(recs(), 0)
    lm.maybe_update_preferred_log_dir(TP, b)
    future = lm.get_or_create_log(TP, is_future=True)
    copy_into(future, current)
    lm.truncate_to({TP: 1}, is_future=True)
    assert (current.log_end_offset, future.log_end_offset) == (4, 1)
    lm.truncate_fully_and_start_at(TP, 3, is_future=True)
    assert (current.log_end_offset, future.log_start_offset, future.log_end_offset) == (4, 3, 3)
    lm.shutdown()


def test_recovery_point_checkpoint_cleans_old_producer_snapshots(tmp_path):
    """LogManagerTest.testCheckpointRecoveryPoints... with checkpointRecoveryOffsetsAndCleanSnapshot."""
    lm = LogManager([str(tmp_path)], LogConfig({"segment.bytes": 200}), time=MockTime())
    log = lm.get_or_create_log(TP)
    for seq in range(8):
        log.append_as_leader(MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, None, b"x" * 30),
                                                        producer_id=1, producer_epoch=0, base_sequence=seq), 0)
    bases = [s.base_offset for s in log.log_segments()]
    assert len(bases) > 3

    def snapshots():
        return sorted(int(n.split(".")[0]) for n in os.listdir(log.dir) if n.endswith(".snapshot"))
    assert snapshots() == bases[1:]
    lm.checkpoint_log_recovery_offsets()
    assert snapshots() == bases[-2:]        # the last two segments' snapshots stay
    lm.shutdown()
