"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/OffsetIndex.scala (and OffsetPosition from IndexEntry.scala)

Classes: OffsetIndex, OffsetPosition.

A sparse map from offset to file position in the segment's ``.log``. Each 8-byte entry is a
4-byte offset relative to the segment's base offset and a 4-byte position. LogSegment adds an
entry only every ``index.interval.bytes`` of appended data, so a lookup gives the position of
the last indexed batch at or before the target, and the log is scanned forward from there.
"""
from __future__ import annotations

import struct

import attrs

from kafkalite.log.abstract_index import (
    AbstractIndex, CorruptIndexException, IndexSearchType, InvalidOffsetException)

_ENTRY = struct.Struct(">ii")


@attrs.frozen
class OffsetPosition:
    """Kafka: OffsetPosition -- an absolute offset and a position in the log file."""

    offset: int
    position: int


class OffsetIndex(AbstractIndex):
    """Kafka: OffsetIndex."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = ('_last_offset',)

    entry_size = 8

    def __init__(self, file: str, base_offset: int, max_index_size: int = -1, writable: bool = True):
        super().__init__(file, base_offset, max_index_size, writable)
        self._last_offset = self._last_entry().offset

    # Kafka: OffsetIndex.lastEntry
    def _last_entry(self) -> OffsetPosition:
        with self._lock:
            if self._entries == 0:
                return OffsetPosition(self.base_offset, 0)
            relative, position = _ENTRY.unpack(self._read_entry_bytes(self._entries - 1))
            return OffsetPosition(self.base_offset + relative, position)

    @property
    def last_offset(self) -> int:
        return self._last_offset

    # Kafka: OffsetIndex.parseEntry
    def parse_entry(self, n: int) -> tuple[int, int]:
        relative, position = _ENTRY.unpack_from(*self._entry_buffer(n))
        return self.base_offset + relative, position

    # Kafka: OffsetIndex.entry
    def entry(self, n: int) -> OffsetPosition:
        with self._lock:
            if n >= self._entries:
                raise IndexError(f"Attempt to fetch the {n}th entry from index {self.file}, "
                                 f"which has size {self._entries}.")
            return OffsetPosition(*self.parse_entry(n))

    # Kafka: OffsetIndex.lookup
    def lookup(self, target_offset: int) -> OffsetPosition:
        """The entry with the largest offset <= target, or (base_offset, 0) if there is none."""
        with self._lock:
            slot = self._largest_lower_bound_slot_for(target_offset, IndexSearchType.KEY)
            if slot == -1:
                return OffsetPosition(self.base_offset, 0)
            return OffsetPosition(*self.parse_entry(slot))

    # Kafka: OffsetIndex.fetchUpperBoundOffset
    def fetch_upper_bound_offset(self, fetch_offset: OffsetPosition, fetch_size: int) -> OffsetPosition | None:
        with self._lock:
            slot = self._smallest_upper_bound_slot_for(fetch_offset.position + fetch_size, IndexSearchType.VALUE)
            return None if slot == -1 else OffsetPosition(*self.parse_entry(slot))

    # Kafka: OffsetIndex.append
    def append(self, offset: int, position: int) -> None:
        with self._lock:
            if self.is_full():
                raise ValueError(f"Attempt to append to a full index (size = {self._entries}).")
            if self._entries == 0 or offset > self._last_offset:
                self.debug("Adding index entry %d => %d", offset, position)
                self._write_entry(self._entries, _ENTRY.pack(self.relative_offset(offset), position))
                self._entries += 1
                self._last_offset = offset
            else:
                raise InvalidOffsetException(
                    f"Attempt to append an offset ({offset}) to position {self._entries} no larger than "
                    f"the last offset appended ({self._last_offset}) to {self.file}.")

    # Kafka: OffsetIndex.truncateTo
    def truncate_to(self, offset: int) -> None:
        """Remove every entry with an offset >= ``offset``."""
        with self._lock:
            slot = self._largest_lower_bound_slot_for(offset, IndexSearchType.KEY)
            if slot < 0:
                new_entries = 0
            elif self.parse_entry(slot)[0] == offset:
                new_entries = slot
            else:
                new_entries = slot + 1
            self.truncate_to_entries(new_entries)

    # Kafka: OffsetIndex.truncateToEntries
    def truncate_to_entries(self, entries: int) -> None:
        with self._lock:
            self._entries = entries
            self._last_offset = self._last_entry().offset

    # Kafka: OffsetIndex.sanityCheck (``log_size``: kafkalite also checks that the last entry points
    # inside the segment's .log, whose size the caller knows)
    def sanity_check(self, log_size: int | None = None) -> None:
        if log_size is not None and self._entries != 0:
            position = self._last_entry().position
            if position >= log_size:
                raise CorruptIndexException(
                    f"Corrupt index found, index file ({self.file}) has its last entry (offset {self._last_offset}) "
                    f"at position {position}, past the end of its log file ({log_size} bytes).")
        if self._entries != 0 and self._last_offset < self.base_offset:
            raise CorruptIndexException(
                f"Corrupt index found, index file ({self.file}) has non-zero size but the last offset "
                f"is {self._last_offset} which is less than the base offset {self.base_offset}.")
        if self._length % self.entry_size != 0:
            raise CorruptIndexException(
                f"Index file {self.file} is corrupt, found {self._length} bytes which is neither positive "
                f"nor a multiple of {self.entry_size}.")
