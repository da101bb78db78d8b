"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LogSegment.scala

Classes: LogSegment (one ``.log`` file with its ``.index``, ``.timeindex`` and ``.txnindex``), RollParams.

A segment covers the offsets from its base offset up to the next segment's base offset. Appends
go to the end of the file; every ``index.interval.bytes`` of data the segment adds one offset
index entry (and a time index entry if the max timestamp grew), so the indexes stay sparse.
A read translates an offset to a file position through the index plus a short header-only
scan, then hands back a ``FileRecords`` slice.

The transaction index holds the transactions aborted by a marker in this segment (``update_txn_index``);
recovery rebuilds it by replaying the segment's batches into the producer state, and truncation and
deletion keep it with the segment. The log cleaner writes a segment under ``.cleaned`` names and
renames it (``change_file_suffixes``) to ``.swap`` and then to the plain names.

Descriptors: a segment holds one, its ``.log`` (FileRecords), as in Kafka. The offset and time indexes are
LazyIndex wrappers (lazy_index.py): mapped on first use, and a mapped index keeps no descriptor
(abstract_index.py); the transaction index opens its file only to append to it (transaction_index.py).
``append`` loads both indexes before it writes to the ``.log``, so an error opening them (EMFILE, ENOSPC)
fails the append before anything is written.

