"""Mirrors Kafka's LogSegmentTest."""
import os

import pytest

from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_segment import LogSegment, RollParams
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime


def records(offset, *values, ts=1000):
    return MemoryRecords.with_records(*[SimpleRecord(ts + i, None, v) for i, v in enumerate(values)],
                                      base_offset=offset)


def append(seg, offset, *values, ts=1000):
    recs = records(offset, *values, ts=ts)
    last = offset + len(values) - 1
    seg.append(last, ts + len(values) - 1, last, recs)
    return recs


@pytest.fixture
def segment(tmp_path):
    seg = LogSegment.open(str(tmp_path), 40, LogConfig({"index.interval.bytes": 10}), MockTime())
    yield seg
    seg.close_handlers()


def test_read_empty_segment(segment):
    assert segment.read(40, 300) is None


def test_read_before_and_after(segment):
    recs = append(segment, 50, b"hello", b"there")
    info = segment.read(50, 300)
    assert info.records.read_bytes() == bytes(recs.buffer)
    assert info.fetch_offset_metadata.relative_position_in_segment == 0
    assert segment.read(52, 300) is None  # beyond the segment


def test_file_names_use_twenty_digit_base_offset(segment):
    assert os.path.basename(segment.log.file) == "00000000000000000040.log"
    assert os.path.basename(segment.offset_index.file) == "00000000000000000040.index"
    assert os.path.basename(segment.time_index.file) == "00000000000000000040.timeindex"


def test_index_entry_every_interval(tmp_path):
    seg = LogSegment.open(str(tmp_path), 0, LogConfig({"index.interval.bytes": 200}), MockTime())
    size = 0
    for i in range(20):
        size = append(seg, i * 2, b"a" * 30, b"b" * 30, ts=1000 + i).size_in_bytes()
    assert 100 < size <= 200
    # An entry is added before an append once more than 200 bytes went in since the last one:
    # here before every second batch, starting with the third.
    positions = [seg.offset_index.entry(i).position for i in range(seg.offset_index.entries)]
    assert positions == [size * k for k in range(2, 20, 2)]
    assert [seg.offset_index.entry(i).offset for i in range(3)] == [5, 9, 13]
    assert seg.time_index.entries == seg.offset_index.entries
    seg.close_handlers()


def test_min_one_message_and_first_entry_incomplete(segment):
    recs = append(segment, 40, b"x" * 100)
    assert segment.read(40, 10).records.size_in_bytes() == 10
    info = segment.read(40, 10, min_one_message=True)
    assert info.records.size_in_bytes() == recs.size_in_bytes() and not info.first_entry_incomplete
    assert segment.read(40, 10).first_entry_incomplete


def test_truncate_and_read_next_offset(segment):
    for i in range(10):
        append(segment, 40 + i * 2, b"a", b"b", ts=1000 + i)
    assert segment.read_next_offset() == 60
    removed = segment.truncate_to(50)
    assert removed > 0 and segment.read_next_offset() == 50
    assert segment.offset_index.last_offset < 50
    append(segment, 50, b"again")
    assert segment.read_next_offset() == 51


def test_find_offset_by_timestamp(segment):
    for i in range(10):
        append(segment, 40 + i * 2, b"a", b"b", ts=1000 + i * 10)
    found = segment.find_offset_by_timestamp(1031)
    assert (found.offset, found.timestamp) == (47, 1031)
    assert segment.find_offset_by_timestamp(5000) is None


def test_recovery_fixes_corrupt_index(segment):
    for i in range(10):
        append(segment, 40 + i * 2, b"a", b"b", ts=1000 + i)
    entries = [segment.offset_index.entry(i) for i in range(segment.offset_index.entries)]
    segment.offset_index.truncate()
    assert segment.recover() == 0
    assert [segment.offset_index.entry(i) for i in range(segment.offset_index.entries)] == entries


def test_recovery_truncates_tail_cut_short(segment):
    for i in range(5):
        append(segment, 40 + i * 2, b"a", b"b")
    good = segment.size
    partial = bytes(records(50, b"c", b"d").buffer)[:30]
    with open(segment.log.file, "ab") as f:
        f.write(partial)
    segment.log._size += len(partial)
    assert segment.recover() == 30 and segment.size == good
    assert segment.read_next_offset() == 50


def test_recovery_truncates_at_flipped_byte(segment):
    sizes = [append(segment, 40 + i * 2, b"a" * 10, b"b").size_in_bytes() for i in range(5)]
    corrupt_at = sizes[0] * 2 + 70  # inside the third batch
    with open(segment.log.file, "r+b") as f:
        f.seek(corrupt_at)
        byte = f.read(1)
        f.seek(corrupt_at)
        f.write(bytes([byte[0] ^ 0xFF]))
    assert segment.recover() == sum(sizes[2:])
    assert [b.base_offset for b in segment.log.batches()] == [40, 42]


def test_should_roll_by_size_and_time(tmp_path):
    mock_time = MockTime()
    seg = LogSegment.open(str(tmp_path), 0, LogConfig(), mock_time)
    append(seg, 0, b"x" * 50, ts=mock_time.milliseconds())
    p = lambda now, ts: RollParams(1000, 100, ts, 5, 60, now)  # noqa: E731
    assert seg.should_roll(p(mock_time.milliseconds(), mock_time.milliseconds()))  # size + 60 > 100
    big = RollParams(1000, 10**6, mock_time.milliseconds() + 2000, 5, 10, mock_time.milliseconds())
    assert seg.should_roll(big)  # the next batch is more than segment.ms newer than the first
    ok = RollParams(1000, 10**6, mock_time.milliseconds() + 10, 5, 10, mock_time.milliseconds())
    assert not seg.should_roll(ok)
    seg.close_handlers()
