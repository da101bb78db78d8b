"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LogCleanerManager.scala

Classes: LogCleanerManager (which compacted log to clean next, the cleaning state of each partition, the
``cleaner-offset-checkpoint`` file of each log dir), the states LogCleaningInProgress / LogCleaningAborted /
LogCleaningPaused, LogToClean (from LogCleaner.scala: one candidate log with its dirty ratio) and the
functions of ``object LogCleanerManager`` (cleanable_offsets, calculate_cleanable_bytes, max_compaction_delay).

A log's *clean* part runs from its start to the checkpointed offset, its *dirty* part from there to the
*first uncleanable offset*: the smallest of the first unstable offset (open transactions), the active
segment's base offset and the base of the first segment younger than ``min.compaction.lag.ms``. The cleaner
takes the log whose dirty bytes / (clean + dirty) bytes is largest, if above ``min.cleanable.dirty.ratio``, or
any log with dirty bytes older than ``max.compaction.lag.ms``.

A partition that is deleted, truncated or moved to another log dir is *aborted* (``abort_and_pause_cleaning``
waits until the cleaner thread has noticed) and stays *paused* until ``resume_cleaning``.

Left out: the ``uncleanable-bytes`` gauge (``uncleanable-partitions-count`` and ``max-dirty-percent`` and
``time-since-last-run-ms`` are there).
"""
from __future__ import annotations

import os
import threading

from kafkalite.log.checkpoint_file import OffsetCheckpointFile
from kafkalite.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM

OFFSET_CHECKPOINT_FILE = "cleaner-offset-checkpoint"


class LogCleaningAbortedException(Exception):
    """Kafka: LogCleaningAbortedException -- the partition's cleaning was aborted; the clean is dropped."""


class LogCleaningException(Exception):
    """Kafka: LogCleaningException -- an unexpected error while cleaning ``log``."""

    def __init__(self, log, message: str):
        super().__init__(message)
        self.log = log


# Kafka: LogCleaningState and its case objects / class
class LogCleaningState:
    pass


class _InProgress(LogCleaningState):
    def __repr__(self) -> str:
        return "LogCleaningInProgress"


class _Aborted(LogCleaningState):
    def __repr__(self) -> str:
        return "LogCleaningAborted"


LogCleaningInProgress = _InProgress()
LogCleaningAborted = _Aborted()


class LogCleaningPaused(LogCleaningState):
    """Kafka: LogCleaningPaused(pausedCount) -- paused ``paused_count`` times, resumed as often."""

    def __init__(self, paused_count: int):
        self.paused_count = paused_count

    def __eq__(self, other) -> bool:
        return isinstance(other, LogCleaningPaused) and other.paused_count == self.paused_count

    def __hash__(self) -> int:
        return hash(("paused", self.paused_count))

    def __repr__(self) -> str:
        return f"LogCleaningPaused({self.paused_count})"


class LogToClean:
    """Kafka: LogToClean (LogCleaner.scala) -- a compacted log with its clean and cleanable bytes."""

    def __init__(self, topic_partition, log, first_dirty_offset: int, uncleanable_offset: int,
                 need_compaction_now: bool = False):
        self.topic_partition = topic_partition
        self.log = log
        self.first_dirty_offset = first_dirty_offset
        self.need_compaction_now = need_compaction_now
        self.clean_bytes = sum(s.size for s in log.log_segments(-1, first_dirty_offset))
        self.first_uncleanable_offset, self.cleanable_bytes = calculate_cleanable_bytes(
            log, first_dirty_offset, uncleanable_offset)
        self.total_bytes = self.clean_bytes + self.cleanable_bytes
        self.cleanable_ratio = self.cleanable_bytes / self.total_bytes if self.total_bytes else 0.0

    def __repr__(self) -> str:
        return (f"LogToClean({self.topic_partition}, firstDirtyOffset={self.first_dirty_offset}, "
                f"firstUncleanableOffset={self.first_uncleanable_offset}, ratio={self.cleanable_ratio:.3f})")


class PreCleanStats:
    """Kafka: PreCleanStats -- how late the most overdue log (max.compaction.lag.ms) is."""

    def __init__(self):
        self.max_compaction_delay_ms = 0
        self.delayed_partitions = 0
        self.cleanable_partitions = 0

    # Kafka: PreCleanStats.updateMaxCompactionDelay
    def update_max_compaction_delay(self, delay_ms: int) -> None:
        self.max_compaction_delay_ms = max(self.max_compaction_delay_ms, delay_ms)
        if delay_ms > 0:
            self.delayed_partitions += 1


