"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LogCleaner.scala

Classes: LogCleaner (owns the LogCleanerManager and ``log.cleaner.threads`` CleanerThreads, registers the
cleaner's gauges) and CleanerThread (a ShutdownableThread named ``kafka-log-cleaner-thread-<n>``: take the
filthiest compacted log, clean it, record its stats, run retention on compacted logs; back off
``log.cleaner.backoff.ms`` when there is nothing to clean). The Cleaner itself is in cleaner.py.

Gauges (kafka.log:type=LogCleaner): ``max-buffer-utilization-percent``, ``cleaner-recopy-percent``,
``max-clean-time-secs``, ``max-compaction-delay-secs``, ``DeadThreadCount``; the manager adds
``max-dirty-percent`` and ``time-since-last-run-ms`` (kafka.log:type=LogCleanerManager).

Left out: dynamic reconfiguration of the cleaner (BrokerReconfigurable), the I/O throttler.
"""
from __future__ import annotations

from kafkalite.log.cleaner import Cleaner, CleanerStats
from kafkalite.log.log_cleaner_manager import (
    LogCleanerManager, LogCleaningAbortedException, LogCleaningException, PreCleanStats)
from kafkalite.log.offset_map import SkimpyOffsetMap
from kafkalite.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafkalite.protocol.errors import ApiException
from kafkalite.utils.logging import Logging
from kafkalite.utils.shutdownable_thread import ShutdownableThread
from kafkalite.utils.time import SYSTEM


class ThreadShutdownException(Exception):
    """Kafka: ThreadShutdownException -- the cleaner thread was asked to stop mid-clean."""


class LogCleaner(Logging, KafkaMetricsGroup):
    """Kafka: LogCleaner."""
    logger_name = "kafka.log.LogCleaner"   # Kafka: the log4j logger its lines go to

    metrics_group = "kafka.log"

    # Kafka: LogCleaner.<init>
    def __init__(self, initial_config, log_dirs: list[str], logs: dict, log_dir_failure_channel=None, time=SYSTEM):
        self.config = initial_config
        self.log_dirs = list(log_dirs)
        self.logs = logs
        self.log_dir_failure_channel = log_dir_failure_channel
        self.time = time
        self.cleaner_manager = LogCleanerManager(self.log_dirs, logs, log_dir_failure_channel, time)
        self.cleaners: list[CleanerThread] = []
        self.new_gauge("max-buffer-utilization-percent",
                       lambda: int(max((100 * c.last_stats.buffer_utilization for c in self.cleaners), default=0)))
        self.new_gauge("cleaner-recopy-percent", self._recopy_percent)
        self.new_gauge("max-clean-time-secs",
                       lambda: int(max((c.last_stats.elapsed_secs for c in self.cleaners), default=0)))
        self.new_gauge("max-compaction-delay-secs", lambda: max(0, int(max(
            (c.last_pre_clean_stats.max_compaction_delay_ms for c in self.cleaners), default=0) / 1000)))
        self.new_gauge("DeadThreadCount", lambda: self.dead_thread_count)

    def _recopy_percent(self) -> int:
        stats = [c.last_stats for c in self.cleaners]
        return int(100 * sum(s.bytes_written for s in stats) / max(sum(s.bytes_read for s in stats), 1))

    # Kafka: LogCleaner.deadThreadCount
    @property
    def dead_thread_count(self) -> int:
        return sum(1 for c in self.cleaners if c.is_thread_failed)

    # Kafka: LogCleaner.startup
    def startup(self) -> None:
        self.info("Starting the log cleaner")
        for i in range(self.config.num_threads):
            cleaner = CleanerThread(self, i)
            self.cleaners.append(cleaner)
            cleaner.start()

    # Kafka: LogCleaner.shutdown
    def shutdown(self) -> None:
        self.info("Shutting down the log cleaner.")
        for c in self.cleaners:
            c.initiate_shutdown()
        for c in self.cleaners:
            c.await_shutdown()
        self.cleaners.clear()
        for name in ("max-buffer-utilization-percent", "cleaner-recopy-percent", "max-clean-time-secs",
                     "max-compaction-delay-secs", "DeadThreadCount"):
            self.remove_metric(name)
        self.cleaner_manager.remove_metrics()

    # Kafka: LogCleaner.abortCleaning
    def abort_cleaning(self, tp) -> None:
        self.cleaner_manager.abort_cleaning(tp)

    # Kafka: LogCleaner.updateCheckpoints
    def update_checkpoints(self, data_dir: str) -> None:
        self.cleaner_manager.update_checkpoints(data_dir, None)

    # Kafka: LogCleaner.alterCheckpointDir
    def alter_checkpoint_dir(self, tp, source_log_dir: str, dest_log_dir: str) -> None:
        self.cleaner_manager.alter_checkpoint_dir(tp, source_log_dir, dest_log_dir)

    # Kafka: LogCleaner.handleLogDirFailure
    def handle_log_dir_failure(self, d: str) -> None:
        self.cleaner_manager.handle_log_dir_failure(d)

    # Kafka: LogCleaner.maybeTruncateCheckpoint
    def maybe_truncate_checkpoint(self, data_dir: str, tp, offset: int) -> None:
        self.cleaner_manager.maybe_truncate_checkpoint(data_dir, tp, offset)

    # Kafka: LogCleaner.abortAndPauseCleaning
    def abort_and_pause_cleaning(self, tp) -> None:
        self.cleaner_manager.abort_and_pause_cleaning(tp)

    # Kafka: LogCleaner.resumeCleaning
    def resume_cleaning(self, tps) -> None:
        self.cleaner_manager.resume_cleaning(tps)

    # Kafka: LogCleaner.pauseCleaningForNonCompactedPartitions
    def pause_cleaning_for_non_compacted_partitions(self) -> list:
        return self.cleaner_manager.pause_cleaning_for_non_compacted_partitions()


class CleanerThread(ShutdownableThread):
    """Kafka: LogCleaner.CleanerThread."""
    logger_name = "kafka.log.LogCleaner"   # Kafka: the log4j logger its lines go to

    # Kafka: CleanerThread.<init>
    def __init__(self, log_cleaner: LogCleaner, thread_id: int):
        super().__init__(f"kafka-log-cleaner-thread-{thread_id}", is_interruptible=False)
        self.log_cleaner = log_cleaner
        config = log_cleaner.config
        self.cleaner_manager = log_cleaner.cleaner_manager
        self.cleaner = Cleaner(
            thread_id, SkimpyOffsetMap(min(config.dedupe_buffer_size // config.num_threads, (1 << 31) - 1)),
            io_buffer_size=max(1024, config.io_buffer_size // config.num_threads // 2),
            max_io_buffer_size=config.max_message_size, dup_buffer_load_factor=config.dedupe_buffer_load_factor,
            time=log_cleaner.time, check_done=self._check_done)
        self.last_stats = CleanerStats(log_cleaner.time)
        self.last_pre_clean_stats = PreCleanStats()

    # Kafka: CleanerThread.checkDone
    def _check_done(self, tp) -> None:
        if not self.is_running:
            raise ThreadShutdownException()
        self.cleaner_manager.check_cleaning_aborted(tp)

    # Kafka: CleanerThread.doWork
    def do_work(self) -> None:
        if not self._try_clean_filthiest_log():
            self.pause(self.log_cleaner.config.back_off_ms)

    # Kafka: CleanerThread.tryCleanFilthiestLog -- a log that fails is marked uncleanable, the thread goes on
    def _try_clean_filthiest_log(self) -> bool:
        try:
            return self._clean_filthiest_log()
        except ThreadShutdownException:
            return False
        except LogCleaningException as e:
            self.warn("Unexpected exception thrown when cleaning log %s. Marking its partition (%s) as uncleanable",
                      e.log, e.log.topic_partition, exc_info=e)
            self.cleaner_manager.mark_partition_uncleanable(e.log.parent_dir, e.log.topic_partition)
            return False

    # Kafka: CleanerThread.cleanFilthiestLog
    def _clean_filthiest_log(self) -> bool:
        pre_clean_stats = PreCleanStats()
        cleanable = self.cleaner_manager.grab_filthiest_compacted_log(self.log_cleaner.time, pre_clean_stats)
        cleaned = False
        if cleanable is not None:
            self.last_pre_clean_stats = pre_clean_stats
            try:
                self._clean_log(cleanable)
                cleaned = True
            except ThreadShutdownException:
                raise
            except Exception as e:   # noqa: BLE001 -- as Kafka: any failure marks the log uncleanable
                raise LogCleaningException(cleanable.log, str(e)) from e
        deletable = self.cleaner_manager.deletable_logs()
        try:
            for _, log in deletable:
                try:
                    log.delete_old_segments()
                except Exception as e:   # noqa: BLE001
                    raise LogCleaningException(log, str(e)) from e
        finally:
            self.cleaner_manager.done_deleting([tp for tp, _ in deletable])
        return cleaned

    # Kafka: CleanerThread.cleanLog -- the checkpoint moves to the end of what was cleaned, unless aborted
    def _clean_log(self, cleanable) -> None:
        end_offset = cleanable.first_dirty_offset
        try:
            next_dirty_offset, stats = self.cleaner.clean(cleanable)
            self.record_stats(self.cleaner.id, cleanable.log.name, cleanable.first_dirty_offset, next_dirty_offset,
                              stats)
            end_offset = next_dirty_offset
        except LogCleaningAbortedException:
            pass    # the partition was deleted, truncated or moved: let it go
        except ApiException as e:   # KafkaStorageException: the log dir is already offline
            self.warn("Cleaning of %s stopped: %s", cleanable.topic_partition, e)
        except OSError as e:
            log_directory = cleanable.log.parent_dir
            msg = f"Failed to clean up log for {cleanable.topic_partition} in dir {log_directory} due to IOException"
            if self.log_cleaner.log_dir_failure_channel is not None:
                self.log_cleaner.log_dir_failure_channel.maybe_add_offline_log_dir(log_directory, msg, e)
            else:
                self.error(msg, exc_info=e)
        finally:
            self.cleaner_manager.done_cleaning(cleanable.topic_partition, cleanable.log.parent_dir, end_offset)

    # Kafka: CleanerThread.recordStats
    def record_stats(self, id: int, name: str, from_offset: int, to_offset: int, stats: CleanerStats) -> None:
        self.last_stats = stats
        mb = 1024 * 1024
        secs = max(stats.elapsed_secs, 1e-3)
        self.info("Log cleaner thread %d cleaned log %s (dirty section = [%d, %d]): %.1f MB of log processed in "
                  "%.1f seconds (%.1f MB/sec); buffer utilization %.1f%%; start size %.1f MB (%d messages), end "
                  "size %.1f MB (%d messages), %.1f%% size reduction", id, name, from_offset, to_offset,
                  stats.bytes_read / mb, stats.elapsed_secs, stats.bytes_read / mb / secs,
                  100 * stats.buffer_utilization, stats.bytes_read / mb, stats.messages_read,
                  stats.bytes_written / mb, stats.messages_written,
                  100.0 * (1.0 - stats.bytes_written / max(stats.bytes_read, 1)))
        if stats.invalid_messages_read > 0:
            self.warn("Found %d invalid messages during compaction.", stats.invalid_messages_read)
