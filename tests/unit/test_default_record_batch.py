"""Mirrors Kafka's DefaultRecordBatchTest: header fields, CRC, in-place setters, compression,
and one cross-check against kafka-python's own batch builder (real clients' bytes parse)."""
import struct

import pytest
from kafka.record.default_records import DefaultRecordBatchBuilder

from kafkalite.protocol.errors import CorruptRecordException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.default_record_batch import (
    CRC_OFFSET, RECORD_BATCH_OVERHEAD, DefaultRecordBatch, increment_sequence)
from kafkalite.record.memory_records import MemoryRecords, MemoryRecordsBuilder
from kafkalite.record.timestamp_type import TimestampType


def build(compression=CompressionType.NONE, n=3, **kw):
    b = MemoryRecordsBuilder(compression_type=compression, **kw)
    for i in range(n):
        b.append(1000 + i, b"key%d" % i, b"value%d" % i, [("h", b"x")])
    return b.build()


def test_header_fields():
    records = build(base_offset=10, producer_id=77, producer_epoch=3, base_sequence=5, is_transactional=True)
    batch = next(records.batches())
    assert batch.magic == 2 and batch.base_offset == 10 and batch.last_offset == 12
    assert batch.last_offset_delta == 2 and batch.next_offset == 13 and batch.count == 3
    assert batch.base_timestamp == 1000 and batch.max_timestamp == 1002
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence, batch.last_sequence) == (77, 3, 5, 7)
    assert batch.is_transactional and not batch.is_control_batch
    assert batch.timestamp_type is TimestampType.CREATE_TIME
    assert batch.size_in_bytes == records.size_in_bytes() > RECORD_BATCH_OVERHEAD
    assert batch.is_valid()


def test_crc_mismatch_detected():
    records = build()
    buf = bytearray(records.buffer)
    buf[-1] ^= 0xFF
    batch = DefaultRecordBatch(buf)
    assert not batch.is_valid()
    with pytest.raises(CorruptRecordException, match="stored crc"):
        batch.ensure_valid()


def test_size_below_header_and_bad_magic_are_corrupt():
    records = build()
    with pytest.raises(CorruptRecordException):
        DefaultRecordBatch(bytes(records.buffer[:40])).ensure_valid()
    buf = bytearray(records.buffer)
    buf[16] = 1
    with pytest.raises(CorruptRecordException, match="magic"):
        DefaultRecordBatch(buf).ensure_valid()


def test_set_last_offset_rewrites_base_offset_without_touching_crc():
    batch = next(build().batches())
    crc = batch.checksum
    batch.set_last_offset(52)
    assert batch.base_offset == 50 and batch.last_offset == 52
    assert batch.checksum == crc and batch.is_valid()
    assert [r.offset for r in batch] == [50, 51, 52]


def test_set_partition_leader_epoch_keeps_crc_valid():
    batch = next(build().batches())
    batch.set_partition_leader_epoch(9)
    assert batch.partition_leader_epoch == 9 and batch.is_valid()


def test_set_max_timestamp_log_append_time_recomputes_crc():
    batch = next(build().batches())
    old_crc = batch.checksum
    batch.set_max_timestamp(TimestampType.LOG_APPEND_TIME, 5555)
    assert batch.timestamp_type is TimestampType.LOG_APPEND_TIME and batch.max_timestamp == 5555
    assert batch.checksum != old_crc and batch.is_valid()
    assert {r.timestamp for r in batch} == {5555}  # LogAppendTime applies to every record


@pytest.mark.parametrize("compression", list(CompressionType))
def test_compression_round_trip(compression):
    records = build(compression, n=50)
    batch = next(records.batches())
    assert batch.compression_type is compression
    decoded = list(batch)
    assert [r.value for r in decoded] == [b"value%d" % i for i in range(50)]
    assert [r.offset for r in decoded] == list(range(50))


def test_increment_sequence_wraps():
    assert increment_sequence(2**31 - 1, 1) == 0
    assert increment_sequence(5, 3) == 8


def test_raw_snappy_block_is_accepted():
    import cramjam
    data = b"abc" * 100
    assert CompressionType.SNAPPY.decompress(bytes(cramjam.snappy.compress_raw(data))) == data


# kafka-python needs python-snappy/lz4/zstandard for the other codecs; they are not installed here.
@pytest.mark.parametrize("codec, ours", [(0, CompressionType.NONE), (1, CompressionType.GZIP)])
def test_kafka_python_batches_parse(codec, ours):
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=codec, is_transactional=False,
                                        producer_id=1234, producer_epoch=0, base_sequence=0, batch_size=1 << 20)
    for i in range(5):
        builder.append(i, timestamp=1700000000000 + i, key=b"k%d" % i, value=b"v%d" % i, headers=[("hk", b"hv")])
    data = bytes(builder.build())
    batch = next(MemoryRecords(bytearray(data)).batches())
    batch.ensure_valid()
    assert batch.compression_type is ours and batch.producer_id == 1234 and batch.count == 5
    assert [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in batch] == [
        (i, 1700000000000 + i, b"k%d" % i, b"v%d" % i, [("hk", b"hv")]) for i in range(5)]


def test_our_uncompressed_bytes_equal_kafka_pythons():
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False,
                                        producer_id=-1, producer_epoch=-1, base_sequence=-1, batch_size=1 << 20)
    ours = MemoryRecordsBuilder()
    for i in range(3):
        builder.append(i, timestamp=1000 + i, key=None, value=b"v%d" % i, headers=[])
        ours.append(1000 + i, None, b"v%d" % i)
    theirs = bytes(builder.build())
    mine = bytes(ours.build().buffer)
    # kafka-python writes partitionLeaderEpoch 0 where Kafka's builder writes -1 (not CRC-covered)
    assert mine[:12] == theirs[:12] and mine[16:] == theirs[16:]
    assert struct.unpack_from(">I", mine, CRC_OFFSET) == struct.unpack_from(">I", theirs, CRC_OFFSET)
