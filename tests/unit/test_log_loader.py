"""Mirrors Kafka's LogLoaderTest (3.0; 2.4 has these cases in LogTest): loading a partition directory
without a Log -- leftovers removed, orphaned indexes dropped, the offsets the log starts with."""
import os

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.leader_epoch_file_cache import LeaderEpochFileCache
from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_loader import LoadedLogOffsets, LogLoader
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime
from support import HeldScheduler

TP = TopicPartition("topic", 0)
CONFIG = LogConfig({"segment.bytes": 300})


def write_log(dir_, time, batches=12):
    log = Log(dir_, CONFIG, time=time)
    for i in range(batches):
        log.append_as_leader(MemoryRecords.with_records(SimpleRecord(time.milliseconds(), None, b"x" * 40),
                                                        producer_id=1, producer_epoch=0, base_sequence=i), 0)
    bases = [s.base_offset for s in log.log_segments()]
    log.close()
    return bases


def loader(dir_, time, segments, clean, log_start=0, recovery_point=0):
    return LogLoader(dir_, TP, CONFIG, time, clean, segments, log_start, recovery_point, 60_000,
                     LeaderEpochFileCache(TP, os.path.join(dir_, "leader-epoch-checkpoint")))


def test_load_fills_the_segments_and_removes_leftovers(tmp_path):
    time = MockTime()
    dir_ = str(tmp_path / "topic-0")
    bases = write_log(dir_, time)
    # (a .log.swap is an interrupted clean and is completed, see test_log_cleaner; an index's .swap is dropped)
    for leftover in ("00000000000000000003.index.swap", "00000000000000000003.log.deleted", "x.cleaned", "y.tmp",
                     "00000000000000099999.index"):
        open(os.path.join(dir_, leftover), "w").close()
    segments = {}
    loaded = loader(dir_, time, segments, clean=True, log_start=1, recovery_point=5).load()
    assert sorted(segments) == bases
    assert loaded == LoadedLogOffsets(log_start_offset=1, recovery_point=5, next_offset=12)
    names = os.listdir(dir_)
    assert not [n for n in names if n.endswith((".swap", ".deleted", ".cleaned", ".tmp"))]
    assert "00000000000000099999.index" not in names
    assert any(n.endswith(".snapshot") for n in names)       # producer snapshots are no leftovers


def test_load_after_a_crash_recovers_from_the_recovery_point(tmp_path):
    time = MockTime()
    dir_ = str(tmp_path / "topic-0")
    bases = write_log(dir_, time)
    last = os.path.join(dir_, f"{bases[-1]:020d}.log")
    size = os.path.getsize(last)
    with open(last, "ab") as f:
        f.write(b"\x00\x01garbage")
    segments = {}
    loaded = loader(dir_, time, segments, clean=False, recovery_point=bases[-1]).load()
    assert loaded.next_offset == 12 and loaded.recovery_point == 12     # recovered up to the log end
    assert os.path.getsize(last) == size and segments[bases[-1]].size == size   # the garbage is cut off
    assert segments[bases[-1]].read_next_offset() == 12


def _count_writes(monkeypatch):
    """Counts the checkpoint and producer-snapshot writes of the leader epoch cache and producer state."""
    import kafkalite.log.leader_epoch_file_cache as epoch_module
    import kafkalite.log.producer_state_manager as psm_module
    writes = []
    real_checkpoint, real_snapshot = epoch_module.write_checkpoint, psm_module.write_snapshot
    monkeypatch.setattr(epoch_module, "write_checkpoint",
                        lambda path, lines: (writes.append(path), real_checkpoint(path, lines))[1])
    monkeypatch.setattr(psm_module, "write_snapshot",
                        lambda path, producers: (writes.append(path), real_snapshot(path, producers))[1])
    return writes


def _epoch_log(dir_, time):
    log = Log(dir_, CONFIG, time=time)
    for epoch in (0, 0, 1, 1, 2):
        log.maybe_assign_epoch_start_offset(epoch, log.log_end_offset)
        log.append_as_leader(MemoryRecords.with_records(SimpleRecord(time.milliseconds(), None, b"x" * 40),
                                                        producer_id=1, producer_epoch=0,
                                                        base_sequence=log.log_end_offset), epoch)
    log.close()   # a clean shutdown: the producer snapshot at the log end is taken here
    return log.log_end_offset