class LogCleanerManager(Logging, KafkaMetricsGroup):
    """Kafka: LogCleanerManager. ``logs`` is the LogManager's live dict of current logs."""

    metrics_group = "kafka.log"

    # Kafka: LogCleanerManager.<init>
    def __init__(self, log_dirs: list[str], logs: dict, log_dir_failure_channel=None, time=SYSTEM):
        self.log_dirs = list(log_dirs)
        self.logs = logs
        self.log_dir_failure_channel = log_dir_failure_channel
        self.time = time
        self.log_ident = "[LogCleanerManager] "
        self.checkpoints = {d: OffsetCheckpointFile(os.path.join(d, OFFSET_CHECKPOINT_FILE)) for d in self.log_dirs}
        self.in_progress: dict = {}
        self.uncleanable_partitions: dict[str, set] = {}
        self._lock = threading.RLock()
        self._paused_cleaning_cond = threading.Condition(self._lock)
        self.dirtiest_log_cleanable_ratio = 0.0
        self.time_of_last_run = time.milliseconds()
        for d in self.log_dirs:
            self.new_gauge("uncleanable-partitions-count",
                           lambda d=d: len(self.uncleanable_partitions.get(d, ())), {"logDirectory": d})
        self.new_gauge("max-dirty-percent", lambda: int(100 * self.dirtiest_log_cleanable_ratio))
        self.new_gauge("time-since-last-run-ms", lambda: self.time.milliseconds() - self.time_of_last_run)

    def remove_metrics(self) -> None:
        for d in self.log_dirs:
            self.remove_metric("uncleanable-partitions-count", {"logDirectory": d})
        self.remove_metric("max-dirty-percent")
        self.remove_metric("time-since-last-run-ms")

    # Kafka: LogCleanerManager.allCleanerCheckpoints
    def all_cleaner_checkpoints(self) -> dict:
        with self._lock:
            found = {}
            for d, checkpoint in list(self.checkpoints.items()):
                try:
                    found.update(checkpoint.read())
                except OSError as e:
                    self.error("Failed to access checkpoint file %s in dir %s: %s", OFFSET_CHECKPOINT_FILE, d, e)
            return found

    # Kafka: LogCleanerManager.cleaningState
    def cleaning_state(self, tp):
        with self._lock:
            return self.in_progress.get(tp)

    # Kafka: LogCleanerManager.setCleaningState
    def set_cleaning_state(self, tp, state: LogCleaningState) -> None:
        with self._lock:
            self.in_progress[tp] = state

    # Kafka: LogCleanerManager.grabFilthiestCompactedLog -- marks the chosen log in progress
    def grab_filthiest_compacted_log(self, time=None, pre_clean_stats: PreCleanStats | None = None):
        time = time or self.time
        pre_clean_stats = pre_clean_stats or PreCleanStats()
        with self._lock:
            now = time.milliseconds()
            self.time_of_last_run = now
            last_clean = self.all_cleaner_checkpoints()
            dirty_logs = []
            for tp, log in list(self.logs.items()):
                if not log.config.compact or tp in self.in_progress or self._is_uncleanable_partition(log, tp):
                    continue
                try:
                    first_dirty, first_uncleanable = cleanable_offsets(log, last_clean.get(tp), now)
                    delay_ms = max_compaction_delay(log, first_dirty, now)
                    pre_clean_stats.update_max_compaction_delay(delay_ms)
                    ltc = LogToClean(tp, log, first_dirty, first_uncleanable, delay_ms > 0)
                except Exception as e:   # noqa: BLE001 -- Kafka wraps any Throwable
                    raise LogCleaningException(log, f"Failed to calculate log cleaning stats for partition {tp}") from e
                if ltc.total_bytes > 0:
                    dirty_logs.append(ltc)
            self.dirtiest_log_cleanable_ratio = max((l.cleanable_ratio for l in dirty_logs), default=0.0)
            cleanable = [l for l in dirty_logs
                         if (l.need_compaction_now and l.cleanable_bytes > 0)
                         or l.cleanable_ratio > l.log.config.min_cleanable_ratio]
            if not cleanable:
                return None
            pre_clean_stats.cleanable_partitions = len(cleanable)
            filthiest = max(cleanable, key=lambda l: l.cleanable_ratio)
            self.in_progress[filthiest.topic_partition] = LogCleaningInProgress
            return filthiest

    # Kafka: LogCleanerManager.pauseCleaningForNonCompactedPartitions -- for the retention task
    def pause_cleaning_for_non_compacted_partitions(self) -> list:
        with self._lock:
            deletable = [(tp, log) for tp, log in list(self.logs.items())
                         if not log.config.compact and tp not in self.in_progress]
            for tp, _ in deletable:
                self.in_progress[tp] = LogCleaningPaused(1)
            return deletable

    # Kafka: LogCleanerManager.deletableLogs -- compacted logs whose retention the cleaner thread runs
    def deletable_logs(self) -> list:
        with self._lock:
            to_clean = [(tp, log) for tp, log in list(self.logs.items())
                        if tp not in self.in_progress and log.config.compact
                        and not self._is_uncleanable_partition(log, tp)]
            for tp, _ in to_clean:
                self.in_progress[tp] = LogCleaningInProgress
            return to_clean

    # Kafka: LogCleanerManager.abortCleaning
    def abort_cleaning(self, tp) -> None:
        with self._lock:
            self.abort_and_pause_cleaning(tp)
            self.resume_cleaning([tp])
        self.info("The cleaning for partition %s is aborted", tp)

    # Kafka: LogCleanerManager.abortAndPauseCleaning -- returns once the cleaner thread has let go of it
    def abort_and_pause_cleaning(self, tp) -> None:
        with self._lock:
            state = self.in_progress.get(tp)
            if state is None:
                self.in_progress[tp] = LogCleaningPaused(1)
            elif state is LogCleaningInProgress:
                self.in_progress[tp] = LogCleaningAborted
            elif isinstance(state, LogCleaningPaused):
                self.in_progress[tp] = LogCleaningPaused(state.paused_count + 1)
            else:
                raise RuntimeError(f"Compaction for partition {tp} cannot be aborted and paused since it is "
                                   f"in {state} state.")
            while not self._is_cleaning_in_state_paused(tp):
                self._paused_cleaning_cond.wait(0.1)
        self.info("The cleaning for partition %s is aborted and paused", tp)

    # Kafka: LogCleanerManager.resumeCleaning
    def resume_cleaning(self, tps) -> None:
        with self._lock:
            for tp in tps:
                state = self.in_progress.get(tp)
                if state is None:
                    raise RuntimeError(f"Compaction for partition {tp} cannot be resumed since it is not paused.")
                if isinstance(state, LogCleaningPaused) and state.paused_count == 1:
                    del self.in_progress[tp]
                elif isinstance(state, LogCleaningPaused):
                    self.in_progress[tp] = LogCleaningPaused(state.paused_count - 1)
                else:
                    raise RuntimeError(f"Compaction for partition {tp} cannot be resumed since it is in {state} state.")

    def _is_cleaning_in_state_paused(self, tp) -> bool:
        return isinstance(self.in_progress.get(tp), LogCleaningPaused)

    # Kafka: LogCleanerManager.checkCleaningAborted
    def check_cleaning_aborted(self, tp) -> None:
        with self._lock:
            if self.in_progress.get(tp) is LogCleaningAborted:
                raise LogCleaningAbortedException()

    # Kafka: LogCleanerManager.updateCheckpoints -- drops partitions no longer here, adds ``update``
    def update_checkpoints(self, data_dir: str, update: tuple | None = None) -> None:
        with self._lock:
            checkpoint = self.checkpoints.get(data_dir)
            if checkpoint is None:
                return
            try:
                existing = {tp: o for tp, o in checkpoint.read().items() if tp in self.logs}
                if update is not None:
                    existing[update[0]] = update[1]
                checkpoint.write(existing)
            except OSError as e:
                self.error("Failed to access checkpoint file %s in dir %s: %s", OFFSET_CHECKPOINT_FILE, data_dir, e)
                if self.log_dir_failure_channel is not None:
                    self.log_dir_failure_channel.maybe_add_offline_log_dir(
                        data_dir, f"Failed to write {OFFSET_CHECKPOINT_FILE} in {data_dir}", e)

    # Kafka: LogCleanerManager.alterCheckpointDir -- a replica moved from ``source`` to ``dest``
    def alter_checkpoint_dir(self, tp, source_log_dir: str, dest_log_dir: str) -> None:
        with self._lock:
            checkpoint = self.checkpoints.get(source_log_dir)
            offset = checkpoint.read().get(tp) if checkpoint is not None else None
            if offset is not None:
                self.update_checkpoints(source_log_dir, None)
                self.update_checkpoints(dest_log_dir, (tp, offset))
            if tp in self.uncleanable_partitions.get(source_log_dir, set()):
                self.uncleanable_partitions[source_log_dir].discard(tp)
                self.mark_partition_uncleanable(dest_log_dir, tp)

    # Kafka: LogCleanerManager.handleLogDirFailure
    def handle_log_dir_failure(self, d: str) -> None:
        self.info("Stopping cleaning logs in dir %s", d)
        with self._lock:
            self.checkpoints.pop(d, None)

    # Kafka: LogCleanerManager.maybeTruncateCheckpoint -- a truncated log is dirty again from ``offset``
    def maybe_truncate_checkpoint(self, data_dir: str, tp, offset: int) -> None:
        with self._lock:
            log = self.logs.get(tp)
            checkpoint = self.checkpoints.get(data_dir)
            if log is None or not log.config.compact or checkpoint is None:
                return
            existing = checkpoint.read()
            if existing.get(tp, 0) > offset:
                existing[tp] = offset
                checkpoint.write(existing)

    # Kafka: LogCleanerManager.doneCleaning
    def done_cleaning(self, tp, data_dir: str, end_offset: int) -> None:
        with self._lock:
            state = self.in_progress.get(tp)
            if state is LogCleaningInProgress:
                self.update_checkpoints(data_dir, (tp, end_offset))
                del self.in_progress[tp]
            elif state is LogCleaningAborted:
                self.in_progress[tp] = LogCleaningPaused(1)
                self._paused_cleaning_cond.notify_all()
            elif state is None:
                raise RuntimeError(f"State for partition {tp} should exist.")
            else:
                raise RuntimeError(f"In-progress partition {tp} cannot be in {state} state.")

    # Kafka: LogCleanerManager.doneDeleting
    def done_deleting(self, tps) -> None:
        with self._lock:
            for tp in tps:
                state = self.in_progress.get(tp)
                if state is LogCleaningInProgress:
                    del self.in_progress[tp]
                elif state is LogCleaningAborted:
                    self.in_progress[tp] = LogCleaningPaused(1)
                    self._paused_cleaning_cond.notify_all()
                elif state is None:
                    raise RuntimeError(f"State for partition {tp} should exist.")
                else:
                    raise RuntimeError(f"In-progress partition {tp} cannot be in {state} state.")

    # Kafka: LogCleanerManager.markPartitionUncleanable
    def mark_partition_uncleanable(self, log_dir: str, tp) -> None:
        with self._lock:
            self.uncleanable_partitions.setdefault(log_dir, set()).add(tp)

    def _is_uncleanable_partition(self, log, tp) -> bool:
        return tp in self.uncleanable_partitions.get(log.parent_dir, ())


