"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/record/MemoryRecords.java
and MemoryRecordsBuilder.java (plus SimpleRecord.java and ByteBufferLogInputStream.java)

Classes: MemoryRecords (a buffer of whole batches, as a Produce request carries them),
MemoryRecordsBuilder (writes one v2 batch), SimpleRecord (timestamp, key, value, headers).

``MemoryRecords.batches()`` is *shallow* iteration: it yields a ``DefaultRecordBatch`` view per
batch and reads only the 12-byte log overhead to find the next one (Kafka's
ByteBufferLogInputStream). A trailing partial batch is not yielded, as in Kafka (fetch responses
may end in one).

The builder exists for tests, tools and kafkalite's own producer; the broker never builds
batches on the produce path. ``filter_to`` is the log cleaner's copy (the one place the broker decodes
records, never on the produce path): a batch that loses no record is copied as it is, one that loses some
is rebuilt with the same base and last offset (so producers' sequence numbers still line up), one that
loses all is dropped or, to keep a producer's state, kept as an empty batch (header only, count 0).
Records are read only as far as the filter needs (``record_views``: offset, timestamp, key, value, without
their headers), and a rebuilt batch copies the kept records' bytes as they are, keeping the batch's base
timestamp (Kafka's MemoryRecordsBuilder re-encodes them against the first kept record's timestamp; the
records' offsets and timestamps come out the same).
Left out: magic 0/1, buffer-size estimation and the "closed for appends" state machine. ``with_end_transaction_marker``
builds the control batch of a COMMIT/ABORT marker (the key and value come from EndTransactionMarker).
"""
from __future__ import annotations

import time
from typing import Iterator, Sequence

import attrs

from kafkalite.protocol.errors import CorruptRecordException, InvalidRecordException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.default_record import DefaultRecord, read_varint, read_varlong
from kafkalite.record.default_record_batch import (
    LENGTH_OFFSET, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, RECORDS_OFFSET, DefaultRecordBatch, _I32)
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType

# Kafka: LegacyRecord.RECORD_OVERHEAD_V0 -- the smallest size a length field may claim.
MIN_RECORD_OVERHEAD = 14


@attrs.frozen
class SimpleRecord:
    """Kafka: SimpleRecord -- the fields a producer supplies for one record."""

    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple = ()


class MemoryRecords:
    """Kafka: MemoryRecords -- record batches held in memory (a bytearray or memoryview)."""

    EMPTY: "MemoryRecords"

    def __init__(self, buffer):
        self.buffer = buffer if isinstance(buffer, memoryview) else memoryview(buffer)

    # Kafka: MemoryRecords.readableRecords
    @classmethod
    def readable_records(cls, buffer) -> "MemoryRecords":
        return cls(buffer)

    # Kafka: MemoryRecords.sizeInBytes
    def size_in_bytes(self) -> int:
        return len(self.buffer)

    # Kafka: MemoryRecords.batches (via ByteBufferLogInputStream.nextBatch)
    def batches(self, max_message_size: int = 0x7FFFFFFF) -> Iterator[DefaultRecordBatch]:
        buf, pos, end = self.buffer, 0, len(self.buffer)
        while end - pos >= LOG_OVERHEAD:
            (record_size,) = _I32.unpack_from(buf, pos + LENGTH_OFFSET)
            if record_size < MIN_RECORD_OVERHEAD:
                raise CorruptRecordException(
                    f"Record size {record_size} is less than the minimum record overhead ({MIN_RECORD_OVERHEAD})")
            if record_size > max_message_size:
                raise CorruptRecordException(
                    f"Record size {record_size} exceeds the largest allowable message size ({max_message_size})")
            batch_size = LOG_OVERHEAD + record_size
            if end - pos < batch_size:
                return
            yield DefaultRecordBatch(buf[pos:pos + batch_size])
            pos += batch_size

    def first_batch(self) -> DefaultRecordBatch | None:
        return next(iter(self.batches()), None)

    # Kafka: MemoryRecords.validBytes
    def valid_bytes(self) -> int:
        return sum(b.size_in_bytes for b in self.batches())

    # Kafka: AbstractRecords.records -- deep iteration, for tests and tools
    def records(self) -> Iterator[DefaultRecord]:
        for batch in self.batches():
            yield from batch

    # Kafka: MemoryRecords.filterTo -- the batches and records ``record_filter`` keeps, appended to ``out``
    def filter_to(self, record_filter, out: bytearray) -> "FilterResult":
        result = FilterResult()
        for batch in self.batches():
            result.bytes_read += batch.size_in_bytes
            retention = record_filter.check_batch_retention(batch)
            if retention is BatchRetention.DELETE:
                continue
            retained, write_original = [], True
            data, views = record_views(batch)
            for record in views:
                result.messages_read += 1
                if record_filter.should_retain_record(batch, record):
                    retained.append(record)
                else:
                    write_original = False
            if retained and write_original:
                out += batch.buffer[:batch.size_in_bytes]
                result.update_retained_batch_metadata(batch, len(retained), batch.size_in_bytes)
            elif retained:
                built = _build_retained_batch(batch, data, retained)
                out += built
                result.update_retained_batch_metadata(DefaultRecordBatch(built), len(retained), len(built))
            elif retention is BatchRetention.RETAIN_EMPTY:
                empty = bytearray(RECORD_BATCH_OVERHEAD)
                DefaultRecordBatch.write_header(
                    empty, batch.base_offset, batch.last_offset_delta, RECORD_BATCH_OVERHEAD, batch.magic,
                    CompressionType.NONE, batch.timestamp_type, batch.max_timestamp, batch.max_timestamp,
                    batch.producer_id, batch.producer_epoch, batch.base_sequence, batch.is_transactional,
                    batch.is_control_batch, batch.partition_leader_epoch, 0)
                out += empty
                result.update_retained_batch_metadata(DefaultRecordBatch(empty), 0, RECORD_BATCH_OVERHEAD)
        return result

    # Kafka: MemoryRecords.builder
    @staticmethod
    def builder(**kwargs) -> "MemoryRecordsBuilder":
        return MemoryRecordsBuilder(**kwargs)

    # Kafka: MemoryRecords.withRecords
    @classmethod
    def with_records(cls, *records: SimpleRecord, compression_type: CompressionType = CompressionType.NONE,
                     base_offset: int = 0, timestamp_type: TimestampType = TimestampType.CREATE_TIME,
                     producer_id: int = RecordBatch.NO_PRODUCER_ID,
                     producer_epoch: int = RecordBatch.NO_PRODUCER_EPOCH,
                     base_sequence: int = RecordBatch.NO_SEQUENCE, is_transactional: bool = False,
                     partition_leader_epoch: int = RecordBatch.NO_PARTITION_LEADER_EPOCH) -> "MemoryRecords":
        if not records:
            return cls.EMPTY
        builder = MemoryRecordsBuilder(
            compression_type=compression_type, timestamp_type=timestamp_type, base_offset=base_offset,
            producer_id=producer_id, producer_epoch=producer_epoch, base_sequence=base_sequence,
            is_transactional=is_transactional, partition_leader_epoch=partition_leader_epoch)
        for r in records:
            builder.append(r.timestamp, r.key, r.value, r.headers)
        return builder.build()

    # Kafka: MemoryRecords.withEndTransactionMarker -- one control batch (transactional, no sequence) holding
    # the COMMIT or ABORT marker of ``producer_id``/``producer_epoch``, as the transaction coordinator's
    # WriteTxnMarkers makes each partition leader append it
    @classmethod
    def with_end_transaction_marker(cls, producer_id: int, producer_epoch: int, marker, timestamp: int | None = None,
                                    initial_offset: int = 0,
                                    partition_leader_epoch: int = RecordBatch.NO_PARTITION_LEADER_EPOCH
                                    ) -> "MemoryRecords":
        if timestamp is None:
            timestamp = int(time.time() * 1000)
        builder = MemoryRecordsBuilder(base_offset=initial_offset, producer_id=producer_id,
                                       producer_epoch=producer_epoch, base_sequence=RecordBatch.NO_SEQUENCE,
                                       is_transactional=True, is_control_batch=True,
                                       partition_leader_epoch=partition_leader_epoch)
        builder.append_end_txn_marker(timestamp, marker)
        return builder.build()

    def __repr__(self) -> str:
        return f"MemoryRecords(size={self.size_in_bytes()})"


MemoryRecords.EMPTY = MemoryRecords(b"")


class BatchRetention:
    """Kafka: MemoryRecords.RecordFilter.BatchRetention."""

    DELETE = "DELETE"                 # drop the whole batch
    RETAIN_EMPTY = "RETAIN_EMPTY"     # keep at least its header, even with no record left
    DELETE_EMPTY = "DELETE_EMPTY"     # keep it only if a record is left


class RecordFilter:
    """Kafka: MemoryRecords.RecordFilter."""

    def check_batch_retention(self, batch) -> str:
        raise NotImplementedError

    def should_retain_record(self, batch, record) -> bool:
        raise NotImplementedError


class FilterResult:
    """Kafka: MemoryRecords.FilterResult -- what ``filter_to`` read and kept."""

    def __init__(self):
        self.messages_read = 0
        self.bytes_read = 0
        self.messages_retained = 0
        self.bytes_retained = 0
        self.max_offset = -1
        self.max_timestamp = RecordBatch.NO_TIMESTAMP
        self.shallow_offset_of_max_timestamp = -1

    # Kafka: FilterResult.updateRetainedBatchMetadata
    def update_retained_batch_metadata(self, batch, num_messages: int, size: int) -> None:
        self.messages_retained += num_messages
        self.bytes_retained += size
        self.max_offset = max(self.max_offset, batch.last_offset)
        if batch.max_timestamp > self.max_timestamp:
            self.max_timestamp = batch.max_timestamp
            self.shallow_offset_of_max_timestamp = batch.last_offset


class RecordView:
    """One record of a batch, read only as far as the log cleaner needs: its offset, timestamp, key and value
    (a view into the batch), and where its bytes lie in the batch's (decompressed) records."""

    __slots__ = ("offset", "timestamp", "key", "value", "start", "end")

    def __init__(self, offset: int, timestamp: int, key, value, start: int, end: int):
        self.offset, self.timestamp, self.key, self.value, self.start, self.end = offset, timestamp, key, value, start, end

    def has_key(self) -> bool:
        return self.key is not None


# Kafka: DefaultRecordBatch's record iterator, stopping at each record's value (the headers are skipped by the
# record's length); returns the records' bytes and a view of each. The batch's CRC is checked first.
def record_views(batch) -> tuple[memoryview, list[RecordView]]:
    batch.ensure_valid()
    data = batch.buffer[RECORDS_OFFSET:batch.size_in_bytes]
    if batch.compression_type is not CompressionType.NONE:
        data = memoryview(batch.compression_type.decompress(data))
    base_offset, base_ts, n = batch.base_offset, batch.base_timestamp, len(data)
    log_append_time = batch.max_timestamp if batch.timestamp_type is TimestampType.LOG_APPEND_TIME else None
    views, pos = [], 0

    def varint(pos):   # the one-byte case inline: most lengths and deltas are small
        b = data[pos] if pos < n else 0x80
        if b < 0x80:
            return (b >> 1) ^ -(b & 1), pos + 1
        return read_varint(data, pos)
    for _ in range(batch.count):
        start = pos
        length, pos = varint(pos)
        end = pos + length
        if length < 0 or end > n:
            raise InvalidRecordException(f"Invalid record size: expected {length} bytes, {n - pos} remain")
        pos += 1                                       # attributes
        ts_delta, pos = read_varlong(data, pos) if data[pos] >= 0x80 else varint(pos)
        offset_delta, pos = varint(pos)
        key_len, pos = varint(pos)
        key = None if key_len < 0 else bytes(data[pos:pos + key_len])
        pos += max(key_len, 0)
        value_len, pos = varint(pos)
        value = None if value_len < 0 else data[pos:pos + value_len]
        if pos + max(value_len, 0) > end:
            raise InvalidRecordException("record field runs past the end of the record")
        timestamp = log_append_time if log_append_time is not None else base_ts + ts_delta
        views.append(RecordView(base_offset + offset_delta, timestamp, key, value, start, end))
        pos = end
    if pos != n:
        raise InvalidRecordException(f"Incorrect declared batch size, {n - pos} bytes remain after {batch.count} records")
    return data, views


# Kafka: MemoryRecords.buildRetainedRecordsInto -- same base offset, producer fields and compression, and the
# original last offset, so that the batch's last sequence survives compaction; the kept records' bytes are
# copied as they are (their deltas still hold: same base offset, same base timestamp)
def _build_retained_batch(batch, data, retained) -> bytearray:
    body = bytearray()
    max_ts = RecordBatch.NO_TIMESTAMP
    for record in retained:
        body += data[record.start:record.end]
        max_ts = max(max_ts, record.timestamp)
    if batch.compression_type is not CompressionType.NONE:
        body = batch.compression_type.compress(body)
    size = RECORD_BATCH_OVERHEAD + len(body)
    buffer = bytearray(size)
    buffer[RECORD_BATCH_OVERHEAD:] = body
    DefaultRecordBatch.write_header(
        buffer, batch.base_offset, batch.last_offset_delta, size, batch.magic, batch.compression_type,
        batch.timestamp_type, batch.base_timestamp, max_ts, batch.producer_id, batch.producer_epoch,
        batch.base_sequence, batch.is_transactional, batch.is_control_batch, batch.partition_leader_epoch,
        len(retained))
    return buffer


class MemoryRecordsBuilder:
    """Kafka: MemoryRecordsBuilder -- accumulates records, then writes one magic-2 batch."""

    # Kafka: MemoryRecordsBuilder.<init>
    def __init__(self, magic: int = RecordBatch.MAGIC_VALUE_V2,
                 compression_type: CompressionType = CompressionType.NONE,
                 timestamp_type: TimestampType = TimestampType.CREATE_TIME, base_offset: int = 0,
                 log_append_time: int = RecordBatch.NO_TIMESTAMP,
                 producer_id: int = RecordBatch.NO_PRODUCER_ID,
                 producer_epoch: int = RecordBatch.NO_PRODUCER_EPOCH,
                 base_sequence: int = RecordBatch.NO_SEQUENCE, is_transactional: bool = False,
                 is_control_batch: bool = False,
                 partition_leader_epoch: int = RecordBatch.NO_PARTITION_LEADER_EPOCH):
        if magic != RecordBatch.MAGIC_VALUE_V2:
            raise ValueError("kafkalite writes magic 2 batches only")
        if timestamp_type is TimestampType.LOG_APPEND_TIME and log_append_time == RecordBatch.NO_TIMESTAMP:
            raise ValueError("LogAppendTime batches need a log_append_time")
        self.magic = magic
        self.compression_type = compression_type
        self.timestamp_type = timestamp_type
        self.base_offset = base_offset
        self.log_append_time = log_append_time
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.base_sequence = base_sequence
        self.is_transactional = is_transactional
        self.is_control_batch = is_control_batch
        self.partition_leader_epoch = partition_leader_epoch
        self._records = bytearray()
        self._num_records = 0
        self._last_offset: int | None = None
        self._first_timestamp: int | None = None
        self._max_timestamp = RecordBatch.NO_TIMESTAMP
        self._built: MemoryRecords | None = None

    # Kafka: MemoryRecordsBuilder.appendWithOffset
    def append_with_offset(self, offset: int, timestamp: int, key, value, headers: Sequence = ()) -> None:
        if self._built is not None:
            raise RuntimeError("Tried to append a record, but MemoryRecordsBuilder is closed for record appends")
        if self._last_offset is not None and offset <= self._last_offset:
            raise ValueError(f"Illegal offset {offset} following previous offset {self._last_offset} "
                             "(Offsets must increase monotonically).")
        if timestamp < 0 and timestamp != RecordBatch.NO_TIMESTAMP:
            raise ValueError(f"Invalid negative timestamp {timestamp}")
        if self._first_timestamp is None:
            self._first_timestamp = timestamp
        DefaultRecord.write_to(self._records, offset - self.base_offset, timestamp - self._first_timestamp,
                               key, value, headers)
        self._last_offset = offset
        self._num_records += 1
        self._max_timestamp = max(self._max_timestamp, timestamp)

    # Kafka: MemoryRecordsBuilder.append
    def append(self, timestamp: int, key, value, headers: Sequence = ()) -> None:
        next_offset = self.base_offset if self._last_offset is None else self._last_offset + 1
        self.append_with_offset(next_offset, timestamp, key, value, headers)

    # Kafka: MemoryRecordsBuilder.appendEndTxnMarker (through appendControlRecord)
    def append_end_txn_marker(self, timestamp: int, marker) -> None:
        if self.producer_id == RecordBatch.NO_PRODUCER_ID:
            raise ValueError("End transaction marker requires a valid producerId")
        if not self.is_transactional:
            raise ValueError("End transaction marker depends on batch transactional flag being enabled")
        if not self.is_control_batch:
            raise ValueError("Control records can only be appended to control batches")
        self.append(timestamp, marker.record_key(), marker.serialize_value())

    def num_records(self) -> int:
        return self._num_records

    # Kafka: MemoryRecordsBuilder.overrideLastOffset -- the batch's last offset, past its last record
    def override_last_offset(self, last_offset: int) -> None:
        if self._built is not None:
            raise RuntimeError("Cannot override the last offset after the records have been built")
        self._last_offset = last_offset

    # Kafka: MemoryRecordsBuilder.build (close + writeDefaultBatchHeader)
    def build(self) -> MemoryRecords:
        if self._built is not None:
            return self._built
        if self._num_records == 0:
            self._built = MemoryRecords.EMPTY
            return self._built
        body = self.compression_type.compress(self._records)
        size = RECORD_BATCH_OVERHEAD + len(body)
        buffer = bytearray(size)
        buffer[RECORD_BATCH_OVERHEAD:] = body
        max_ts = self.log_append_time if self.timestamp_type is TimestampType.LOG_APPEND_TIME else self._max_timestamp
        last_offset, first_timestamp = self._last_offset, self._first_timestamp
        assert last_offset is not None and first_timestamp is not None   # at least one record was appended
        DefaultRecordBatch.write_header(
            buffer, self.base_offset, last_offset - self.base_offset, size, self.magic,
            self.compression_type, self.timestamp_type, first_timestamp, max_ts,
            self.producer_id, self.producer_epoch, self.base_sequence, self.is_transactional,
            self.is_control_batch, self.partition_leader_epoch, self._num_records)
        self._built = MemoryRecords(buffer)
        return self._built
