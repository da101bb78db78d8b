"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/checkpoints/CheckpointFile.scala and
OffsetCheckpointFile.scala

Kept in ``kafkalite/log/`` (Kafka has them in kafka/server/checkpoints/) because LogManager and
the leader epoch cache write them and ``log`` must not import ``server``.

Classes: OffsetCheckpointFile, LazyOffsetCheckpoints. Functions: write_checkpoint, read_checkpoint.
Format (text, as Kafka writes it): a version line ``0``, a count line, then one entry per line;
for offset checkpoints the entry is ``<topic> <partition> <offset>``. Writes go to ``<file>.tmp``,
are fsynced, then renamed over the old file, so a crash leaves either the old or the new file.
"""
from __future__ import annotations

import os
import threading

from kafkalite.common.topic_partition import TopicPartition


# Kafka: CheckpointFile.write
def write_checkpoint(path: str, lines: list[str]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"0\n{len(lines)}\n")
        for line in lines:
            f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


# Kafka: CheckpointFile.read
def read_checkpoint(path: str) -> list[list[str]]:
    """The entry lines split on spaces; [] if the file does not exist."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    if len(lines) < 2 or lines[0].strip() != "0":
        raise ValueError(f"Malformed line in checkpoint file ({path}): unrecognised version or header")
    count = int(lines[1])
    entries = [line.split() for line in lines[2:2 + count]]
    if len(entries) != count:
        raise ValueError(f"Expected {count} entries in checkpoint file ({path}), but found only {len(entries)}")
    return entries


class OffsetCheckpointFile:
    """Kafka: OffsetCheckpointFile -- TopicPartition -> offset, one line per partition."""

    def __init__(self, path: str):
        self.path = path
        self.lock = threading.Lock()   # Kafka: CheckpointFile.lock -- one writer of <file>.tmp at a time

    # Kafka: CheckpointFile.write
    def write(self, offsets: dict[TopicPartition, int]) -> None:
        with self.lock:
            write_checkpoint(self.path, [f"{tp.topic} {tp.partition} {off}" for tp, off in sorted(offsets.items())])

    def read(self) -> dict[TopicPartition, int]:
        result = {}
        for fields in read_checkpoint(self.path):
            if len(fields) != 3:
                raise ValueError(f"Malformed line in checkpoint file ({self.path}): {' '.join(fields)}")
            result[TopicPartition(fields[0], int(fields[1]))] = int(fields[2])
        return result


class LazyOffsetCheckpoints:
    """Kafka: LazyOffsetCheckpoints(checkpointsByLogDir) -- one checkpoint file per log dir, each read only
    when a partition of that dir first asks (then kept): how a Partition finds its high watermark at start-up."""

    def __init__(self, checkpoints_by_log_dir: dict[str, OffsetCheckpointFile]):
        self.checkpoints_by_log_dir = checkpoints_by_log_dir
        self._read: dict[str, dict[TopicPartition, int]] = {}

    # Kafka: LazyOffsetCheckpoints.fetch
    def fetch(self, log_dir: str, topic_partition: TopicPartition) -> int | None:
        if log_dir not in self._read:
            checkpoint = self.checkpoints_by_log_dir.get(log_dir)
            self._read[log_dir] = checkpoint.read() if checkpoint is not None else {}
        return self._read[log_dir].get(topic_partition)