def test_loading_a_clean_log_rewrites_no_checkpoint_or_snapshot(tmp_path, monkeypatch):
    """Kafka 2.4's LeaderEpochFileCache.truncateFromEnd/truncateFromStart flush only when they remove entries, and
    ProducerStateManager.takeSnapshot writes only past the last snapshot: a restart after a clean shutdown
    writes neither file for a partition (10,000 partitions: 10,000 fsyncs saved)."""
    time = MockTime()
    dir_ = str(tmp_path / "topic-0")
    end = _epoch_log(dir_, time)
    epoch_file = os.path.join(dir_, "leader-epoch-checkpoint")
    before = {n: (os.stat(os.path.join(dir_, n)).st_ino, os.stat(os.path.join(dir_, n)).st_mtime_ns)
              for n in os.listdir(dir_) if n.endswith(".snapshot") or n == "leader-epoch-checkpoint"}
    writes = _count_writes(monkeypatch)
    log = Log(dir_, CONFIG, recovery_point=end, time=time, had_clean_shutdown=True)
    assert log.log_end_offset == end and log.latest_epoch == 2
    assert writes == []
    after = {n: (os.stat(os.path.join(dir_, n)).st_ino, os.stat(os.path.join(dir_, n)).st_mtime_ns)
             for n in os.listdir(dir_) if n.endswith(".snapshot") or n == "leader-epoch-checkpoint"}
    assert after == before and epoch_file in [os.path.join(dir_, n) for n in after]
    log.close()


def test_loading_a_log_whose_epochs_run_past_its_end_rewrites_the_checkpoint(tmp_path, monkeypatch):
    """The counterpart (and proof that the counting seam sees writes): an epoch entry beyond the log end, as a
    crash can leave, is removed and the checkpoint flushed once."""
    time = MockTime()
    dir_ = str(tmp_path / "topic-0")
    end = _epoch_log(dir_, time)
    cache = LeaderEpochFileCache(TP, os.path.join(dir_, "leader-epoch-checkpoint"))
    cache.assign(3, end + 10)
    writes = _count_writes(monkeypatch)
    log = Log(dir_, CONFIG, recovery_point=end, time=time, had_clean_shutdown=True)
    assert log.latest_epoch == 2
    assert writes == [os.path.join(dir_, "leader-epoch-checkpoint")]
    log.close()


def test_loading_moves_the_earliest_epoch_to_the_log_start(tmp_path):
    """Kafka 2.4 Log: "The earliest leader epoch may not be flushed during a hard failure. Recover it here."
    (truncateFromStart(logStartOffset) after loading)."""
    time = MockTime()
    dir_ = str(tmp_path / "topic-0")
    _epoch_log(dir_, time)   # epochs (0, 0), (1, 2), (2, 4)
    log = Log(dir_, CONFIG, log_start_offset=3, time=time, had_clean_shutdown=True)
    assert [(e.epoch, e.start_offset) for e in log.leader_epoch_cache.epochs] == [(1, 3), (2, 4)]
    log.close()


def test_a_broker_loading_a_log_writes_its_epoch_truncation_in_the_background(tmp_path, monkeypatch):
    """Kafka 3.8 (KAFKA-16541, LogLoader's truncateFromEndAsyncFlush): the restart does not wait for the fsync of
    each log whose last epoch starts at its end (the epoch the last start assigned, with nothing written since)."""
    time = MockTime()
    dir_ = str(tmp_path / "topic-0")
    end = _epoch_log(dir_, time)
    LeaderEpochFileCache(TP, os.path.join(dir_, "leader-epoch-checkpoint")).assign(3, end)
    writes = _count_writes(monkeypatch)
    scheduler = HeldScheduler()
    log = Log(dir_, CONFIG, recovery_point=end, scheduler=scheduler, time=time, had_clean_shutdown=True)
    assert log.latest_epoch == 2 and writes == []
    assert scheduler.names() == ["leader-epoch-cache-flush-topic-0"]
    scheduler.run()
    assert writes == [os.path.join(dir_, "leader-epoch-checkpoint")]
    assert [(e.epoch, e.start_offset) for e in LeaderEpochFileCache(TP, writes[0]).epochs] == [(0, 0), (1, 2), (2, 4)]
    log.close()


def test_a_log_loaded_after_a_crash_fsyncs_its_segments_at_the_next_close(tmp_path, monkeypatch):
    """What a crashed broker wrote may be only in the page cache; the recovery point moves to the log end
    without an fsync, so the close that skips unchanged files (FileRecords.close) must not skip these."""
    time = MockTime()
    dir_ = str(tmp_path / "topic-0")
    bases = write_log(dir_, time)
    fsynced = []
    real = os.fsync

    def fsync(fd):
        fsynced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)
    monkeypatch.setattr("kafkalite.record.file_records.os.fsync", fsync)
    segments = {}
    loader(dir_, time, segments, clean=False, recovery_point=0).load()
    for segment in segments.values():
        segment.close()
    assert sorted(os.path.basename(p) for p in fsynced if p.endswith(".log")) == \
        [f"{b:020d}.log" for b in bases]

    fsynced.clear()
    segments = {}
    loader(dir_, time, segments, clean=True, recovery_point=12).load()
    for segment in segments.values():
        segment.close()
    assert not [p for p in fsynced if p.endswith(".log")]    # after a clean shutdown nothing needs it
