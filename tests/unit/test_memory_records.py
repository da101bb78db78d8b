"""Mirrors Kafka's MemoryRecordsTest / MemoryRecordsBuilderTest (the parts that apply)."""
import pytest

from kafkalite.protocol.errors import CorruptRecordException
from kafkalite.record.memory_records import MemoryRecords, MemoryRecordsBuilder, SimpleRecord


def test_shallow_iteration_over_several_batches_and_partial_tail():
    a = MemoryRecords.with_records(SimpleRecord(1, b"a", b"1"), SimpleRecord(2, b"b", b"2"))
    b = MemoryRecords.with_records(SimpleRecord(3, None, b"3"), base_offset=2)
    joined = bytes(a.buffer) + bytes(b.buffer)
    records = MemoryRecords(bytearray(joined + bytes(b.buffer)[:30]))  # a partial third batch
    batches = list(records.batches())
    assert [x.base_offset for x in batches] == [0, 2]
    assert records.valid_bytes() == len(joined)
    assert [r.value for r in records.records()] == [b"1", b"2", b"3"]


def test_empty_builder_gives_empty_records():
    assert MemoryRecordsBuilder().build() is MemoryRecords.EMPTY
    assert MemoryRecords.EMPTY.size_in_bytes() == 0 and list(MemoryRecords.EMPTY.batches()) == []


def test_length_below_minimum_is_corrupt():
    buf = bytearray(MemoryRecords.with_records(SimpleRecord(1, None, b"x")).buffer)
    buf[8:12] = (3).to_bytes(4, "big")
    with pytest.raises(CorruptRecordException):
        list(MemoryRecords(buf).batches())


def test_builder_rejects_non_increasing_offsets():
    b = MemoryRecordsBuilder()
    b.append_with_offset(5, 1, None, b"a")
    with pytest.raises(ValueError):
        b.append_with_offset(5, 2, None, b"b")


def test_batch_views_share_the_buffer():
    records = MemoryRecords.with_records(SimpleRecord(1, None, b"x"))
    next(records.batches()).set_last_offset(41)
    assert next(records.batches()).base_offset == 41
