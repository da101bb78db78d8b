"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java

Classes: DefaultRecordBatch -- a view over the bytes of one magic-2 record batch.

Header layout (61 bytes, big-endian; ``RECORD_BATCH_OVERHEAD``):

  off  field                  off  field
   0   baseOffset     i64      27  firstTimestamp  i64   (kafkalite: base_timestamp)
   8   length         i32      35  maxTimestamp    i64
  12   partitionLeaderEpoch    43  producerId      i64
  16   magic          i8       51  producerEpoch   i16
  17   crc            u32      53  baseSequence    i32
  21   attributes     i16      57  recordsCount    i32
  23   lastOffsetDelta i32     61  records...

The CRC-32C covers bytes 21..end (attributes onwards). baseOffset, length, leader epoch and
magic are outside it, so the broker assigns offsets (``set_last_offset``) and stamps the
leader epoch in place without touching the CRC -- the reason the produce path can treat a batch
as opaque bytes. Changing maxTimestamp (LogAppendTime topics) does recompute the CRC.

Iterating a batch decodes its records (decompressing first); only tools, clients and tests do
that. Left out: the delete-horizon attribute (KIP-534, 2.8+), ``DefaultRecordBatch.skipKeyValue``
iterators and buffer pooling.
"""
from __future__ import annotations

import struct
from typing import Iterator

from kafkalite.protocol.errors import CorruptRecordException, InvalidRecordException, KafkaException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.default_record import DefaultRecord, PartialDefaultRecord
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType

BASE_OFFSET_OFFSET = 0
LENGTH_OFFSET = 8
PARTITION_LEADER_EPOCH_OFFSET = 12
MAGIC_OFFSET = 16
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
LAST_OFFSET_DELTA_OFFSET = 23
BASE_TIMESTAMP_OFFSET = 27
MAX_TIMESTAMP_OFFSET = 35
PRODUCER_ID_OFFSET = 43
PRODUCER_EPOCH_OFFSET = 51
BASE_SEQUENCE_OFFSET = 53
RECORDS_COUNT_OFFSET = 57
RECORDS_OFFSET = 61
RECORD_BATCH_OVERHEAD = RECORDS_OFFSET
LOG_OVERHEAD = 12  # Kafka: Records.LOG_OVERHEAD -- baseOffset + length come before "the batch"

COMPRESSION_CODEC_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
TRANSACTIONAL_FLAG_MASK = 0x10
CONTROL_FLAG_MASK = 0x20

# The whole header in one struct, for writing: baseOffset .. recordsCount.
HEADER = struct.Struct(">qiibIhiqqqhii")
assert HEADER.size == RECORD_BATCH_OVERHEAD

_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")
_U32 = struct.Struct(">I")
_I16 = struct.Struct(">h")


# Kafka: DefaultRecordBatch.incrementSequence
def increment_sequence(sequence: int, increment: int) -> int:
    if sequence > 0x7FFFFFFF - increment:
        return increment - (0x7FFFFFFF - sequence) - 1
    return sequence + increment


# Kafka: DefaultRecordBatch.computeAttributes
def compute_attributes(compression_type: CompressionType, timestamp_type: TimestampType,
                       is_transactional: bool, is_control: bool) -> int:
    attributes = compression_type.id
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        attributes |= TIMESTAMP_TYPE_MASK
    if is_transactional:
        attributes |= TRANSACTIONAL_FLAG_MASK
    if is_control:
        attributes |= CONTROL_FLAG_MASK
    return attributes


class DefaultRecordBatch:
    """Kafka: DefaultRecordBatch -- header accessors read straight from the buffer."""

    __slots__ = ("buffer",)

    def __init__(self, buffer):
        self.buffer = buffer if isinstance(buffer, memoryview) else memoryview(buffer)


    # ---- header accessors (Kafka's getters) ----
    # Each unpacks its field directly: Kafka's getters are one ByteBuffer.getX each, and the produce path
    # calls about 50 of them per batch, so a helper call per field was a measurable share of a request.
    @property
    def base_offset(self) -> int: return _I64.unpack_from(self.buffer, BASE_OFFSET_OFFSET)[0]
    @property
    def last_offset_delta(self) -> int: return _I32.unpack_from(self.buffer, LAST_OFFSET_DELTA_OFFSET)[0]
    @property
    def last_offset(self) -> int:
        buffer = self.buffer
        return _I64.unpack_from(buffer, BASE_OFFSET_OFFSET)[0] + _I32.unpack_from(buffer, LAST_OFFSET_DELTA_OFFSET)[0]
    @property
    def next_offset(self) -> int: return self.last_offset + 1
    @property
    def partition_leader_epoch(self) -> int: return _I32.unpack_from(self.buffer, PARTITION_LEADER_EPOCH_OFFSET)[0]
    @property
    def magic(self) -> int: return self.buffer[MAGIC_OFFSET]
    @property
    def checksum(self) -> int: return _U32.unpack_from(self.buffer, CRC_OFFSET)[0]
    @property
    def attributes(self) -> int: return _I16.unpack_from(self.buffer, ATTRIBUTES_OFFSET)[0]
    @property
    def base_timestamp(self) -> int:   # Kafka: firstTimestamp
        return _I64.unpack_from(self.buffer, BASE_TIMESTAMP_OFFSET)[0]
    @property
    def max_timestamp(self) -> int: return _I64.unpack_from(self.buffer, MAX_TIMESTAMP_OFFSET)[0]
    @property
    def producer_id(self) -> int: return _I64.unpack_from(self.buffer, PRODUCER_ID_OFFSET)[0]
    @property
    def producer_epoch(self) -> int: return _I16.unpack_from(self.buffer, PRODUCER_EPOCH_OFFSET)[0]
    @property
    def base_sequence(self) -> int: return _I32.unpack_from(self.buffer, BASE_SEQUENCE_OFFSET)[0]
    @property
    def count(self) -> int: return _I32.unpack_from(self.buffer, RECORDS_COUNT_OFFSET)[0]  # Kafka: countOrNull
    @property
    def size_in_bytes(self) -> int: return LOG_OVERHEAD + _I32.unpack_from(self.buffer, LENGTH_OFFSET)[0]

    @property
    def compression_type(self) -> CompressionType:
        return CompressionType.for_id(self.attributes & COMPRESSION_CODEC_MASK)

    @property
    def timestamp_type(self) -> TimestampType:
        if self.attributes & TIMESTAMP_TYPE_MASK:
            return TimestampType.LOG_APPEND_TIME
        return TimestampType.CREATE_TIME

    @property
    def is_transactional(self) -> bool: return bool(self.attributes & TRANSACTIONAL_FLAG_MASK)
    @property
    def is_control_batch(self) -> bool: return bool(self.attributes & CONTROL_FLAG_MASK)

    # Kafka: RecordBatch.hasProducerId
    def has_producer_id(self) -> bool:
        return self.producer_id > RecordBatch.NO_PRODUCER_ID

    # Kafka: DefaultRecordBatch.lastSequence
    @property
    def last_sequence(self) -> int:
        base = self.base_sequence
        if base == RecordBatch.NO_SEQUENCE:
            return RecordBatch.NO_SEQUENCE
        return increment_sequence(base, self.last_offset_delta)

    # ---- validation ----
    # Kafka: DefaultRecordBatch.computeChecksum
    def compute_checksum(self) -> int:
        import crc32c  # crc32c's import reads its package metadata (~25 ms): the first batch pays it, not start-up
        return crc32c.crc32c(self.buffer[ATTRIBUTES_OFFSET:self.size_in_bytes])

    # Kafka: DefaultRecordBatch.isValid
    def is_valid(self) -> bool:
        try:
            self.ensure_valid()
        except CorruptRecordException:
            return False
        return True

    # Kafka: DefaultRecordBatch.ensureValid
    def ensure_valid(self) -> None:
        if len(self.buffer) < RECORD_BATCH_OVERHEAD:
            raise CorruptRecordException(
                f"Record batch is corrupt: only {len(self.buffer)} bytes, "
                f"less than the {RECORD_BATCH_OVERHEAD}-byte batch header")
        size = self.size_in_bytes
        if size < RECORD_BATCH_OVERHEAD:
            raise CorruptRecordException(
                f"Record batch size {size} is smaller than the minimum allowed overhead "
                f"{RECORD_BATCH_OVERHEAD}")
        if self.magic != RecordBatch.MAGIC_VALUE_V2:
            raise CorruptRecordException(f"Record batch has magic {self.magic}; only magic 2 is supported")
        if len(self.buffer) < size:
            raise CorruptRecordException(
                f"Record batch is truncated: header says {size} bytes, only {len(self.buffer)} present")
        if self.last_offset_delta < 0 or self.count < 0:
            raise CorruptRecordException(
                f"Record batch has negative lastOffsetDelta {self.last_offset_delta} or count {self.count}")
        stored, computed = self.checksum, self.compute_checksum()
        if stored != computed:
            raise CorruptRecordException(
                f"Record batch is corrupt (stored crc = {stored}, computed crc = {computed})")

    # ---- in-place setters used by Log.append ----
    # Kafka: DefaultRecordBatch.setLastOffset
    def set_last_offset(self, offset: int) -> None:
        _I64.pack_into(self.buffer, BASE_OFFSET_OFFSET, offset - self.last_offset_delta)

    # Kafka: DefaultRecordBatch.setPartitionLeaderEpoch
    def set_partition_leader_epoch(self, epoch: int) -> None:
        _I32.pack_into(self.buffer, PARTITION_LEADER_EPOCH_OFFSET, epoch)

    # Kafka: DefaultRecordBatch.setMaxTimestamp
    def set_max_timestamp(self, timestamp_type: TimestampType, max_timestamp: int) -> None:
        if self.timestamp_type is timestamp_type and self.max_timestamp == max_timestamp:
            return
        attributes = compute_attributes(self.compression_type, timestamp_type,
                                        self.is_transactional, self.is_control_batch)
        _I16.pack_into(self.buffer, ATTRIBUTES_OFFSET, attributes)
        _I64.pack_into(self.buffer, MAX_TIMESTAMP_OFFSET, max_timestamp)
        _U32.pack_into(self.buffer, CRC_OFFSET, self.compute_checksum())

    # ---- record iteration (tools, clients and tests only) ----
    # Kafka: DefaultRecordBatch.iterator
    def __iter__(self) -> Iterator[DefaultRecord]:
        self.ensure_valid()
        data = self.buffer[RECORDS_OFFSET:self.size_in_bytes]
        if self.compression_type is not CompressionType.NONE:
            data = memoryview(self.compression_type.decompress(data))
        base_offset, base_ts, base_seq = self.base_offset, self.base_timestamp, self.base_sequence
        log_append_time = self.max_timestamp if self.timestamp_type is TimestampType.LOG_APPEND_TIME else None
        pos = 0
        for _ in range(self.count):
            record, pos = DefaultRecord.read_from(data, pos, base_offset, base_ts, base_seq, log_append_time)
            yield record
        if pos != len(data):
            raise InvalidRecordException(
                f"Incorrect declared batch size, {len(data) - pos} bytes remain after {self.count} records")

    def records(self) -> list[DefaultRecord]:
        return list(self)

    # Kafka: DefaultRecordBatch.skipKeyValueIterator -- records without their keys, values and headers, for the
    # broker's record checks: a compressed batch is decompressed (its CRC was checked by the caller already)
    def skip_key_value_iterator(self) -> Iterator[PartialDefaultRecord]:
        data = self.buffer[RECORDS_OFFSET:self.size_in_bytes]
        if self.compression_type is not CompressionType.NONE:
            try:
                data = self.compression_type.decompress(data)
            except Exception as e:  # noqa: BLE001 -- each codec library raises its own
                raise KafkaException(f"Failed to decompress record stream: {e!r}") from None
        base_offset, base_timestamp = self.base_offset, self.base_timestamp
        pos = 0
        for _ in range(self.count):
            record, pos = DefaultRecord.read_partially_from(data, pos, base_offset, base_timestamp)
            yield record
        if pos != len(data):
            raise InvalidRecordException(
                f"Incorrect declared batch size, {len(data) - pos} bytes remain after {self.count} records")

    # Kafka: DefaultRecordBatch.writeHeader
    @staticmethod
    def write_header(buffer, base_offset: int, last_offset_delta: int, size_in_bytes: int, magic: int,
                     compression_type: CompressionType, timestamp_type: TimestampType,
                     base_timestamp: int, max_timestamp: int, producer_id: int, epoch: int,
                     sequence: int, is_transactional: bool, is_control: bool,
                     partition_leader_epoch: int, num_records: int) -> None:
        """Write the 61-byte header at the start of ``buffer`` (which holds the records after it)."""
        attributes = compute_attributes(compression_type, timestamp_type, is_transactional, is_control)
        HEADER.pack_into(buffer, 0, base_offset, size_in_bytes - LOG_OVERHEAD, partition_leader_epoch,
                         magic, 0, attributes, last_offset_delta, base_timestamp, max_timestamp,
                         producer_id, epoch, sequence, num_records)
        import crc32c  # crc32c's import reads its package metadata (~25 ms): the first batch pays it, not start-up
        crc = crc32c.crc32c(memoryview(buffer)[ATTRIBUTES_OFFSET:size_in_bytes])
        _U32.pack_into(buffer, CRC_OFFSET, crc)

    def __repr__(self) -> str:
        return (f"RecordBatch(magic={self.magic}, offsets=[{self.base_offset}, {self.last_offset}], "
                f"sequence=[{self.base_sequence}, {self.last_sequence}], "
                f"isTransactional={self.is_transactional}, isControlBatch={self.is_control_batch}, "
                f"compression={self.compression_type}, timestampType={self.timestamp_type}, "
                f"crc={self.checksum})")
