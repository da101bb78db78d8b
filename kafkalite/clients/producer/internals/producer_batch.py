"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/ProducerBatch.java
(with the parts of MemoryRecordsBuilder.java and DefaultRecordBatch.estimateBatchSizeUpperBound it uses)

Classes: ProducerBatch; functions ``estimate_size_in_bytes_upper_bound`` and ``record_size_upper_bound``.

One batch of records for one partition, written into a buffer from the ``BufferPool`` (S44-S45):
- the first 61 bytes (``RECORD_BATCH_OVERHEAD``) are left empty; ``try_append`` writes each record
  after them in the v2 layout (length varint, attributes, timestamp delta, offset delta, key, value,
  headers -- ``DefaultRecord.write_to``);
- ``close()``, called by ``RecordAccumulator.drain`` when the batch leaves for the broker, writes the
  61-byte header (base offset 0, length, leader epoch -1, magic 2, CRC-32C, attributes, offsets delta,
  timestamps, producer id/epoch/base sequence, record count) in front, compressing first if asked;
- ``done()`` completes every record's future once the broker answered (or the batch failed).

The size estimate a new batch is allocated with is 61 + at most 21 bytes of record overhead (5 for the
length, 1 attributes, 10 timestamp delta, 5 offset delta) + key + value + headers; a batch is never
smaller than ``batch.size``.

