"""Mirrors Kafka's LogCleanerTest, LogCleanerManagerTest and OffsetMapTest (the cases that matter for kafkalite):
dedupe by key with offsets unchanged, tombstones kept for one clean plus delete.retention.ms, aborted
transactions removed and markers kept while needed, the dirty-ratio choice, abort/pause states, the
SkimpyOffsetMap, and the crash-safe swap (``.cleaned`` / ``.swap``) recovered at load."""
import os

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.cleaner import Cleaner, create_new_cleaned_segment
from kafkalite.log.log import Log
from kafkalite.log.log_cleaner_manager import (
    LogCleanerManager, LogCleaningAborted, LogCleaningAbortedException, LogCleaningInProgress, LogCleaningPaused,
    LogToClean, cleanable_offsets)
from kafkalite.log.log_config import LogConfig
from kafkalite.log.offset_map import SkimpyOffsetMap
from kafkalite.log.producer_state_manager import AppendOrigin
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime

NOW = 1_600_000_000_000
TP = TopicPartition("topic", 0)


@pytest.fixture
def mock_time():
    return MockTime(now_ms=NOW)


def make_log(tmp_path, mock_time, **props):
    base = {"segment.bytes": 1024, "cleanup.policy": "compact"}
    base.update(props)
    return Log(str(tmp_path / "topic-0"), LogConfig(base), time=mock_time, topic_partition=TP)


def put(log, key, value, ts=NOW, **kw):
    rec = MemoryRecords.with_records(SimpleRecord(ts, None if key is None else str(key).encode(),
                                                  None if value is None else str(value).encode()), **kw)
    return log.append_as_leader(rec, 0, **({"origin": kw.pop("origin")} if "origin" in kw else {})).first_offset


def make_cleaner(offset_map_memory=64 * 1024, checks=None):
    return Cleaner(0, SkimpyOffsetMap(offset_map_memory), io_buffer_size=64 * 1024, max_io_buffer_size=1 << 20,
                   dup_buffer_load_factor=0.9, check_done=checks or (lambda tp: None))


def key_values(log):
    """(offset, key, value) of every record in the log, in order."""
    out = []
    for seg in log.log_segments():
        for batch in seg.log.batches():
            if batch.is_control_batch:
                continue
            for r in batch:
                out.append((r.offset, r.key.decode() if r.key else None, r.value.decode() if r.value else None))
    return out


def clean(log, cleaner, checkpoint=None):
    """One full clean of everything below the active segment, as a CleanerThread would run it."""
    first_dirty, uncleanable = cleanable_offsets(log, checkpoint, NOW)
    return cleaner.clean(LogToClean(TP, log, first_dirty, uncleanable))


def test_clean_segments_keeps_latest_value_per_key_and_its_offset(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    latest = {}
    for i in range(300):
        k = i % 7
        latest[str(k)] = (put(log, k, i), str(i))
    put(log, 99, "active")            # the active segment is never cleaned
    log.roll()
    before = log.size
    end_offset, stats = clean(log, make_cleaner())
    assert end_offset == latest["6"][0] + 2 or end_offset <= log.log_end_offset
    kept = {k: (o, v) for o, k, v in key_values(log)}
    assert {k: kept[k] for k in latest} == latest                   # latest value, original offset
    assert len([1 for o, k, v in key_values(log) if k != "99"]) == 7  # one record per key
    assert log.size < before / 10
    assert stats.messages_read >= 300 and stats.messages_written < stats.messages_read
    offsets = [o for o, _, _ in key_values(log)]
    assert offsets == sorted(offsets)                                 # gaps, never reordered
    # the cleaned segments are readable through the log as before (a read skips emptied segments)
    read, next_offset = [], 0
    while next_offset < log.log_end_offset:
        batches = list(log.read(next_offset, 1 << 20).records.batches())
        read += [r.offset for b in batches for r in b]
        next_offset = batches[-1].next_offset
    assert read == offsets


def test_tombstone_kept_on_first_clean_and_removed_after_delete_retention(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"delete.retention.ms": 0})
    for i in range(50):
        put(log, i % 5, i)
    put(log, 1, None)                 # tombstone for key 1
    put(log, 2, None)
    log.roll()
    cleaner = make_cleaner()
    end_offset, _ = clean(log, cleaner)
    tombstones = [(o, k) for o, k, v in key_values(log) if v is None]
    assert sorted(k for _, k in tombstones) == ["1", "2"]            # first pass: no clean segment before it
    put(log, 3, "x")
    log.roll()
    clean(log, cleaner, checkpoint=end_offset)                       # second pass: horizon = last clean segment
    assert [k for o, k, v in key_values(log) if v is None] == []
    assert {k for _, k, _ in key_values(log)} == {"0", "3", "4"}


