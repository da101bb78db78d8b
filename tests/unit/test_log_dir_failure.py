"""Mirrors Kafka 2.4's log-dir failure tests (LogManagerTest.testCreateAndValidateLogDirs…,
ReplicaManagerTest/LogDirFailureTest's unit cases, LogTest's IOException cases) at unit level, with
ENOSPC injected at the ``os.write`` under FileRecords.append -- so they run on any machine, mount or not.

- A write that fails half-way leaves the segment file exactly as it was, and nothing is acknowledged;
- the failure takes the log dir offline through the LogDirFailureChannel: every later operation on a
  log there fails at once with KAFKA_STORAGE_ERROR;
- reopened, the log holds every record appended before the failure, and appends go on after it;
- LogManager starts on the usable dirs when one of log.dirs is not, refuses (naming log.dirs) when none
  is, stops serving a failed dir and halts when the last one fails;
- after a clean shutdown, a damaged tail (zeros, garbage, a cut batch) or an index entry past the end of
  the segment is dropped at start-up with a log line, and later appends are readable.
"""
import errno
import logging
import os
from unittest import mock

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_dir_failure_channel import LogDirFailureChannel
from kafkalite.log.log_manager import LogManager
from kafkalite.protocol.errors import Errors
from kafkalite.record import file_records
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime

TP = TopicPartition("orders", 0)
StorageError = Errors.KAFKA_STORAGE_ERROR.exception_class


def recs(*values):
    return MemoryRecords.with_records(*[SimpleRecord(1_600_000_000_000 + i, None, v) for i, v in enumerate(values)])


def values(log, start=0):
    out = []
    for batch in log.read(start, 1 << 20).records.batches():
        out += [bytes(r.value) for r in batch]
    return out