Python note: records go to a scratch bytearray and are copied into the pooled buffer by slice
assignment, which never resizes it. A compressed batch is built in a new buffer at close.
Left out: splitting a batch that the broker rejects as too large (``split``), the compression-ratio
estimate (records are counted uncompressed, which only makes compressed batches fill early).
"""
from __future__ import annotations

import enum
import logging

from kafkalite.clients.producer.internals.future_record_metadata import FutureRecordMetadata
from kafkalite.clients.producer.internals.produce_request_result import ProduceRequestResult
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.default_record import DefaultRecord, size_of_varint
from kafkalite.record.default_record_batch import RECORD_BATCH_OVERHEAD, DefaultRecordBatch
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType

log = logging.getLogger("kafka.producer.ProducerBatch")

MAX_RECORD_OVERHEAD = 21   # Kafka: DefaultRecord.MAX_RECORD_OVERHEAD


def _size_of_bytes(data) -> int:
    return 1 if data is None else size_of_varint(len(data)) + len(data)


# Kafka: DefaultRecord.recordSizeUpperBound
def record_size_upper_bound(key, value, headers=()) -> int:
    size = MAX_RECORD_OVERHEAD + _size_of_bytes(key) + _size_of_bytes(value) + size_of_varint(len(headers))
    for hkey, hvalue in headers:
        size += _size_of_bytes(hkey.encode("utf-8")) + _size_of_bytes(hvalue)
    return size


# Kafka: AbstractRecords.estimateSizeInBytesUpperBound (magic 2: DefaultRecordBatch.estimateBatchSizeUpperBound)
def estimate_size_in_bytes_upper_bound(key, value, headers=()) -> int:
    return RECORD_BATCH_OVERHEAD + record_size_upper_bound(key, value, headers)


class FinalState(enum.Enum):
    """Kafka: ProducerBatch.FinalState."""

    ABORTED = 0
    FAILED = 1
    SUCCEEDED = 2


class ProducerBatch:
    """Kafka: ProducerBatch."""

    # Kafka: ProducerBatch.<init>
    def __init__(self, tp: TopicPartition, buffer: bytearray, create_ms: int,
                 compression_type: CompressionType = CompressionType.NONE, is_splitting_batch: bool = False):
        self.topic_partition = tp
        self.buffer = buffer                  # from the BufferPool; returned by RecordAccumulator.deallocate
        self.initial_capacity = len(buffer)
        self.compression_type = compression_type
        self.create_ms = create_ms
        self.last_attempt_ms = create_ms
        self.last_append_time = create_ms
        self.drained_ms = 0
        self.produce_future = ProduceRequestResult(tp)
        self.thunks: list[tuple] = []         # Kafka: List<Thunk> -- (callback, future) per record
        self.record_count = 0
        self.max_record_size = 0
        self.attempts = 0
        self.retry = False
        self.reopened = False
        self.is_splitting_batch = is_splitting_batch
        self.final_state: FinalState | None = None
        # the records builder's state
        self.write_limit = len(buffer)
        self.position = RECORD_BATCH_OVERHEAD  # the header is written at close
        self.first_timestamp: int | None = None
        self.max_timestamp = RecordBatch.NO_TIMESTAMP
        self.producer_id = RecordBatch.NO_PRODUCER_ID
        self.producer_epoch = RecordBatch.NO_PRODUCER_EPOCH
        self.base_sequence = RecordBatch.NO_SEQUENCE
        self.is_transactional = False
        self.built: MemoryRecords | None = None
        self.appends_closed = False

    # Kafka: ProducerBatch.tryAppend -- None when the record does not fit
    def try_append(self, timestamp: int, key, value, headers, callback, now: int) -> FutureRecordMetadata | None:
        if not self.has_room_for(timestamp, key, value, headers):
            return None
        if self.first_timestamp is None:
            self.first_timestamp = timestamp
        scratch = bytearray()
        n = DefaultRecord.write_to(scratch, self.record_count, timestamp - self.first_timestamp, key, value,
                                   headers)
        self.buffer[self.position:self.position + n] = scratch
        self.position += n
        self.max_timestamp = max(self.max_timestamp, timestamp)
        self.max_record_size = max(self.max_record_size, estimate_size_in_bytes_upper_bound(key, value, headers))
        self.last_append_time = now
        future = FutureRecordMetadata(self.produce_future, self.record_count, timestamp,
                                      -1 if key is None else len(key), -1 if value is None else len(value))
        self.thunks.append((callback, future))
        self.record_count += 1
        return future

    # Kafka: MemoryRecordsBuilder.hasRoomFor -- the first record always fits (the buffer was sized for it)
    def has_room_for(self, timestamp: int, key, value, headers) -> bool:
        if self.appends_closed or self.built is not None:
            return False
        if self.record_count == 0:
            return True
        return self.position + record_size_upper_bound(key, value, headers) <= self.write_limit

    # Kafka: ProducerBatch.isFull (MemoryRecordsBuilder.isFull)
    def is_full(self) -> bool:
        return self.appends_closed or self.built is not None or \
            (self.record_count > 0 and self.position >= self.write_limit)

    # Kafka: ProducerBatch.closeForRecordAppends -- a record did not fit: this batch takes no more
    def close_for_record_appends(self) -> None:
        self.appends_closed = True

    # Kafka: ProducerBatch.estimatedSizeInBytes
    def estimated_size_in_bytes(self) -> int:
        return self.position if self.built is None else self.built.size_in_bytes()

    # Kafka: ProducerBatch.close -- write the 61-byte header now that the records are final (S45)
    def close(self) -> None:
        if self.built is not None:
            return
        records = memoryview(self.buffer)[RECORD_BATCH_OVERHEAD:self.position]
        if self.compression_type is CompressionType.NONE:
            out, size = self.buffer, self.position
        else:
            body = self.compression_type.compress(records)
            size = RECORD_BATCH_OVERHEAD + len(body)
            out = bytearray(size)
            out[RECORD_BATCH_OVERHEAD:] = body
        DefaultRecordBatch.write_header(
            out, 0, self.record_count - 1, size, RecordBatch.MAGIC_VALUE_V2, self.compression_type,
            TimestampType.CREATE_TIME, self.first_timestamp, self.max_timestamp, self.producer_id,
            self.producer_epoch, self.base_sequence, self.is_transactional, False,
            RecordBatch.NO_PARTITION_LEADER_EPOCH, self.record_count)
        self.built = MemoryRecords(memoryview(out)[:size])

    # Kafka: ProducerBatch.records
    def records(self) -> MemoryRecords:
        self.close()
        return self.built

    # Kafka: ProducerBatch.isClosed
    def is_closed(self) -> bool:
        return self.built is not None

    # Kafka: ProducerBatch.setProducerState -- idempotence: stamped at drain time, before close
    def set_producer_state(self, producer_id: int, producer_epoch: int, base_sequence: int,
                           is_transactional: bool) -> None:
        self.producer_id, self.producer_epoch = producer_id, producer_epoch
        self.base_sequence, self.is_transactional = base_sequence, is_transactional

    # Kafka: ProducerBatch.resetProducerState -- new sequence after an earlier batch failed
    def reset_producer_state(self, producer_id: int, producer_epoch: int, base_sequence: int,
                             is_transactional: bool) -> None:
        self.reopened = True
        self.built = None
        self.set_producer_state(producer_id, producer_epoch, base_sequence, is_transactional)

    # Kafka: ProducerBatch.hasSequence
    def has_sequence(self) -> bool:
        return self.base_sequence != RecordBatch.NO_SEQUENCE

    # Kafka 3.x: ProducerBatch.lastSequence
    def last_sequence(self) -> int:
        return self.base_sequence + self.record_count - 1

    # Kafka: ProducerBatch.done -- complete every record's future; False if already completed
    def done(self, base_offset: int, log_append_time: int, exception: BaseException | None) -> bool:
        final_state = FinalState.SUCCEEDED if exception is None else FinalState.FAILED
        if self.final_state is not None:
            if self.final_state is not FinalState.ABORTED:
                raise RuntimeError(f"A {final_state.name} batch must not attempt another state change to "
                                   f"{self.final_state.name}")
            return False
        self.final_state = final_state
        log.debug("Successfully produced messages to %s with base offset %d." if exception is None
                  else "Failed to produce messages to %s with base offset %d.", self.topic_partition, base_offset)
        self.produce_future.set(base_offset, log_append_time, exception)
        self.complete_future_and_fire_callbacks()
        return True

    # Kafka 3.x: ProducerBatch.complete (2.4: done)
    def complete(self, base_offset: int, log_append_time: int) -> bool:
        return self.done(base_offset, log_append_time, None)

    # Kafka 3.x: ProducerBatch.completeExceptionally (2.4: done)
    def complete_exceptionally(self, exception: BaseException) -> bool:
        return self.done(-1, RecordBatch.NO_TIMESTAMP, exception)

    # Kafka: ProducerBatch.completeFutureAndFireCallbacks -- callbacks run on the Sender thread
    def complete_future_and_fire_callbacks(self) -> None:
        for callback, future in self.thunks:
            if callback is None:
                continue
            try:
                if self.produce_future.error is None:
                    callback(future.value(), None)
                else:
                    callback(None, self.produce_future.error)
            except Exception:   # noqa: BLE001 -- a user's callback must not stop the others
                log.error("Error executing user-provided callback on message for topic-partition '%s'",
                          self.topic_partition, exc_info=True)
        self.produce_future.done()

    # Kafka: ProducerBatch.abort
    def abort(self, exception: BaseException) -> None:
        if self.final_state is not None:
            raise RuntimeError(f"Batch has already been completed in final state {self.final_state}")
        self.final_state = FinalState.ABORTED
        self.produce_future.set(-1, RecordBatch.NO_TIMESTAMP, exception)
        self.complete_future_and_fire_callbacks()

    # Kafka: ProducerBatch.isDone
    def is_done(self) -> bool:
        return self.final_state is not None

    # Kafka: ProducerBatch.reenqueued
    def reenqueued(self, now: int) -> None:
        self.attempts += 1
        self.last_attempt_ms = max(self.last_append_time, now)
        self.last_append_time = max(self.last_append_time, now)
        self.retry = True

    # Kafka: ProducerBatch.drained
    def drained(self, drained_ms: int) -> None:
        self.drained_ms = max(self.drained_ms, drained_ms)

    # Kafka: ProducerBatch.queueTimeMs
    def queue_time_ms(self) -> int:
        return self.drained_ms - self.create_ms

    # Kafka: ProducerBatch.waitedTimeMs
    def waited_time_ms(self, now_ms: int) -> int:
        return max(0, now_ms - self.last_attempt_ms)

    # Kafka: ProducerBatch.hasReachedDeliveryTimeout
    def has_reached_delivery_timeout(self, delivery_timeout_ms: int, now: int) -> bool:
        return delivery_timeout_ms <= now - self.create_ms

    # Kafka: ProducerBatch.inRetry
    def in_retry(self) -> bool:
        return self.retry

    def __repr__(self) -> str:
        return f"ProducerBatch(topicPartition={self.topic_partition}, recordCount={self.record_count})"
