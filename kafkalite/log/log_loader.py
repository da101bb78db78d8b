"""Mirrors Kafka 3.0: core/src/main/scala/kafka/log/LogLoader.scala

Classes: LogLoader (turns one partition directory into its segments at start-up: removes leftovers,
opens each segment, recovers those a crash may have damaged) and LoadedLogOffsets (what it found: log
start offset, recovery point, next offset); the functions ``rebuild_producer_state`` and
``load_producers_from_log``, which replay the log into a ProducerStateManager from its latest snapshot,
for the loader (each recovered segment) and for Log (at load and after truncation).

Era notes: Kafka 2.4 keeps all of this in Log.scala (Log.loadSegments, loadSegmentFiles,
removeTempFilesAndCollectSwapFiles, recoverSegment, recoverLog, rebuildProducerState,
loadProducersFromLog); Kafka 3.0 moved it to this object (the producer-state rebuild to ``object Log``),
which is the split kafkalite follows so that Log keeps to the running log. The anchors name the 2.4 Log
methods the code came from. Unlike 3.0's LogLoader.load, loading the producer state stays with Log
(Log.load_producer_state), which owns the high watermark and first unstable offset it feeds.

Swap files (the log cleaner's crash safety, Kafka 2.4's rules): every ``.cleaned`` file is deleted (a clean
that had not begun its swap); a ``.log.swap`` below the lowest ``.cleaned`` offset is a swap that had begun: it
is recovered and replaces the segments it covers (``complete_swap_operations``); ``.swap`` files at or above
the lowest ``.cleaned`` offset were part of an unfinished rename and are deleted; index files of a swap are
rebuilt. Left out: the offset-overflow retry of legacy segments (``retryOnOffsetOverflow``, magic 0/1 only); ``-delete``
directories are never loaded as logs by kafkalite's LogManager.
"""
from __future__ import annotations

import bisect
import os

import attrs

from kafkalite.log.abstract_index import CorruptIndexException
from kafkalite.log.log_file_utils import (
    CLEANED_FILE_SUFFIX, DELETED_FILE_SUFFIX, INDEX_FILE_SUFFIX, LOG_FILE_SUFFIX, SWAP_FILE_SUFFIX,
    TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX, offset_from_file_name)
from kafkalite.log.log_segment import LogSegment
from kafkalite.log.producer_state_manager import ProducerStateManager
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import Time


def segments_between(segments: list[LogSegment], from_offset: int | None = None,
                     to_offset: int | None = None) -> list[LogSegment]:
    """The segments of an ordered list that can hold offsets in [from_offset, to_offset) (Log.log_segments)."""
    bases = [s.base_offset for s in segments]
    lo = 0 if from_offset is None else max(0, bisect.bisect_right(bases, from_offset) - 1)
    hi = len(segments) if to_offset is None else bisect.bisect_left(bases, to_offset)
    return segments[lo:hi]


# Kafka: Log.rebuildProducerState -- from the latest snapshot at or below ``last_offset`` (a corrupt one is
# dropped for the one before it), then the batches from there to ``last_offset``; snapshots are taken at the
# start of the last two segments and at ``last_offset``. Changes no state of the log but its snapshot files.
def rebuild_producer_state(producer_state_manager: ProducerStateManager, segments: list[LogSegment],
                           log_start_offset: int, last_offset: int, time: Time,
                           reload_from_clean_shutdown: bool = False) -> None:
    psm = producer_state_manager
    offsets_to_snapshot = {last_offset}
    offsets_to_snapshot.update(seg.base_offset for seg in segments[-2:])
    psm.info("Loading producer state till offset %d", last_offset)
    # reload_from_clean_shutdown: 2.4's upgrade shortcut, which kafkalite leaves out (see Log's docstring)
    is_empty_before_truncation = psm.is_empty() and psm.map_end_offset >= last_offset
    psm.truncate_and_reload(log_start_offset, last_offset, time.milliseconds())
    if last_offset > psm.map_end_offset and not is_empty_before_truncation:
        for segment in segments_between(segments, psm.map_end_offset, last_offset):
            start_offset = max(segment.base_offset, psm.map_end_offset, log_start_offset)
            psm.update_map_end_offset(start_offset)
            if segment.base_offset in offsets_to_snapshot:
                psm.take_snapshot()
            load_producers_from_log(psm, segment, start_offset, last_offset)
    psm.update_map_end_offset(last_offset)
    psm.take_snapshot()