def half_then_enospc():
    """An os.write that writes half of what it is given once, then fails with ENOSPC."""
    real = os.write

    def write(fd, data):
        if not write.failed:
            write.failed = True
            real(fd, bytes(data[:len(data) // 2]))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)
    write.failed = False
    return write


class TestLogDirFailure:
    def test_failed_append_leaves_file_unchanged_and_takes_dir_offline(self, tmp_path):
        channel = LogDirFailureChannel(1)
        log = Log(str(tmp_path / "orders-0"), LogConfig(), time=MockTime(), log_dir_failure_channel=channel)
        log.append_as_leader(recs(b"one", b"two"), 0)
        size = os.path.getsize(log.active_segment.log.file)
        with mock.patch.object(file_records.os, "write", half_then_enospc()):
            with pytest.raises(StorageError):
                log.append_as_leader(recs(b"lost"), 0)
        assert os.path.getsize(log.active_segment.log.file) == size, "a partial batch was left on disk"
        assert log.log_end_offset == 2
        assert channel.has_offline_log_dir(str(tmp_path))
        assert channel.take_next_offline_log_dir(0) == str(tmp_path)
        # From now on nothing more is tried in that dir, even though writes would succeed again.
        with pytest.raises(StorageError, match="offline"):
            log.append_as_leader(recs(b"later"), 0)
        with pytest.raises(StorageError, match="offline"):
            log.read(0, 1000)
        log.close()
        reopened = Log(str(tmp_path / "orders-0"), LogConfig(), time=MockTime())
        assert values(reopened) == [b"one", b"two"]
        reopened.append_as_leader(recs(b"three"), 0)
        assert values(reopened) == [b"one", b"two", b"three"]
        reopened.close()

    def test_file_records_append_restores_size_on_error(self, tmp_path):
        fr = file_records.FileRecords.open(str(tmp_path / "0.log"))
        fr.append(recs(b"a"))
        size = fr.size_in_bytes()
        with mock.patch.object(file_records.os, "write", half_then_enospc()):
            with pytest.raises(OSError):
                fr.append(recs(b"b" * 1000))
        assert fr.size_in_bytes() == size == os.path.getsize(tmp_path / "0.log")
        fr.close()

    def test_one_bad_dir_is_offline_and_the_other_serves(self, tmp_path):
        bad = tmp_path / "not-a-dir"
        bad.write_text("a file where a log dir should be")
        good = tmp_path / "good"
        channel = LogDirFailureChannel(2)
        lm = LogManager([str(bad), str(good)], LogConfig(), time=MockTime(), log_dir_failure_channel=channel)
        assert lm.live_log_dirs == [str(good)] and channel.has_offline_log_dir(str(bad))
        # Kafka: LogManager.getOrCreateLog -- a replica that is not new may have its log in the offline dir:
        # no empty log for it elsewhere (its data would be lost, and found twice once the dir is back)
        with pytest.raises(Errors.KAFKA_STORAGE_ERROR.exception_class, match="are offline"):
            lm.get_or_create_log(TP)
        assert lm.get_log(TP) is None and not (good / f"{TP.topic}-{TP.partition}").exists()
        log = lm.get_or_create_log(TP, is_new=True)
        assert log.parent_dir == str(good)
        lm.shutdown()

    def test_no_usable_dir_names_log_dirs(self, tmp_path):
        bad = tmp_path / "file"
        bad.write_text("x")
        with pytest.raises(StorageError, match=r"log\.dirs=.*file"):
            LogManager([str(bad)], LogConfig(), time=MockTime())

    def test_handle_log_dir_failure_forgets_logs_and_halts_when_none_left(self, tmp_path):
        halts = []
        d1, d2 = str(tmp_path / "d1"), str(tmp_path / "d2")
        lm = LogManager([d1, d2], LogConfig(), time=MockTime(), halt=halts.append)
        a = lm.get_or_create_log(TP)
        b = lm.get_or_create_log(TopicPartition("orders", 1))
        assert {a.parent_dir, b.parent_dir} == {d1, d2}
        assert lm.handle_log_dir_failure(a.parent_dir) == [TP]
        assert lm.get_log(TP) is None and lm.live_log_dirs == [b.parent_dir] and halts == []
        lm.handle_log_dir_failure(b.parent_dir)
        assert halts == [1]

    def test_clean_shutdown_marker_is_gone_once_loading_starts(self, tmp_path):
        lm = LogManager([str(tmp_path)], LogConfig(), time=MockTime())
        lm.get_or_create_log(TP).append_as_leader(recs(b"a"), 0)
        lm.shutdown()
        assert (tmp_path / ".kafka_cleanshutdown").exists()
        with mock.patch.object(Log, "__init__", side_effect=OSError(errno.EIO, "boom")):
            LogManager([str(tmp_path)], LogConfig(), time=MockTime(), halt=lambda code: None).shutdown()
        assert not (tmp_path / ".kafka_cleanshutdown").exists(), "a failed start must not leave the marker"


def damage(path, how):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        if how == "zeros":
            f.seek(size)
            f.write(b"\0" * 500)
        elif how == "garbage":
            f.seek(size)
            f.write(os.urandom(300))
        elif how == "cut":
            f.truncate(size - 7)


@pytest.mark.parametrize("how", ["zeros", "garbage", "cut"])
def test_damaged_tail_after_clean_shutdown_is_dropped(tmp_path, how, caplog):
    lm = LogManager([str(tmp_path)], LogConfig(), time=MockTime())
    log = lm.get_or_create_log(TP)
    for i in range(5):
        log.append_as_leader(recs(b"v%d" % i), 0)
    lm.shutdown()
    damage(str(tmp_path / "orders-0" / "00000000000000000000.log"), how)
    with caplog.at_level(logging.WARNING):
        lm = LogManager([str(tmp_path)], LogConfig(), time=MockTime())
    assert "Damaged tail found in segment 0 after a clean shutdown" in caplog.text
    log = lm.get_log(TP)
    expected = [b"v%d" % i for i in range(5 if how != "cut" else 4)]
    assert values(log) == expected
    log.append_as_leader(recs(b"after"), 0)
    assert values(log) == expected + [b"after"]
    lm.shutdown()


def test_index_entry_past_the_end_is_rebuilt(tmp_path, caplog):
    config = LogConfig({"index.interval.bytes": 1})
    lm = LogManager([str(tmp_path)], config, time=MockTime())
    log = lm.get_or_create_log(TP)
    for i in range(5):
        log.append_as_leader(recs(b"v%d" % i), 0)
    last_position = log.active_segment.offset_index.entry(log.active_segment.offset_index.entries - 1).position
    lm.shutdown()
    seg = tmp_path / "orders-0" / "00000000000000000000.log"
    os.truncate(seg, last_position - 1)   # the last batches are gone; the index still points at them
    with caplog.at_level(logging.WARNING):
        lm = LogManager([str(tmp_path)], config, time=MockTime())
    assert "beyond the end" in caplog.text
    log = lm.get_log(TP)
    got = values(log)
    assert got == [b"v%d" % i for i in range(len(got))] and 0 < len(got) < 5
    log.append_as_leader(recs(b"after"), 0)
    assert values(log)[-1] == b"after"
    lm.shutdown()


def test_log_dir_failure_handler_shutdown_wakes_its_blocked_take():
    """Kafka interrupts the LogDirFailureHandler blocked in takeNextOfflineLogDir; a stop never waits for a poll."""
    import threading
    import types

    from kafkalite.server.replica_manager import LogDirFailureHandler

    channel = LogDirFailureChannel(1)
    taking = threading.Event()
    real_take = channel.take_next_offline_log_dir

    def take_without_timeout(timeout_s=None):
        taking.set()
        return real_take(None)      # blocks until a dir fails or the shutdown wakes it
    channel.take_next_offline_log_dir = take_without_timeout
    handler = LogDirFailureHandler("LogDirFailureHandler", types.SimpleNamespace(log_dir_failure_channel=channel))
    handler.start()
    try:
        assert taking.wait(5)
        handler.initiate_shutdown()
        handler.join(5)
        assert not handler.is_alive()
    finally:
        channel.wake_taker()        # a failed test must not leave a blocked non-daemon thread behind
        handler.join(5)
