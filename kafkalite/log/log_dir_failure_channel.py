"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/LogDirFailureChannel.scala

Kept in ``kafkalite/log/`` because Log and LogManager report into it and ``log`` must not import
``server`` (the same choice as LeaderEpochFileCache).

Classes: LogDirFailureChannel -- where an I/O failure in a log directory is reported. Any thread
that hits an ``OSError`` while appending, rolling, flushing, reading or checkpointing calls
``maybe_add_offline_log_dir``; the first report of a directory queues it, and ReplicaManager's
``LogDirFailureHandler`` thread takes it (``take_next_offline_log_dir``) and takes that directory's
partitions offline. From the first report on, every operation on a log in that directory fails at
once with KafkaStorageException (``has_offline_log_dir``), so nothing more is written there.
"""
from __future__ import annotations

import queue
import threading

from kafkalite.utils.logging import Logging


class LogDirFailureChannel(Logging):
    """Kafka: LogDirFailureChannel(logDirNum)."""

    def __init__(self, log_dir_num: int):
        self.log_ident = ""
        self._offline_log_dirs: set[str] = set()
        self._lock = threading.Lock()
        self._offline_log_dir_queue: queue.Queue[str] = queue.Queue(maxsize=max(1, log_dir_num))

    # Kafka 3.x: LogDirFailureChannel.hasOfflineLogDir
    def has_offline_log_dir(self, log_dir: str) -> bool:
        return log_dir in self._offline_log_dirs

    # Kafka: LogDirFailureChannel.maybeAddOfflineLogDir
    def maybe_add_offline_log_dir(self, log_dir: str, msg: str, e: BaseException | None = None) -> None:
        self.error(msg, exc_info=e)
        with self._lock:
            if log_dir in self._offline_log_dirs:
                return
            self._offline_log_dirs.add(log_dir)
        self._offline_log_dir_queue.put(log_dir)

    # Kafka: LogDirFailureChannel.takeNextOfflineLogDir (with a timeout, so its thread can stop)
    def take_next_offline_log_dir(self, timeout_s: float | None = None) -> str | None:
        try:
            return self._offline_log_dir_queue.get(timeout=timeout_s)
        except queue.Empty:
            return None
