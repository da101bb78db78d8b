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
