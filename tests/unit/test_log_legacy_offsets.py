"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/LogOffsetTest.scala (the getOffsetsBefore cases of
ListOffsets v0, issue 19): Log.legacyFetchOffsetsBefore and Partition.legacyFetchOffsetsForTimestamp
(a consumer sees nothing past the high watermark).

A v0 client asks for up to ``max_num_offsets`` offsets "before" a time; the log answers segment base offsets
(the segment file's mtime is its time) plus the log end offset (stamped now) when the active segment holds
data, largest first.
"""
import os

import pytest

from kafkalite.log.log import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, Log
from kafkalite.log.log_config import LogConfig
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime

NOW = 1_600_000_000_000


def one_record_per_segment_log(tmp_path, segments: int) -> Log:
    record = MemoryRecords.with_records(SimpleRecord(NOW, None, b"x" * 30))
    log = Log(str(tmp_path / "topic-0"), LogConfig({"segment.bytes": record.size_in_bytes() + 1}),
              time=MockTime(now_ms=NOW))
    for _ in range(segments):
        log.append_as_leader(MemoryRecords.with_records(SimpleRecord(NOW, None, b"x" * 30)), 0)
    assert [s.base_offset for s in log.log_segments()] == list(range(segments))
    # segment i was last written at NOW - (segments - i) seconds
    for i, s in enumerate(log.log_segments()):
        t = (NOW - (segments - i) * 1000) / 1000
        os.utime(s.log.file, (t, t))
    return log


def test_latest_answers_log_end_then_segment_bases(tmp_path):
    log = one_record_per_segment_log(tmp_path, 4)
    assert log.legacy_fetch_offsets_before(LATEST_TIMESTAMP, 10) == [4, 3, 2, 1, 0]
    assert log.legacy_fetch_offsets_before(LATEST_TIMESTAMP, 2) == [4, 3]
    assert log.legacy_fetch_offsets_before(LATEST_TIMESTAMP, 1) == [4]


def test_earliest_answers_the_first_segment_only(tmp_path):
    log = one_record_per_segment_log(tmp_path, 4)
    assert log.legacy_fetch_offsets_before(EARLIEST_TIMESTAMP, 10) == [0]


def test_a_time_picks_the_segments_last_written_before_it(tmp_path):
    log = one_record_per_segment_log(tmp_path, 4)   # mtimes NOW-4s, -3s, -2s, -1s; log end stamped NOW
    assert log.legacy_fetch_offsets_before(NOW - 2500, 10) == [1, 0]
    assert log.legacy_fetch_offsets_before(NOW - 2000, 1) == [2]
    assert log.legacy_fetch_offsets_before(NOW - 10_000, 10) == []   # older than every segment


def test_log_start_offset_bounds_the_first_base(tmp_path):
    log = one_record_per_segment_log(tmp_path, 3)
    log.update_high_watermark(3)
    log.maybe_increment_log_start_offset(2)      # segments 0 and 1 not deleted yet
    assert log.legacy_fetch_offsets_before(EARLIEST_TIMESTAMP, 5) == [2]
    assert log.legacy_fetch_offsets_before(LATEST_TIMESTAMP, 5) == [3, 2, 2, 2]


def test_an_empty_active_segment_adds_no_log_end_entry(tmp_path):
    log = Log(str(tmp_path / "topic-0"), LogConfig({}), time=MockTime(now_ms=NOW))
    assert log.legacy_fetch_offsets_before(LATEST_TIMESTAMP, 5) == [0]


@pytest.mark.parametrize("max_num_offsets", [0, -1])
def test_no_offsets_asked_none_given(tmp_path, max_num_offsets):
    log = one_record_per_segment_log(tmp_path, 2)
    assert log.legacy_fetch_offsets_before(LATEST_TIMESTAMP, max_num_offsets) == []


def test_partition_answers_a_consumer_nothing_past_the_high_watermark(tmp_path):
    # Kafka: Partition.legacyFetchOffsetsForTimestamp -- offsets above the high watermark become the high watermark
    # for a consumer; a follower (or a debugging client) sees the log end
    from test_partition import append, follower_fetch, make_partition
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 3)
    follower_fetch(partition, 1, 1)    # broker 1 has 1 record: the high watermark is 1
    assert partition.legacy_fetch_offsets_for_timestamp(LATEST_TIMESTAMP, 10, True, True) == [1, 0]
    assert partition.legacy_fetch_offsets_for_timestamp(LATEST_TIMESTAMP, 10, False, True) == [3, 0]
