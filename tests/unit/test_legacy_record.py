"""Kafka: LegacyRecordTest, AbstractLegacyRecordBatchTest and the magic 0/1 cases of MemoryRecordsBuilderTest.

Golden bytes are written out from the format's definition (offset i64, size i32, CRC-32 u32 of magic..end,
magic i8, attributes i8, [timestamp i64], key, value; the CRC values are zlib.crc32 of the bytes after
it) and compared with kafka-python's legacy encoder and decoder (kafka.record.legacy_records), used here
as a test oracle only.
"""
import struct
import zlib

import pytest
from kafka.record.legacy_records import LegacyRecordBatch as KpLegacyBatch
from kafka.record.legacy_records import LegacyRecordBatchBuilder as KpLegacyBuilder

from kafkalite.protocol.errors import CorruptRecordException, InvalidRecordException
from kafkalite.record.abstract_legacy_record_batch import ByteBufferLegacyRecordBatch, is_legacy, legacy_batches
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.legacy_memory_records_builder import LegacyMemoryRecordsBuilder
from kafkalite.record.legacy_record import LegacyRecord
from kafkalite.record.timestamp_type import TimestampType

V0_HELLO = bytes.fromhex("0000000000000000" "00000013" "87a77ab2" "00" "00" "ffffffff" "00000005" "68656c6c6f")
V1_KV = bytes.fromhex("0000000000000000" "00000018" "5abedbab" "01" "00" "00000000000004d2" "00000001" "6b"
                      "00000001" "76")


def kp_build(magic, records, codec=0):
    builder = KpLegacyBuilder(magic=magic, compression_type=codec, batch_size=1 << 20)
    for offset, ts, key, value in records:
        builder.append(offset, timestamp=ts, key=key, value=value)
    return bytes(builder.build())


def kp_read(data, magic):
    return [(r.offset, r.timestamp, r.key, r.value) for r in KpLegacyBatch(bytearray(data), magic)]


def test_golden_bytes_by_hand_and_by_kafka_python():
    assert V0_HELLO == kp_build(0, [(0, None, None, b"hello")])
    assert V1_KV == kp_build(1, [(0, 1234, b"k", b"v")])
    for golden, magic, ts, key, value in ((V0_HELLO, 0, -1, None, b"hello"), (V1_KV, 1, 1234, b"k", b"v")):
        out = bytearray(struct.pack(">qi", 0, len(golden) - 12))
        crc = LegacyRecord.write_to(out, magic, ts, key, value)
        assert bytes(out) == golden and crc == zlib.crc32(golden[16:])
        builder = LegacyMemoryRecordsBuilder(magic)
        builder.append_with_offset(0, ts, key, value)
        assert builder.build() == golden


def test_accessors():
    [v0] = legacy_batches(V0_HELLO)
    assert (v0.offset, v0.magic, v0.timestamp, v0.timestamp_type) == (0, 0, -1, TimestampType.NO_TIMESTAMP_TYPE)
    assert (v0.key, bytes(v0.value), v0.has_key(), v0.size_in_bytes) == (None, b"hello", False, len(V0_HELLO))
    [v1] = legacy_batches(V1_KV)
    assert (v1.magic, v1.timestamp, v1.timestamp_type, bytes(v1.key)) == (1, 1234, TimestampType.CREATE_TIME, b"k")
    assert v1.compression_type is CompressionType.NONE and list(v1) == [v1]      # uncompressed: a batch of one
    assert v1.checksum == 0x5ABEDBAB and v1.is_valid()
    assert not v1.has_producer_id() and not v1.is_transactional and not v1.is_control_batch
    assert is_legacy(V0_HELLO) and is_legacy(V1_KV) and not is_legacy(b"\0" * 16 + b"\x02")


def test_corrupt_crc_and_short_records():
    bad = bytearray(V1_KV)
    bad[-1] ^= 1
    [entry] = legacy_batches(bad)
    assert not entry.is_valid()
    with pytest.raises(CorruptRecordException, match="stored crc"):
        entry.ensure_valid()
    with pytest.raises(CorruptRecordException, match="minimum record overhead"):
        list(legacy_batches(struct.pack(">qi", 0, 5) + b"\0" * 5))
    assert list(legacy_batches(V1_KV[:-1])) == []        # a trailing partial message is not yielded


@pytest.mark.parametrize("magic", [0, 1])
def test_compressed_wrapper_from_kafka_python_reads_with_absolute_offsets(magic):
    records = [(i, 1000 + i, b"k%d" % i, b"value-%d" % i) for i in range(5)]
    data = kp_build(magic, records, codec=1)
    [wrapper] = legacy_batches(data)
    # a producer's wrapper says offset 0 (kafka-python, librdkafka): magic 1 inner offsets count from 0
    assert wrapper.compression_type is CompressionType.GZIP and wrapper.offset == 0
    got = [(r.offset, r.timestamp, bytes(r.key), bytes(r.value)) for r in wrapper]
    assert got == [(o, ts if magic else -1, k, v) for o, ts, k, v in records]


