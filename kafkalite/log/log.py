"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/Log.scala

Classes: Log (one partition's log: segments, log end offset, high watermark, log start offset,
recovery point), LogAppendInfo.

Loading (leftover files, opening segments, recovery after a crash) is LogLoader's, as in Kafka 3.0;
2.4 has it in this class (see log_loader.py).

Era notes: Kafka 3.1 split this class into UnifiedLog (offsets, producer state, epochs) and
LocalLog (segments on disk); 2.4 has the one class, and so does kafkalite.

The produce path does not decode records (DESIGN §5): ``analyze_and_validate_records`` reads
batch headers and checks each batch's CRC-32C and, for client batches, that the header agrees
with itself (LogValidator.validateBatch: record count = lastOffsetDelta + 1 > 0, a base sequence
when there is a producer id); offsets are assigned by rewriting each batch's
baseOffset in place (``set_last_offset``), LogAppendTime by ``set_max_timestamp``; the bytes are
then written as they arrived. Reads return ``FileRecords`` slices (sent with sendfile).
The exception: Kafka's per-record checks (LogValidator.validateRecord) that can fail a magic 2 record -- a
compacted topic's record without a key, a CreateTime outside ``message.timestamp.difference.max.ms`` -- are
made where they are on, and only there the records are read (``_assign_offsets_and_timestamps``).

Decisions where kafkalite differs from 2.4:
- A producer's message set of magic 0/1 (Produce v0-2) is validated and up-converted to one magic 2
  batch by LogValidator (log_validator.py) before the v2 path below; the log holds magic 2 only
  (message.format.version < 0.11 is not supported). Magic 0/1 from replication or a coordinator, or
  after a magic 2 batch, is rejected with InvalidRecordException (INVALID_RECORD).
- Broker-side recompression (``compression.type`` other than ``producer``) is left out: batches
  are stored as the producer compressed them.
- Producer snapshots (``<offset>.snapshot``, ProducerStateManager) are taken at each roll, at close and
  after each rebuild; a load starts from the latest one and replays only the batches after it. 2.4 skips
  the rebuild when it finds no snapshot after a clean shutdown (its upgrade shortcut for logs written
  before KIP-98); kafkalite replays from the log start instead, so that logs written before kafkalite took
  snapshots keep their open transactions.
- Compaction: the LogCleaner (log_cleaner.py) reads a log's segments and swaps cleaned copies in through
  ``replace_segments``; the old segments' files are unlinked at once rather than renamed ``.deleted`` (as all
  kafkalite segment deletions are; descriptors close after file.delete.delay.ms).