def test_tombstone_survives_while_within_delete_retention(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"delete.retention.ms": 3_600_000})
    for i in range(20):
        put(log, i % 4, i)
    put(log, 0, None)
    log.roll()
    cleaner = make_cleaner()
    end_offset, _ = clean(log, cleaner)
    put(log, 3, "x")
    log.roll()
    clean(log, cleaner, checkpoint=end_offset)
    assert [k for o, k, v in key_values(log) if v is None] == ["0"]


def test_keyless_records_are_dropped_and_counted_invalid(tmp_path, mock_time):
    # a producer's keyless record is refused on a compacted topic (test_record_validation.py); one can still be
    # in a log that was not compacted when it was written, or come from a leader that was older
    log = make_log(tmp_path, mock_time)
    log.append_as_follower(MemoryRecords.with_records(SimpleRecord(NOW, None, b"no-key")))
    put(log, 1, "a")
    log.roll()
    _, stats = clean(log, make_cleaner())
    assert [(k, v) for _, k, v in key_values(log)] == [("1", "a")]
    assert stats.invalid_messages_read == 1


class TxnProducer:
    def __init__(self, pid):
        self.pid, self.seq = pid, 0

    def batch(self, log, key, value):
        r = MemoryRecords.with_records(SimpleRecord(NOW, key.encode(), value.encode()), producer_id=self.pid,
                                       producer_epoch=0, base_sequence=self.seq, is_transactional=True)
        self.seq += 1
        return log.append_as_leader(r, 0).first_offset

    def marker(self, log, commit):
        control = ControlRecordType.COMMIT if commit else ControlRecordType.ABORT
        r = MemoryRecords.with_end_transaction_marker(self.pid, 0, EndTransactionMarker(control, 0), NOW)
        return log.append_as_leader(r, 0, origin=AppendOrigin.COORDINATOR).first_offset


def control_types(log):
    out = []
    for seg in log.log_segments():
        for b in seg.log.batches():
            if b.is_control_batch:
                recs = list(b)
                out.append(ControlRecordType.parse(recs[0].key).name if recs else "EMPTY")
    return out


def test_aborted_transaction_records_removed_committed_kept(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"delete.retention.ms": 3_600_000})
    p1, p2 = TxnProducer(1), TxnProducer(2)
    p1.batch(log, "k", "committed")
    p1.marker(log, commit=True)
    p2.batch(log, "k", "aborted")
    p2.batch(log, "j", "aborted")
    p2.marker(log, commit=False)
    put(log, "z", "plain")
    log.update_high_watermark(log.log_end_offset)
    log.roll()
    clean(log, make_cleaner())
    assert [(k, v) for _, k, v in key_values(log)] == [("k", "committed"), ("z", "plain")]
    # the aborted records were dropped, yet p2's last batch must stay (empty) for its sequence: the ABORT
    # marker stays with it, as does the COMMIT marker (within delete.retention.ms)
    assert control_types(log) == ["COMMIT", "ABORT"]
    # a read_committed reader still sees no aborted value
    values = [r.value for b in log.read(0, 1 << 20).records.batches() if not b.is_control_batch for r in b]
    assert b"aborted" not in values