Left out: ``.deleted`` renaming with a delayed delete (Log unlinks files and closes them later instead),
producer snapshots.
"""
from __future__ import annotations

import os

import attrs

from kafkalite.log.abstract_index import CorruptIndexException
from kafkalite.log.fetch_data_info import FetchDataInfo
from kafkalite.log.lazy_index import LazyIndex
from kafkalite.log.log_file_utils import log_file, offset_index_file, time_index_file, transaction_index_file
from kafkalite.log.log_offset_metadata import LogOffsetMetadata
from kafkalite.log.offset_index import OffsetIndex
from kafkalite.log.producer_state_manager import AppendOrigin
from kafkalite.log.time_index import TimeIndex
from kafkalite.log.transaction_index import AbortedTxn, TransactionIndex, TxnIndexSearchResult
from kafkalite.protocol.errors import ApiException, CorruptRecordException, InvalidRecordException
from kafkalite.record.file_records import FileRecords, LogOffsetPosition, TimestampAndOffset
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.record.record_batch import RecordBatch
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time


@attrs.frozen
class RollParams:
    """Kafka: RollParams -- what ``should_roll`` needs to know about the next append."""

    max_segment_ms: int
    max_segment_bytes: int
    max_timestamp_in_messages: int
    max_offset_in_messages: int
    messages_size: int
    now: int


class LogSegment(Logging):
    """Kafka: LogSegment."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = (
        'log', 'lazy_offset_index', 'lazy_time_index', 'txn_index', 'base_offset', 'index_interval_bytes',
        'roll_jitter_ms', 'time', 'created', 'bytes_since_last_index_entry', 'rolling_based_timestamp',
        '_max_timestamp_so_far', '_offset_of_max_timestamp_so_far'
    )

    # Kafka: Logging.logIdent -- Kafka builds this string in the constructor; it is built when a line is
    # logged instead: a broker holds one such object per partition, and the string costs ~100 B
    @property
    def log_ident(self) -> str:  # type: ignore[override]
        return f"[LogSegment baseOffset={self.base_offset}] "

    # Kafka: LogSegment.<init>
    def __init__(self, log: FileRecords, offset_index: LazyIndex | OffsetIndex, time_index: LazyIndex | TimeIndex,
                 base_offset: int, index_interval_bytes: int, roll_jitter_ms: int = 0, time: Time = SYSTEM,
                 txn_index: TransactionIndex | None = None):
        self.log = log
        # an index handed over already open (tests, the cleaner) is wrapped as a loaded LazyIndex
        self.lazy_offset_index = offset_index if isinstance(offset_index, LazyIndex) else LazyIndex.of(offset_index)
        self.lazy_time_index = time_index if isinstance(time_index, LazyIndex) else LazyIndex.of(time_index)
        if txn_index is None:   # a segment built by hand (tests): its .txnindex sits next to its .log
            txn_index = TransactionIndex(base_offset, transaction_index_file(
                os.path.dirname(log.file), base_offset, _suffix_after_log(log.file)))
        self.txn_index = txn_index
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.roll_jitter_ms = roll_jitter_ms
        self.time = time
        self.created = time.milliseconds()
        self.bytes_since_last_index_entry = 0
        self.rolling_based_timestamp: int | None = None  # the first batch's max timestamp, loaded lazily
        self._max_timestamp_so_far: int | None = None     # loaded lazily, as in Kafka
        self._offset_of_max_timestamp_so_far: int | None = None

    # Kafka: LogSegment.open
    @classmethod
    def open(cls, dir_: str, base_offset: int, config, time: Time = SYSTEM, file_already_exists: bool = False,
             init_file_size: int = 0, preallocate: bool = False, file_suffix: str = "") -> "LogSegment":
        max_index_size = config.max_index_size
        return cls(
            FileRecords.open(log_file(dir_, base_offset, file_suffix), file_already_exists, init_file_size, preallocate),
            LazyIndex.for_offset(offset_index_file(dir_, base_offset, file_suffix), base_offset, max_index_size),
            LazyIndex.for_time(time_index_file(dir_, base_offset, file_suffix), base_offset, max_index_size),
            base_offset, config.index_interval, config.random_segment_jitter(), time,
            TransactionIndex(base_offset, transaction_index_file(dir_, base_offset, file_suffix)))

    # Kafka: LogSegment.offsetIndex
    @property
    def offset_index(self) -> OffsetIndex:
        return self.lazy_offset_index.get()

    # Kafka: LogSegment.timeIndex
    @property
    def time_index(self) -> TimeIndex:
        return self.lazy_time_index.get()

    # ---- max timestamp bookkeeping ----
    # Kafka: LogSegment.loadLargestTimestamp
    def _load_largest_timestamp(self) -> None:
        last = self.time_index.last_entry
        self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far = last.timestamp, last.offset
        position = self.offset_index.lookup(last.offset).position
        after = self.log.largest_timestamp_after(position)
        if after.timestamp > last.timestamp:
            self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far = after.timestamp, after.offset

    @property
    def max_timestamp_so_far(self) -> int:
        if self._max_timestamp_so_far is None:
            self._load_largest_timestamp()
        return self._max_timestamp_so_far

    @property
    def offset_of_max_timestamp_so_far(self) -> int:
        if self._offset_of_max_timestamp_so_far is None:
            self._load_largest_timestamp()
        return self._offset_of_max_timestamp_so_far

    # Kafka: LogSegment.size
    @property
    def size(self) -> int:
        return self.log.size_in_bytes()

    # Kafka: LogSegment.canConvertToRelativeOffset
    def can_convert_to_relative_offset(self, offset: int) -> bool:
        return self.offset_index.can_append_offset(offset)

    # Kafka: LogSegment.sanityCheck -- as in 2.4 (KAFKA-7283) the offset and time indexes are checked only when
    # ``check_indexes`` (the loader asks for the segments a crash or damage may have touched), so a clean restart
    # does not map every index; a missing offset index fails the check unless the .log is empty (a segment rolled
    # and closed before its first append never created its index files).
    def sanity_check(self, check_indexes: bool = True) -> None:
        if not os.path.exists(self.log.file):
            raise FileNotFoundError(f"Segment file {self.log.file} does not exist")
        if not os.path.exists(self.lazy_offset_index.file) and self.log.size_in_bytes() > 0:
            raise FileNotFoundError(f"Offset index file {self.lazy_offset_index.file} does not exist")
        self.txn_index.sanity_check()
        if not check_indexes:
            return
        self.offset_index.sanity_check()
        self.time_index.sanity_check()
        # No Kafka counterpart in 2.4: an index whose last entry points beyond the end of the .log file
        # (the log was cut short after the index was written) would send reads past the data; rebuild it.
        if self.offset_index.entries > 0:
            last = self.offset_index.entry(self.offset_index.entries - 1)
            if last.position > self.log.size_in_bytes():
                raise CorruptIndexException(
                    f"Corrupt index found, index file ({self.offset_index.file}) has its last entry at position "
                    f"{last.position}, beyond the end of {self.log.file} ({self.log.size_in_bytes()} bytes).")

    # No Kafka counterpart: Kafka 2.4 trusts every segment after a clean shutdown. A tail damaged while
    # the broker was down (zeros, garbage, a cut batch) would then sit before every later append and
    # hide it from readers, so kafkalite checks the batches after the last index entry of the active
    # segment (at most index.interval.bytes plus one batch): whole, CRC-valid, ending at the file's end.
    def has_valid_tail(self) -> bool:
        start = 0
        if self.offset_index.entries > 0:
            start = self.offset_index.entry(self.offset_index.entries - 1).position
        end = start
        try:
            for batch in self.log.batches(start):
                batch.ensure_valid()
                end = batch.position + batch.size_in_bytes
        except (CorruptRecordException, InvalidRecordException):
            return False
        return end == self.log.size_in_bytes()

    # Kafka: LogSegment.append
    def append(self, largest_offset: int, largest_timestamp: int, shallow_offset_of_max_timestamp: int,
               records: MemoryRecords) -> None:
        """Write whole batches (offsets already assigned) and maybe add index entries."""
        size = records.size_in_bytes()
        if size == 0:
            return
        physical_position = self.log.size_in_bytes()
        if physical_position == 0:
            self.rolling_based_timestamp = largest_timestamp
        if not self.can_convert_to_relative_offset(largest_offset):
            raise ValueError(f"largest offset {largest_offset} cannot be stored relative to base offset "
                             f"{self.base_offset} in {self.log.file}")
        offset_index, time_index = self.offset_index, self.time_index   # loaded before the write (see docstring)
        self.log.append(records)
        if largest_timestamp > self.max_timestamp_so_far:
            self._max_timestamp_so_far = largest_timestamp
            self._offset_of_max_timestamp_so_far = shallow_offset_of_max_timestamp
        if self.bytes_since_last_index_entry > self.index_interval_bytes:
            offset_index.append(largest_offset, physical_position)
            time_index.maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp_so_far)
            self.bytes_since_last_index_entry = 0
        self.bytes_since_last_index_entry += size

    # Kafka: LogSegment.updateTxnIndex -- an aborted transaction goes to the index with the LSO at its marker
    def update_txn_index(self, completed_txn, last_stable_offset: int) -> None:
        if completed_txn.is_aborted:
            self.trace("Writing aborted transaction %s to transaction index, last stable offset is %d",
                       completed_txn, last_stable_offset)
            self.txn_index.append(AbortedTxn.from_completed_txn(completed_txn, last_stable_offset))

    # Kafka: LogSegment.updateProducerState -- replay one batch during recovery, rebuilding the txn index
    def _update_producer_state(self, producer_state_manager, batch) -> None:
        info = producer_state_manager.prepare_update(batch.producer_id, AppendOrigin.REPLICATION)
        try:
            completed = info.append(batch)
        except (CorruptRecordException, InvalidRecordException):
            raise                   # a damaged batch: the recovery truncates the segment here
        except ApiException as e:   # as ProducerStateManager.load_batch: warn, never stop the recovery
            self.warn("Skipping batch at offset %d of producer %d while rebuilding producer state: %s",
                      batch.base_offset, batch.producer_id, e)
            return
        producer_state_manager.update(info)
        if completed is not None:
            self.update_txn_index(completed, producer_state_manager.last_stable_offset(completed))
            producer_state_manager.complete_txn(completed)

    # Kafka: LogSegment.collectAbortedTxns
    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        return self.txn_index.collect_aborted_txns(fetch_offset, upper_bound_offset)

    # Kafka: LogSegment.fetchUpperBoundOffset -- an offset past the end of a fetch of ``fetch_size`` bytes
    # from ``start_offset_position`` (from the sparse index; None: the end of the segment)
    def fetch_upper_bound_offset(self, start_offset_position, fetch_size: int) -> int | None:
        found = self.offset_index.fetch_upper_bound_offset(start_offset_position, fetch_size)
        return None if found is None else found.offset

    # Kafka: LogSegment.translateOffset
    def translate_offset(self, offset: int, starting_file_position: int = 0) -> LogOffsetPosition | None:
        mapping = self.offset_index.lookup(offset)
        return self.log.search_for_offset_with_size(offset, max(mapping.position, starting_file_position))

    # Kafka: LogSegment.read
    def read(self, start_offset: int, max_size: int, max_position: int | None = None,
             min_one_message: bool = False) -> FetchDataInfo | None:
        """A slice starting at the batch holding ``start_offset``, at most ``max_size`` bytes long,
        never past ``max_position``; None if the offset is beyond this segment."""
        if max_size < 0:
            raise ValueError(f"Invalid max size {max_size} for log read from segment {self.log}")
        if max_position is None:
            max_position = self.size
        start = self.translate_offset(start_offset)
        if start is None:
            return None
        start_position = start.position
        offset_metadata = LogOffsetMetadata(start_offset, self.base_offset, start_position)
        adjusted_max_size = max(max_size, start.size) if min_one_message else max_size
        if adjusted_max_size == 0:
            return FetchDataInfo(offset_metadata, MemoryRecords.EMPTY)
        fetch_size = max(0, min(max_position - start_position, adjusted_max_size))
        return FetchDataInfo(offset_metadata, self.log.slice(start_position, fetch_size),
                             first_entry_incomplete=adjusted_max_size < start.size)

    # Kafka: LogSegment.recover
    def recover(self, producer_state_manager=None, leader_epoch_cache=None) -> int:
        """Re-validate every batch, rebuild both indexes, cut off an invalid tail.

        Returns the number of bytes truncated from the end of the ``.log`` file.
        """
        self.offset_index.reset()
        self.time_index.reset()
        self.txn_index.reset()
        valid_bytes = last_index_entry = 0
        max_ts, offset_of_max_ts = RecordBatch.NO_TIMESTAMP, self.base_offset
        expected_offset = self.base_offset
        try:
            for batch in self.log.batches():
                batch.ensure_valid()
                if batch.base_offset < expected_offset:
                    raise CorruptRecordException(
                        f"batch at position {batch.position} starts at offset {batch.base_offset}, "
                        f"below the next expected offset {expected_offset}")
                if not self.can_convert_to_relative_offset(batch.last_offset):
                    raise CorruptRecordException(f"offset {batch.last_offset} does not belong in this segment")
                expected_offset = batch.next_offset
                if batch.max_timestamp > max_ts:
                    max_ts, offset_of_max_ts = batch.max_timestamp, batch.last_offset
                if valid_bytes - last_index_entry > self.index_interval_bytes:
                    self.offset_index.append(batch.last_offset, valid_bytes)
                    self.time_index.maybe_append(max_ts, offset_of_max_ts)
                    last_index_entry = valid_bytes
                valid_bytes += batch.size_in_bytes
                if leader_epoch_cache is not None and batch.partition_leader_epoch >= 0:
                    latest = leader_epoch_cache.latest_epoch
                    if latest is None or batch.partition_leader_epoch > latest:
                        leader_epoch_cache.assign(batch.partition_leader_epoch, batch.base_offset)
                if producer_state_manager is not None:
                    if batch.has_producer_id():
                        self._update_producer_state(producer_state_manager, batch)
                    producer_state_manager.update_map_end_offset(batch.last_offset + 1)
        except (CorruptRecordException, InvalidRecordException) as e:
            self.warn("Found invalid messages in log segment %s at byte offset %d: %s.",
                      self.log.file, valid_bytes, e)
        truncated = self.log.size_in_bytes() - valid_bytes
        if truncated > 0:
            self.debug("Truncated %d invalid bytes at the end of segment %s during recovery",
                       truncated, self.log.file)
        self.log.truncate_to(valid_bytes)
        self.offset_index.trim_to_valid_size()
        self._max_timestamp_so_far, self._offset_of_max_timestamp_so_far = max_ts, offset_of_max_ts
        # A cleanly closed segment always ends its time index with the largest timestamp; do the same.
        self.time_index.maybe_append(max_ts, offset_of_max_ts, skip_full_check=True)
        self.time_index.trim_to_valid_size()
        self.bytes_since_last_index_entry = valid_bytes - last_index_entry
        return truncated

    # Kafka: LogSegment.truncateTo
    def truncate_to(self, offset: int) -> int:
        """Remove every batch at or above ``offset``; return the bytes removed."""
        mapping = self.translate_offset(offset)
        self.offset_index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.txn_index.truncate_to(offset)
        self.offset_index.resize(self.offset_index.max_index_size)
        self.time_index.resize(self.time_index.max_index_size)
        truncated = 0 if mapping is None else self.log.truncate_to(mapping.position)
        if self.log.size_in_bytes() == 0:
            self.created = self.time.milliseconds()
            self.rolling_based_timestamp = None
        self.bytes_since_last_index_entry = 0
        self._load_largest_timestamp()
        return truncated

    # Kafka: LogSegment.readNextOffset
    def read_next_offset(self) -> int:
        fetch = self.read(self.offset_index.last_offset, self.log.size_in_bytes())
        if fetch is None:
            return self.base_offset
        last = None
        for batch in fetch.records.batches():
            last = batch
        return self.base_offset if last is None else last.next_offset

    # Kafka: LogSegment.shouldRoll
    def should_roll(self, roll_params: RollParams) -> bool:
        reached_roll_ms = (self.time_waited_for_roll(roll_params.now, roll_params.max_timestamp_in_messages)
                           > roll_params.max_segment_ms - self.roll_jitter_ms)
        return (self.size > roll_params.max_segment_bytes - roll_params.messages_size
                or (self.size > 0 and reached_roll_ms)
                or self.offset_index.is_full() or self.time_index.is_full()
                or not self.can_convert_to_relative_offset(roll_params.max_offset_in_messages))

    # Kafka: LogSegment.timeWaitedForRoll
    def time_waited_for_roll(self, now: int, message_timestamp: int) -> int:
        if self.rolling_based_timestamp is None:
            first = next(iter(self.log.batches()), None)
            if first is not None:
                self.rolling_based_timestamp = first.max_timestamp
        t = self.rolling_based_timestamp
        if t is not None and t >= 0:
            return message_timestamp - t
        return now - self.created

    # Kafka: LogSegment.onBecomeInactiveSegment
    def on_become_inactive_segment(self) -> None:
        self.time_index.maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp_so_far,
                                     skip_full_check=True)
        self.offset_index.trim_to_valid_size()
        self.time_index.trim_to_valid_size()
        self.log.trim()

    # Kafka: LogSegment.resizeIndexes
    def resize_indexes(self, size: int) -> None:
        self.offset_index.resize(size)
        self.time_index.resize(size)

    # Kafka: LogSegment.findOffsetByTimestamp
    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int | None = None) -> TimestampAndOffset | None:
        if starting_offset is None:
            starting_offset = self.base_offset
        entry = self.time_index.lookup(timestamp)
        position = self.offset_index.lookup(max(entry.offset, starting_offset)).position
        return self.log.search_for_timestamp(timestamp, position, starting_offset)

    # Kafka: LogSegment.largestTimestamp
    @property
    def largest_timestamp(self) -> int:
        if self.max_timestamp_so_far >= 0:
            return self.max_timestamp_so_far
        return self.last_modified

    # Kafka: LogSegment.lastModified
    @property
    def last_modified(self) -> int:
        return os.stat(self.log.file).st_mtime_ns // 1_000_000

    # Kafka: LogSegment.lastModified_= -- a cleaned segment keeps the time of the segments it replaces
    def set_last_modified(self, ms: int) -> None:
        os.utime(self.log.file, ns=(ms * 1_000_000, ms * 1_000_000))
        if os.path.exists(self.lazy_offset_index.file):
            os.utime(self.lazy_offset_index.file, ns=(ms * 1_000_000, ms * 1_000_000))

    # Kafka: LogSegment.getFirstBatchTimestamp -- the first batch's max timestamp (Long.MaxValue if empty)
    def get_first_batch_timestamp(self) -> int:
        first = next(iter(self.log.batches()), None)
        return first.max_timestamp if first is not None else (1 << 63) - 1

    # Kafka: LogSegment.changeFileSuffixes -- rename the four files (``.cleaned`` -> ``.swap`` -> "")
    def change_file_suffixes(self, old_suffix: str, new_suffix: str) -> None:
        for holder in (self.log, self.lazy_offset_index, self.lazy_time_index, self.txn_index):
            old = holder.file
            if not old.endswith(old_suffix):
                raise ValueError(f"{old} does not end in {old_suffix!r}")
            new = old[:len(old) - len(old_suffix)] + new_suffix
            if os.path.exists(old):
                os.replace(old, new)
            holder.file = new

    # Kafka: LogSegment.flush
    def flush(self) -> None:
        self.log.flush()
        for lazy in (self.lazy_offset_index, self.lazy_time_index):
            if lazy.is_loaded():   # an index never loaded has nothing to flush
                lazy.get().flush()
        self.txn_index.flush()

    # Kafka: LogSegment.close
    def close(self) -> None:
        if self.log.fd >= 0 and self._max_timestamp_so_far is not None and self.lazy_time_index.is_loaded():
            self.time_index.maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp_so_far,
                                         skip_full_check=True)
        # the .log first (Kafka closes it after the indexes): a broker at its descriptor limit then has the
        # .log's descriptor free for the brief open with which each index is trimmed
        self.log.close()
        self.lazy_offset_index.close()
        self.lazy_time_index.close()
        self.txn_index.close()

    # Kafka: LogSegment.closeHandlers
    def close_handlers(self) -> None:
        self.lazy_offset_index.close_handler()
        self.lazy_time_index.close_handler()
        self.txn_index.close()
        self.log.close_handlers()

    def files(self) -> list[str]:
        return [self.log.file, self.lazy_offset_index.file, self.lazy_time_index.file, self.txn_index.file]

    # Kafka: LogSegment.updateDir (after Log.renameDir)
    def update_dir(self, new_dir: str) -> None:
        self.log.file = os.path.join(new_dir, os.path.basename(self.log.file))
        self.lazy_offset_index.update_parent_dir(new_dir)
        self.lazy_time_index.update_parent_dir(new_dir)
        self.txn_index.file = os.path.join(new_dir, os.path.basename(self.txn_index.file))

    # Kafka: LogSegment.deleteIfExists (object LogSegment) -- the files a segment at ``base_offset`` would have
    @staticmethod
    def delete_files_if_exist(dir_: str, base_offset: int, file_suffix: str = "") -> None:
        for path in (log_file(dir_, base_offset, file_suffix), offset_index_file(dir_, base_offset, file_suffix),
                     time_index_file(dir_, base_offset, file_suffix),
                     transaction_index_file(dir_, base_offset, file_suffix)):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass

    # Kafka: LogSegment.deleteIfExists
    def delete_if_exists(self) -> None:
        self.close_handlers()
        for path in self.files():
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass

    def __repr__(self) -> str:
        return f"LogSegment(baseOffset={self.base_offset}, size={self.size})"


def _suffix_after_log(path: str) -> str:
    """``.deleted`` in ``00000000000000000000.log.deleted`` (what follows ``.log`` in a segment file's name)."""
    name = os.path.basename(path)
    return name[name.index(".log") + 4:] if ".log" in name else ""


__all__ = ["LogSegment", "RollParams", "CorruptIndexException"]
