"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java

Classes: LegacyRecord -- a view over one message of the old formats, magic 0 (Kafka 0.8-0.9 clients)
and magic 1 (0.10, KIP-32 added the timestamp). The 12-byte offset and size in front of it belong to the
message set entry (abstract_legacy_record_batch.py), not to the record.

Layout (big-endian):

  off  field        v0     v1
   0   crc          u32    u32      CRC-32 (zlib's, not CRC-32C) of everything from magic to the end
   4   magic        i8     i8
   5   attributes   i8     i8       bits 0-2 codec, bit 3 (v1 only) LogAppendTime
   6   timestamp    --     i64
   6/14 key         i32 length (-1 = null) + bytes
        value       i32 length (-1 = null) + bytes   (a compressed wrapper: the compressed inner message set)

A record inside a compressed v1 wrapper takes its timestamp from the wrapper when the wrapper says
LogAppendTime (``wrapper_record_timestamp`` / ``wrapper_record_timestamp_type``); magic 0 has no timestamp at
all (``NO_TIMESTAMP``, and TimestampType.NO_TIMESTAMP_TYPE).

The broker reads these only for produce requests of versions 0-2 (up-converted to magic 2 in
kafkalite/log/log_validator.py) and writes them only for fetch requests of versions 0-3 (down-conversion,
kafkalite/record/records_util.py); the log holds magic 2 batches only.
Left out: ``LegacyRecord.create``'s convenience overloads and the ByteBuffer-style ``buffer()`` mutability
(a view here is read-only; records are written with ``write_to``).
"""
from __future__ import annotations

import struct
import zlib

from kafkalite.protocol.errors import CorruptRecordException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType

CRC_OFFSET = 0
CRC_LENGTH = 4
MAGIC_OFFSET = CRC_OFFSET + CRC_LENGTH
MAGIC_LENGTH = 1
ATTRIBUTES_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH
ATTRIBUTES_LENGTH = 1
TIMESTAMP_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH
TIMESTAMP_LENGTH = 8
KEY_SIZE_OFFSET_V0 = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH
KEY_SIZE_OFFSET_V1 = TIMESTAMP_OFFSET + TIMESTAMP_LENGTH
KEY_SIZE_LENGTH = 4
KEY_OFFSET_V0 = KEY_SIZE_OFFSET_V0 + KEY_SIZE_LENGTH
KEY_OFFSET_V1 = KEY_SIZE_OFFSET_V1 + KEY_SIZE_LENGTH
VALUE_SIZE_LENGTH = 4
HEADER_SIZE_V0 = CRC_LENGTH + MAGIC_LENGTH + ATTRIBUTES_LENGTH
HEADER_SIZE_V1 = HEADER_SIZE_V0 + TIMESTAMP_LENGTH
RECORD_OVERHEAD_V0 = HEADER_SIZE_V0 + KEY_SIZE_LENGTH + VALUE_SIZE_LENGTH     # 14
RECORD_OVERHEAD_V1 = HEADER_SIZE_V1 + KEY_SIZE_LENGTH + VALUE_SIZE_LENGTH     # 22
COMPRESSION_CODEC_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
NO_TIMESTAMP = -1

_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_U32 = struct.Struct(">I")


# Kafka: LegacyRecord.recordOverhead
def record_overhead(magic: int) -> int:
    if magic == RecordBatch.MAGIC_VALUE_V0:
        return RECORD_OVERHEAD_V0
    if magic == RecordBatch.MAGIC_VALUE_V1:
        return RECORD_OVERHEAD_V1
    raise ValueError(f"Invalid magic used in LegacyRecord: {magic}")


# Kafka: LegacyRecord.recordSize
def record_size(magic: int, key_size: int, value_size: int) -> int:
    return record_overhead(magic) + key_size + value_size


# Kafka: LegacyRecord.keyOffset -- where the key (or, for a null key, the value size) starts
def key_offset(magic: int) -> int:
    return KEY_OFFSET_V0 if magic == RecordBatch.MAGIC_VALUE_V0 else KEY_OFFSET_V1


# Kafka: LegacyRecord.computeAttributes
def compute_attributes(magic: int, compression_type: CompressionType, timestamp_type: TimestampType) -> int:
    attributes = 0
    if compression_type is not CompressionType.NONE:
        attributes |= COMPRESSION_CODEC_MASK & compression_type.id
    if magic > RecordBatch.MAGIC_VALUE_V0:
        if timestamp_type is TimestampType.NO_TIMESTAMP_TYPE:
            raise ValueError("Timestamp type must be provided to compute attributes for message format v1")
        if timestamp_type is TimestampType.LOG_APPEND_TIME:
            attributes |= TIMESTAMP_TYPE_MASK
    return attributes


# Kafka: LegacyRecord.timestampType (the static one) -- magic 0 has none; a wrapper's type wins; else bit 3
def timestamp_type_of(magic: int, wrapper_record_timestamp_type: TimestampType | None, attributes: int) -> TimestampType:
    if magic == RecordBatch.MAGIC_VALUE_V0:
        return TimestampType.NO_TIMESTAMP_TYPE
    if wrapper_record_timestamp_type is not None:
        return wrapper_record_timestamp_type
    return TimestampType.LOG_APPEND_TIME if attributes & TIMESTAMP_TYPE_MASK else TimestampType.CREATE_TIME


def _write_bytes(out: bytearray, data) -> None:
    if data is None:
        out += _I32.pack(-1)
    else:
        out += _I32.pack(len(data))
        out += data


class LegacyRecord:
    """Kafka: LegacyRecord -- read accessors over one message's bytes (crc .. value)."""

    __slots__ = ("buffer", "wrapper_record_timestamp", "wrapper_record_timestamp_type")

    def __init__(self, buffer, wrapper_record_timestamp: int | None = None,
                 wrapper_record_timestamp_type: TimestampType | None = None):
        self.buffer = buffer if isinstance(buffer, memoryview) else memoryview(buffer)
        self.wrapper_record_timestamp = wrapper_record_timestamp
        self.wrapper_record_timestamp_type = wrapper_record_timestamp_type

    # Kafka: LegacyRecord.computeChecksum -- CRC-32 from the magic byte to the end
    def compute_checksum(self) -> int:
        return zlib.crc32(self.buffer[MAGIC_OFFSET:])

    # Kafka: LegacyRecord.checksum
    def checksum(self) -> int:
        return _U32.unpack_from(self.buffer, CRC_OFFSET)[0]

    # Kafka: LegacyRecord.isValid
    def is_valid(self) -> bool:
        return self.size_in_bytes() >= RECORD_OVERHEAD_V0 and self.checksum() == self.compute_checksum()

    # Kafka: LegacyRecord.ensureValid
    def ensure_valid(self) -> None:
        if self.size_in_bytes() < RECORD_OVERHEAD_V0:
            raise CorruptRecordException(f"Record is corrupt (crc could not be retrieved as the record is too "
                                         f"small, size = {self.size_in_bytes()})")
        if not self.is_valid():
            raise CorruptRecordException(f"Record is corrupt (stored crc = {self.checksum()}, computed crc = "
                                         f"{self.compute_checksum()})")

    # Kafka: LegacyRecord.sizeInBytes
    def size_in_bytes(self) -> int:
        return len(self.buffer)

    # Kafka: LegacyRecord.magic
    def magic(self) -> int:
        return self.buffer[MAGIC_OFFSET]

    # Kafka: LegacyRecord.attributes
    def attributes(self) -> int:
        return self.buffer[ATTRIBUTES_OFFSET]

    def _key_size_offset(self) -> int:
        return KEY_SIZE_OFFSET_V0 if self.magic() == RecordBatch.MAGIC_VALUE_V0 else KEY_SIZE_OFFSET_V1

    # Kafka: LegacyRecord.keySize
    def key_size(self) -> int:
        return _I32.unpack_from(self.buffer, self._key_size_offset())[0]

    # Kafka: LegacyRecord.hasKey
    def has_key(self) -> bool:
        return self.key_size() >= 0

    # Kafka: LegacyRecord.valueSizeOffset
    def value_size_offset(self) -> int:
        return key_offset(self.magic()) + max(0, self.key_size())

    # Kafka: LegacyRecord.valueSize
    def value_size(self) -> int:
        return _I32.unpack_from(self.buffer, self.value_size_offset())[0]

    # Kafka: LegacyRecord.hasNullValue
    def has_null_value(self) -> bool:
        return self.value_size() < 0

    # Kafka: LegacyRecord.timestamp
    def timestamp(self) -> int:
        if self.magic() == RecordBatch.MAGIC_VALUE_V0:
            return RecordBatch.NO_TIMESTAMP
        if self.wrapper_record_timestamp_type is TimestampType.LOG_APPEND_TIME and \
                self.wrapper_record_timestamp is not None:
            return self.wrapper_record_timestamp
        return _I64.unpack_from(self.buffer, TIMESTAMP_OFFSET)[0]

    # Kafka: LegacyRecord.timestampType
    def timestamp_type(self) -> TimestampType:
        return timestamp_type_of(self.magic(), self.wrapper_record_timestamp_type, self.attributes())

    # Kafka: LegacyRecord.compressionType
    def compression_type(self) -> CompressionType:
        return CompressionType.for_id(self.attributes() & COMPRESSION_CODEC_MASK)

    def _size_delimited(self, at: int):
        size = _I32.unpack_from(self.buffer, at)[0]
        if size < 0:
            return None
        if at + 4 + size > len(self.buffer):
            raise CorruptRecordException(f"Record field of {size} bytes runs past the end of the record")
        return self.buffer[at + 4:at + 4 + size]

    # Kafka: LegacyRecord.key -- a memoryview, or None for a null key
    def key(self):
        return self._size_delimited(self._key_size_offset())

    # Kafka: LegacyRecord.value
    def value(self):
        return self._size_delimited(self.value_size_offset())

    # Kafka: LegacyRecord.toString
    def __repr__(self) -> str:
        key, value = self.key(), self.value()
        ts = f", {self.timestamp_type()}={self.timestamp()}" if self.magic() > 0 else ""
        return (f"Record(magic={self.magic()}, attributes={self.attributes()}, compression={self.compression_type()}, "
                f"crc={self.checksum()}{ts}, key={0 if key is None else len(key)} bytes, "
                f"value={0 if value is None else len(value)} bytes)")

    # Kafka: LegacyRecord.write -- appends one whole message (crc .. value) to ``out``; returns its crc
    @staticmethod
    def write_to(out: bytearray, magic: int, timestamp: int, key, value,
                 compression_type: CompressionType = CompressionType.NONE,
                 timestamp_type: TimestampType = TimestampType.CREATE_TIME) -> int:
        if magic not in (RecordBatch.MAGIC_VALUE_V0, RecordBatch.MAGIC_VALUE_V1):
            raise ValueError(f"Invalid magic value {magic}")
        if magic != RecordBatch.MAGIC_VALUE_V0 and timestamp < 0 and timestamp != NO_TIMESTAMP:
            raise ValueError(f"Invalid message timestamp {timestamp}")
        start = len(out)
        out += b"\0\0\0\0"
        out.append(magic)
        out.append(compute_attributes(magic, compression_type, timestamp_type))
        if magic > RecordBatch.MAGIC_VALUE_V0:
            out += _I64.pack(timestamp)
        _write_bytes(out, key)
        _write_bytes(out, value)
        crc = zlib.crc32(memoryview(out)[start + MAGIC_OFFSET:])
        _U32.pack_into(out, start + CRC_OFFSET, crc)
        return crc
