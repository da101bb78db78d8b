"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LogCleaner.scala (class Cleaner and its helpers)

Classes: Cleaner (cleans one log: builds the OffsetMap of its dirty part, then copies its segments, group by
group, into ``.cleaned`` segments keeping only the latest record of each key, and swaps them in),
CleanerStats, CleanedTransactionMetadata (which transaction batches and markers may go), and the function
``create_new_cleaned_segment``. LogCleaner and its threads are in log_cleaner.py (split for size).

This is the one place the broker decodes records (DESIGN §5): batches are read into a buffer of
``log.cleaner.io.buffer.size`` and filtered with ``MemoryRecords.filter_to``; nothing here runs on the
produce path. Offsets never change: a kept record keeps its offset, so a compacted log has gaps.

Rules (as 2.4):
- a record is kept if it is past the map's latest offset, or if it holds the latest offset of its key and
  is not a tombstone, or is a tombstone in a segment modified after the *delete horizon* (the last clean
  segment's modification time minus ``delete.retention.ms``): a tombstone survives at least one clean, then
  ``delete.retention.ms`` more. Keyless records are dropped (counted as invalid).
- records of aborted transactions are dropped (known from the transaction index); an ABORT marker is kept
  while a batch of its transaction is still in the log, a COMMIT marker while a batch of its transaction was
  seen in this pass; either goes once past the delete horizon. A producer's last batch is kept, if need be
  empty, so that its sequence and epoch survive (``last_records_of_active_producers``).

Era notes: 2.4's delete horizon is a segment's modification time; Kafka 2.8 (KIP-534) stores it in the
batch header instead. kafkalite follows 2.4.
Left out: the I/O throttler (``log.cleaner.io.max.bytes.per.second``), splitting an offset-overflowed
segment (magic 0/1 only).
"""
from __future__ import annotations

import heapq

from kafkalite.log.log_cleaner_manager import LogCleaningAbortedException
from kafkalite.log.log_file_utils import CLEANED_FILE_SUFFIX
from kafkalite.log.log_segment import LogSegment
from kafkalite.protocol.errors import CorruptRecordException
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.memory_records import BatchRetention, MemoryRecords, RecordFilter, record_views
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM

INT_MAX = (1 << 31) - 1


class CleanerStats:
    """Kafka: CleanerStats -- what one clean read, wrote and how long it took."""

    def __init__(self, time=SYSTEM):
        self.time = time
        self.start_time = time.milliseconds()
        self.map_complete_time = -1
        self.end_time = -1
        self.bytes_read = 0
        self.bytes_written = 0
        self.map_bytes_read = 0
        self.map_messages_read = 0
        self.messages_read = 0
        self.invalid_messages_read = 0
        self.messages_written = 0
        self.buffer_utilization = 0.0

    # Kafka: CleanerStats.readMessages
    def read_messages(self, messages_read: int, bytes_read: int) -> None:
        self.messages_read += messages_read
        self.bytes_read += bytes_read

    # Kafka: CleanerStats.invalidMessage
    def invalid_message(self) -> None:
        self.invalid_messages_read += 1

    # Kafka: CleanerStats.recopyMessages
    def recopy_messages(self, messages_written: int, bytes_written: int) -> None:
        self.messages_written += messages_written
        self.bytes_written += bytes_written

    # Kafka: CleanerStats.indexMessagesRead
    def index_messages_read(self, size: int) -> None:
        self.map_messages_read += size

    # Kafka: CleanerStats.indexBytesRead
    def index_bytes_read(self, size: int) -> None:
        self.map_bytes_read += size

    # Kafka: CleanerStats.indexDone
    def index_done(self) -> None:
        self.map_complete_time = self.time.milliseconds()

    # Kafka: CleanerStats.allDone
    def all_done(self) -> None:
        self.end_time = self.time.milliseconds()

    # Kafka: CleanerStats.elapsedSecs
    @property
    def elapsed_secs(self) -> float:
        return max(0, self.end_time - self.start_time) / 1000.0

    # Kafka: CleanerStats.elapsedIndexSecs
    @property
    def elapsed_index_secs(self) -> float:
        return max(0, self.map_complete_time - self.start_time) / 1000.0


class AbortedTransactionMetadata:
    """Kafka: AbortedTransactionMetadata -- an aborted transaction and the last of its batches seen."""

    def __init__(self, aborted_txn):
        self.aborted_txn = aborted_txn
        self.last_observed_batch_offset: int | None = None


class CleanedTransactionMetadata:
    """Kafka: CleanedTransactionMetadata -- follows transactions through the batches in offset order."""

    def __init__(self):
        self.ongoing_committed_txns: set[int] = set()
        self.ongoing_aborted_txns: dict[int, AbortedTransactionMetadata] = {}
        self._aborted_heap: list = []   # (first offset, seq, AbortedTxn): a min-heap by first offset
        self._seq = 0
        self.cleaned_index = None       # the TransactionIndex of the segment being written

    # Kafka: CleanedTransactionMetadata.addAbortedTransactions
    def add_aborted_transactions(self, aborted_transactions) -> None:
        for txn in aborted_transactions:
            heapq.heappush(self._aborted_heap, (txn.first_offset, self._seq, txn))
            self._seq += 1

    # Kafka: CleanedTransactionMetadata.onControlBatchRead -- True if the marker may be discarded
    def on_control_batch_read(self, control_batch) -> bool:
        self._consume_aborted_txns_up_to(control_batch.last_offset)
        first = next(iter(control_batch), None)
        if first is None:
            return True    # an empty control batch was already cleaned
        control_type = ControlRecordType.parse(first.key)
        producer_id = control_batch.producer_id
        if control_type is ControlRecordType.ABORT:
            meta = self.ongoing_aborted_txns.pop(producer_id, None)
            if meta is not None and meta.last_observed_batch_offset is not None:
                # keep the marker until every batch of the transaction is gone; its index entry goes along
                if self.cleaned_index is not None:
                    self.cleaned_index.append(meta.aborted_txn)
                return False
            return True
        if control_type is ControlRecordType.COMMIT:
            if producer_id in self.ongoing_committed_txns:
                self.ongoing_committed_txns.discard(producer_id)
                return False
            return True
        return False

    def _consume_aborted_txns_up_to(self, offset: int) -> None:
        while self._aborted_heap and self._aborted_heap[0][0] <= offset:
            txn = heapq.heappop(self._aborted_heap)[2]
            self.ongoing_aborted_txns.setdefault(txn.producer_id, AbortedTransactionMetadata(txn))

    # Kafka: CleanedTransactionMetadata.onBatchRead -- True if the batch belongs to an aborted transaction
    def on_batch_read(self, batch) -> bool:
        self._consume_aborted_txns_up_to(batch.last_offset)
        if not batch.is_transactional:
            return False
        meta = self.ongoing_aborted_txns.get(batch.producer_id)
        if meta is not None:
            meta.last_observed_batch_offset = batch.last_offset
            return True
        self.ongoing_committed_txns.add(batch.producer_id)
        return False


# Kafka: LogCleaner.createNewCleanedSegment
def create_new_cleaned_segment(log, base_offset: int) -> LogSegment:
    LogSegment.delete_files_if_exist(log.dir, base_offset, CLEANED_FILE_SUFFIX)
    return LogSegment.open(log.dir, base_offset, log.config, SYSTEM, file_already_exists=False,
                           file_suffix=CLEANED_FILE_SUFFIX)


class _LogCleanerFilter(RecordFilter):
    """The anonymous RecordFilter of Kafka's Cleaner.cleanInto."""

    def __init__(self, cleaner, offset_map, retain_deletes_and_txn_markers: bool, transaction_metadata,
                 last_records_of_active_producers: dict, stats: CleanerStats):
        self.cleaner = cleaner
        self.offset_map = offset_map
        self.retain = retain_deletes_and_txn_markers
        self.transaction_metadata = transaction_metadata
        self.last_records = last_records_of_active_producers
        self.stats = stats
        self.discard_batch_records = False

    def check_batch_retention(self, batch) -> str:
        self.discard_batch_records = _should_discard_batch(batch, self.transaction_metadata, self.retain)
        if batch.has_producer_id() and self._is_batch_last_record_of_producer(batch):
            return BatchRetention.RETAIN_EMPTY
        if self.discard_batch_records:
            return BatchRetention.DELETE
        return BatchRetention.DELETE_EMPTY

    # kept: the producer's last data batch (its last sequence), or its last marker (its epoch)
    def _is_batch_last_record_of_producer(self, batch) -> bool:
        last = self.last_records.get(batch.producer_id)
        if last is None:
            return False
        last_data_offset, producer_epoch = last
        if last_data_offset is not None:
            return batch.last_offset == last_data_offset
        return batch.is_control_batch and batch.producer_epoch == producer_epoch

    def should_retain_record(self, batch, record) -> bool:
        if self.discard_batch_records:
            return False
        return self.cleaner.should_retain_record(self.offset_map, self.retain, batch, record, self.stats)


# Kafka: Cleaner.shouldDiscardBatch
def _should_discard_batch(batch, transaction_metadata, retain_txn_markers: bool) -> bool:
    if batch.is_control_batch:
        return transaction_metadata.on_control_batch_read(batch) and not retain_txn_markers
    return transaction_metadata.on_batch_read(batch)


class Cleaner(Logging):
    """Kafka: Cleaner. ``check_done(tp)`` raises when the thread stops or the partition's clean is aborted."""
    logger_name = "kafka.log.LogCleaner"   # Kafka: the log4j logger its lines go to

    # Kafka: Cleaner.<init>
    def __init__(self, id: int, offset_map, io_buffer_size: int, max_io_buffer_size: int,
                 dup_buffer_load_factor: float, time=SYSTEM, check_done=lambda tp: None):
        self.id = id
        self.offset_map = offset_map
        self.io_buffer_size = io_buffer_size
        self.max_io_buffer_size = max_io_buffer_size
        self.dup_buffer_load_factor = dup_buffer_load_factor
        self.time = time
        self.check_done = check_done
        self.log_ident = f"Cleaner {id}: "
        self.read_buffer = bytearray(io_buffer_size)
        if offset_map.slots * dup_buffer_load_factor <= 1:
            raise ValueError("offset map is too small to fit in even a single message, so log cleaning will never "
                             "make progress. You can increase log.cleaner.dedupe.buffer.size or decrease "
                             "log.cleaner.threads")

    # Kafka: Cleaner.clean -- tombstones older than the last clean segment's time - delete.retention.ms may go
    def clean(self, cleanable) -> tuple[int, CleanerStats]:
        clean_segments = cleanable.log.log_segments(0, cleanable.first_dirty_offset)
        delete_horizon_ms = (clean_segments[-1].last_modified - cleanable.log.config.delete_retention_ms
                             if clean_segments else 0)
        return self.do_clean(cleanable, delete_horizon_ms)

    # Kafka: Cleaner.doClean -- returns the next dirty offset (one past the map's latest offset)
    def do_clean(self, cleanable, delete_horizon_ms: int) -> tuple[int, CleanerStats]:
        log = cleanable.log
        self.info("Beginning cleaning of log %s.", log.name)
        stats = CleanerStats(self.time)
        self.info("Building offset map for %s...", log.name)
        upper_bound_offset = cleanable.first_uncleanable_offset
        self.build_offset_map(log, cleanable.first_dirty_offset, upper_bound_offset, self.offset_map, stats)
        end_offset = self.offset_map.latest_offset + 1
        stats.index_done()
        self.info("Cleaning log %s (discarding tombstones prior to %d)...", log.name, delete_horizon_ms)
        transaction_metadata = CleanedTransactionMetadata()
        groups = self.group_segments_by_size(log.log_segments(0, end_offset), log.config.segment_size,
                                             log.config.max_index_size, cleanable.first_uncleanable_offset)
        for group in groups:
            self.clean_segments(log, group, self.offset_map, delete_horizon_ms, stats, transaction_metadata)
        stats.buffer_utilization = self.offset_map.utilization
        stats.all_done()
        return end_offset, stats

    # Kafka: Cleaner.cleanSegments -- one group into one ``.cleaned`` segment, then Log.replaceSegments
    def clean_segments(self, log, segments: list, offset_map, delete_horizon_ms: int, stats: CleanerStats,
                       transaction_metadata: CleanedTransactionMetadata) -> None:
        cleaned = create_new_cleaned_segment(log, segments[0].base_offset)
        transaction_metadata.cleaned_index = cleaned.txn_index
        try:
            last_records = log.last_records_of_active_producers()
            for i, current in enumerate(segments):
                upper = segments[i + 1].base_offset if i + 1 < len(segments) else offset_map.latest_offset + 1
                transaction_metadata.add_aborted_transactions(
                    log.collect_aborted_transactions(current.base_offset, upper))
                retain = current.last_modified > delete_horizon_ms
                self.info("Cleaning %s in log %s into %d with deletion horizon %d, %s deletes.", current, log.name,
                          cleaned.base_offset, delete_horizon_ms, "retaining" if retain else "discarding")
                self.clean_into(log.topic_partition, current.log, cleaned, offset_map, retain,
                                log.config.max_message_size, transaction_metadata, last_records, stats)
            cleaned.on_become_inactive_segment()
            cleaned.flush()
            cleaned.set_last_modified(segments[-1].last_modified)
            self.info("Swapping in cleaned segment %s for segment(s) %s in log %s", cleaned, segments, log)
            log.replace_segments([cleaned], segments)
        except LogCleaningAbortedException:
            cleaned.delete_if_exists()
            raise

    # Kafka: Cleaner.cleanInto -- read chunks of the source, filter them, append what is kept to ``dest``
    def clean_into(self, topic_partition, source_records, dest: LogSegment, offset_map,
                   retain_deletes_and_txn_markers: bool, max_log_message_size: int,
                   transaction_metadata: CleanedTransactionMetadata, last_records_of_active_producers: dict,
                   stats: CleanerStats) -> None:
        log_cleaner_filter = _LogCleanerFilter(self, offset_map, retain_deletes_and_txn_markers,
                                               transaction_metadata, last_records_of_active_producers, stats)
        position = 0
        size = source_records.size_in_bytes()
        while position < size:
            self.check_done(topic_partition)
            n = source_records.read_into(self.read_buffer, position)
            records = MemoryRecords.readable_records(memoryview(self.read_buffer)[:n])
            out = bytearray()
            result = records.filter_to(log_cleaner_filter, out)
            stats.read_messages(result.messages_read, result.bytes_read)
            stats.recopy_messages(result.messages_retained, result.bytes_retained)
            position += result.bytes_read
            if out:
                dest.append(result.max_offset, result.max_timestamp, result.shallow_offset_of_max_timestamp,
                            MemoryRecords(out))
            if n > 0 and result.bytes_read == 0:
                self._grow_buffers_or_fail(source_records, position, max_log_message_size, records)
        self._restore_buffers()

    # Kafka: Cleaner.growBuffersOrFail -- a batch larger than the read buffer
    def _grow_buffers_or_fail(self, source_records, position: int, max_log_message_size: int, records) -> None:
        if len(self.read_buffer) >= max_log_message_size:
            header = source_records.read_bytes(position, 12)
            next_batch_size = 12 + int.from_bytes(header[8:12], "big", signed=True) if len(header) == 12 else None
            where = f"log segment {source_records.file} at position {position}"
            if next_batch_size is None or next_batch_size <= 0:
                raise RuntimeError(f"Could not determine next batch size for {where}")
            if next_batch_size <= len(self.read_buffer):
                raise RuntimeError(f"Batch size {next_batch_size} < buffer size {len(self.read_buffer)}, "
                                   f"but not processed for {where}")
            if next_batch_size > source_records.size_in_bytes() - position:
                raise CorruptRecordException(f"Log segment may be corrupt, batch size {next_batch_size} > "
                                             f"{source_records.size_in_bytes() - position} bytes left in segment "
                                             f"for {where}")
            max_size = next_batch_size
        else:
            max_size = max_log_message_size
        self._grow_buffers(max_size)

    # Kafka: Cleaner.growBuffers
    def _grow_buffers(self, max_log_message_size: int) -> None:
        max_buffer_size = max(max_log_message_size, self.max_io_buffer_size)
        if len(self.read_buffer) >= max_buffer_size:
            raise RuntimeError(f"This log contains a message larger than maximum allowable size of {max_buffer_size}.")
        new_size = min(len(self.read_buffer) * 2, max_buffer_size)
        self.info("Growing cleaner I/O buffers from %d bytes to %d bytes.", len(self.read_buffer), new_size)
        self.read_buffer = bytearray(new_size)

    # Kafka: Cleaner.restoreBuffers
    def _restore_buffers(self) -> None:
        if len(self.read_buffer) > self.io_buffer_size:
            self.read_buffer = bytearray(self.io_buffer_size)

    # Kafka: Cleaner.shouldRetainRecord
    def should_retain_record(self, offset_map, retain_deletes: bool, batch, record, stats: CleanerStats) -> bool:
        if record.offset > offset_map.latest_offset:
            return True
        if record.key is None:
            stats.invalid_message()
            return False
        found_offset = offset_map.get(record.key)
        latest_offset_for_key = record.offset >= found_offset
        is_retained_value = record.value is not None or retain_deletes
        return latest_offset_for_key and is_retained_value

    # Kafka: Cleaner.groupSegmentsBySize -- consecutive segments whose sum fits one segment and its indexes
    def group_segments_by_size(self, segments: list, max_size: int, max_index_size: int,
                               first_uncleanable_offset: int) -> list[list]:
        grouped, segs = [], list(segments)
        while segs:
            group = [segs.pop(0)]
            log_size = group[0].size
            index_size = group[0].offset_index.size_in_bytes()
            time_index_size = group[0].time_index.size_in_bytes()
            while (segs and log_size + segs[0].size <= max_size
                   and index_size + segs[0].offset_index.size_in_bytes() <= max_index_size
                   and time_index_size + segs[0].time_index.size_in_bytes() <= max_index_size
                   and self._last_offset_for_first_segment(segs, first_uncleanable_offset)
                   - group[-1].base_offset <= INT_MAX):
                log_size += segs[0].size
                index_size += segs[0].offset_index.size_in_bytes()
                time_index_size += segs[0].time_index.size_in_bytes()
                group.append(segs.pop(0))
            grouped.append(group)
        return grouped

    # Kafka: Cleaner.lastOffsetForFirstSegment
    @staticmethod
    def _last_offset_for_first_segment(segs: list, first_uncleanable_offset: int) -> int:
        return segs[1].base_offset - 1 if len(segs) > 1 else first_uncleanable_offset - 1

    # Kafka: Cleaner.buildOffsetMap -- the latest offset of each key in [start, end), as far as the map holds
    def build_offset_map(self, log, start: int, end: int, offset_map, stats: CleanerStats) -> None:
        offset_map.clear()
        dirty = log.log_segments(start, end)
        self.info("Building offset map for log %s for %d segments in offset range [%d, %d).",
                  log.name, len(dirty), start, end)
        transaction_metadata = CleanedTransactionMetadata()
        transaction_metadata.add_aborted_transactions(log.collect_aborted_transactions(start, end))
        for segment in dirty:
            self.check_done(log.topic_partition)
            if self._build_offset_map_for_segment(log.topic_partition, segment, offset_map, start,
                                                  log.config.max_message_size, transaction_metadata, stats):
                self.debug("Offset map is full, segment with base offset %d is partially mapped", segment.base_offset)
                break
        self.info("Offset map for log %s complete.", log.name)

    # Kafka: Cleaner.buildOffsetMapForSegment -- True when the map is full
    def _build_offset_map_for_segment(self, topic_partition, segment, offset_map, start_offset: int,
                                      max_log_message_size: int, transaction_metadata, stats: CleanerStats) -> bool:
        position = segment.offset_index.lookup(start_offset).position
        max_desired_map_size = int(offset_map.slots * self.dup_buffer_load_factor)
        size = segment.log.size_in_bytes()
        while position < size:
            self.check_done(topic_partition)
            n = segment.log.read_into(self.read_buffer, position)
            records = MemoryRecords.readable_records(memoryview(self.read_buffer)[:n])
            start_position = position
            for batch in records.batches():
                if batch.is_control_batch:
                    transaction_metadata.on_control_batch_read(batch)
                    stats.index_messages_read(1)
                elif transaction_metadata.on_batch_read(batch):
                    stats.index_messages_read(batch.count)     # aborted: nothing to map
                else:
                    for record in record_views(batch)[1]:
                        if record.key is not None and record.offset >= start_offset:
                            if offset_map.size < max_desired_map_size:
                                offset_map.put(bytes(record.key), record.offset)
                            else:
                                return True
                        stats.index_messages_read(1)
                if batch.last_offset >= start_offset:
                    offset_map.update_latest_offset(batch.last_offset)
                position += batch.size_in_bytes
                stats.index_bytes_read(batch.size_in_bytes)
            if position == start_position:
                self._grow_buffers_or_fail(segment.log, position, max_log_message_size, records)
        self._restore_buffers()
        return False


__all__ = ["Cleaner", "CleanerStats", "CleanedTransactionMetadata", "create_new_cleaned_segment"]
