"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/epoch/LeaderEpochFileCache.scala
(and kafka/server/checkpoints/LeaderEpochCheckpointFile.scala)

Kept in ``kafkalite/log/`` because Log owns it and ``log`` must not import ``server``.

Classes: EpochEntry, LeaderEpochFileCache -- the start offset of every leader epoch in this
partition's log, saved in ``<log dir>/leader-epoch-checkpoint`` as Kafka writes it:
``0`` (version), the entry count, then one ``<epoch> <start offset>`` line per entry.
OffsetForLeaderEpoch (KIP-101/279) answers from ``end_offset_for``.

Era notes: a truncation writes the file in the background, on the broker's scheduler
(``leader-epoch-cache-flush-<partition>``), as in Kafka 3.8 (KAFKA-16541, ``truncateFromEndAsyncFlush`` and
``truncateFromStartAsyncFlush``); 2.4 writes and fsyncs it at once. ``assign`` still writes at once, so the file
never lacks an entry; until the background write it may still hold entries a truncation removed, and the
next load truncates them again. Without a scheduler (tools, tests) the file is written at once.
"""
from __future__ import annotations

import os
import threading

import attrs

from kafkalite.log.checkpoint_file import read_checkpoint, write_checkpoint
from kafkalite.utils.logging import Logging

LEADER_EPOCH_CHECKPOINT_FILENAME = "leader-epoch-checkpoint"
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


@attrs.frozen
class EpochEntry:
    """Kafka: EpochEntry."""

    epoch: int
    start_offset: int


class LeaderEpochFileCache(Logging):
    """Kafka: LeaderEpochFileCache."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = ('topic_partition', 'checkpoint_path', 'epochs', '_lock', 'scheduler')

    # Kafka: Logging.logIdent -- Kafka builds this string in the constructor; it is built when a line is
    # logged instead: a broker holds one such object per partition, and the string costs ~100 B
    @property
    def log_ident(self) -> str:  # type: ignore[override]
        return f"[LeaderEpochCache {self.topic_partition}] "

    def __init__(self, topic_partition, checkpoint_path: str | None, scheduler=None):
        self.topic_partition = topic_partition
        self.checkpoint_path = checkpoint_path
        self.scheduler = scheduler
        self._lock = threading.RLock()
        self.epochs: list[EpochEntry] = []
        if checkpoint_path:
            self.epochs = [EpochEntry(int(e), int(o)) for e, o in read_checkpoint(checkpoint_path)]

    # Kafka: LeaderEpochFileCache.assign -- a new epoch, or the same epoch starting earlier, replaces every
    # entry it conflicts with (an epoch not below it, or a start offset not below its own)
    def assign(self, epoch: int, start_offset: int) -> None:
        with self._lock:
            latest = self.epochs[-1] if self.epochs else None
            if latest is not None and latest.epoch == epoch and start_offset >= latest.start_offset:
                return
            self.truncate_and_append(EpochEntry(epoch, start_offset))
            self.flush()

    # Kafka: LeaderEpochFileCache.truncateAndAppend
    def truncate_and_append(self, entry: EpochEntry) -> None:
        latest = self.epochs[-1] if self.epochs else None
        if latest is not None and (entry.epoch < latest.epoch or entry.start_offset < latest.start_offset):
            self.warn("Appending entry %s to leader epoch cache removes entries from %s", entry, latest)
        self.epochs = [e for e in self.epochs if e.epoch < entry.epoch and e.start_offset < entry.start_offset]
        self.epochs.append(entry)
        self.info("New epoch entry added: %s", entry)

    # Kafka: LeaderEpochFileCache.latestEpoch
    @property
    def latest_epoch(self) -> int | None:
        return self.epochs[-1].epoch if self.epochs else None

    # Kafka: LeaderEpochFileCache.earliestEntry
    def earliest_entry(self) -> EpochEntry | None:
        return self.epochs[0] if self.epochs else None

    # Kafka: LeaderEpochFileCache.endOffsetFor
    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> tuple[int, int]:
        with self._lock:
            if requested_epoch == UNDEFINED_EPOCH:
                return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
            if self.latest_epoch == requested_epoch:
                return requested_epoch, log_end_offset
            later = [e for e in self.epochs if e.epoch > requested_epoch]
            earlier = [e for e in self.epochs if e.epoch <= requested_epoch]
            if not later:
                return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
            if not earlier:
                return requested_epoch, later[0].start_offset
            return earlier[-1].epoch, later[0].start_offset

    # Kafka 3.8: LeaderEpochFileCache.truncateFromEndAsyncFlush (2.4: truncateFromEnd, flushed at once) -- the
    # entries starting at or after ``end_offset`` go
    def truncate_from_end_async_flush(self, end_offset: int) -> None:
        with self._lock:
            if self.epochs and end_offset >= 0 and end_offset <= self.epochs[-1].start_offset:
                self.epochs = [e for e in self.epochs if e.start_offset < end_offset]
                self._schedule_flush()

    # Kafka 3.8: LeaderEpochFileCache.truncateFromStartAsyncFlush (2.4: truncateFromStart) -- the entries
    # before ``start_offset`` go, the last of them kept as starting there
    def truncate_from_start_async_flush(self, start_offset: int) -> None:
        with self._lock:
            if start_offset >= 0 and self.epochs and self.epochs[0].start_offset < start_offset:
                before = [e for e in self.epochs if e.start_offset <= start_offset]
                self.epochs = [EpochEntry(before[-1].epoch, start_offset)] + \
                    [e for e in self.epochs if e.start_offset > start_offset]
                self._schedule_flush()

    def _schedule_flush(self) -> None:
        if self.scheduler is None:
            self.flush()
        else:
            self.scheduler.schedule_once(f"leader-epoch-cache-flush-{self.topic_partition}",
                                         self._write_to_file_for_truncation)

    # Kafka 3.8: LeaderEpochFileCache.writeToFileForTruncation -- the entries as they are when it runs; a log
    # deleted or moved meanwhile has no file to write (checkpoint.writeIfDirExists)
    def _write_to_file_for_truncation(self) -> None:
        with self._lock:
            try:
                self.flush()
            except FileNotFoundError:
                pass
            except OSError as e:   # the next assign writes at once, and fails where its log dir's failures count
                self.error("Error while writing the leader epoch checkpoint after a truncation: %s", e)

    # Kafka: LeaderEpochFileCache.clear -- for a log being deleted: its file is about to go, so a background
    # write still pending finds nothing to write (one under way is waited for, under the lock)
    def clear(self) -> None:
        with self._lock:
            self.epochs = []
            self.checkpoint_path = None

    # Kafka: LeaderEpochFileCache.clearAndFlush
    def clear_and_flush(self) -> None:
        with self._lock:
            self.epochs = []
            self.flush()

    def flush(self) -> None:
        if self.checkpoint_path and os.path.isdir(os.path.dirname(self.checkpoint_path)):
            write_checkpoint(self.checkpoint_path, [f"{e.epoch} {e.start_offset}" for e in self.epochs])
