"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/LogDirFailureChannel.scala

Kept in ``kafkalite/log/`` because Log and LogManager report into it and ``log`` must not import
``server`` (the same choice as LeaderEpochFileCache).

Classes: LogDirFailureChannel -- where an I/O failure in a log directory is reported. Any thread
that hits an ``OSError`` while appending, rolling, flushing, reading or checkpointing calls
``maybe_add_offline_log_dir``; the first report of a directory queues it, and ReplicaManager's
``LogDirFailureHandler`` thread takes it (``take_next_offline_log_dir``) and takes that directory's
partitions offline. From the first report on, every operation on a log in that directory fails at
once with KafkaStorageException (``has_offline_log_dir``), so nothing more is written there.

Deviation: running out of file descriptors (EMFILE, ENFILE) is not a failure of the directory, and
``maybe_add_offline_log_dir`` leaves the directory online for it: the operation that needed a descriptor
fails (its caller still raises KafkaStorageException, KAFKA_STORAGE_ERROR for that partition) and the
next one may succeed once descriptors are closed. Kafka 2.4 takes the whole directory offline for any
IOException, which on a broker with one log dir halts the broker when a CreateTopics asks for one
partition too many (issue 18). Every path that reports here writes nothing a failed open could leave
half-done: a checkpoint is written to a temporary file and renamed, an append opens nothing after its
first write (log_segment.py), and a roll that fails leaves the old segment active with its indexes trimmed
(full), so the next append tries the roll again.
"""
from __future__ import annotations

import errno
import queue
import threading

from kafkalite.utils.logging import Logging


OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE)


def is_out_of_descriptors(e: BaseException | None) -> bool:
    """True for EMFILE/ENFILE ("Too many open files"), also when it is the cause of a KafkaStorageException."""
    while e is not None:
        if isinstance(e, OSError) and e.errno in OUT_OF_DESCRIPTORS:
            return True
        e = e.__cause__
    return False


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

    # No Kafka counterpart: whether any dir is offline (the produce path asks this before working out its dir)
    def any_offline_log_dir(self) -> bool:
        return bool(self._offline_log_dirs)

    # Kafka: LogDirFailureChannel.maybeAddOfflineLogDir
    def maybe_add_offline_log_dir(self, log_dir: str, msg: str, e: BaseException | None = None) -> None:
        if is_out_of_descriptors(e):   # see "Deviation" above
            self.error("%s: the broker is out of file descriptors (%s); the log dir %s stays online. Raise the "
                       "limit (ulimit -n) or delete partitions.", msg, e, log_dir)
            return
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

    # No Kafka counterpart: Java interrupts the thread blocked in take(); here a None wakes it
    def wake_taker(self) -> None:
        try:
            self._offline_log_dir_queue.put_nowait(None)
        except queue.Full:
            pass   # a full queue wakes the taker anyway
