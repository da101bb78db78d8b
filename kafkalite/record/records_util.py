"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/RecordsUtil.java

Functions: down_convert -- stored magic 2 batches rewritten as a message set of magic 1 or 0 for a consumer
that cannot read magic 2 (Fetch v0-3), and ConvertedRecords / RecordConversionStats, what it returns.

What Kafka does, kept here:
- control batches (transaction markers) are dropped; transactional data batches are kept (an old consumer
  reads uncommitted); a zstd batch cannot be expressed in the old formats (UNSUPPORTED_COMPRESSION_TYPE);
- an uncompressed batch becomes one message per record, each with its own absolute offset; the records of
  an uncompressed batch below ``first_offset`` (the fetch offset) are dropped (the old formats have no
  batch to start in the middle of, and some librdkafka versions rely on it);
- a compressed batch becomes one wrapper with the same codec, all its records inside, offsets kept;
- timestamps and the timestamp type are kept (magic 0 has neither); record headers are dropped.
Left out: the size estimate of the output buffer (Python grows it) and the temporary-memory accounting of
RecordConversionStats (the converted-records count and the time are kept).
"""
from __future__ import annotations

import time as _time

import attrs

from kafkalite.protocol.errors import UnsupportedCompressionTypeException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.legacy_memory_records_builder import LegacyMemoryRecordsBuilder
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType


@attrs.define
class RecordConversionStats:
    """Kafka: RecordConversionStats."""

    temporary_memory_bytes: int = 0
    num_records_converted: int = 0
    conversion_time_nanos: int = 0


@attrs.define
class ConvertedRecords:
    """Kafka: ConvertedRecords -- the converted bytes and what converting them cost."""

    records: bytes
    record_conversion_stats: RecordConversionStats


# Kafka: RecordsUtil.downConvert -- ``batches``: DefaultRecordBatch views (complete batches only)
def down_convert(batches, to_magic: int, first_offset: int) -> ConvertedRecords:
    if to_magic >= RecordBatch.MAGIC_VALUE_V2:
        raise ValueError("kafkalite stores magic 2 only: nothing to convert to magic 2")
    start_nanos = _time.perf_counter_ns()
    out = bytearray()
    temporary_memory_bytes = num_records_converted = 0
    for batch in batches:
        if batch.is_control_batch:
            continue
        if batch.compression_type is CompressionType.ZSTD:
            raise UnsupportedCompressionTypeException("Down-conversion of zstandard-compressed batches is not supported")
        if batch.magic <= to_magic:          # never in kafkalite's logs, kept for the shape of Kafka's loop
            out += batch.buffer[:batch.size_in_bytes]
            continue
        records = [r for r in batch if batch.compression_type is not CompressionType.NONE or r.offset >= first_offset]
        if not records:
            continue
        temporary_memory_bytes += batch.size_in_bytes
        builder = convert_record_batch(to_magic, batch, records, records[0].offset)
        out += builder.build()
        temporary_memory_bytes += builder.uncompressed_bytes_written
        num_records_converted += builder.num_records()
    stats = RecordConversionStats(temporary_memory_bytes, num_records_converted,
                                  _time.perf_counter_ns() - start_nanos)
    return ConvertedRecords(bytes(out), stats)


# Kafka: RecordsUtil.convertRecordBatch
def convert_record_batch(magic: int, batch, records, base_offset: int) -> LegacyMemoryRecordsBuilder:
    timestamp_type = batch.timestamp_type
    log_append_time = batch.max_timestamp if timestamp_type is TimestampType.LOG_APPEND_TIME else RecordBatch.NO_TIMESTAMP
    builder = LegacyMemoryRecordsBuilder(magic, batch.compression_type, timestamp_type, base_offset, log_append_time)
    for record in records:
        # headers are dropped: magic 0 and 1 have none
        builder.append_with_offset(record.offset, record.timestamp, record.key, record.value)
    return builder