def test_v1_wrapper_offsets_are_relative_to_the_wrappers_last_offset():
    builder = LegacyMemoryRecordsBuilder(1, CompressionType.GZIP, base_offset=100)
    for i in range(3):
        builder.append_with_offset(100 + i, 5000 + i, None, b"v%d" % i)
    data = builder.build()
    assert struct.unpack_from(">q", data)[0] == 102                         # the wrapper says the last offset
    inner = CompressionType.GZIP.decompress(ByteBufferLegacyRecordBatch(data).value)
    assert [e.offset for e in legacy_batches(inner)] == [0, 1, 2]           # relative inside (magic 1)
    assert [(o, v) for o, _ts, _k, v in kp_read(data, 1)] == [(100, b"v0"), (101, b"v1"), (102, b"v2")]
    [wrapper] = legacy_batches(data)
    assert wrapper.max_timestamp == 5002 and [r.offset for r in wrapper] == [100, 101, 102]
    # magic 0 keeps absolute inner offsets
    builder = LegacyMemoryRecordsBuilder(0, CompressionType.GZIP, base_offset=100)
    builder.append_with_offset(100, -1, None, b"a")
    builder.append_with_offset(101, -1, None, b"b")
    inner = CompressionType.GZIP.decompress(ByteBufferLegacyRecordBatch(builder.build()).value)
    assert [e.offset for e in legacy_batches(inner)] == [100, 101]


def test_log_append_time_wrapper_gives_its_timestamp_to_the_inner_records():
    builder = LegacyMemoryRecordsBuilder(1, CompressionType.GZIP, TimestampType.LOG_APPEND_TIME, 0, log_append_time=777)
    builder.append_with_offset(0, 1, b"k", b"v")
    builder.append_with_offset(1, 2, b"k", b"w")
    [wrapper] = legacy_batches(builder.build())
    assert wrapper.timestamp_type is TimestampType.LOG_APPEND_TIME and wrapper.timestamp == 777
    assert [(r.timestamp, r.timestamp_type) for r in wrapper] == [(777, TimestampType.LOG_APPEND_TIME)] * 2
    uncompressed = LegacyMemoryRecordsBuilder(1, CompressionType.NONE, TimestampType.LOG_APPEND_TIME, 0, 888)
    uncompressed.append_with_offset(0, 1, None, b"x")
    assert kp_read(uncompressed.build(), 1) == [(0, 888, None, b"x")]


def test_deep_iteration_refuses_what_kafka_refuses():
    inner = LegacyMemoryRecordsBuilder(1, CompressionType.GZIP)
    inner.append_with_offset(0, 1, None, b"x")
    nested = bytearray()                     # a wrapper whose inner message is itself compressed
    body = inner.build()
    LegacyRecord.write_to(nested, 1, 1, None, CompressionType.GZIP.compress(body), CompressionType.GZIP)
    entry = struct.pack(">qi", 0, len(nested)) + bytes(nested)
    with pytest.raises(InvalidRecordException, match="must not be compressed"):
        list(next(legacy_batches(entry)))
    empty = bytearray()
    LegacyRecord.write_to(empty, 1, 1, None, CompressionType.GZIP.compress(b""), CompressionType.GZIP)
    with pytest.raises(InvalidRecordException, match="no inner records"):
        list(next(legacy_batches(struct.pack(">qi", 0, len(empty)) + bytes(empty))))


def test_xxhash32_vectors_and_the_magic_0_lz4_header_byte():
    """KafkaLZ4BlockOutputStream: magic 0 hashes the frame magic into the header checksum (KAFKA-3160)."""
    import cramjam

    from kafkalite.record.kafka_lz4 import (with_broken_flag_descriptor_checksum,
                                            with_proper_flag_descriptor_checksum, xxhash32)
    # published XXH32 vectors (seed 0)
    assert [xxhash32(d) for d in (b"", b"a", b"abc", b"Nobody inspects the spammish repetition")] == \
        [0x02CC5D05, 0x550D7456, 0x32D153FF, 0xE2293B2F]
    frame = bytes(cramjam.lz4.compress(b"hello " * 50))
    broken = with_broken_flag_descriptor_checksum(frame)
    assert broken[:6] == frame[:6] and broken[6] == (xxhash32(frame[:6]) >> 8) & 0xFF != frame[6]
    assert with_proper_flag_descriptor_checksum(broken) == frame
    # written by the builder, read back by the deep iterator
    builder = LegacyMemoryRecordsBuilder(0, CompressionType.LZ4)
    builder.append_with_offset(0, -1, b"k", b"lz4 in magic 0")
    [wrapper] = legacy_batches(builder.build())
    assert bytes(wrapper.value)[6] == (xxhash32(bytes(wrapper.value)[:6]) >> 8) & 0xFF
    assert [bytes(r.value) for r in wrapper] == [b"lz4 in magic 0"]