def test_open_transaction_is_never_cleaned(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    put(log, "a", "1")
    put(log, "a", "2")
    log.roll()
    p = TxnProducer(5)
    p.batch(log, "a", "3")          # open transaction: the first unstable offset holds the cleaner
    put(log, "a", "4")
    log.update_high_watermark(log.log_end_offset)
    log.roll()
    first_dirty, uncleanable = cleanable_offsets(log, None, NOW)
    assert uncleanable == 2
    clean(log, make_cleaner())
    assert [v for _, _, v in key_values(log)] == ["2", "3", "4"]


def test_offset_map_put_get_overwrite_clear():
    m = SkimpyOffsetMap(24 * 100)
    assert m.slots == 100
    for i in range(50):
        m.put(b"key-%d" % i, i)
    assert all(m.get(b"key-%d" % i) == i for i in range(50))
    assert m.get(b"missing") == -1
    m.put(b"key-3", 1000)
    assert m.get(b"key-3") == 1000 and m.size == 50 and m.latest_offset == 1000
    assert m.utilization == 0.5
    m.clear()
    assert m.size == 0 and m.get(b"key-3") == -1 and m.latest_offset == -1


def test_offset_map_refuses_more_entries_than_slots():
    m = SkimpyOffsetMap(24 * 4)
    for i in range(4):
        m.put(b"%d" % i, i)
    with pytest.raises(ValueError):
        m.put(b"new", 9)


def test_full_offset_map_cleans_in_several_passes(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    for i in range(200):
        put(log, i % 40, i)
    log.roll()
    cleaner = make_cleaner(offset_map_memory=24 * 12)   # room for 10 keys at a 0.9 load factor
    end_offset, _ = clean(log, cleaner)
    assert end_offset < log.log_end_offset               # the map filled before the dirty section ended
    checkpoint = end_offset
    for _ in range(40):
        if checkpoint >= log.active_segment.base_offset:
            break
        checkpoint, _ = clean(log, cleaner, checkpoint=checkpoint)
    assert sorted(int(k) for _, k, _ in key_values(log)) == list(range(40))


def test_grab_filthiest_log_by_dirty_ratio(tmp_path, mock_time):
    logs = {}
    for name, dupes in (("a", 2), ("b", 20)):
        tp = TopicPartition(name, 0)
        log = Log(str(tmp_path / f"{name}-0"), LogConfig({"segment.bytes": 1024, "cleanup.policy": "compact"}),
                  time=mock_time, topic_partition=tp)
        for i in range(100):
            put(log, i % dupes, i)
        log.roll()
        logs[tp] = log
    logs[TopicPartition("c", 0)] = Log(str(tmp_path / "c-0"), LogConfig({"cleanup.policy": "delete"}),
                                       time=mock_time, topic_partition=TopicPartition("c", 0))
    manager = LogCleanerManager([str(tmp_path)], logs, time=mock_time)
    try:
        first = manager.grab_filthiest_compacted_log()
        assert first.topic_partition.topic in ("a", "b") and first.cleanable_ratio == 1.0
        assert manager.cleaning_state(first.topic_partition) is LogCleaningInProgress
        second = manager.grab_filthiest_compacted_log()
        assert {first.topic_partition.topic, second.topic_partition.topic} == {"a", "b"}
        assert manager.grab_filthiest_compacted_log() is None          # both in progress, "c" is not compacted
        manager.done_cleaning(first.topic_partition, str(tmp_path), first.first_uncleanable_offset)
        assert manager.all_cleaner_checkpoints()[first.topic_partition] == first.first_uncleanable_offset
        assert os.path.exists(tmp_path / "cleaner-offset-checkpoint")
        # clean now, dirty ratio 0: below min.cleanable.dirty.ratio, so not picked again
        assert manager.grab_filthiest_compacted_log() is None
    finally:
        manager.remove_metrics()


def test_min_compaction_lag_holds_young_segments(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"min.compaction.lag.ms": 60_000})
    put(log, 1, "old", ts=NOW - 120_000)
    log.roll()
    put(log, 1, "young", ts=NOW - 1_000)
    log.roll()
    first_dirty, uncleanable = cleanable_offsets(log, None, NOW)
    assert (first_dirty, uncleanable) == (0, 1)


def test_max_compaction_lag_forces_a_clean_below_the_ratio(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time, **{"max.compaction.lag.ms": 1_000, "min.cleanable.dirty.ratio": 0.99})
    for i in range(10):
        put(log, i, i, ts=NOW - 60_000)
    log.roll()
    manager = LogCleanerManager([str(tmp_path)], {TP: log}, time=mock_time)
    try:
        manager.update_checkpoints(str(tmp_path), (TP, 5))   # half clean: ratio < 0.99
        ltc = manager.grab_filthiest_compacted_log()
        assert ltc is not None and ltc.need_compaction_now and ltc.cleanable_ratio < 0.99
    finally:
        manager.remove_metrics()


def test_abort_pause_resume_states(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    manager = LogCleanerManager([str(tmp_path)], {TP: log}, time=mock_time)
    try:
        manager.abort_and_pause_cleaning(TP)                       # not in progress: paused at once
        assert manager.cleaning_state(TP) == LogCleaningPaused(1)
        manager.abort_and_pause_cleaning(TP)
        assert manager.cleaning_state(TP) == LogCleaningPaused(2)
        manager.resume_cleaning([TP])
        manager.resume_cleaning([TP])
        assert manager.cleaning_state(TP) is None
        manager.set_cleaning_state(TP, LogCleaningAborted)
        with pytest.raises(LogCleaningAbortedException):
            manager.check_cleaning_aborted(TP)
        manager.done_cleaning(TP, str(tmp_path), 10)                # an aborted clean never moves the checkpoint
        assert manager.cleaning_state(TP) == LogCleaningPaused(1)
        assert TP not in manager.all_cleaner_checkpoints()
    finally:
        manager.remove_metrics()


def test_aborted_clean_leaves_the_log_and_no_cleaned_file(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    for i in range(100):
        put(log, i % 3, i)
    log.roll()
    before = key_values(log)
    calls = []

    def check_done(tp):
        calls.append(tp)
        if len(calls) > 3:
            raise LogCleaningAbortedException()
    with pytest.raises(LogCleaningAbortedException):
        clean(log, make_cleaner(checks=check_done))
    assert key_values(log) == before
    assert not [n for n in os.listdir(log.dir) if n.endswith((".cleaned", ".swap"))]


def _segment_files(log):
    return sorted(os.listdir(log.dir))


def test_leftover_cleaned_files_are_deleted_at_load(tmp_path, mock_time):
    log = make_log(tmp_path, mock_time)
    for i in range(60):
        put(log, i % 3, i)
    log.roll()
    before = key_values(log)
    cleaned = create_new_cleaned_segment(log, 0)
    cleaned.append(0, NOW, 0, MemoryRecords.with_records(SimpleRecord(NOW, b"bogus", b"bogus")))
    cleaned.flush()
    log.close()
    reopened = make_log(tmp_path, mock_time)
    assert key_values(reopened) == before
    assert not [n for n in os.listdir(reopened.dir) if n.endswith((".cleaned", ".swap"))]


def test_swap_interrupted_after_rename_is_completed_at_load(tmp_path, mock_time, monkeypatch):
    """A crash after .cleaned -> .swap and after the old segments' files went: the load finishes the swap."""
    log = make_log(tmp_path, mock_time)
    for i in range(60):
        put(log, i % 3, i)
    log.roll()
    expected = {k: (o, v) for o, k, v in key_values(log)}
    crashed = []
    import kafkalite.log.log as log_module
    monkeypatch.setattr(log_module, "_test_crash_point", lambda name: crashed.append(name) or (
        name == "after-old-deleted" and (_ for _ in ()).throw(SystemExit("crash"))))
    with pytest.raises(SystemExit):
        clean(log, make_cleaner())
    names = os.listdir(log.dir)
    assert any(n.endswith(".log.swap") for n in names)
    log.close_handlers()     # kill -9: nothing flushed or closed cleanly beyond what the cleaner wrote
    reopened = make_log(tmp_path, mock_time)
    assert {k: (o, v) for o, k, v in key_values(reopened)} == expected
    assert min(o for o, _, _ in key_values(reopened)) >= reopened.log_segments()[1].base_offset  # swapped in
    assert not [n for n in os.listdir(reopened.dir) if n.endswith((".cleaned", ".swap"))]
    monkeypatch.undo()
    clean(reopened, make_cleaner())                     # and the next clean finishes the job
    assert {k: (o, v) for o, k, v in key_values(reopened)} == expected and len(key_values(reopened)) == 3
    assert not [n for n in os.listdir(reopened.dir) if n.endswith((".cleaned", ".swap"))]


def test_swap_interrupted_mid_rename_is_abandoned_at_load(tmp_path, mock_time):
    """A .swap at or above the lowest .cleaned offset is part of an unfinished rename: it is deleted."""
    log = make_log(tmp_path, mock_time)
    for i in range(60):
        put(log, i % 3, i)
    log.roll()
    before = key_values(log)
    a = create_new_cleaned_segment(log, 0)
    b = create_new_cleaned_segment(log, log.log_segments()[1].base_offset)
    b.change_file_suffixes(".cleaned", ".swap")
    a.flush(), b.flush()
    log.close()
    reopened = make_log(tmp_path, mock_time)
    assert key_values(reopened) == before
    assert not [n for n in os.listdir(reopened.dir) if n.endswith((".cleaned", ".swap"))]


def test_cleaner_thread_cleans_and_reports_its_gauges(tmp_path, mock_time):
    """LogCleaner with one kafka-log-cleaner-thread-0: the dirty log is cleaned, the checkpoint written, and the
    gauges (max-dirty-percent, cleaner-recopy-percent, max-buffer-utilization-percent, max-clean-time-secs) read."""
    import threading

    from kafkalite.log.cleaner_config import CleanerConfig
    from kafkalite.log.log_cleaner import LogCleaner
    from kafkalite.metrics.prometheus_reporter import YammerCollector
    from support import wait_until

    log = make_log(tmp_path, mock_time)
    for i in range(400):
        put(log, i % 10, i)
    log.roll()
    cleaner = LogCleaner(CleanerConfig(dedupe_buffer_size=1 << 20, back_off_ms=20), [str(tmp_path)], {TP: log},
                         time=mock_time)
    cleaner.startup()
    try:
        assert "kafka-log-cleaner-thread-0" in [t.name for t in threading.enumerate()]
        wait_until(lambda: cleaner.cleaner_manager.all_cleaner_checkpoints().get(TP) == log.active_segment.base_offset,
                   20, "the cleaner thread to clean the log")
        samples = {s.name: s.value for fam in YammerCollector().collect() for s in fam.samples
                   if s.name.startswith("kafka_log_logcleaner")}
        assert 0 < samples["kafka_log_logcleaner_cleaner_recopy_percent"] < 20
        assert samples["kafka_log_logcleaner_max_buffer_utilization_percent"] >= 0
        assert "kafka_log_logcleaner_max_clean_time_secs" in samples
        assert "kafka_log_logcleanermanager_max_dirty_percent" in {
            s.name for fam in YammerCollector().collect() for s in fam.samples}
        assert len({k for _, k, _ in key_values(log)}) == 10 and len(key_values(log)) == 10
    finally:
        cleaner.shutdown()
    assert "kafka-log-cleaner-thread-0" not in [t.name for t in threading.enumerate()]


@pytest.mark.parametrize("compression", ["NONE", "GZIP"])
def test_rebuilt_batch_keeps_records_headers_timestamps_and_last_offset(tmp_path, mock_time, compression):
    """A batch that loses some records is rebuilt with the same base/last offset, compression and the kept records'
    bytes: a reader decodes the same offsets, timestamps, keys, values and headers (MemoryRecordsTest.testFilterTo)."""
    from kafkalite.record.compression_type import CompressionType
    log = make_log(tmp_path, mock_time)
    records = [SimpleRecord(NOW + i * 7, b"k%d" % (i % 3), b"value-%d" % i, (("h", b"%d" % i),)) for i in range(9)]
    log.append_as_leader(MemoryRecords.with_records(*records, compression_type=CompressionType[compression]), 0)
    put(log, "k0", "newer")          # supersedes k0 inside the batch above
    log.roll()
    before = {r.offset: r for b in log.log_segments()[0].log.batches() for r in b}
    clean(log, make_cleaner())
    batches = [b for s in log.log_segments() for b in s.log.batches()]
    first = batches[0]
    assert (first.base_offset, first.last_offset, first.compression_type.name) == (0, 8, compression)
    kept = list(first)
    assert [r.offset for r in kept] == [7, 8]                   # the latest k1 and k2; k0 is newer below
    for r in kept:
        o = before[r.offset]
        assert (r.timestamp, r.key, r.value, r.headers) == (o.timestamp, o.key, o.value, o.headers)
    assert first.max_timestamp == NOW + 8 * 7 and first.count == 2 and first.is_valid()


def test_log_manager_truncation_and_deletion_reach_the_cleaner_checkpoint(tmp_path, mock_time):
    """LogManager with a cleaner (LogManagerTest/LogCleanerManagerTest): truncating below the checkpoint lowers it
    (maybeTruncateCheckpoint), the partition's cleaning is resumed afterwards, and deleting the partition drops it
    from cleaner-offset-checkpoint."""
    from kafkalite.log.cleaner_config import CleanerConfig
    from kafkalite.log.log_manager import LogManager

    lm = LogManager([str(tmp_path)], LogConfig({"segment.bytes": 1024, "cleanup.policy": "compact"}),
                    time=mock_time, cleaner_config=CleanerConfig(dedupe_buffer_size=1 << 20))
    try:
        log = lm.get_or_create_log(TP)
        for i in range(100):
            put(log, i % 5, i)
        log.roll()
        manager = lm.cleaner.cleaner_manager
        manager.update_checkpoints(str(tmp_path), (TP, 90))
        lm.truncate_to({TP: 40})
        assert manager.all_cleaner_checkpoints()[TP] == log.active_segment.base_offset <= 40
        assert manager.cleaning_state(TP) is None          # paused for the truncation, resumed after it
        lm.async_delete(TP)
        assert TP not in manager.all_cleaner_checkpoints()
    finally:
        lm.shutdown()


def test_compact_delete_log_is_compacted_and_loses_old_segments_in_the_cleaner_thread(tmp_path, mock_time):
    """cleanup.policy=compact,delete: the cleaner thread compacts the log and runs its retention
    (LogCleanerManager.deletableLogs); a delete-only log is not the cleaner's (LogCleanerManagerTest)."""
    from kafkalite.log.cleaner_config import CleanerConfig
    from kafkalite.log.log_cleaner import LogCleaner
    from support import wait_until

    import time as _time
    now = int(_time.time() * 1000)                  # segment files' modification times are real ones
    mock_time = MockTime(now_ms=now)
    log = make_log(tmp_path, mock_time, **{"cleanup.policy": "compact,delete", "retention.ms": 60_000})
    for i in range(60):
        put(log, 100 + i, i, ts=now - 3_600_000)    # old keys, each once: past retention.ms
    log.roll()
    for i in range(60):
        put(log, i % 4, i, ts=now)                  # recent keys 0-3
    log.roll()
    log.update_high_watermark(log.log_end_offset)
    delete_only = Log(str(tmp_path / "other-0"), LogConfig({"cleanup.policy": "delete"}), time=mock_time,
                      topic_partition=TopicPartition("other", 0))
    logs = {TP: log, TopicPartition("other", 0): delete_only}
    cleaner = LogCleaner(CleanerConfig(dedupe_buffer_size=1 << 20, back_off_ms=20), [str(tmp_path)], logs,
                         time=mock_time)
    assert [tp for tp, _ in cleaner.cleaner_manager.deletable_logs()] == [TP]
    cleaner.cleaner_manager.done_deleting([TP])
    cleaner.startup()
    try:
        wait_until(lambda: log.log_start_offset >= 60, 20, "retention of the old segments by the cleaner thread")
        wait_until(lambda: len(key_values(log)) == 4, 20, "the compaction of the recent ones")
        assert {v for _, _, v in key_values(log)} == {"56", "57", "58", "59"}
    finally:
        cleaner.shutdown()


def test_offset_map_loads_hashlib_with_its_first_key_not_when_built():
    """Issue 18: every cleaner thread builds its SkimpyOffsetMap at start-up; Python's OpenSSL hashlib (~4 ms to
    load) comes with the first key. A fresh interpreter without site (so no .pth file imports hashlib first)."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    script = ("import sys; sys.path.insert(0, sys.argv[1])\n"
              "from kafkalite.log.offset_map import SkimpyOffsetMap\n"
              "m = SkimpyOffsetMap(1 << 12)\n"
              "built = 'hashlib' in sys.modules\n"
              "m.put(b'k', 7)\n"
              "print(built, 'hashlib' in sys.modules, m.get(b'k'))\n")
    out = subprocess.run([sys.executable, "-S", "-c", script, str(root)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "True", "7"]
