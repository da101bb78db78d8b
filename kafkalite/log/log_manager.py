"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/LogManager.scala

Classes: LogManager -- the only creator and owner of logs (S30): it loads every partition
directory under ``log.dirs`` at start-up, creates and deletes logs, and runs the periodic
maintenance tasks on the broker's scheduler:
  kafka-log-retention              -> cleanup_logs (retention by time, size, log start offset)
  kafka-log-flusher                -> flush_dirty_logs (flush.ms)
  kafka-recovery-point-checkpoint  -> checkpoint_log_recovery_offsets
  kafka-log-start-offset-checkpoint-> checkpoint_log_start_offsets
  kafka-delete-logs                -> delete_logs (directories renamed ``*-delete``, each deleted once
                                      file.delete.delay.ms has passed since it was queued)
Each log dir holds ``recovery-point-offset-checkpoint`` and ``log-start-offset-checkpoint``
(Kafka's text format) and, after a clean shutdown, the ``.kafka_cleanshutdown`` marker that lets
the next start skip recovery. A ``.lock`` file (flock) keeps two brokers off one directory.

Log dir failures (Kafka's JBOD handling): a directory that cannot be created, locked or loaded at
start-up, or whose I/O fails later (reported through the LogDirFailureChannel), leaves
``live_log_dirs``; its logs are closed and forgotten (``handle_log_dir_failure``) and the broker goes
on with the others. With no live directory left the broker halts, as Kafka does.
The ``.kafka_cleanshutdown`` marker is deleted as soon as a directory starts loading (Kafka 2.4 deletes
it after loading), so a start that fails half-way recovers the next time instead of trusting the logs.

Moving a replica between log dirs (KIP-113, AlterReplicaLogDirs): ``maybe_update_preferred_log_dir`` records
where a partition should live; ``get_or_create_log(is_future=True)`` creates the *future log* there, in a
directory ``topic-0.<uniqueId>-future`` (``future_logs``, beside ``current_logs``); the ReplicaAlterLogDirsThread
fills it, and ``replace_current_with_future_log`` renames it to ``topic-0`` and queues the old directory for
deletion (renamed ``-delete``). A future log found at start-up is loaded as one, and the move resumes.

The log cleaner (compaction, log_cleaner.py) is built here when ``log.cleaner.enable`` is true, started by
``startup`` and stopped first by ``shutdown``; deleting, truncating or moving a partition aborts its cleaning,
and retention pauses cleaning of the non-compacted logs it works on (compacted logs' retention is the cleaner
threads' job).
Logs load in ``num.recovery.threads.per.data.dir`` threads per log dir, as in Kafka (``pool-<n>-thread-<m>``,
Java's default names for an executor's threads; gone once the logs are loaded).
Left out: the recovery pools at shutdown (Kafka flushes and closes the logs in them too; kafkalite closes
them one by one).
Deviation: Kafka's kafka-delete-logs reschedules itself forever (every file.delete.delay.ms when
nothing is queued); here it reschedules only while logs are queued, and ``async_delete`` schedules
a run for the log it queues, so an idle broker does not wake for it and a deletion is not late by
up to one extra delay.
"""
from __future__ import annotations

import collections
import fcntl
import itertools
import logging
import os
import shutil
import threading
from collections.abc import Callable

from kafkalite.api.api_version import ApiVersion, ensure_stored_format
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.log.checkpoint_file import OffsetCheckpointFile
from kafkalite.log.log import Log, log_delete_dir_name, log_future_dir_name
from kafkalite.log.log_cleaner import LogCleaner
from kafkalite.log.log_cleaner_manager import LogCleaningPaused
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_dir_failure_channel import is_out_of_descriptors
from kafkalite.log.log_file_utils import CLEAN_SHUTDOWN_FILE, DELETE_DIR_SUFFIX, log_dir_name, parse_topic_partition_name
from kafkalite.protocol.errors import Errors
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time

LOCK_FILE = ".lock"
RECOVERY_POINT_CHECKPOINT_FILE = "recovery-point-offset-checkpoint"
_RECOVERY_POOL_IDS = itertools.count(1)   # Java's Executors name their threads pool-<n>-thread-<m>
LOG_START_OFFSET_CHECKPOINT_FILE = "log-start-offset-checkpoint"
LONG_MAX = (1 << 63) - 1


def _is_api_version(text: str) -> bool:
    try:
        ApiVersion.apply(text)
        return True
    except ValueError:
        return False


class LogManager(Logging):
    """Kafka: LogManager."""

    # Kafka: LogManager.<init>
    def __init__(self, log_dirs: list[str], initial_default_config: LogConfig, topic_configs: dict[str, dict] | None = None,
                 scheduler=None, time: Time = SYSTEM, flush_check_ms: int = LONG_MAX,
                 flush_recovery_offset_checkpoint_ms: int = 60000, flush_start_offset_checkpoint_ms: int = 60000,
                 retention_check_ms: int = 300000, max_pid_expiration_ms: int = 7 * 24 * 3600 * 1000,
                 initial_task_delay_ms: int = 30000, log_dir_failure_channel=None, halt=None, cleaner_config=None,
                 num_recovery_threads_per_data_dir: int = 1):
        self.log_dirs = [os.path.abspath(d) for d in log_dirs]
        self.num_recovery_threads_per_data_dir = num_recovery_threads_per_data_dir
        self.log_dir_failure_channel = log_dir_failure_channel
        self._halt = halt if halt is not None else os._exit   # Kafka: Exit.halt
        self.current_default_config = initial_default_config
        self.topic_configs: dict[str, dict] = dict(topic_configs or {})
        self.log_ident = "[LogManager] "
        self._warn_about_unwritten_formats()
        self.scheduler = scheduler
        self.time = time
        self.flush_check_ms = flush_check_ms
        self.flush_recovery_offset_checkpoint_ms = flush_recovery_offset_checkpoint_ms
        self.flush_start_offset_checkpoint_ms = flush_start_offset_checkpoint_ms
        self.retention_check_ms = retention_check_ms
        self.max_pid_expiration_ms = max_pid_expiration_ms
        self.initial_task_delay_ms = initial_task_delay_ms
        self._lock = threading.RLock()  # Kafka: logCreationOrDeletionLock
        self.current_logs: dict = {}
        # Kafka: futureLogs -- the copies being filled for replicas that move to another log dir
        self.future_logs: dict = {}
        # Kafka: preferredLogDirs -- where AlterReplicaLogDirs asked a partition to live
        self.preferred_log_dirs: dict = {}
        # Kafka: logsToBeDeleted -- (log, time it was queued in ms), oldest first
        self.logs_to_be_deleted: collections.deque[tuple[Log, int]] = collections.deque()
        self.live_log_dirs = self._create_and_validate_log_dirs()
        self._dir_locks = self._lock_log_dirs()
        self.recovery_point_checkpoints = {d: OffsetCheckpointFile(os.path.join(d, RECOVERY_POINT_CHECKPOINT_FILE))
                                           for d in self.live_log_dirs}
        self.log_start_offset_checkpoints = {d: OffsetCheckpointFile(os.path.join(d, LOG_START_OFFSET_CHECKPOINT_FILE))
                                             for d in self.live_log_dirs}
        self.load_logs()
        # Kafka: LogManager.cleaner -- None when log.cleaner.enable is false (or no CleanerConfig was given)
        self.cleaner_config = cleaner_config
        self.cleaner = None
        if cleaner_config is not None and cleaner_config.enable_cleaner:
            self.cleaner = LogCleaner(cleaner_config, self.live_log_dirs, self.current_logs,
                                      self.log_dir_failure_channel, time)
            for tp in self.future_logs:   # a move found at start-up: its current log stays uncleaned until the swap
                self.cleaner.abort_and_pause_cleaning(tp)

    # Kafka: LogManager.createAndValidateLogDirs -- a directory that cannot be created or used is offline;
    # the broker starts on the others, and refuses to start when none is left.
    def _create_and_validate_log_dirs(self) -> list[str]:
        if len(set(self.log_dirs)) != len(self.log_dirs):
            raise ValueError(f"Duplicate log directory found: {', '.join(self.log_dirs)}")
        live, problems = [], []
        for d in self.log_dirs:
            try:
                if not os.path.exists(d):
                    self.info("Log directory %s not found, creating it.", d)
                    os.makedirs(d)
                if not os.path.isdir(d) or not os.access(d, os.R_OK | os.W_OK | os.X_OK):
                    raise OSError(f"{d} is not a readable and writable directory")
                live.append(d)
            except OSError as e:
                problems.append(f"{d} ({e.strerror or e})")
                # one line, no stack trace: a bad log.dirs entry is a configuration problem
                self._mark_offline(d, f"Failed to create or validate data directory {d}: {e.strerror or e}", None)
        if not live:
            raise Errors.KAFKA_STORAGE_ERROR.exception(
                f"None of the specified log dirs from log.dirs={','.join(self.log_dirs)} can be created or "
                f"validated: {'; '.join(problems)}")
        return live

    def _mark_offline(self, log_dir: str, msg: str, e: BaseException | None) -> None:
        if self.log_dir_failure_channel is not None:
            self.log_dir_failure_channel.maybe_add_offline_log_dir(log_dir, msg, e)
        else:
            self.error(msg, exc_info=e)

    # Kafka: LogManager.lockLogDirs
    def _lock_log_dirs(self) -> list[int]:
        fds = []
        for d in self.live_log_dirs:
            fd = os.open(os.path.join(d, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                for other in fds:
                    os.close(other)
                raise RuntimeError(f"Failed to acquire lock on file .lock in {d}. A Kafka instance in another "
                                   "process or thread is using this directory.") from None
            fds.append(fd)
        return fds

    def _warn_about_unwritten_formats(self) -> None:
        """No Kafka counterpart: a stored ``message.format.version`` below 0.11.0 (kafkalite accepted one before it
        refused them; kafka-configs --zookeeper can still write one) loads, as Kafka loads it, but kafkalite keeps
        writing message format v2 for that topic: say so once per topic at start-up."""
        for topic, overrides in sorted(self.topic_configs.items()):
            version = overrides.get("message.format.version")
            if version is None:
                continue
            try:
                ensure_stored_format("message.format.version", version)
            except ConfigException as e:
                if _is_api_version(version):   # not a version at all: LogConfig.fromProps stops start-up, as Kafka's
                    self.warn(f"Topic {topic}: {e}; its batches are written in message format v2")

    def _config_for(self, topic: str) -> LogConfig:
        overrides = self.topic_configs.get(topic)
        if not overrides:
            return self.current_default_config
        return LogConfig.from_props(self.current_default_config.originals, overrides)

    def shared_log_config(self, config: LogConfig) -> LogConfig:
        """No Kafka counterpart: Kafka's Partition.createLog builds a LogConfig per partition; a topic without
        overrides gets one equal to the broker default, so kafkalite hands back the default instead (about
        3 KiB of parsed values less per partition; both are replaced together on a config change)."""
        default = self.current_default_config
        if not config.overridden_configs and config.originals == default.originals:
            return default
        return config

    # Kafka: LogManager.loadLogs
    def load_logs(self) -> None:
        self.info("Loading logs.")
        start = self.time.hi_res_clock_ms()
        for d in list(self.live_log_dirs):
            try:
                self._load_logs_in_dir(d)
            except OSError as e:
                self._mark_offline(d, f"Error while loading log dir {d}", e)
                self._forget_log_dir(d)
        self.info("Logs loading complete in %d ms.", self.time.hi_res_clock_ms() - start)

    def _load_logs_in_dir(self, d: str) -> None:
        clean_shutdown_file = os.path.join(d, CLEAN_SHUTDOWN_FILE)
        had_clean_shutdown = os.path.exists(clean_shutdown_file)
        if had_clean_shutdown:
            self.debug("Found clean shutdown file. Skipping recovery for all logs in data directory: %s", d)
            # Gone before anything is loaded: if this start fails, the next one recovers.
            os.unlink(clean_shutdown_file)
        recovery_points = self._read_checkpoint(self.recovery_point_checkpoints[d])
        log_start_offsets = self._read_checkpoint(self.log_start_offset_checkpoints[d])
        # the in-process ZooKeeper stand-in keeps its files beside the logs (DESIGN §6)
        paths = [path for name in sorted(os.listdir(d))
                 if name != "__zookeeper" and os.path.isdir(path := os.path.join(d, name))]

        def load(path: str) -> None:
            self._load_log(path, recovery_points, log_start_offsets, had_clean_shutdown)

        threads = min(self.num_recovery_threads_per_data_dir, len(paths))
        if threads <= 1:
            for path in paths:
                load(path)
            return
        # Kafka: a fixed pool of num.recovery.threads.per.data.dir threads per dir, a job per log; every job
        # runs, then the first failure is raised (Kafka collects a job's IOException for the dir, then
        # rethrows anything else). Loading is mostly Python under the GIL, so more threads gain nothing here
        # (docs/benchmarks.md, "Restart"); the shipped server.properties keeps Kafka's 1.
        import concurrent.futures   # only for a pool (start-up imports what the broker needs, issue 18)
        pool_id = next(_RECOVERY_POOL_IDS)
        names = itertools.count(1)
        with concurrent.futures.ThreadPoolExecutor(threads, initializer=lambda: setattr(
                threading.current_thread(), "name", f"pool-{pool_id}-thread-{next(names)}")) as pool:
            jobs = [pool.submit(load, path) for path in paths]
        errors = [job.exception() for job in jobs if job.exception() is not None]
        if errors:
            raise errors[0]

    def _read_checkpoint(self, checkpoint: OffsetCheckpointFile) -> dict:
        try:
            return checkpoint.read()
        except (ValueError, OSError) as e:
            self.warn("Error occurred while reading %s, resetting to zero: %s", checkpoint.path, e)
            return {}

    # Kafka: LogManager.loadLog
    def _load_log(self, log_dir: str, recovery_points: dict, log_start_offsets: dict,
                  had_clean_shutdown: bool) -> Log:
        tp = parse_topic_partition_name(log_dir)
        log = Log(log_dir, self._config_for(tp.topic), log_start_offsets.get(tp, 0), recovery_points.get(tp, 0),
                  self.scheduler, self.time, tp, self.max_pid_expiration_ms,
                  log_dir_failure_channel=self.log_dir_failure_channel, had_clean_shutdown=had_clean_shutdown)
        with self._lock:   # the recovery threads of every dir register here
            if log_dir.endswith(DELETE_DIR_SUFFIX):
                self._add_log_to_be_deleted(log)
            elif log.is_future:
                if tp in self.future_logs:
                    raise RuntimeError(f"Duplicate log directories found: {log.dir}, {self.future_logs[tp].dir}!")
                self.future_logs[tp] = log
            elif tp in self.current_logs:
                raise RuntimeError(f"Duplicate log directories for {tp} are found in both {log.dir} and "
                                   f"{self.current_logs[tp].dir}. It is likely because log directory failure "
                                   "happened while broker was replacing current replica with future replica.")
            else:
                self.current_logs[tp] = log
        return log

    # Kafka: LogManager.startup
    def startup(self) -> None:
        if self.scheduler is None:
            return
        self.info("Starting log cleanup with a period of %d ms.", self.retention_check_ms)
        self.scheduler.schedule("kafka-log-retention", self.cleanup_logs, self.initial_task_delay_ms,
                                self.retention_check_ms)
        self.info("Starting log flusher with a default period of %d ms.", self.flush_check_ms)
        self.scheduler.schedule("kafka-log-flusher", self.flush_dirty_logs, self.initial_task_delay_ms,
                                self.flush_check_ms)
        self.scheduler.schedule("kafka-recovery-point-checkpoint", self.checkpoint_log_recovery_offsets,
                                self.initial_task_delay_ms, self.flush_recovery_offset_checkpoint_ms)
        self.scheduler.schedule("kafka-log-start-offset-checkpoint", self.checkpoint_log_start_offsets,
                                self.initial_task_delay_ms, self.flush_start_offset_checkpoint_ms)
        self.scheduler.schedule("kafka-delete-logs", self.delete_logs, self.initial_task_delay_ms, -1)
        if self.cleaner is not None:
            self.cleaner.startup()

    # Kafka: LogManager.getLog -- the current log, or with ``is_future`` the future log of a replica being moved
    def get_log(self, topic_partition, is_future: bool = False):
        return (self.future_logs if is_future else self.current_logs).get(topic_partition)

    # Kafka: LogManager.getOrCreateLog -- in the preferred log dir if AlterReplicaLogDirs named one (a future
    # log must have one, other than the current log's), else in the dir holding the fewest logs
    # Kafka 2.6: LogManager.getOrCreateLog(loadConfig) (KAFKA-9932) -- ``load_config`` is called only if the log
    # is created (None, or a call answering None: the LogManager's own config for the topic)
    def get_or_create_log(self, topic_partition, load_config: Callable[[], LogConfig | None] | None = None,
                          is_new: bool = False, is_future: bool = False) -> Log:
        with self._lock:
            log = self.get_log(topic_partition, is_future)
            if log is not None:
                return log
            offline = [d for d in self.log_dirs if d not in self.live_log_dirs]
            if not is_new and offline:
                # the log this replica had may sit in a dir that failed: an empty one elsewhere would lose it
                # (and a restart with the dir repaired would find the partition in two dirs)
                raise Errors.KAFKA_STORAGE_ERROR.exception(
                    f"Can not create log for {topic_partition} because log directories {','.join(offline)} are "
                    f"offline")
            preferred_log_dir = self.preferred_log_dirs.get(topic_partition)
            if is_future:
                if preferred_log_dir is None:
                    raise RuntimeError(f"Can not create the future log for {topic_partition} without having a "
                                       "preferred log directory")   # IllegalStateException
                current = self.get_log(topic_partition)
                if current is not None and current.parent_dir == preferred_log_dir:
                    raise RuntimeError(f"Can not create the future log for {topic_partition} in the current log "
                                       "directory of this partition")
            if preferred_log_dir is not None and preferred_log_dir not in self.live_log_dirs:
                raise Errors.KAFKA_STORAGE_ERROR.exception(
                    f"No log directories available. Tried {preferred_log_dir}")
            config = load_config() if load_config is not None else None
            if config is None:
                config = self._config_for(topic_partition.topic)
            parent = preferred_log_dir if preferred_log_dir is not None else self._next_log_dir()
            name = log_future_dir_name(topic_partition) if is_future else log_dir_name(topic_partition)
            log_dir = os.path.join(parent, name)
            existed = os.path.isdir(log_dir)
            try:
                log = Log(log_dir, config, 0, 0, self.scheduler, self.time, topic_partition,
                          self.max_pid_expiration_ms, log_dir_failure_channel=self.log_dir_failure_channel)
            except OSError as e:
                # Kafka: an IOException takes the dir offline (KafkaStorageException); out of descriptors
                # (EMFILE) only this partition fails (LogDirFailureChannel's deviation) and its half-made
                # directory goes, so that a later LeaderAndIsr creates it afresh
                msg = f"Error while creating log for {topic_partition} in dir {parent}"
                self._mark_offline(parent, msg, e)
                if not existed and is_out_of_descriptors(e):
                    shutil.rmtree(log_dir, ignore_errors=True)
                raise Errors.KAFKA_STORAGE_ERROR.exception(f"{msg}: {e}") from e
            (self.future_logs if is_future else self.current_logs)[topic_partition] = log
            if is_future and self.cleaner is not None:
                # Kafka: ReplicaManager.alterReplicaLogDirs pauses the cleaning of a partition while it moves
                self.cleaner.abort_and_pause_cleaning(topic_partition)
            self.info("Created log for partition %s in %s with properties %s.", topic_partition, log_dir, config)
            # the preferred log dir has been satisfied
            self.preferred_log_dirs.pop(topic_partition, None)
            return log

    # Kafka: LogManager.maybeUpdatePreferredLogDir -- remembered only if neither the current nor the future log
    # of the partition is in ``log_dir`` already
    def maybe_update_preferred_log_dir(self, topic_partition, log_dir: str) -> None:
        with self._lock:
            current, future = self.get_log(topic_partition), self.get_log(topic_partition, is_future=True)
            if not (current is not None and current.parent_dir == log_dir) \
                    and not (future is not None and future.parent_dir == log_dir):
                self.preferred_log_dirs[topic_partition] = log_dir

    # Kafka: LogManager.isLogDirOnline -- ``log_dir`` must be one of log.dirs (absolute)
    def is_log_dir_online(self, log_dir: str) -> bool:
        if log_dir not in self.log_dirs:
            raise Errors.LOG_DIR_NOT_FOUND.exception(f"Log dir {log_dir} is not found in the config.")
        return log_dir in self.live_log_dirs

    # Kafka: LogManager.replaceCurrentWithFutureLog -- the future log becomes the partition's log (renamed from
    # ``topic-0.<id>-future`` to ``topic-0``); the old directory is renamed ``-delete``, closed and queued for
    # deletion
    def replace_current_with_future_log(self, topic_partition) -> None:
        with self._lock:
            source_log = self.current_logs.get(topic_partition)
            dest_log = self.future_logs.get(topic_partition)
            self.info("Attempting to replace current log %s with %s for %s", source_log, dest_log, topic_partition)
            if source_log is None:
                raise Errors.KAFKA_STORAGE_ERROR.exception(f"The current replica for {topic_partition} is offline")
            if dest_log is None:
                raise Errors.KAFKA_STORAGE_ERROR.exception(f"The future replica for {topic_partition} is offline")
            if self.cleaner is not None:
                self.cleaner.alter_checkpoint_dir(topic_partition, source_log.parent_dir, dest_log.parent_dir)
            dest_log.rename_dir(log_dir_name(topic_partition))
            dest_log.update_high_watermark(source_log.high_watermark)
            # the future log now is the current one
            del self.future_logs[topic_partition]
            self.current_logs[topic_partition] = dest_log
            try:
                source_log.rename_dir(log_delete_dir_name(topic_partition))
                source_log.close()
                self._checkpoint_log_dir(source_log.parent_dir)
                self._add_log_to_be_deleted(source_log)
            except Exception:
                # an offline source dir: handle_log_dir_failure will not close it, it left current_logs already
                source_log.close_handlers()
                raise
            self._resume_cleaning_if_paused(topic_partition)
            self.info("The current replica is successfully replaced with the future replica for %s", topic_partition)
        if self.scheduler is not None:
            self._schedule_delete_logs(self.current_default_config.file_delete_delay_ms)

    def _checkpoint_log_dir(self, d: str) -> None:
        """Kafka: checkpointRecoveryOffsetsAndCleanSnapshot + checkpointLogStartOffsetsInDir, for one dir."""
        if d not in self.live_log_dirs:
            return
        logs = self._logs_in_dir(d)
        self.checkpoint_recovery_offsets_and_clean_snapshot(d, list(logs.values()))
        self._write_checkpoint(d, self.log_start_offset_checkpoints,
                               {tp: log.log_start_offset for tp, log in logs.items()
                                if log.log_start_offset > log.log_segments()[0].base_offset})

    # Kafka: LogManager.nextLogDirs -- the directory holding the fewest partitions (future logs count)
    def _next_log_dir(self) -> str:
        if not self.live_log_dirs:
            raise Errors.KAFKA_STORAGE_ERROR.exception("Can not create log because all log dirs are offline")
        if len(self.live_log_dirs) == 1:
            # as Kafka: with one dir there is nothing to count (counting every log per new log made creating
            # n partitions cost O(n^2): at 4,000 partitions a third of CreateTopics' time)
            return next(iter(self.live_log_dirs))
        counts = {d: 0 for d in self.live_log_dirs}
        for log in self.all_logs():
            parent = os.path.dirname(os.path.normpath(log.dir))
            if parent in counts:
                counts[parent] += 1
        return min(self.live_log_dirs, key=lambda d: counts[d])

    # Kafka: LogManager.allLogs -- current and future logs
    def all_logs(self) -> list[Log]:
        return list(self.current_logs.values()) + list(self.future_logs.values())

    # Kafka: LogManager.logsByTopic
    def logs_by_topic(self, topic: str) -> list[Log]:
        return [log for log in self.all_logs() if log.topic_partition.topic == topic]

    # Kafka: LogManager.topicConfigUpdated (via TopicConfigHandler)
    def update_topic_config(self, topic: str, overrides: dict) -> None:
        LogConfig.validate(overrides, previous=self.topic_configs.get(topic, {}))
        with self._lock:
            self.topic_configs[topic] = dict(overrides)
            config = self._config_for(topic)
            for log in self.logs_by_topic(topic):
                log.config = config

    # Kafka: LogManager.reconfigureDefaultLogConfig
    def reconfigure_default_log_config(self, config: LogConfig) -> None:
        with self._lock:
            self.current_default_config = config
            for log in self.all_logs():
                log.config = self._config_for(log.topic_partition.topic)

    # Kafka: LogManager.cleanupLogs
    def cleanup_logs(self) -> int:
        self.debug("Beginning log cleanup...")
        start = self.time.milliseconds()
        total = 0
        if self.cleaner is not None:   # compacted logs' retention runs in the cleaner threads
            deletable = [log for _, log in self.cleaner.pause_cleaning_for_non_compacted_partitions()]
        else:
            deletable = [log for log in self.all_logs() if not log.config.compact]
        try:
            for log in deletable:
                total += log.delete_old_segments()
        finally:
            if self.cleaner is not None:
                self.cleaner.resume_cleaning([log.topic_partition for log in deletable])
        self.debug("Log cleanup completed. %d files deleted in %d seconds", total,
                   (self.time.milliseconds() - start) // 1000)
        return total

    # Kafka: LogManager.flushDirtyLogs
    def flush_dirty_logs(self) -> None:
        now = self.time.milliseconds()
        for log in self.all_logs():
            tp = log.topic_partition
            try:
                since = now - log.last_flushed_time
                if since >= log.config.flush_ms:
                    self.debug("Checking if flush is needed on %s flush interval %d last flushed %d time since "
                               "last flush: %d", tp.topic, log.config.flush_ms, log.last_flushed_time, since)
                    log.flush()
            except Exception as e:  # one failing log must not stop the others
                self.error("Error flushing topic %s", tp.topic, exc_info=e)

    # Kafka: LogManager.logsByDir (for one dir) -- current and future logs; a dir never holds both of one partition
    def _logs_in_dir(self, d: str) -> dict:
        return {log.topic_partition: log for log in self.all_logs() if log.parent_dir == d}

    # Kafka: LogManager.checkpointLogRecoveryOffsets
    def checkpoint_log_recovery_offsets(self) -> None:
        for d in list(self.live_log_dirs):
            self.checkpoint_recovery_offsets_and_clean_snapshot(d, list(self._logs_in_dir(d).values()))

    # Kafka: LogManager.checkpointRecoveryOffsetsAndCleanSnapshot -- once the recovery points are on disk, the
    # producer snapshots below them (but those of each log's last two segments) are no longer needed
    def checkpoint_recovery_offsets_and_clean_snapshot(self, d: str, logs_to_clean_snapshot: list) -> None:
        self._write_checkpoint(d, self.recovery_point_checkpoints,
                               {tp: log.recovery_point for tp, log in self._logs_in_dir(d).items()})
        if d not in self.live_log_dirs:
            return      # the checkpoint failed and took the dir offline
        try:
            for log in logs_to_clean_snapshot:
                log.delete_snapshots_after_recovery_point_checkpoint()
        except OSError as e:
            self._mark_offline(d, f"Disk error while writing to recovery point file in directory {d}", e)

    # Kafka: LogManager.checkpointLogStartOffsets
    def checkpoint_log_start_offsets(self) -> None:
        for d in list(self.live_log_dirs):
            self._write_checkpoint(d, self.log_start_offset_checkpoints,
                                   {tp: log.log_start_offset for tp, log in self._logs_in_dir(d).items()
                                    if log.log_start_offset > log.log_segments()[0].base_offset})

    # Kafka: CheckpointFile.write -- an IOException takes the directory offline (KafkaStorageException)
    def _write_checkpoint(self, d: str, checkpoints: dict, offsets: dict) -> None:
        checkpoint = checkpoints.get(d)
        if checkpoint is None:
            return
        try:
            checkpoint.write(offsets)
        except OSError as e:
            self._mark_offline(d, f"Error while writing to checkpoint file {checkpoint.path}", e)

    # Kafka: LogManager.handleLogDirFailure -- stop serving the logs of a failed directory; halt when none is left.
    def handle_log_dir_failure(self, d: str) -> list:
        self.info("Stopping serving logs in dir %s", d)
        with self._lock:
            if self.cleaner is not None:
                self.cleaner.handle_log_dir_failure(d)
            offline = self._forget_log_dir(d)
            if not self.live_log_dirs:
                self.fatal("Shutdown broker because all log dirs in %s have failed", ", ".join(self.log_dirs))
                for handler in logging.getLogger().handlers:
                    handler.flush()
                self._halt(1)
            self.info("Logs for partitions %s are offline due to failure on log directory %s",
                      ",".join(str(tp) for tp in offline), d)
            return offline

    def _forget_log_dir(self, d: str) -> list:
        if d in self.live_log_dirs:
            self.live_log_dirs.remove(d)
        self.recovery_point_checkpoints.pop(d, None)
        self.log_start_offset_checkpoints.pop(d, None)
        offline = [tp for tp, log in self.current_logs.items() if log.parent_dir == d]
        for tp in offline:
            log = self.current_logs.pop(tp)
            try:
                log.close_handlers()
            except OSError:
                pass
        for tp in [tp for tp, log in self.future_logs.items() if log.parent_dir == d]:
            try:
                self.future_logs.pop(tp).close_handlers()
            except OSError:
                pass
        return offline

    # Kafka: LogManager.truncateTo -- the current logs, or with ``is_future`` the future logs
    def truncate_to(self, partition_offsets: dict, is_future: bool = False) -> None:
        for tp, offset in partition_offsets.items():
            log = self.get_log(tp, is_future)
            if log is not None:
                # the cleaner must not be copying the segments being truncated
                need_to_stop_cleaner = self.cleaner is not None and not is_future and offset < log.active_segment.base_offset
                if need_to_stop_cleaner:
                    self.cleaner.abort_and_pause_cleaning(tp)
                try:
                    if log.truncate_to(offset) and need_to_stop_cleaner:
                        self.cleaner.maybe_truncate_checkpoint(log.parent_dir, tp, log.active_segment.base_offset)
                finally:
                    if need_to_stop_cleaner:
                        self.cleaner.resume_cleaning([tp])
        self.checkpoint_log_recovery_offsets()

    # Kafka: LogManager.truncateFullyAndStartAt -- a follower whose fetch offset fell out of the leader's log
    def truncate_fully_and_start_at(self, topic_partition, new_offset: int, is_future: bool = False) -> None:
        log = self.get_log(topic_partition, is_future)
        if log is not None:
            if self.cleaner is not None and not is_future:
                self.cleaner.abort_and_pause_cleaning(topic_partition)
            try:
                log.truncate_fully_and_start_at(new_offset)
                if self.cleaner is not None and not is_future:
                    self.cleaner.maybe_truncate_checkpoint(log.parent_dir, topic_partition, log.active_segment.base_offset)
            finally:
                if self.cleaner is not None and not is_future:
                    self.cleaner.resume_cleaning([topic_partition])
            self.checkpoint_log_recovery_offsets()

    # Kafka: LogManager.asyncDelete -- the current log, or with ``is_future`` the future log
    def async_delete(self, topic_partition, is_future: bool = False) -> Log | None:
        with self._lock:
            log = (self.future_logs if is_future else self.current_logs).pop(topic_partition, None)
            if log is None:
                return None
            if self.cleaner is not None and not is_future:
                self.cleaner.abort_cleaning(topic_partition)
                self.cleaner.update_checkpoints(log.parent_dir)
            elif is_future:     # an abandoned move: the current log may be cleaned again
                self._resume_cleaning_if_paused(topic_partition)
            self.checkpoint_log_recovery_offsets()
            self.checkpoint_log_start_offsets()
            log.rename_dir(log_delete_dir_name(topic_partition))
            self.info("Log for partition %s is renamed to %s and is scheduled for deletion", topic_partition, log.dir)
            self._add_log_to_be_deleted(log)
        if self.scheduler is not None:
            self._schedule_delete_logs(self.current_default_config.file_delete_delay_ms)
        return log

    def _resume_cleaning_if_paused(self, topic_partition) -> None:
        if self.cleaner is not None and isinstance(self.cleaner.cleaner_manager.cleaning_state(topic_partition),
                                                   LogCleaningPaused):
            self.cleaner.resume_cleaning([topic_partition])

    # Kafka: LogManager.addLogToBeDeleted
    def _add_log_to_be_deleted(self, log: Log) -> None:
        with self._lock:
            self.logs_to_be_deleted.append((log, self.time.milliseconds()))

    # Kafka: LogManager.deleteLogs
    def delete_logs(self) -> None:
        """Delete the queued logs whose file.delete.delay.ms has passed; run again for the next one.

        Without a scheduler (tests) the caller runs this again itself.
        """
        next_delay_ms = None
        try:
            while True:
                with self._lock:
                    if not self.logs_to_be_deleted:
                        break
                    log, schedule_time_ms = self.logs_to_be_deleted[0]
                    next_delay_ms = (schedule_time_ms + self.current_default_config.file_delete_delay_ms
                                     - self.time.milliseconds())
                    if next_delay_ms > 0:
                        break   # the oldest is not due yet, so neither is any other
                    self.logs_to_be_deleted.popleft()
                    next_delay_ms = None
                try:
                    log.delete()
                    self.info("Deleted log for partition %s in %s.", log.topic_partition, log.dir)
                except OSError as e:
                    self.error("Exception while deleting %s", log.dir, exc_info=e)
        except Exception as e:   # noqa: BLE001 -- as Kafka: never let the task die silently
            self.error("Exception in kafka-delete-logs thread.", exc_info=e)
        finally:
            if next_delay_ms is not None and self.scheduler is not None:
                self._schedule_delete_logs(next_delay_ms)

    def _schedule_delete_logs(self, delay_ms: int) -> None:
        try:
            self.scheduler.schedule("kafka-delete-logs", self.delete_logs, delay_ms, -1)
        except RuntimeError as e:   # the scheduler is shutting down
            self.error("Failed to schedule next delete in kafka-delete-logs thread", exc_info=e)

    def _shutdown_log_dir(self, d: str) -> None:
        logs = self._logs_in_dir(d)
        for log in logs.values():
            log.flush()
            log.close()
        self.debug("Updating recovery points at %s", d)
        self.recovery_point_checkpoints[d].write({tp: log.log_end_offset for tp, log in logs.items()})
        self.log_start_offset_checkpoints[d].write(
            {tp: log.log_start_offset for tp, log in logs.items()
             if log.log_start_offset > log.log_segments()[0].base_offset})
        self.debug("Writing clean shutdown marker at %s", d)
        with open(os.path.join(d, CLEAN_SHUTDOWN_FILE), "w"):
            pass

    # Kafka: LogManager.shutdown
    def shutdown(self) -> None:
        self.info("Shutting down.")
        if self.cleaner is not None:
            try:
                self.cleaner.shutdown()
            except Exception as e:   # noqa: BLE001 -- Kafka: CoreUtils.swallow
                self.error("Error while shutting down the log cleaner", exc_info=e)
        with self._lock:
            for d in list(self.live_log_dirs):
                try:
                    self._shutdown_log_dir(d)
                except Exception as e:   # noqa: BLE001 -- Kafka swallows per directory; no marker for this one
                    self.error("Error while shutting down log dir %s, no clean shutdown marker written", d,
                               exc_info=e)
            for fd in self._dir_locks:
                os.close(fd)
            self._dir_locks = []
        self.info("Shutdown complete.")