Transactions: the first unstable offset is the first offset of the oldest transaction that is open or
decided above the high watermark (ProducerStateManager); the last stable offset is the smaller of it and
the high watermark, recomputed on append, marker, high-watermark move, log-start move, truncation and
load. A read with FetchIsolation FETCH_TXN_COMMITTED stops at the LSO and returns the aborted
transactions overlapping what it read (collected from the segments' transaction indexes).
A log whose directory ends in ``-future`` (``topic-0.<uniqueId>-future``) is a future log (``is_future``): the
copy an AlterReplicaLogDirs move fills in another log dir before it replaces the current log.
Locking: one ``threading.RLock`` per log around appends, rolls, truncation and deletion; reads
take a copy-on-write snapshot of the segment list and need no lock.
"""
from __future__ import annotations

import bisect
import contextlib
import copy
import os
import threading
import uuid

import attrs

from kafkalite.common.record_validation_exception import RecordError, RecordValidationException
from kafkalite.log.fetch_data_info import FetchDataInfo, FetchIsolation
from kafkalite.log.leader_epoch_file_cache import LEADER_EPOCH_CHECKPOINT_FILENAME, LeaderEpochFileCache
from kafkalite.log.log_config import LONG_MAX, LogConfig
from kafkalite.log.log_file_utils import (
    CLEAN_SHUTDOWN_FILE, CLEANED_FILE_SUFFIX, DELETE_DIR_SUFFIX, FUTURE_DIR_SUFFIX, SWAP_FILE_SUFFIX, log_dir_name,
    parse_topic_partition_name)
from kafkalite.log.log_loader import LogLoader, rebuild_producer_state
from kafkalite.log.log_offset_metadata import LogOffsetMetadata
from kafkalite.log.log_segment import LogSegment, RollParams
from kafkalite.log.log_validator import LogValidator
from kafkalite.log.offset_index import OffsetPosition
from kafkalite.log.producer_state_manager import AppendOrigin, ProducerStateManager
from kafkalite.protocol.errors import Errors
from kafkalite.record.abstract_legacy_record_batch import is_legacy
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.file_records import TimestampAndOffset
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.record.record_batch import RecordBatch
from kafkalite.record.timestamp_type import TimestampType
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time

# Kafka: LogManager.ProducerIdExpirationCheckIntervalMs (a constant in 2.4; the broker key
# producer.id.expiration.check.interval.ms came later)
PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 10 * 60 * 1000

# Kafka: ListOffsetRequest.EARLIEST_TIMESTAMP / LATEST_TIMESTAMP / MAX_TIMESTAMP (KIP-734, 3.0)
EARLIEST_TIMESTAMP = -2
LATEST_TIMESTAMP = -1
MAX_TIMESTAMP = -3


@attrs.define
class LogAppendInfo:
    """Kafka: LogAppendInfo -- what an append found in the batches and where they went."""

    first_offset: int | None
    last_offset: int
    max_timestamp: int
    offset_of_max_timestamp: int
    log_append_time: int
    log_start_offset: int
    source_codec: CompressionType
    target_codec: CompressionType
    shallow_count: int
    valid_bytes: int
    offsets_monotonic: bool
    last_offset_of_first_batch: int

    # Kafka: LogAppendInfo.numMessages
    @property
    def num_messages(self) -> int:
        if self.first_offset is not None and self.first_offset >= 0 and self.last_offset >= 0:
            return self.last_offset - self.first_offset + 1
        return 0


class Log(Logging):
    """Kafka: Log."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = (
        'dir', 'log_dir_failure_channel', '_had_clean_shutdown', 'config', 'scheduler', 'time', 'topic_partition',
        '_lock', 'recovery_point', 'log_start_offset', 'last_flushed_time', '_segments', '_snapshot',
        'leader_epoch_cache', 'max_producer_id_expiration_ms', 'producer_state_manager',
        'first_unstable_offset_metadata', 'next_offset_metadata', 'high_watermark_metadata', 'producer_expire_check'
    )

    # Kafka: Logging.logIdent -- Kafka builds this string in the constructor; it is built when a line is
    # logged instead: a broker holds one such object per partition, and the string costs ~100 B
    @property
    def log_ident(self) -> str:  # type: ignore[override]
        return f"[Log partition={self.topic_partition}, dir={os.path.dirname(self.dir)}] "

    # Kafka: Log.<init> (+ the locally block; LogLoader loads the segments)
    def __init__(self, dir: str, config: LogConfig, log_start_offset: int = 0, recovery_point: int = 0,
                 scheduler=None, time: Time = SYSTEM, topic_partition=None,
                 max_producer_id_expiration_ms: int = 7 * 24 * 3600 * 1000,
                 producer_id_expiration_check_interval_ms: int = PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS,
                 log_dir_failure_channel=None, had_clean_shutdown: bool | None = None):
        self.dir = dir
        self.log_dir_failure_channel = log_dir_failure_channel
        # Kafka 2.8: Log(hadCleanShutdown) -- the LogManager deletes the marker before loading, so it says
        # what it found; None (a Log built on its own) looks for the marker as 2.4's Log does.
        self._had_clean_shutdown = had_clean_shutdown
        self.config = config
        self.scheduler = scheduler
        self.time = time
        self.topic_partition = topic_partition or parse_topic_partition_name(dir)
        self._lock = threading.RLock()
        self.recovery_point = recovery_point
        self.log_start_offset = log_start_offset
        self.last_flushed_time = time.milliseconds()
        self._segments: dict[int, LogSegment] = {}
        self._snapshot: tuple[list[int], list[LogSegment]] = ([], [])
        os.makedirs(dir, exist_ok=True)
        self.leader_epoch_cache = LeaderEpochFileCache(
            self.topic_partition, os.path.join(dir, LEADER_EPOCH_CHECKPOINT_FILENAME), scheduler)
        self.max_producer_id_expiration_ms = max_producer_id_expiration_ms
        self.producer_state_manager = ProducerStateManager(self.topic_partition, dir, max_producer_id_expiration_ms)
        self.first_unstable_offset_metadata: LogOffsetMetadata | None = None
        start_ms = time.hi_res_clock_ms()
        had_clean_shutdown = self.had_clean_shutdown
        loader = LogLoader(dir, self.topic_partition, config, time, had_clean_shutdown, self._segments,
                           log_start_offset, recovery_point, max_producer_id_expiration_ms, self.leader_epoch_cache)
        loaded = loader.load()
        try:
            self._publish()
            next_offset = loaded.next_offset
            self.next_offset_metadata = LogOffsetMetadata(
                next_offset, self.active_segment.base_offset, self.active_segment.size)
            self.log_start_offset = loaded.log_start_offset
            self.recovery_point = loaded.recovery_point
            self.high_watermark_metadata = LogOffsetMetadata(self.log_start_offset)
            self.load_producer_state(next_offset, reload_from_clean_shutdown=had_clean_shutdown)
        except BaseException:   # e.g. EMFILE writing the producer snapshot: no descriptor outlives this Log
            loader.close_segments()
            raise
        # Kafka: Log.producerExpireCheck -- producers idle longer than producer.id.expiration.ms go
        self.producer_expire_check = None
        if scheduler is not None:
            self.producer_expire_check = scheduler.schedule(
                "PeriodicProducerExpirationCheck", self._remove_expired_producers,
                producer_id_expiration_check_interval_ms, producer_id_expiration_check_interval_ms)
        self.info("Completed load of log with %d segments, log start offset %d and log end offset %d in %d ms",
                  self.num_segments, self.log_start_offset, next_offset, time.hi_res_clock_ms() - start_ms)

    # ---- segment map (Kafka: ConcurrentSkipListMap segments) ----
    def _publish(self) -> None:
        bases = sorted(self._segments)
        self._snapshot = (bases, [self._segments[b] for b in bases])

    # Kafka: Log.addSegment
    def add_segment(self, segment: LogSegment) -> LogSegment:
        self._segments[segment.base_offset] = segment
        self._publish()
        return segment

    @property
    def active_segment(self) -> LogSegment:
        return self._snapshot[1][-1]

    @property
    def num_segments(self) -> int:
        return len(self._snapshot[1])

    # Kafka: Log.logSegments(from, to)
    def log_segments(self, from_offset: int | None = None, to_offset: int | None = None) -> list[LogSegment]:
        bases, segs = self._snapshot
        if from_offset is None and to_offset is None:
            return list(segs)
        lo = 0 if from_offset is None else max(0, bisect.bisect_right(bases, from_offset) - 1)
        hi = len(segs) if to_offset is None else bisect.bisect_left(bases, to_offset)
        return segs[lo:hi]

    def _floor_segment_index(self, bases: list[int], offset: int) -> int:
        return bisect.bisect_right(bases, offset) - 1

    # Kafka: Log.size
    @property
    def size(self) -> int:
        return sum(s.size for s in self._snapshot[1])

    @property
    def log_end_offset(self) -> int:
        return self.next_offset_metadata.message_offset

    @property
    def log_end_offset_metadata(self) -> LogOffsetMetadata:
        return self.next_offset_metadata

    @property
    def had_clean_shutdown(self) -> bool:
        if self._had_clean_shutdown is not None:
            return self._had_clean_shutdown
        return os.path.exists(os.path.join(self.parent_dir, CLEAN_SHUTDOWN_FILE))

    # Kafka: Log.isFuture -- the copy a replica move (AlterReplicaLogDirs) fills before it replaces the current log
    @property
    def is_future(self) -> bool:
        return os.path.basename(os.path.normpath(self.dir)).endswith(FUTURE_DIR_SUFFIX)

    @property
    def parent_dir(self) -> str:
        """The log dir (an entry of log.dirs) holding this partition's directory."""
        return os.path.dirname(os.path.normpath(self.dir))

    # Kafka: Log.maybeHandleIOException -- an OSError takes the whole log dir offline (LogDirFailureChannel)
    # and surfaces as KafkaStorageException (KAFKA_STORAGE_ERROR); once the dir is offline nothing more is
    # tried there.
    @contextlib.contextmanager
    def maybe_handle_io_exception(self, msg):
        self._check_log_dir_online()
        try:
            yield
        except OSError as e:
            raise self._storage_exception(msg, e) from e

    def _check_log_dir_online(self) -> None:
        channel = self.log_dir_failure_channel
        # (a broker with every dir online asks nothing more: no path worked out per append)
        if channel is not None and channel.any_offline_log_dir() and channel.has_offline_log_dir(self.parent_dir):
            raise Errors.KAFKA_STORAGE_ERROR.exception(
                f"The log dir {self.parent_dir} is offline due to a previous IO exception.")

    def _storage_exception(self, msg, e: OSError):
        """Take the log dir offline for ``e``; the KafkaStorageException to raise."""
        text = msg() if callable(msg) else msg
        if self.log_dir_failure_channel is not None:
            self.log_dir_failure_channel.maybe_add_offline_log_dir(self.parent_dir, text, e)
        return Errors.KAFKA_STORAGE_ERROR.exception(f"{text}: {e}")

    # ---- loading (segments: LogLoader) ----
    # Kafka: Log.loadProducerState
    def load_producer_state(self, last_offset: int, reload_from_clean_shutdown: bool = False) -> None:
        with self._lock:
            rebuild_producer_state(self.producer_state_manager, self.log_segments(), self.log_start_offset,
                                   last_offset, self.time, reload_from_clean_shutdown)
            self.producer_state_manager.on_high_watermark_updated(self.high_watermark)
            self.maybe_increment_first_unstable_offset()

    # Kafka: Log.takeProducerSnapshot
    def take_producer_snapshot(self) -> None:
        with self._lock:
            self.producer_state_manager.take_snapshot()

    # Kafka: Log.latestProducerSnapshotOffset
    def latest_producer_snapshot_offset(self) -> int | None:
        with self._lock:
            return self.producer_state_manager.latest_snapshot_offset()

    # Kafka: Log.oldestProducerSnapshotOffset
    def oldest_producer_snapshot_offset(self) -> int | None:
        with self._lock:
            return self.producer_state_manager.oldest_snapshot_offset()

    # Kafka: Log.deleteSnapshotsAfterRecoveryPointCheckpoint -- keep the snapshots of the last two segments and
    # of every segment at or above the recovery point (recovery starts from them); returns the oldest kept
    def delete_snapshots_after_recovery_point_checkpoint(self) -> int:
        min_offset_to_retain = self.min_snapshots_offset_to_retain()
        self.producer_state_manager.delete_snapshots_before(min_offset_to_retain)
        return min_offset_to_retain

    # Kafka: Log.minSnapshotsOffsetToRetain
    def min_snapshots_offset_to_retain(self) -> int:
        with self._lock:
            bases = [seg.base_offset for seg in self.log_segments()]
            lower_than_active = [b for b in bases if b < bases[-1]]
            two_segments_min_offset = lower_than_active[-1] if lower_than_active else bases[-1]
            below_recovery_point = [b for b in bases if b < self.recovery_point]
            recovery_point_offset = below_recovery_point[-1] if below_recovery_point else self.recovery_point
            return min(recovery_point_offset, two_segments_min_offset)

    def _remove_expired_producers(self) -> None:
        with self._lock:
            self.producer_state_manager.remove_expired_producers(self.time.milliseconds())

    def _cancel_producer_expire_check(self) -> None:
        if self.producer_expire_check is not None:
            self.producer_expire_check.cancel()

    # ---- append ----
    # Kafka: Log.appendAsLeader -- ``origin``: AppendOrigin.CLIENT (a producer), COORDINATOR (the group or
    # transaction coordinator: offsets, transaction markers); a bool is 2.4's isFromClient.
    def append_as_leader(self, records: MemoryRecords, leader_epoch: int,
                         origin: AppendOrigin | bool = AppendOrigin.CLIENT,
                         is_from_client: bool | None = None) -> LogAppendInfo:
        origin = to_append_origin(origin if is_from_client is None else is_from_client)
        # Kafka: maybeHandleIOException(...) { append(...) } -- spelled out instead of the context manager,
        # whose generator costs a handful of Python calls on every produce request (issue 18)
        self._check_log_dir_online()
        try:
            return self._append(records, origin, assign_offsets=True, leader_epoch=leader_epoch)
        except OSError as e:
            raise self._storage_exception(self._append_error_message, e) from e

    def _append_error_message(self) -> str:
        return f"Error while appending records to {self.topic_partition} in dir {self.parent_dir}"

    # Kafka: Log.appendAsFollower
    def append_as_follower(self, records: MemoryRecords) -> LogAppendInfo:
        with self.maybe_handle_io_exception(self._append_error_message):
            return self._append(records, AppendOrigin.REPLICATION, assign_offsets=False,
                            leader_epoch=RecordBatch.NO_PARTITION_LEADER_EPOCH)

    # Kafka: Log.append
    def _append(self, records: MemoryRecords, origin: AppendOrigin, assign_offsets: bool,
                leader_epoch: int) -> LogAppendInfo:
        if origin is AppendOrigin.CLIENT and is_legacy(records.buffer):   # Produce v0-2: message format v0/v1
            records = LogValidator.validate_messages_and_assign_offsets(records, self.topic_partition,
                                                                        self.time.milliseconds(), self.config)
        append_info = self.analyze_and_validate_records(records, origin)
        if append_info.shallow_count == 0:
            return append_info
        valid_records = self._trim_invalid_bytes(records, append_info)
        with self._lock:
            batches = list(valid_records.batches())
            if assign_offsets:
                self._assign_offsets_and_timestamps(batches, append_info, leader_epoch)
            else:
                if not append_info.offsets_monotonic:
                    raise Errors.UNKNOWN_SERVER_ERROR.exception(
                        f"Out of order offsets found in append to {self.topic_partition}")
                if append_info.first_offset is not None and append_info.first_offset < self.log_end_offset:
                    raise Errors.UNKNOWN_SERVER_ERROR.exception(
                        f"Unexpected offset in append to {self.topic_partition}. First offset "
                        f"{append_info.first_offset} is less than the next offset {self.log_end_offset}.")
            for batch in batches:
                if batch.size_in_bytes > self.config.segment_size:
                    raise Errors.RECORD_LIST_TOO_LARGE.exception(
                        f"Message batch size is {batch.size_in_bytes} bytes in append to partition "
                        f"{self.topic_partition} which exceeds the maximum configured segment size of "
                        f"{self.config.segment_size}.")
            segment = self.maybe_roll(valid_records.size_in_bytes(), append_info)
            updated_producers, completed_txns, duplicate = self._analyze_and_validate_producer_state(
                segment, batches, origin)
            if duplicate is not None:
                append_info.first_offset = duplicate.first_offset
                append_info.last_offset = duplicate.last_offset
                append_info.log_append_time = duplicate.timestamp
                append_info.log_start_offset = self.log_start_offset
                return append_info
            for batch in batches:
                if batch.partition_leader_epoch >= 0:
                    self.maybe_assign_epoch_start_offset(batch.partition_leader_epoch, batch.base_offset)
            segment.append(largest_offset=append_info.last_offset, largest_timestamp=append_info.max_timestamp,
                           shallow_offset_of_max_timestamp=append_info.offset_of_max_timestamp,
                           records=valid_records)
            self.update_log_end_offset(append_info.last_offset + 1)
            psm = self.producer_state_manager
            for info in updated_producers.values():
                psm.update(info)
            # an aborted transaction goes to the index with the LSO as it is once its marker is in
            for completed_txn in completed_txns:
                segment.update_txn_index(completed_txn, psm.last_stable_offset(completed_txn))
                psm.complete_txn(completed_txn)
            psm.update_map_end_offset(append_info.last_offset + 1)
            self.maybe_increment_first_unstable_offset()
            self.trace("Appended message set with last offset: %d, first offset: %s, next offset: %d",
                       append_info.last_offset, append_info.first_offset, self.log_end_offset)
            if self.unflushed_messages >= self.config.flush_interval:
                self.flush()
            return append_info

    # Kafka: LogValidator.validateMessagesAndAssignOffsets (the v2, in-place cases). Kafka reads every record
    # (validateRecord) and writes the records' max timestamp into the header. Of its per-record checks two can
    # fail a well-formed magic 2 record -- a compacted topic's record without a key, a CreateTime outside
    # ``message.timestamp.difference.max.ms`` -- so kafkalite reads records only where one of them is on
    # (``validates_records``) and otherwise trusts the producer's max timestamp (DESIGN §5: no decode). What
    # only a broken client sends then goes unchecked there: a compressed batch whose inner offsets are not
    # 0, 1, 2, ..., a record count or size that does not match the records, a payload that does not decompress
    # (Kafka: INVALID_RECORD, or UNKNOWN_SERVER_ERROR for the last)
    def _assign_offsets_and_timestamps(self, batches, append_info: LogAppendInfo, leader_epoch: int) -> None:
        now = self.time.milliseconds()
        config = self.config
        log_append_time = config.message_timestamp_type == "LogAppendTime"
        timestamp_type = TimestampType.LOG_APPEND_TIME if log_append_time else TimestampType.CREATE_TIME
        validates_records = config.compact or \
            (not log_append_time and config.message_timestamp_difference_max_ms < LONG_MAX)
        offset = self.log_end_offset
        append_info.first_offset = offset
        max_ts, offset_of_max_ts = RecordBatch.NO_TIMESTAMP, -1
        for batch in batches:
            if validates_records:   # validate_record refuses a producer's LogAppendTime too, after record 0's key
                records_max_ts = LogValidator.validate_records_in_place(
                    batch, self.topic_partition, now, timestamp_type, config.message_timestamp_difference_max_ms,
                    config.compact)
                if not log_append_time:
                    batch.set_max_timestamp(TimestampType.CREATE_TIME, records_max_ts)
            elif batch.timestamp_type is TimestampType.LOG_APPEND_TIME:   # Kafka: LogValidator.validateTimestamp
                raise RecordValidationException(Errors.INVALID_TIMESTAMP.exception(
                    f"Invalid timestamp type in the batch with offset {batch.base_offset}. Producer should not set "
                    f"timestamp type to LogAppendTime."), [RecordError(0)])
            offset += batch.last_offset_delta
            batch.set_last_offset(offset)
            offset += 1
            if log_append_time:
                batch.set_max_timestamp(TimestampType.LOG_APPEND_TIME, now)
            batch.set_partition_leader_epoch(leader_epoch)
            if batch.max_timestamp > max_ts:
                max_ts, offset_of_max_ts = batch.max_timestamp, batch.last_offset
        append_info.last_offset = offset - 1
        append_info.max_timestamp = max_ts
        append_info.offset_of_max_timestamp = offset_of_max_ts
        if log_append_time:
            append_info.log_append_time = now

    # Kafka: Log.analyzeAndValidateRecords
    def analyze_and_validate_records(self, records: MemoryRecords, origin: AppendOrigin) -> LogAppendInfo:
        """Check every batch header and CRC; decode nothing."""
        shallow_count = valid_bytes = 0
        first_offset, last_offset, last_offset_of_first_batch = None, -1, -1
        monotonic, max_ts, offset_of_max_ts = True, RecordBatch.NO_TIMESTAMP, -1
        source_codec = CompressionType.NONE
        for batch in records.batches():
            if batch.magic != RecordBatch.MAGIC_VALUE_V2:
                raise Errors.INVALID_RECORD.exception(
                    f"Record batch with magic {batch.magic} in the append to {self.topic_partition} is not "
                    "supported; only magic 2 (Kafka 0.11+ clients) is accepted")
            if origin is AppendOrigin.CLIENT and batch.base_offset != 0:
                raise Errors.INVALID_RECORD.exception(
                    f"The baseOffset of the record batch in the append to {self.topic_partition} should be 0, "
                    f"but it is {batch.base_offset}")
            if first_offset is None:
                first_offset, last_offset_of_first_batch = batch.base_offset, batch.last_offset
            if last_offset >= batch.last_offset:
                monotonic = False
            last_offset = batch.last_offset
            size = batch.size_in_bytes
            if size > self.config.max_message_size:
                raise Errors.MESSAGE_TOO_LARGE.exception(
                    f"The record batch size in the append to {self.topic_partition} is {size} bytes which "
                    f"exceeds the maximum configured value of {self.config.max_message_size}.")
            try:
                batch.ensure_valid()
            except Errors.CORRUPT_MESSAGE.exception_class as e:
                raise Errors.CORRUPT_MESSAGE.exception(f"Record is corrupt in topic partition {self.topic_partition}: {e}") from None
            if origin is AppendOrigin.CLIENT:
                self._validate_batch(batch)
            if batch.max_timestamp > max_ts:
                max_ts, offset_of_max_ts = batch.max_timestamp, last_offset
            shallow_count += 1
            valid_bytes += size
            if batch.compression_type is not CompressionType.NONE:
                source_codec = batch.compression_type
        if shallow_count == 0 and origin is AppendOrigin.CLIENT:
            raise Errors.INVALID_RECORD.exception(
                f"Produce request to {self.topic_partition} carries no complete record batch")
        return LogAppendInfo(first_offset, last_offset, max_ts, offset_of_max_ts, RecordBatch.NO_TIMESTAMP,
                             self.log_start_offset, source_codec, source_codec, shallow_count, valid_bytes,
                             monotonic, last_offset_of_first_batch)

    # Kafka: LogValidator.validateBatch (the header checks for client batches; kafkalite has no
    # LogValidator, since it never rewrites records)
    def _validate_batch(self, batch) -> None:
        if batch.is_control_batch:
            raise Errors.INVALID_RECORD.exception(
                f"Clients are not allowed to write control records in topic partition {self.topic_partition}.")
        count_from_offsets = batch.last_offset_delta + 1
        if count_from_offsets <= 0:
            raise Errors.INVALID_RECORD.exception(
                f"Batch has an invalid offset range: [{batch.base_offset}, {batch.last_offset}] in topic "
                f"partition {self.topic_partition}.")
        count = batch.count
        if count <= 0:
            raise Errors.INVALID_RECORD.exception(
                f"Invalid reported count for record batch: {count} in topic partition {self.topic_partition}.")
        if count != count_from_offsets:
            raise Errors.INVALID_RECORD.exception(
                f"Inconsistent batch offset range [{batch.base_offset}, {batch.last_offset}] and count of records "
                f"{count} in topic partition {self.topic_partition}.")
        if batch.has_producer_id() and batch.base_sequence < 0:
            raise Errors.INVALID_RECORD.exception(
                f"Invalid sequence number {batch.base_sequence} in record batch with producerId "
                f"{batch.producer_id} in topic partition {self.topic_partition}.")

    # Kafka: Log.trimInvalidBytes
    def _trim_invalid_bytes(self, records: MemoryRecords, info: LogAppendInfo) -> MemoryRecords:
        if info.valid_bytes < 0:
            raise Errors.CORRUPT_MESSAGE.exception(f"Cannot append record batch with illegal length {info.valid_bytes}")
        if info.valid_bytes == records.size_in_bytes():
            return records
        return MemoryRecords(records.buffer[:info.valid_bytes])

    # Kafka: Log.analyzeAndValidateProducerState -- (updated producers, completed transactions, duplicate).
    # A transaction's first batch is remembered with its segment and position (where it will be written),
    # so the LSO needs no index lookup.
    def _analyze_and_validate_producer_state(self, segment: LogSegment, batches, origin: AppendOrigin):
        updated = {}
        completed = []
        position = segment.size
        for batch in batches:
            size = batch.size_in_bytes
            if not batch.has_producer_id():
                position += size
                continue
            if origin is AppendOrigin.CLIENT:
                last = self.producer_state_manager.last_entry(batch.producer_id)
                duplicate = last.find_duplicate_batch(batch) if last is not None else None
                if duplicate is not None:
                    return updated, completed, duplicate
            info = updated.get(batch.producer_id)
            if info is None:
                info = self.producer_state_manager.prepare_update(batch.producer_id, origin)
                updated[batch.producer_id] = info
            first_offset_metadata = (LogOffsetMetadata(batch.base_offset, segment.base_offset, position)
                                     if batch.is_transactional else None)
            completed_txn = info.append(batch, first_offset_metadata)
            if completed_txn is not None:
                completed.append(completed_txn)
            position += size
        return updated, completed, None

    # Kafka: Log.updateLogEndOffset
    def update_log_end_offset(self, offset: int) -> None:
        active = self.active_segment
        self.next_offset_metadata = LogOffsetMetadata(offset, active.base_offset, active.size)
        if self.high_watermark >= offset:
            self._update_high_watermark_metadata(self.next_offset_metadata)

    # ---- high watermark and log start offset ----
    @property
    def high_watermark(self) -> int:
        return self.high_watermark_metadata.message_offset

    # Kafka: Log.updateHighWatermark
    def update_high_watermark(self, hw: int) -> int:
        new_hw = min(max(hw, self.log_start_offset), self.log_end_offset)
        self._update_high_watermark_metadata(self.next_offset_metadata if new_hw == self.log_end_offset
                                             else LogOffsetMetadata(new_hw))
        return new_hw

    # Kafka: Log.updateHighWatermarkMetadata -- transactions decided below the new HW become stable
    def _update_high_watermark_metadata(self, new_high_watermark: LogOffsetMetadata) -> None:
        with self._lock:
            self.high_watermark_metadata = new_high_watermark
            self.producer_state_manager.on_high_watermark_updated(new_high_watermark.message_offset)
            self.maybe_increment_first_unstable_offset()

    # Kafka: Log.maybeIncrementHighWatermark
    def maybe_increment_high_watermark(self, new_hw: LogOffsetMetadata) -> LogOffsetMetadata | None:
        if new_hw.message_offset > self.log_end_offset:
            raise ValueError(f"High watermark {new_hw} update exceeds current log end offset {self.log_end_offset_metadata}")
        with self._lock:
            old = self.high_watermark_metadata
            if (old.message_offset < new_hw.message_offset
                    or (old.message_offset == new_hw.message_offset and old.message_offset_only()
                        and not new_hw.message_offset_only())):
                self._update_high_watermark_metadata(new_hw)
                return old
            return None

    # Kafka: Log.fetchHighWatermarkMetadata
    def fetch_high_watermark_metadata(self) -> LogOffsetMetadata:
        hw = self.high_watermark_metadata
        if hw.message_offset_only():
            full = self.convert_to_offset_metadata(hw.message_offset)
            if full is not None:
                self.high_watermark_metadata = hw = full
        return hw

    # Kafka: Log.convertToOffsetMetadataOrThrow
    def convert_to_offset_metadata(self, offset: int) -> LogOffsetMetadata | None:
        if offset == self.log_end_offset:
            return self.next_offset_metadata
        try:
            return self.read(offset, 1, min_one_message=False).fetch_offset_metadata
        except Errors.OFFSET_OUT_OF_RANGE.exception_class:
            return None

    # Kafka: Log.maybeIncrementLogStartOffset
    def maybe_increment_log_start_offset(self, new_log_start_offset: int) -> None:
        with self._lock:
            if new_log_start_offset > self.high_watermark:
                raise Errors.OFFSET_OUT_OF_RANGE.exception(
                    f"Cannot increment the log start offset to {new_log_start_offset} of partition "
                    f"{self.topic_partition} since it is larger than the high watermark {self.high_watermark}")
            if new_log_start_offset > self.log_start_offset:
                self.info("Incrementing log start offset to %d", new_log_start_offset)
                self.log_start_offset = new_log_start_offset
                self.leader_epoch_cache.truncate_from_start_async_flush(new_log_start_offset)
                self.producer_state_manager.truncate_head(new_log_start_offset)
                self.maybe_increment_first_unstable_offset()

    # ---- transactions: first unstable offset and last stable offset ----
    # Kafka: Log.firstUnstableOffset
    @property
    def first_unstable_offset(self) -> int | None:
        md = self.first_unstable_offset_metadata
        return None if md is None else md.message_offset

    # Kafka: Log.maybeIncrementFirstUnstableOffset -- take the producer state's first unstable offset, never
    # below the log start offset, with its segment position when it can be found
    def maybe_increment_first_unstable_offset(self) -> None:
        with self._lock:
            md = self.producer_state_manager.first_unstable_offset()
            if md is not None and (md.message_offset_only() or md.message_offset < self.log_start_offset):
                offset = max(md.message_offset, self.log_start_offset)
                current = self.first_unstable_offset_metadata
                if current is not None and current.message_offset == offset and not current.message_offset_only():
                    md = current    # already located (transactions replayed at load carry offsets only)
                else:
                    md = self.convert_to_offset_metadata(offset) or LogOffsetMetadata(offset)
            if md != self.first_unstable_offset_metadata:
                self.debug("First unstable offset updated to %s", md)
                self.first_unstable_offset_metadata = md

    # Kafka: Log.lastStableOffset -- every offset below it is decided (no open transaction); never above the HW
    @property
    def last_stable_offset(self) -> int:
        md = self.first_unstable_offset_metadata
        if md is not None and md.message_offset < self.high_watermark:
            return md.message_offset
        return self.high_watermark

    # Kafka: Log.lastStableOffsetLag
    @property
    def last_stable_offset_lag(self) -> int:
        return self.high_watermark - self.last_stable_offset

    # Kafka: Log.fetchLastStableOffsetMetadata
    def fetch_last_stable_offset_metadata(self) -> LogOffsetMetadata:
        md = self.first_unstable_offset_metadata
        if md is not None and md.message_offset < self.high_watermark:
            if md.message_offset_only():
                with self._lock:
                    full = self.convert_to_offset_metadata(md.message_offset)
                    if full is None:
                        return md
                    if self.first_unstable_offset_metadata == md:
                        self.first_unstable_offset_metadata = full
                    return full
            return md
        return self.fetch_high_watermark_metadata()

    # KIP-664 (Kafka 3.0, not in 2.4) Log.activeProducers -- a copy of each producer's state, sorted by id
    def active_producers(self) -> list:
        with self._lock:
            return sorted(((pid, copy.copy(e)) for pid, e in self.producer_state_manager.active_producers().items()),
                          key=lambda item: item[0])

    # Kafka: Log.collectAbortedTransactions -- every aborted transaction overlapping [start, upper bound)
    def collect_aborted_transactions(self, start_offset: int, upper_bound_offset: int) -> list:
        found = []
        for segment in self.log_segments(start_offset, None):
            result = segment.collect_aborted_txns(start_offset, upper_bound_offset)
            found.extend(result.aborted_transactions)
            if result.is_complete:
                break
        return found

    # Kafka: Log.addAbortedTransactions -- a read_committed read carries the aborted transactions overlapping
    # what it returns (up to the sparse index's bound past the fetched bytes, else the next segment or the end)
    def _add_aborted_transactions(self, start_offset: int, segment_index: int, segs, fetch: FetchDataInfo) -> FetchDataInfo:
        segment = segs[segment_index]
        start_position = OffsetPosition(fetch.fetch_offset_metadata.message_offset,
                                        fetch.fetch_offset_metadata.relative_position_in_segment)
        upper = segment.fetch_upper_bound_offset(start_position, fetch.records.size_in_bytes())
        if upper is None:
            upper = segs[segment_index + 1].base_offset if segment_index + 1 < len(segs) else self.log_end_offset
        aborted = []
        for seg in segs[segment_index:]:
            result = seg.collect_aborted_txns(start_offset, upper)
            aborted.extend(t.as_aborted_transaction() for t in result.aborted_transactions)
            if result.is_complete:
                break
        return attrs.evolve(fetch, aborted_transactions=aborted)

    # ---- read ----
    # Kafka: Log.read
    def read(self, start_offset: int, max_length: int, max_offset=None, min_one_message: bool = True,
             isolation: FetchIsolation | None = None) -> FetchDataInfo:
        """Read from ``start_offset``; ``max_offset`` (an offset or LogOffsetMetadata, e.g. the high
        watermark) bounds what is visible, or else ``isolation`` does (the log end, the high watermark,
        the last stable offset). FETCH_TXN_COMMITTED also collects the aborted transactions of the range.
        Returns a FileRecords slice, never a copy."""
        with self.maybe_handle_io_exception(lambda: f"Exception while reading from {self.topic_partition} in dir "
                                                    f"{self.parent_dir}"):
            include_aborted_txns = isolation is FetchIsolation.FETCH_TXN_COMMITTED
            if max_offset is None and isolation is FetchIsolation.FETCH_HIGH_WATERMARK:
                max_offset = self.fetch_high_watermark_metadata()
            elif max_offset is None and include_aborted_txns:
                max_offset = self.fetch_last_stable_offset_metadata()
            fetch, where = self._read(start_offset, max_length, max_offset, min_one_message)
            if include_aborted_txns:
                if where is None:   # Kafka: Log.emptyFetchDataInfo -- nothing read, no aborted transactions
                    return attrs.evolve(fetch, aborted_transactions=[])
                return self._add_aborted_transactions(start_offset, where[0], where[1], fetch)
            return fetch

    def _read(self, start_offset: int, max_length: int, max_offset, min_one_message: bool):
        """(FetchDataInfo, (index of the segment read, segment list) or None when nothing was read)."""
        end_meta = self.next_offset_metadata
        end_offset = end_meta.message_offset
        if start_offset == end_offset:
            return FetchDataInfo(end_meta, MemoryRecords.EMPTY), None
        if start_offset > end_offset or start_offset < self.log_start_offset:
            raise Errors.OFFSET_OUT_OF_RANGE.exception(
                f"Received request for offset {start_offset} for partition {self.topic_partition}, but we only "
                f"have log segments in the range {self.log_start_offset} to {end_offset}.")
        if max_offset is None:
            max_meta = end_meta
        elif isinstance(max_offset, LogOffsetMetadata):
            max_meta = max_offset
        elif max_offset >= end_offset:
            max_meta = end_meta
        else:
            max_meta = self._offset_metadata_at(max_offset)
        if start_offset >= max_meta.message_offset:
            # Nothing visible yet. As Kafka, answer with full metadata (segment and position, as
            # convertToOffsetMetadata gives), never offset-only: a DelayedFetch parked on this
            # read counts the bytes appended after that position and completes when enough come.
            if start_offset == max_meta.message_offset and not max_meta.message_offset_only():
                return FetchDataInfo(max_meta, MemoryRecords.EMPTY), None
            return FetchDataInfo(self._offset_metadata_at(start_offset), MemoryRecords.EMPTY), None
        bases, segs = self._snapshot
        i = self._floor_segment_index(bases, start_offset)
        while 0 <= i < len(segs):
            segment = segs[i]
            if max_meta.segment_base_offset == segment.base_offset:
                max_position = max_meta.relative_position_in_segment
            elif max_meta.segment_base_offset >= 0 and max_meta.segment_base_offset < segment.base_offset:
                return FetchDataInfo(LogOffsetMetadata(start_offset), MemoryRecords.EMPTY), None
            else:
                max_position = segment.size
            fetch = segment.read(start_offset, max_length, max_position, min_one_message)
            if fetch is not None:
                return fetch, (i, segs)
            i += 1
        # Kafka 2.4: past the last segment with nothing read although the start offset is in range (everything
        # from it to the end was compacted away): the log end's position, so a DelayedFetch parked here counts
        # the bytes appended after it and completes when they reach min_bytes
        return FetchDataInfo(end_meta, MemoryRecords.EMPTY), None

    def _offset_metadata_at(self, offset: int) -> LogOffsetMetadata:
        """The segment and byte position of the batch that starts at (or holds) ``offset``."""
        bases, segs = self._snapshot
        i = self._floor_segment_index(bases, offset)
        while 0 <= i < len(segs):
            found = segs[i].translate_offset(offset)
            if found is not None:
                return LogOffsetMetadata(offset, segs[i].base_offset, found.position)
            i += 1
        return self.next_offset_metadata

    # Kafka: Log.legacyFetchOffsetsBefore -- ListOffsets v0: each segment's base offset (not below the log
    # start) stamped with the segment file's mtime, plus the log end offset stamped "now" when the last
    # segment has data; the answer starts at the newest entry not after ``timestamp`` (-1 the last, -2 the
    # first) and walks back, at most ``max_num_offsets`` offsets, largest first
    def legacy_fetch_offsets_before(self, timestamp: int, max_num_offsets: int) -> list[int]:
        segments = self.log_segments()
        offset_times = [(max(s.base_offset, self.log_start_offset), s.last_modified) for s in segments]
        if segments[-1].size > 0:
            offset_times.append((self.log_end_offset, self.time.milliseconds()))
        if timestamp == LATEST_TIMESTAMP:
            start = len(offset_times) - 1
        elif timestamp == EARLIEST_TIMESTAMP:
            start = 0
        else:
            start = len(offset_times) - 1
            while start >= 0 and offset_times[start][1] > timestamp:
                start -= 1
        found = [offset_times[i][0] for i in range(start, start - min(max_num_offsets, start + 1), -1)]
        return sorted(found, reverse=True)

    # Kafka: Log.fetchOffsetByTimestamp
    def fetch_offset_by_timestamp(self, target_timestamp: int) -> TimestampAndOffset | None:
        if target_timestamp == EARLIEST_TIMESTAMP:
            first = self.leader_epoch_cache.earliest_entry()
            epoch = first.epoch if first is not None and first.start_offset <= self.log_start_offset else None
            return TimestampAndOffset(RecordBatch.NO_TIMESTAMP, self.log_start_offset, epoch)
        if target_timestamp == LATEST_TIMESTAMP:
            return TimestampAndOffset(RecordBatch.NO_TIMESTAMP, self.log_end_offset, self.leader_epoch_cache.latest_epoch)
        segs = self.log_segments()
        if target_timestamp == MAX_TIMESTAMP:
            best = max(segs, key=lambda s: s.max_timestamp_so_far)
            if best.max_timestamp_so_far < 0:
                return None
            return TimestampAndOffset(best.max_timestamp_so_far, best.offset_of_max_timestamp_so_far,
                                      self.epoch_for_offset(best.offset_of_max_timestamp_so_far))
        for segment in segs:
            if segment.largest_timestamp >= target_timestamp:
                return segment.find_offset_by_timestamp(target_timestamp, self.log_start_offset)
        return None

    # ---- leader epochs ----
    @property
    def latest_epoch(self) -> int | None:
        return self.leader_epoch_cache.latest_epoch

    def epoch_for_offset(self, offset: int) -> int | None:
        epoch = None
        for e in self.leader_epoch_cache.epochs:
            if e.start_offset <= offset:
                epoch = e.epoch
        return epoch

    # Kafka: Log.maybeAssignEpochStartOffset
    def maybe_assign_epoch_start_offset(self, leader_epoch: int, start_offset: int) -> None:
        self.leader_epoch_cache.assign(leader_epoch, start_offset)

    # Kafka: Log.endOffsetForEpoch
    def end_offset_for_epoch(self, leader_epoch: int) -> tuple[int, int] | None:
        epoch, offset = self.leader_epoch_cache.end_offset_for(leader_epoch, self.log_end_offset)
        return None if offset == -1 else (epoch, offset)

    # ---- roll and flush ----
    # Kafka: Log.maybeRoll
    def maybe_roll(self, messages_size: int, append_info: LogAppendInfo) -> LogSegment:
        segment = self.active_segment
        now = self.time.milliseconds()
        params = RollParams(self.config.segment_ms, self.config.segment_size, append_info.max_timestamp,
                            append_info.last_offset, messages_size, now)
        if segment.should_roll(params):
            self.debug("Rolling new log segment (log_size = %d/%d, offset_index_size = %d/%d, "
                       "time_index_size = %d/%d, inactive_time_ms = %d/%d).", segment.size,
                       self.config.segment_size, segment.offset_index.entries, segment.offset_index.max_entries,
                       segment.time_index.entries, segment.time_index.max_entries,
                       segment.time_waited_for_roll(now, append_info.max_timestamp),
                       self.config.segment_ms - segment.roll_jitter_ms)
            first = append_info.first_offset
            return self.roll(first if first is not None else append_info.last_offset - 0x7FFFFFFF)
        return segment

    # Kafka: Log.roll
    def roll(self, expected_next_offset: int | None = None) -> LogSegment:
        with self.maybe_handle_io_exception(lambda: f"Error while rolling log segment for {self.topic_partition} "
                                                    f"in dir {self.parent_dir}"):
            return self._roll(expected_next_offset)

    def _roll(self, expected_next_offset: int | None) -> LogSegment:
        start = self.time.hi_res_clock_ms()
        with self._lock:
            new_offset = max(expected_next_offset or 0, self.log_end_offset)
            existing = self._segments.get(new_offset)
            if existing is not None:
                if existing is self.active_segment and existing.size == 0:
                    self.warn("Trying to roll a new log segment with start offset %d while it already exists "
                              "and is active with size 0.", new_offset)
                    self._remove_segment(existing)
                    existing.delete_if_exists()
                else:
                    raise RuntimeError(f"Trying to roll a new log segment for topic partition {self.topic_partition} "
                                       f"with start offset {new_offset} while it already exists.")
            elif self._segments and new_offset < self.active_segment.base_offset:
                raise RuntimeError(f"Trying to roll a new log segment for topic partition {self.topic_partition} with "
                                   f"start offset {new_offset} lower than start offset of the active segment "
                                   f"{self.active_segment}")
            if self._segments:
                self.active_segment.on_become_inactive_segment()
            # the snapshot at the new base offset lets a recovery of the new segment start from it
            self.producer_state_manager.update_map_end_offset(new_offset)
            self.producer_state_manager.take_snapshot()
            segment = self.add_segment(LogSegment.open(self.dir, new_offset, self.config, self.time))
            self.update_log_end_offset(self.log_end_offset)
        if self.scheduler is not None:
            self.scheduler.schedule("flush-log", lambda: self.flush(new_offset), 0, -1)
        else:
            self.flush(new_offset)
        self.info("Rolled new log segment at offset %d in %d ms.", new_offset, self.time.hi_res_clock_ms() - start)
        return segment

    @property
    def unflushed_messages(self) -> int:
        return self.log_end_offset - self.recovery_point

    # Kafka: Log.flush
    def flush(self, offset: int | None = None) -> None:
        """fsync the segments holding [recovery_point, offset) and move the recovery point."""
        with self.maybe_handle_io_exception(lambda: f"Error while flushing log for {self.topic_partition} in dir "
                                                    f"{self.parent_dir} with offset {offset}"):
            self._flush(offset)

    def _flush(self, offset: int | None) -> None:
        offset = self.log_end_offset if offset is None else offset
        if offset <= self.recovery_point:
            return
        self.debug("Flushing log up to offset %d, last flushed: %d, current time: %d, unflushed: %d",
                   offset, self.last_flushed_time, self.time.milliseconds(), self.unflushed_messages)
        for segment in self.log_segments(self.recovery_point, offset):
            if segment.log.fd >= 0:
                segment.flush()
        with self._lock:
            if offset > self.recovery_point:
                self.recovery_point = offset
                self.last_flushed_time = self.time.milliseconds()

    # ---- retention ----
    # Kafka: Log.deleteOldSegments
    def delete_old_segments(self) -> int:
        if self.config.delete:
            return (self._delete_retention_ms_breached_segments() + self._delete_retention_size_breached_segments()
                    + self._delete_log_start_offset_breached_segments())
        return self._delete_log_start_offset_breached_segments()

    def _delete_retention_ms_breached_segments(self) -> int:
        if self.config.retention_ms < 0:
            return 0
        start_ms = self.time.milliseconds()
        return self._delete_old_segments(lambda seg, nxt: start_ms - seg.largest_timestamp > self.config.retention_ms,
                                         f"retention time {self.config.retention_ms}ms breach")

    def _delete_retention_size_breached_segments(self) -> int:
        if self.config.retention_size < 0 or self.size < self.config.retention_size:
            return 0
        diff = self.size - self.config.retention_size

        def should_delete(seg, nxt):
            nonlocal diff
            if diff - seg.size >= 0:
                diff -= seg.size
                return True
            return False
        return self._delete_old_segments(should_delete, f"retention size in bytes {self.config.retention_size} breach")

    def _delete_log_start_offset_breached_segments(self) -> int:
        return self._delete_old_segments(lambda seg, nxt: nxt is not None and nxt.base_offset <= self.log_start_offset,
                                         f"log start offset {self.log_start_offset} breach")

    # Kafka: Log.deleteOldSegments(predicate, reason) + deletableSegments
    def _delete_old_segments(self, predicate, reason: str) -> int:
        with self._lock:
            segs = self.log_segments()
            hw = self.high_watermark
            deletable = []
            for i, seg in enumerate(segs):
                nxt = segs[i + 1] if i + 1 < len(segs) else None
                upper = nxt.base_offset if nxt is not None else self.log_end_offset
                last_and_empty = nxt is None and seg.size == 0
                if hw >= upper and not last_and_empty and predicate(seg, nxt):
                    deletable.append(seg)
                else:
                    break
            if not deletable:
                return 0
            self.info("Found deletable segments with base offsets [%s] due to %s",
                      ",".join(str(s.base_offset) for s in deletable), reason)
            if len(deletable) == self.num_segments:
                self.roll()
            for seg in deletable:
                self._remove_segment(seg)
                self._async_delete_segment(seg)
            self.maybe_increment_log_start_offset(self.log_segments()[0].base_offset)
            return len(deletable)

    def _remove_segment(self, segment: LogSegment) -> None:
        self._segments.pop(segment.base_offset, None)
        self._publish()

    # Kafka: Log.deleteSegments (the files' part) -- files go at once; descriptors close after file.delete.delay.ms
    # so that a fetch still sending from the segment (sendfile) is not cut off.
    def _async_delete_segment(self, segment: LogSegment) -> None:
        for path in segment.files():
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        self.info("Deleting segment %d", segment.base_offset)
        if self.scheduler is not None:
            self.scheduler.schedule("delete-file", segment.close_handlers, self.config.file_delete_delay_ms, -1)
        else:
            segment.close_handlers()

    # ---- compaction (LogCleaner) ----
    # Kafka: Log.replaceSegments -- crash-safe: the new segments go from ``.cleaned`` to ``.swap`` (highest offset
    # first, so a partial rename is seen at load as an unfinished clean), then the old segments' files go, then
    # ``.swap`` becomes the plain names. LogLoader completes a swap interrupted after the first step.
    def replace_segments(self, new_segments: list[LogSegment], old_segments: list[LogSegment],
                         is_recovered_swap_file: bool = False) -> None:
        with self._lock:
            new_sorted = sorted(new_segments, key=lambda seg: seg.base_offset)
            old_sorted = sorted((seg for seg in old_segments if self._segments.get(seg.base_offset) is seg),
                                key=lambda seg: seg.base_offset)
            if not is_recovered_swap_file:
                for seg in reversed(new_sorted):
                    seg.change_file_suffixes(CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX)
                _test_crash_point("after-swap-rename")
            for seg in reversed(new_sorted):
                self._segments[seg.base_offset] = seg
            for seg in old_sorted:
                if seg.base_offset != new_sorted[0].base_offset:
                    self._segments.pop(seg.base_offset, None)
            self._publish()
            for seg in old_sorted:
                self._async_delete_segment(seg)
            _test_crash_point("after-old-deleted")
            for seg in new_sorted:
                seg.change_file_suffixes(SWAP_FILE_SUFFIX, "")

    # Kafka: Log.lastRecordsOfActiveProducers -- producer id -> (last data offset or None, epoch)
    def last_records_of_active_producers(self) -> dict:
        with self._lock:
            return {pid: (e.last_data_offset if e.last_data_offset >= 0 else None, e.producer_epoch)
                    for pid, e in self.producer_state_manager.active_producers().items()}

    # Kafka: Log.nonActiveLogSegmentsFrom
    def non_active_log_segments_from(self, from_offset: int) -> list[LogSegment]:
        return self.log_segments(from_offset, self.active_segment.base_offset)

    # Kafka: Log.name
    @property
    def name(self) -> str:
        return os.path.basename(os.path.normpath(self.dir))

    # ---- truncation ----
    # Kafka: Log.truncateTo
    def truncate_to(self, target_offset: int) -> bool:
        if target_offset < 0:
            raise ValueError(f"Cannot truncate partition {self.topic_partition} to a negative offset ({target_offset}).")
        if target_offset >= self.log_end_offset:
            self.info("Truncating to %d has no effect as the largest offset in the log is %d",
                      target_offset, self.log_end_offset - 1)
            return False
        self.info("Truncating to offset %d", target_offset)
        with self._lock:
            if self.log_segments()[0].base_offset > target_offset:
                self.truncate_fully_and_start_at(target_offset)
            else:
                for seg in self.log_segments():
                    if seg.base_offset > target_offset:
                        self._remove_segment(seg)
                        seg.delete_if_exists()
                self.active_segment.truncate_to(target_offset)
                self.update_log_end_offset(target_offset)
                self.recovery_point = min(target_offset, self.recovery_point)
                self.log_start_offset = min(target_offset, self.log_start_offset)
                self.leader_epoch_cache.truncate_from_end_async_flush(target_offset)
                self.first_unstable_offset_metadata = None
                self.load_producer_state(target_offset)   # also recomputes the first unstable offset
            return True

    # Kafka: Log.truncateFullyAndStartAt
    def truncate_fully_and_start_at(self, new_offset: int) -> None:
        self.info("Truncating to offset %d (fully)", new_offset)
        with self._lock:
            for seg in self.log_segments():
                self._remove_segment(seg)
                seg.delete_if_exists()
            self.add_segment(LogSegment.open(self.dir, new_offset, self.config, self.time))
            self.update_log_end_offset(new_offset)
            self.leader_epoch_cache.clear_and_flush()
            self.producer_state_manager.truncate()
            self.producer_state_manager.update_map_end_offset(new_offset)
            self.log_start_offset = new_offset
            self.recovery_point = new_offset
            self.update_high_watermark(new_offset)
            self.maybe_increment_first_unstable_offset()

    # ---- lifecycle ----
    # Kafka: Log.close
    def close(self) -> None:
        self.debug("Closing log")
        with self._lock:
            self._cancel_producer_expire_check()
            # a snapshot at the log end spares the next load any replay; without it the next load replays
            # from an older one, so a failed write does not keep the segments from closing
            try:
                self.producer_state_manager.take_snapshot()
            except OSError as e:
                self.warn("Could not write the producer snapshot at offset %d: %s",
                          self.producer_state_manager.map_end_offset, e)
            for seg in self.log_segments():
                seg.close()

    # Kafka: Log.closeHandlers
    def close_handlers(self) -> None:
        with self._lock:
            for seg in self.log_segments():
                seg.close_handlers()

    # Kafka: Log.renameDir -- a failed rename takes the log dir offline (KafkaStorageException)
    def rename_dir(self, name: str) -> None:
        with self._lock, self.maybe_handle_io_exception(
                lambda: f"Error while renaming dir for {self.topic_partition} in log dir {self.parent_dir}"):
            new_dir = os.path.join(os.path.dirname(os.path.normpath(self.dir)), name)
            os.replace(self.dir, new_dir)
            if new_dir != self.dir:
                self.dir = new_dir
                for seg in self.log_segments():
                    seg.update_dir(new_dir)
                self.producer_state_manager.log_dir = new_dir
                self.leader_epoch_cache.checkpoint_path = os.path.join(new_dir, LEADER_EPOCH_CHECKPOINT_FILENAME)

    # Kafka: Log.delete
    def delete(self) -> None:
        with self._lock:
            self._cancel_producer_expire_check()
            for seg in self.log_segments():
                self._remove_segment(seg)
                seg.delete_if_exists()
            self.leader_epoch_cache.clear()
            for name in os.listdir(self.dir):
                os.unlink(os.path.join(self.dir, name))
            os.rmdir(self.dir)

    def __repr__(self) -> str:
        return (f"Log(dir={self.dir}, topic={self.topic_partition.topic}, partition={self.topic_partition.partition}, "
                f"highWatermark={self.high_watermark}, lastStableOffset={self.last_stable_offset}, "
                f"logStartOffset={self.log_start_offset}, logEndOffset={self.log_end_offset})")


# No Kafka counterpart: a test-only crash point for the kill -9 tests of compaction. With the environment variable
# KAFKALITE_TEST_CLEANER_CRASH set to ``name``, the broker process exits at once (os._exit, no clean-up, as kill -9).
def _test_crash_point(name: str) -> None:
    if os.environ.get("KAFKALITE_TEST_CLEANER_CRASH") == name:
        os._exit(137)


# Kafka 2.4 passes isFromClient where 2.5+ pass an AppendOrigin; kafkalite's callers may pass either.
def to_append_origin(origin) -> AppendOrigin:
    if isinstance(origin, AppendOrigin):
        return origin
    return AppendOrigin.CLIENT if origin else AppendOrigin.COORDINATOR


# Kafka: Log.logDeleteDirName
def log_delete_dir_name(topic_partition) -> str:
    return f"{log_dir_name(topic_partition)}.{uuid.uuid4().hex}{DELETE_DIR_SUFFIX}"


# Kafka: Log.logFutureDirName -- topic-partition.uniqueId-future
def log_future_dir_name(topic_partition) -> str:
    return f"{log_dir_name(topic_partition)}.{uuid.uuid4().hex}{FUTURE_DIR_SUFFIX}"
