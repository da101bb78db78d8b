"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/MemoryRecordsBuilder.java
(its magic 0 / magic 1 half)

Classes: LegacyMemoryRecordsBuilder -- writes a message set of magic 0 or 1: one entry per record when
uncompressed; one compressed *wrapper* entry holding all the records otherwise. Kafka has one builder for
every magic; kafkalite keeps the v2 builder in memory_records.py and this one apart, since only the
down-conversion of fetches to old consumers (records_util.py) writes the old formats.

What Kafka's builder does for the old formats, kept here:
- inner offsets (``to_inner_offset``): relative to the base offset in a magic 1 wrapper, absolute otherwise;
- a wrapper's offset is the last inner offset; its timestamp the LogAppendTime, or the largest record
  timestamp (CreateTime); its key null and its attributes the codec plus, for magic 1, the timestamp type;
- a magic 0 LZ4 wrapper gets Kafka 0.8-0.9's wrong frame-header checksum (kafka_lz4.py), as Kafka writes it;
- an uncompressed LogAppendTime record carries the log append time; records inside a wrapper keep their own
  timestamp field, the wrapper's type bit tells readers to use the wrapper's.
Left out: buffer-size estimation and growth, the "closed for appends" state machine, record headers (the
old formats have none: down-conversion drops them, as Kafka does).
"""
from __future__ import annotations

from kafkalite.record.abstract_legacy_record_batch import write_header
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.kafka_lz4 import with_broken_flag_descriptor_checksum
from kafkalite.record.legacy_record import LegacyRecord
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType


class LegacyMemoryRecordsBuilder:
    """Kafka: MemoryRecordsBuilder (magic < 2)."""

    # Kafka: MemoryRecordsBuilder.<init>
    def __init__(self, magic: int, compression_type: CompressionType = CompressionType.NONE,
                 timestamp_type: TimestampType = TimestampType.CREATE_TIME, base_offset: int = 0,
                 log_append_time: int = RecordBatch.NO_TIMESTAMP):
        if magic not in (RecordBatch.MAGIC_VALUE_V0, RecordBatch.MAGIC_VALUE_V1):
            raise ValueError(f"LegacyMemoryRecordsBuilder writes magic 0 or 1, not {magic}")
        if magic == RecordBatch.MAGIC_VALUE_V0:
            timestamp_type = TimestampType.NO_TIMESTAMP_TYPE
        elif timestamp_type is TimestampType.NO_TIMESTAMP_TYPE:
            raise ValueError("TimestampType must be set for magic >= 0")
        if compression_type is CompressionType.ZSTD:
            raise ValueError("ZStandard compression is not supported for magic " + str(magic))
        self.magic = magic
        self.compression_type = compression_type
        self.timestamp_type = timestamp_type
        self.base_offset = base_offset
        self.log_append_time = log_append_time
        self._entries = bytearray()     # the entries themselves (uncompressed) or the wrapper's inner set
        self._num_records = 0
        self._last_offset: int | None = None
        self.max_timestamp = RecordBatch.NO_TIMESTAMP
        self.offset_of_max_timestamp = -1
        self.uncompressed_bytes_written = 0

    # Kafka: MemoryRecordsBuilder.toInnerOffset
    def to_inner_offset(self, offset: int) -> int:
        if self.magic > RecordBatch.MAGIC_VALUE_V0 and self.compression_type is not CompressionType.NONE:
            return offset - self.base_offset
        return offset

    # Kafka: MemoryRecordsBuilder.appendWithOffset
    def append_with_offset(self, offset: int, timestamp: int, key, value) -> None:
        if self._last_offset is not None and offset <= self._last_offset:
            raise ValueError(f"Illegal offset {offset} following previous offset {self._last_offset} "
                             "(Offsets must increase monotonically).")
        if timestamp < 0 and timestamp != RecordBatch.NO_TIMESTAMP:
            raise ValueError(f"Invalid negative timestamp {timestamp}")
        self.append_legacy_record(offset, timestamp, key, value)

    # Kafka: MemoryRecordsBuilder.appendLegacyRecord
    def append_legacy_record(self, offset: int, timestamp: int, key, value) -> None:
        if self.compression_type is CompressionType.NONE and self.timestamp_type is TimestampType.LOG_APPEND_TIME:
            timestamp = self.log_append_time
        out = self._entries
        start = len(out)
        write_header(out, self.to_inner_offset(offset), 0)
        LegacyRecord.write_to(out, self.magic, timestamp, key, value, CompressionType.NONE, self.timestamp_type)
        size = len(out) - start - 12
        out[start + 8:start + 12] = size.to_bytes(4, "big", signed=True)
        self.uncompressed_bytes_written += len(out) - start
        self.record_written(offset, timestamp)

    # Kafka: MemoryRecordsBuilder.recordWritten
    def record_written(self, offset: int, timestamp: int) -> None:
        self._num_records += 1
        self._last_offset = offset
        if timestamp > self.max_timestamp:
            self.max_timestamp = timestamp
            self.offset_of_max_timestamp = offset

    # Kafka: MemoryRecordsBuilder.numRecords
    def num_records(self) -> int:
        return self._num_records

    # Kafka: MemoryRecordsBuilder.build (close + writeLegacyCompressedWrapperHeader) -- the entries' bytes
    def build(self) -> bytes:
        if self._num_records == 0:
            return b""
        if self.compression_type is CompressionType.NONE:
            return bytes(self._entries)
        return self.write_legacy_compressed_wrapper_header()

    # Kafka: MemoryRecordsBuilder.writeLegacyCompressedWrapperHeader
    def write_legacy_compressed_wrapper_header(self) -> bytes:
        assert self._last_offset is not None      # build() calls this only after a record was appended
        compressed = self.compression_type.compress(self._entries)
        if self.compression_type is CompressionType.LZ4 and self.magic == RecordBatch.MAGIC_VALUE_V0:
            compressed = with_broken_flag_descriptor_checksum(compressed)   # what 0.8-0.9 readers check
        timestamp = self.log_append_time if self.timestamp_type is TimestampType.LOG_APPEND_TIME else self.max_timestamp
        out = bytearray()
        write_header(out, self._last_offset, 0)
        LegacyRecord.write_to(out, self.magic, timestamp, None, compressed, self.compression_type, self.timestamp_type)
        out[8:12] = (len(out) - 12).to_bytes(4, "big", signed=True)
        return bytes(out)
