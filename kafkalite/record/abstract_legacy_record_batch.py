"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/AbstractLegacyRecordBatch.java

Classes: AbstractLegacyRecordBatch (one message-set entry of magic 0 or 1 seen as a "batch": offset, size
and the outer LegacyRecord), its two kinds BasicLegacyRecordBatch (an offset and a record, as deep
iteration yields them) and ByteBufferLegacyRecordBatch (a view over the entry's bytes), and
``legacy_batches`` -- shallow iteration over a buffer of entries (Kafka's ByteBufferLogInputStream, which
yields these for magic 0/1 and DefaultRecordBatch for magic 2; kafkalite keeps the two apart, so the magic
2 iteration in memory_records.py stays as it is).

Entry layout: ``offset i64, size i32, LegacyRecord(size bytes)``; the magic byte sits at offset 16, where a
v2 batch has its own -- that is how a reader tells the formats apart.

An uncompressed entry is a batch of one record: itself. A compressed entry (a *wrapper*) holds, as its
value, a compressed message set of inner entries (``DeepRecordsIterator``): in magic 0 the inner offsets
are absolute; in magic 1 they are relative (0, 1, 2, ...) and the wrapper's offset is the absolute offset
of the last inner message -- except that some librdkafka versions send 0 there, which means "relative from
0". Inner messages take the wrapper's timestamp when the wrapper is LogAppendTime.
A legacy batch never has a producer id, sequence, transactional or control flag.
A magic 0 LZ4 wrapper carries Kafka 0.8-0.9's wrong frame-header checksum byte (kafka_lz4.py), put right
before cramjam decompresses it.
Left out: ``setMaxTimestamp`` / ``setLastOffset`` in place (the broker never keeps a legacy batch: it up-converts).
"""
from __future__ import annotations

import struct
from typing import Iterator

from kafkalite.protocol.errors import CorruptRecordException, InvalidRecordException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.kafka_lz4 import with_proper_flag_descriptor_checksum
from kafkalite.record.legacy_record import RECORD_OVERHEAD_V0, LegacyRecord
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType

OFFSET_OFFSET = 0
SIZE_OFFSET = 8
LOG_OVERHEAD = 12        # Kafka: Records.LOG_OVERHEAD
MAGIC_OFFSET = 16        # Kafka: Records.MAGIC_OFFSET -- the same place in every format
HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + 1

_ENTRY_HEADER = struct.Struct(">qi")


# Kafka: AbstractLegacyRecordBatch.writeHeader -- offset and size in front of a message
def write_header(out: bytearray, offset: int, size: int) -> None:
    out += _ENTRY_HEADER.pack(offset, size)


def is_legacy(buffer) -> bool:
    """Whether a records buffer starts with a magic 0/1 entry (Kafka reads the magic at offset 16)."""
    return len(buffer) >= HEADER_SIZE_UP_TO_MAGIC and buffer[MAGIC_OFFSET] < RecordBatch.MAGIC_VALUE_V2


class AbstractLegacyRecordBatch:
    """Kafka: AbstractLegacyRecordBatch -- a batch (shallow) and a record (deep) at once."""

    __slots__ = ()

    def outer_record(self) -> LegacyRecord:
        raise NotImplementedError

    @property
    def offset(self) -> int:
        raise NotImplementedError

    # Kafka: AbstractLegacyRecordBatch.lastOffset
    @property
    def last_offset(self) -> int:
        return self.offset

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    # Kafka: AbstractLegacyRecordBatch.baseOffset -- the first deep record's offset
    @property
    def base_offset(self) -> int:
        return next(iter(self)).offset

    # Kafka: AbstractLegacyRecordBatch.isValid
    def is_valid(self) -> bool:
        return self.outer_record().is_valid()

    # Kafka: AbstractLegacyRecordBatch.ensureValid
    def ensure_valid(self) -> None:
        self.outer_record().ensure_valid()

    # Kafka: AbstractLegacyRecordBatch.checksum
    @property
    def checksum(self) -> int:
        return self.outer_record().checksum()

    # Kafka: AbstractLegacyRecordBatch.magic
    @property
    def magic(self) -> int:
        return self.outer_record().magic()

    # Kafka: AbstractLegacyRecordBatch.hasMagic
    def has_magic(self, magic: int) -> bool:
        return magic == self.magic

    # Kafka: AbstractLegacyRecordBatch.timestamp
    @property
    def timestamp(self) -> int:
        return self.outer_record().timestamp()

    # Kafka: AbstractLegacyRecordBatch.maxTimestamp
    @property
    def max_timestamp(self) -> int:
        return self.timestamp

    # Kafka: AbstractLegacyRecordBatch.timestampType
    @property
    def timestamp_type(self) -> TimestampType:
        return self.outer_record().timestamp_type()

    # Kafka: AbstractLegacyRecordBatch.compressionType
    @property
    def compression_type(self) -> CompressionType:
        return self.outer_record().compression_type()

    # Kafka: AbstractRecordBatch.isCompressed
    def is_compressed(self) -> bool:
        return self.compression_type is not CompressionType.NONE

    # Kafka: AbstractLegacyRecordBatch.key
    @property
    def key(self):
        return self.outer_record().key()

    # Kafka: AbstractLegacyRecordBatch.value
    @property
    def value(self):
        return self.outer_record().value()

    # Kafka: AbstractLegacyRecordBatch.hasKey
    def has_key(self) -> bool:
        return self.outer_record().has_key()

    headers = ()   # Kafka: AbstractLegacyRecordBatch.headers -- the old formats have none

    # Kafka: AbstractLegacyRecordBatch.sizeInBytes -- the entry, offset and size included
    @property
    def size_in_bytes(self) -> int:
        return LOG_OVERHEAD + self.outer_record().size_in_bytes()

    # the producer fields a legacy batch never has (Kafka's AbstractLegacyRecordBatch getters)
    producer_id = RecordBatch.NO_PRODUCER_ID
    producer_epoch = RecordBatch.NO_PRODUCER_EPOCH
    base_sequence = RecordBatch.NO_SEQUENCE
    partition_leader_epoch = RecordBatch.NO_PARTITION_LEADER_EPOCH
    is_transactional = False
    is_control_batch = False

    # Kafka: AbstractLegacyRecordBatch.hasProducerId
    def has_producer_id(self) -> bool:
        return False

    # Kafka: AbstractLegacyRecordBatch.iterator -- itself, or the inner messages of a wrapper
    def __iter__(self) -> Iterator["AbstractLegacyRecordBatch"]:
        if self.is_compressed():
            return iter(DeepRecordsIterator(self, False, 0x7FFFFFFF))
        return iter((self,))

    def __repr__(self) -> str:
        return f"LegacyRecordBatch(offset={self.offset}, {self.outer_record()!r})"


class BasicLegacyRecordBatch(AbstractLegacyRecordBatch):
    """Kafka: AbstractLegacyRecordBatch.BasicLegacyRecordBatch -- an offset and a record."""

    __slots__ = ("_offset", "record")

    def __init__(self, offset: int, record: LegacyRecord):
        self._offset = offset
        self.record = record

    @property
    def offset(self) -> int:
        return self._offset

    def outer_record(self) -> LegacyRecord:
        return self.record


class ByteBufferLegacyRecordBatch(AbstractLegacyRecordBatch):
    """Kafka: AbstractLegacyRecordBatch.ByteBufferLegacyRecordBatch -- a view over one entry's bytes."""

    __slots__ = ("buffer", "record")

    def __init__(self, buffer):
        self.buffer = buffer if isinstance(buffer, memoryview) else memoryview(buffer)
        self.record = LegacyRecord(self.buffer[LOG_OVERHEAD:])

    @property
    def offset(self) -> int:
        return _ENTRY_HEADER.unpack_from(self.buffer, OFFSET_OFFSET)[0]

    def outer_record(self) -> LegacyRecord:
        return self.record


# Kafka: ByteBufferLogInputStream.nextBatch / AbstractLegacyRecordBatch.DataLogInputStream.nextBatch -- the
# complete entries of ``buffer`` (a trailing partial one is not yielded, as in Kafka)
def legacy_batches(buffer, max_message_size: int = 0x7FFFFFFF) -> Iterator[ByteBufferLegacyRecordBatch]:
    buf = buffer if isinstance(buffer, memoryview) else memoryview(buffer)
    pos, end = 0, len(buf)
    while end - pos >= LOG_OVERHEAD:
        _offset, size = _ENTRY_HEADER.unpack_from(buf, pos)
        if size < RECORD_OVERHEAD_V0:
            raise CorruptRecordException(
                f"Record size {size} is less than the minimum record overhead ({RECORD_OVERHEAD_V0})")
        if size > max_message_size:
            raise CorruptRecordException(
                f"Record size {size} exceeds the largest allowable message size ({max_message_size}).")
        if end - pos < LOG_OVERHEAD + size:
            return
        yield ByteBufferLegacyRecordBatch(buf[pos:pos + LOG_OVERHEAD + size])
        pos += LOG_OVERHEAD + size


class DeepRecordsIterator:
    """Kafka: AbstractLegacyRecordBatch.DeepRecordsIterator -- the inner messages of a compressed wrapper,
    decompressed at once (as Kafka does: magic 1's relative offsets need the last inner offset first)."""

    def __init__(self, wrapper_entry: AbstractLegacyRecordBatch, ensure_matching_magic: bool,
                 max_message_size: int):
        wrapper_record = wrapper_entry.outer_record()
        self.wrapper_magic = wrapper_magic = wrapper_record.magic()
        if wrapper_magic not in (RecordBatch.MAGIC_VALUE_V0, RecordBatch.MAGIC_VALUE_V1):
            raise InvalidRecordException(f"Invalid wrapper magic found in legacy deep record iterator {wrapper_magic}")
        compression_type = wrapper_record.compression_type()
        if compression_type is CompressionType.ZSTD:
            raise InvalidRecordException(
                f"Invalid wrapper compressionType found in legacy deep record iterator {wrapper_magic}")
        wrapper_value = wrapper_record.value()
        if wrapper_value is None:
            raise InvalidRecordException(
                f"Found invalid compressed record set with null value (magic = {wrapper_magic})")
        try:
            if compression_type is CompressionType.LZ4 and wrapper_magic == RecordBatch.MAGIC_VALUE_V0:
                wrapper_value = with_proper_flag_descriptor_checksum(wrapper_value)   # 0.8-0.9's header byte
            inner = compression_type.decompress(wrapper_value)
        except Exception as e:  # noqa: BLE001 -- any codec error means the wrapper's value is not what it claims
            raise CorruptRecordException(f"Compressed message set could not be decompressed ({compression_type}): "
                                         f"{e}") from None
        last_offset_from_wrapper = wrapper_entry.last_offset
        timestamp_from_wrapper = wrapper_record.timestamp()
        self.inner_entries: list[AbstractLegacyRecordBatch] = []
        for entry in legacy_batches(inner, max_message_size):
            record = entry.outer_record()
            magic = record.magic()
            if ensure_matching_magic and magic != wrapper_magic:
                raise InvalidRecordException(f"Compressed message magic {magic} does not match wrapper magic "
                                             f"{wrapper_magic}")
            if magic == RecordBatch.MAGIC_VALUE_V1:
                record = LegacyRecord(record.buffer, timestamp_from_wrapper, wrapper_record.timestamp_type())
            self.inner_entries.append(BasicLegacyRecordBatch(entry.offset, record))
        if not self.inner_entries:
            raise InvalidRecordException("Found invalid compressed record set with no inner records")
        if wrapper_magic == RecordBatch.MAGIC_VALUE_V1:
            if last_offset_from_wrapper == 0:
                # The outer offset may be 0 if this is produce data from certain versions of librdkafka.
                self.absolute_base_offset = 0
            else:
                last_inner_offset = self.inner_entries[-1].offset
                if last_offset_from_wrapper < last_inner_offset:
                    raise InvalidRecordException(
                        f"Found invalid wrapper offset in compressed v1 message set, wrapper offset "
                        f"'{last_offset_from_wrapper}' is less than the last inner message offset "
                        f"'{last_inner_offset}' and it is not zero.")
                self.absolute_base_offset = last_offset_from_wrapper - last_inner_offset
        else:
            self.absolute_base_offset = -1

    # Kafka: AbstractLegacyRecordBatch.DeepRecordsIterator.makeNext
    def __iter__(self) -> Iterator[AbstractLegacyRecordBatch]:
        for entry in self.inner_entries:
            if self.wrapper_magic == RecordBatch.MAGIC_VALUE_V1:
                entry = BasicLegacyRecordBatch(self.absolute_base_offset + entry.offset, entry.outer_record())
            if entry.is_compressed():
                raise InvalidRecordException("Inner messages must not be compressed")
            yield entry
