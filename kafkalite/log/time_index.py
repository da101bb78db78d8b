"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/TimeIndex.scala (and TimestampOffset from IndexEntry.scala)

Classes: TimeIndex, TimestampOffset.

Maps a timestamp to the first offset at or after it (KIP-33; ListOffsets by time and
time-based retention use it). Each 12-byte entry is an 8-byte timestamp and a 4-byte offset
relative to the segment base. Timestamps in the index only grow: an entry is added when a batch
raises the segment's max timestamp. The last slot is kept free for the entry written when the
segment rolls (``is_full`` reports full one entry early, as Kafka does).
"""
from __future__ import annotations

import struct

import attrs

from kafkalite.log.abstract_index import (
    AbstractIndex, CorruptIndexException, IndexSearchType, InvalidOffsetException)
from kafkalite.record.record_batch import RecordBatch

_ENTRY = struct.Struct(">qi")


@attrs.frozen
class TimestampOffset:
    """Kafka: TimestampOffset."""

    timestamp: int
    offset: int


class TimeIndex(AbstractIndex):
    """Kafka: TimeIndex."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = ('_last_entry',)

    entry_size = 12

    def __init__(self, file: str, base_offset: int, max_index_size: int = -1, writable: bool = True):
        super().__init__(file, base_offset, max_index_size, writable)
        self._last_entry = self._last_entry_from_index_file()

    # Kafka: TimeIndex.isFull (reserves the last slot for the roll entry)
    def is_full(self) -> bool:
        return self._entries >= self._max_entries - 1

    @property
    def last_entry(self) -> TimestampOffset:
        return self._last_entry

    # Kafka: TimeIndex.lastEntryFromIndexFile
    def _last_entry_from_index_file(self) -> TimestampOffset:
        with self._lock:
            if self._entries == 0:
                return TimestampOffset(RecordBatch.NO_TIMESTAMP, self.base_offset)
            timestamp, relative = _ENTRY.unpack(self._read_entry_bytes(self._entries - 1))
            return TimestampOffset(timestamp, self.base_offset + relative)

    # Kafka: TimeIndex.parseEntry
    def parse_entry(self, n: int) -> tuple[int, int]:
        timestamp, relative = _ENTRY.unpack_from(*self._entry_buffer(n))
        return timestamp, self.base_offset + relative

    # Kafka: TimeIndex.entry
    def entry(self, n: int) -> TimestampOffset:
        with self._lock:
            if n >= self._entries:
                raise IndexError(f"Attempt to fetch the {n}th entry from time index {self.file} "
                                 f"which has size {self._entries}.")
            return TimestampOffset(*self.parse_entry(n))

    # Kafka: TimeIndex.maybeAppend
    def maybe_append(self, timestamp: int, offset: int, skip_full_check: bool = False) -> None:
        with self._lock:
            if not skip_full_check and self.is_full():
                raise ValueError("Attempt to append to a full time index (size = %d)." % self._entries)
            if self._entries != 0 and offset < self._last_entry.offset:
                raise InvalidOffsetException(
                    f"Attempt to append an offset ({offset}) to slot {self._entries} no larger than the "
                    f"last offset appended ({self._last_entry.offset}) to {self.file}.")
            if self._entries != 0 and timestamp < self._last_entry.timestamp:
                raise ValueError(
                    f"Attempt to append a timestamp ({timestamp}) to slot {self._entries} no larger than the "
                    f"last timestamp appended ({self._last_entry.timestamp}) to {self.file}.")
            # Only a larger timestamp gets an entry (the roll entry may repeat the last one).
            if timestamp > self._last_entry.timestamp:
                if self._entries >= self._max_entries:
                    raise ValueError(f"Time index {self.file} has no room for another entry")
                self.debug("Adding index entry %d => %d", timestamp, offset)
                self._write_entry(self._entries, _ENTRY.pack(timestamp, self.relative_offset(offset)))
                self._entries += 1
                self._last_entry = TimestampOffset(timestamp, offset)

    # Kafka: TimeIndex.lookup
    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The entry with the largest timestamp <= target, or (NO_TIMESTAMP, base_offset)."""
        with self._lock:
            slot = self._largest_lower_bound_slot_for(target_timestamp, IndexSearchType.KEY)
            if slot == -1:
                return TimestampOffset(RecordBatch.NO_TIMESTAMP, self.base_offset)
            return TimestampOffset(*self.parse_entry(slot))

    # Kafka: TimeIndex.truncateTo
    def truncate_to(self, offset: int) -> None:
        """Remove every entry pointing at an offset >= ``offset``."""
        with self._lock:
            slot = self._largest_lower_bound_slot_for(offset, IndexSearchType.VALUE)
            if slot < 0:
                new_entries = 0
            elif self.parse_entry(slot)[1] == offset:
                new_entries = slot
            else:
                new_entries = slot + 1
            self.truncate_to_entries(new_entries)

    # Kafka: TimeIndex.truncateToEntries
    def truncate_to_entries(self, entries: int) -> None:
        with self._lock:
            self._entries = entries
            self._last_entry = self._last_entry_from_index_file()

    # Kafka: TimeIndex.sanityCheck
    def sanity_check(self) -> None:
        last = self._last_entry
        if self._entries != 0:
            first_timestamp = _ENTRY.unpack(self._read_entry_bytes(0))[0]
            if last.timestamp < first_timestamp:
                raise CorruptIndexException(
                    f"Corrupt time index found, time index file ({self.file}) has non-zero size but the last "
                    f"timestamp is {last.timestamp} which is less than the first timestamp {first_timestamp}")
        if self._entries != 0 and last.timestamp < 0:
            raise CorruptIndexException(
                f"Corrupt time index found, time index file ({self.file}) has non-zero size but the last "
                f"timestamp is {last.timestamp} which is less than zero.")
        if self._entries != 0 and last.offset < self.base_offset:
            raise CorruptIndexException(
                f"Corrupt time index found, time index file ({self.file}) has non-zero size but the last "
                f"offset is {last.offset} which is less than the first offset {self.base_offset}")
        if self._length % self.entry_size != 0:
            raise CorruptIndexException(
                f"Time index file {self.file} is corrupt, found {self._length} bytes which is neither "
                f"positive nor a multiple of {self.entry_size}.")