# Kafka: Log.loadProducersFromLog -- the batches of ``segment`` holding offsets in [start, end)
def load_producers_from_log(producer_state_manager: ProducerStateManager, segment: LogSegment,
                            start_offset: int, end_offset: int) -> None:
    found = segment.translate_offset(start_offset)
    if found is None:
        return
    for batch in segment.log.batches(found.position):
        if batch.base_offset >= end_offset:
            break
        if batch.last_offset >= start_offset and batch.has_producer_id():
            producer_state_manager.load_batch(batch)


@attrs.frozen
class LoadedLogOffsets:
    """Kafka 3.0's LoadedLogOffsets: the offsets of a log as loaded from disk."""

    log_start_offset: int
    recovery_point: int
    next_offset: int


class LogLoader(Logging):
    """Kafka 3.0's object LogLoader, with the fields of its LoadLogParams; ``segments`` is filled in place."""

    def __init__(self, dir: str, topic_partition, config, time: Time, had_clean_shutdown: bool,
                 segments: dict[int, LogSegment], log_start_offset_checkpoint: int, recovery_point_checkpoint: int,
                 max_producer_id_expiration_ms: int, leader_epoch_cache):
        self.dir = dir
        self.topic_partition = topic_partition
        self.config = config
        self.time = time
        self.had_clean_shutdown = had_clean_shutdown
        self.segments = segments
        self.log_start_offset = log_start_offset_checkpoint
        self.recovery_point = recovery_point_checkpoint
        self.max_producer_id_expiration_ms = max_producer_id_expiration_ms
        self.leader_epoch_cache = leader_epoch_cache
        self.log_ident = f"[LogLoader partition={topic_partition}, dir={os.path.dirname(dir)}] "

    def _log_segments(self, from_offset: int | None = None, to_offset: int | None = None) -> list[LogSegment]:
        return segments_between([self.segments[b] for b in sorted(self.segments)], from_offset, to_offset)

    def _active_segment(self) -> LogSegment:
        return self.segments[max(self.segments)]

    def _add_segment(self, segment: LogSegment) -> None:
        self.segments[segment.base_offset] = segment

    def _remove_and_delete_segment(self, segment: LogSegment) -> None:
        self.segments.pop(segment.base_offset, None)
        segment.delete_if_exists()

    # Kafka: Log.loadSegments -- leftovers go, segments are opened (recovering any whose index is missing or
    # corrupt), then the segments a crash may have damaged are recovered; the offsets the log starts with
    def load(self) -> LoadedLogOffsets:
        try:
            return self._load()
        except BaseException:
            self.close_segments()
            raise

    def close_segments(self) -> None:
        """A load that fails (EMFILE, a disk error) leaves no segment holding a descriptor (Kafka leaves that
        to its caller, see Log.loadSegmentFiles's comment)."""
        for segment in list(self.segments.values()):
            try:
                segment.close_handlers()
            except OSError:
                pass

    def _load(self) -> LoadedLogOffsets:
        swap_files = self.remove_temp_files_and_collect_swap_files()
        self.load_segment_files()
        self.complete_swap_operations(swap_files)
        if not self.segments:
            self._add_segment(LogSegment.open(self.dir, self.log_start_offset, self.config, self.time))
            next_offset = self.log_start_offset
        else:
            next_offset = self.recover_log()
        self._active_segment().resize_indexes(self.config.max_index_size)
        self.leader_epoch_cache.truncate_from_end_async_flush(next_offset)
        log_start_offset = max(self.log_start_offset, self._log_segments()[0].base_offset)
        # Kafka: "The earliest leader epoch may not be flushed during a hard failure. Recover it here."
        self.leader_epoch_cache.truncate_from_start_async_flush(log_start_offset)
        recovery_point = (min(max(self.recovery_point, 0), next_offset) if self.had_clean_shutdown
                          else next_offset)
        if not self.had_clean_shutdown:
            # the recovery point jumps to the log end without an fsync (Kafka does the same); Kafka's close then
            # fsyncs every segment, kafkalite's only the changed ones (FileRecords.close): these count as changed
            for segment in self._log_segments():
                segment.log.mark_unflushed()
        return LoadedLogOffsets(log_start_offset, recovery_point, next_offset)

    # Kafka: Log.removeTempFilesAndCollectSwapFiles -- the ``.log.swap`` files of a swap that had begun
    def remove_temp_files_and_collect_swap_files(self) -> list[str]:
        swap_logs, min_cleaned_offset = [], None
        for name in sorted(os.listdir(self.dir)):
            path = os.path.join(self.dir, name)
            if name.endswith((DELETED_FILE_SUFFIX, ".tmp")):
                os.unlink(path)
            elif name.endswith(CLEANED_FILE_SUFFIX):
                if name.split(".")[0].isdigit():
                    offset = offset_from_file_name(name)
                    min_cleaned_offset = offset if min_cleaned_offset is None else min(min_cleaned_offset, offset)
                self.info("Deleting %s, left by a clean that had not begun its swap", path)
                os.unlink(path)
            elif name.endswith(SWAP_FILE_SUFFIX):
                self.info("Found file %s from interrupted swap operation.", path)
                if name.endswith(LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX):
                    swap_logs.append(path)
                else:
                    os.unlink(path)   # an index of the swap: rebuilt when the swap segment is recovered
        valid = []
        for path in swap_logs:   # KAFKA-6264: above the lowest .cleaned file, the swap had not finished its renames
            if min_cleaned_offset is not None and offset_from_file_name(path) >= min_cleaned_offset:
                self.info("Deleting invalid swap file %s (lowest .cleaned offset %d)", path, min_cleaned_offset)
                os.unlink(path)
            else:
                valid.append(path)
        return valid

    # Kafka: Log.completeSwapOperations -- recover each swap segment and let it replace the segments it covers
    def complete_swap_operations(self, swap_files: list[str]) -> None:
        for swap_file in swap_files:
            base_offset = offset_from_file_name(swap_file)
            swap_segment = LogSegment.open(self.dir, base_offset, self.config, self.time, file_already_exists=True,
                                           file_suffix=SWAP_FILE_SUFFIX)
            self.info("Found log file %s from interrupted swap operation, repairing.", swap_file)
            self.recover_segment(swap_segment)
            swap_next_offset = swap_segment.read_next_offset()
            old_segments = [seg for seg in self._log_segments(swap_segment.base_offset, swap_next_offset)
                            if seg.read_next_offset() > swap_segment.base_offset]
            same_base = self.segments.get(swap_segment.base_offset)   # a swap emptied by the clean covers no offset
            if same_base is not None and same_base not in old_segments:
                old_segments.append(same_base)
            for seg in old_segments:   # Log.replaceSegments(isRecoveredSwapFile = true)
                self._remove_and_delete_segment(seg)
            swap_segment.change_file_suffixes(SWAP_FILE_SUFFIX, "")
            self._add_segment(swap_segment)

    # Kafka: Log.loadSegmentFiles -- in offset order, since a recovered segment replays the ones before it
    def load_segment_files(self) -> None:
        for name in sorted(os.listdir(self.dir)):
            path = os.path.join(self.dir, name)
            if name.endswith((INDEX_FILE_SUFFIX, TIME_INDEX_FILE_SUFFIX, TXN_INDEX_FILE_SUFFIX)):
                log_path = os.path.join(self.dir, name.split(".")[0] + LOG_FILE_SUFFIX)
                if not os.path.exists(log_path):
                    self.warn("Found an orphaned index file %s, with no corresponding log file.", path)
                    os.unlink(path)
        log_names = [name for name in sorted(os.listdir(self.dir)) if name.endswith(LOG_FILE_SUFFIX)]
        for name in log_names:
            base_offset = offset_from_file_name(name)
            segment = LogSegment.open(self.dir, base_offset, self.config, self.time, file_already_exists=True)
            # KAFKA-7283: the indexes of segments below the recovery point are neither checked nor mapped here
            # (LazyIndex); kafkalite checks those of the last segment and of any at or above the recovery point
            check_indexes = name == log_names[-1] or base_offset >= self.recovery_point
            try:
                try:
                    segment.sanity_check(check_indexes)
                except (CorruptIndexException, FileNotFoundError) as e:
                    self.error("Could not find offset index file corresponding to log file %s or the index is "
                               "corrupt (%s), recovering segment and rebuilding index files...", segment.log.file, e)
                    truncated = self.recover_segment(segment)
                    if truncated > 0:   # whatever path finds it, dropped bytes are always reported
                        self.warn("Corruption found in segment %d: dropped %d invalid bytes, truncating to offset %d",
                                  segment.base_offset, truncated, segment.read_next_offset())
            except BaseException:
                segment.close_handlers()
                raise
            self._add_segment(segment)

    # Kafka: Log.recoverSegment -- replayed with the producer state of the segments before it (from their
    # latest snapshot), so that its transaction index is rebuilt with the right last stable offsets; the
    # snapshot taken afterwards spares the next segment's recovery the same replay.
    def recover_segment(self, segment: LogSegment) -> int:
        producer_state_manager = ProducerStateManager(self.topic_partition, self.dir, self.max_producer_id_expiration_ms)
        rebuild_producer_state(producer_state_manager, self._log_segments(), self.log_start_offset,
                               segment.base_offset, self.time)
        truncated = segment.recover(producer_state_manager, leader_epoch_cache=self.leader_epoch_cache)
        producer_state_manager.take_snapshot()
        return truncated

    # Kafka: Log.recoverLog -- after a crash, every segment from the recovery point on; after a clean shutdown
    # only the active segment's tail (kafkalite's check); returns the next offset
    def recover_log(self) -> int:
        if self.had_clean_shutdown:
            active = self._active_segment()
            if not active.has_valid_tail():   # kafkalite's check, see LogSegment.has_valid_tail
                truncated = self.recover_segment(active)
                self.warn("Damaged tail found in segment %d after a clean shutdown: dropped %d invalid bytes, "
                          "truncating to offset %d", active.base_offset, truncated, active.read_next_offset())
        else:
            unflushed = self._log_segments(self.recovery_point, None)
            for i, segment in enumerate(unflushed):
                self.info("Recovering unflushed segment %d", segment.base_offset)
                truncated = self.recover_segment(segment)
                if truncated > 0:
                    self.warn("Corruption found in segment %d: dropped %d invalid bytes, truncating to offset %d",
                              segment.base_offset, truncated, segment.read_next_offset())
                    for later in unflushed[i + 1:]:
                        self.warn("Deleting segment %d, which follows the corrupt one", later.base_offset)
                        self._remove_and_delete_segment(later)
                    break
        log_end_offset = self._active_segment().read_next_offset()
        if log_end_offset < self.log_start_offset:
            self.warn("Deleting all segments because logEndOffset (%d) is smaller than logStartOffset (%d). "
                      "This could happen if segment files were deleted from the file system.",
                      log_end_offset, self.log_start_offset)
            for segment in self._log_segments():
                self._remove_and_delete_segment(segment)
            self._add_segment(LogSegment.open(self.dir, self.log_start_offset, self.config, self.time))
            return self.log_start_offset
        return log_end_offset