# Kafka: LogCleanerManager.isCompactAndDelete
def is_compact_and_delete(log) -> bool:
    return log.config.compact and log.config.delete


# Kafka: LogCleanerManager.maxCompactionDelay -- how long past max.compaction.lag.ms the oldest dirty batch is
def max_compaction_delay(log, first_dirty_offset: int, now: int) -> int:
    timestamps = [t for t in (s.get_first_batch_timestamp() for s in log.non_active_log_segments_from(first_dirty_offset))
                  if t > 0]
    earliest = min(timestamps) if timestamps else None
    clean_until_time = now - max(log.config.max_compaction_lag_ms, 0)
    if earliest is not None and earliest < clean_until_time:
        return clean_until_time - earliest
    return 0


# Kafka: LogCleanerManager.cleanableOffsets -- (first dirty offset, first uncleanable offset)
def cleanable_offsets(log, last_clean_offset: int | None, now: int) -> tuple[int, int]:
    log_start_offset = log.log_start_offset
    checkpoint_dirty_offset = log_start_offset if last_clean_offset is None else last_clean_offset
    if checkpoint_dirty_offset < log_start_offset:
        first_dirty_offset = log_start_offset
    elif checkpoint_dirty_offset > log.log_end_offset:
        log.warn("The last checkpoint dirty offset for partition %s is %d, which is larger than the log end offset "
                 "%d. Resetting to the log start offset %d.", log.topic_partition, checkpoint_dirty_offset,
                 log.log_end_offset, log_start_offset)
        first_dirty_offset = log_start_offset
    else:
        first_dirty_offset = checkpoint_dirty_offset
    candidates = [log.active_segment.base_offset]
    if log.first_unstable_offset is not None:      # never clean an open transaction
        candidates.append(log.first_unstable_offset)
    min_compaction_lag_ms = max(log.config.compaction_lag_ms, 0)
    if min_compaction_lag_ms > 0:                  # nor a segment younger than min.compaction.lag.ms
        for s in log.non_active_log_segments_from(first_dirty_offset):
            if s.largest_timestamp > now - min_compaction_lag_ms:
                candidates.append(s.base_offset)
                break
    return first_dirty_offset, max(first_dirty_offset, min(candidates))


# Kafka: LogCleanerManager.calculateCleanableBytes -- (first uncleanable segment's base, cleanable bytes)
def calculate_cleanable_bytes(log, first_dirty_offset: int, uncleanable_offset: int) -> tuple[int, int]:
    non_active = log.non_active_log_segments_from(uncleanable_offset)
    first_uncleanable_segment = non_active[0] if non_active else log.active_segment
    first_uncleanable_offset = first_uncleanable_segment.base_offset
    cleanable_bytes = sum(s.size for s in log.log_segments(first_dirty_offset,
                                                           max(first_dirty_offset, first_uncleanable_offset)))
    return first_uncleanable_offset, cleanable_bytes
