"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/AbstractIndex.scala (and IndexEntry.scala)

Classes: AbstractIndex (an mmap'd file of fixed-size entries), IndexSearchType (KEY/VALUE),
CorruptIndexException, InvalidOffsetException (kafka.common).

The file is preallocated to ``max_index_size`` (rounded down to whole entries) when created,
filled from the front, and trimmed to its valid entries when the segment is rolled or closed
(``trim_to_valid_size``), so an index on disk after a clean shutdown holds exactly ``entries``
entries. Python's ``mmap`` cannot map an empty file; a zero-length index simply has no map.

Binary search: Kafka keeps the last 8192 bytes of the index "warm" in the page cache: lookups
for recent offsets (consumers at the tail, followers) first search only that tail section, so
they touch the same few pages; ``_index_slot_range_for`` does the same.

Writes: entries are written with ``os.pwrite`` on the index's descriptor, never through the map
(which is mapped read-only and sees the same page cache). Kafka writes through its
MappedByteBuffer; in Python, writing (or even reading) a not-yet-allocated page of a mapped file
on a full filesystem (tmpfs) kills the process with SIGBUS, while ``pwrite`` fails with ENOSPC,
which the storage-error path turns into KAFKA_STORAGE_ERROR and an offline log directory. For the
same reason the last entry of an index found on disk is read with ``os.pread`` (after a crash the
file still has its preallocated length, and its tail is a hole) and lookups only ever read the
``entries`` slots that were written.

Left out: LazyIndex (indexes are opened eagerly), Windows-only locking, ``forceUnmap``.
"""
from __future__ import annotations

import enum
import mmap
import os
import threading

from kafkalite.utils.logging import Logging


class CorruptIndexException(Exception):
    """Kafka: org.apache.kafka.common.errors.CorruptIndexException (not a wire error)."""


class InvalidOffsetException(Exception):
    """Kafka: kafka.common.InvalidOffsetException."""


class IndexSearchType(enum.Enum):
    """Kafka: IndexSearchType -- search an index by its entries' key or by their value."""

    KEY = 0
    VALUE = 1


def round_down_to_exact_multiple(number: int, factor: int) -> int:
    return factor * (number // factor)


class AbstractIndex(Logging):
    """Kafka: AbstractIndex -- entries of ``entry_size`` bytes in a memory-mapped file."""

    entry_size = 0  # set by subclasses

    # Kafka: AbstractIndex.<init>
    def __init__(self, file: str, base_offset: int, max_index_size: int = -1, writable: bool = True):
        self.file = file
        self.base_offset = base_offset
        self.max_index_size = max_index_size
        self.writable = writable
        self._lock = threading.RLock()
        self.log_ident = f"[{type(self).__name__} file={file}] "
        newly_created = not os.path.exists(file)
        self._fd = os.open(file, (os.O_RDWR if writable else os.O_RDONLY) | os.O_CREAT, 0o644)
        if newly_created:
            if max_index_size < self.entry_size:
                os.close(self._fd)
                raise ValueError(f"Invalid max index size: {max_index_size}")
            os.ftruncate(self._fd, round_down_to_exact_multiple(max_index_size, self.entry_size))
        self._length = os.fstat(self._fd).st_size
        self._mmap = self._map(self._length)
        # A new file is empty; an existing one was trimmed to its entries when it was closed.
        self._entries = 0 if newly_created else self._length // self.entry_size
        self._max_entries = self._length // self.entry_size

    def _map(self, length: int):
        if length == 0:
            return None
        return mmap.mmap(self._fd, length, access=mmap.ACCESS_READ)

    def _write_entry(self, n: int, entry: bytes) -> None:
        """Write slot ``n`` (see "Writes" above); raises OSError (ENOSPC...) on a disk error."""
        if not self.writable:
            raise OSError(f"Index {self.file} was opened read-only")
        if os.pwrite(self._fd, entry, n * self.entry_size) != len(entry):
            raise OSError(f"Short write of index entry {n} to {self.file}")

    def _read_entry_bytes(self, n: int) -> bytes:
        """Slot ``n`` read with pread, not through the map (see "Writes" above)."""
        return os.pread(self._fd, self.entry_size, n * self.entry_size)

    @property
    def entries(self) -> int:
        return self._entries

    @property
    def max_entries(self) -> int:
        return self._max_entries

    @property
    def length(self) -> int:
        return self._length

    # Kafka: AbstractIndex.isFull
    def is_full(self) -> bool:
        return self._entries >= self._max_entries

    # Kafka: AbstractIndex.sizeInBytes
    def size_in_bytes(self) -> int:
        return self.entry_size * self._entries

    # Kafka: AbstractIndex.resize
    def resize(self, new_size: int) -> bool:
        """Change the file (and map) to ``new_size`` rounded down to whole entries."""
        with self._lock:
            rounded = round_down_to_exact_multiple(new_size, self.entry_size)
            if rounded == self._length:
                return False
            if self._mmap is not None:
                self._mmap.close()
            os.ftruncate(self._fd, rounded)
            self._length = rounded
            self._mmap = self._map(rounded)
            self._max_entries = rounded // self.entry_size
            self._entries = min(self._entries, self._max_entries)
            return True

    # Kafka: AbstractIndex.trimToValidSize
    def trim_to_valid_size(self) -> None:
        with self._lock:
            self.resize(self.entry_size * self._entries)

    # Kafka: AbstractIndex.flush
    def flush(self) -> None:
        with self._lock:
            if self._fd >= 0 and self.writable:
                os.fsync(self._fd)

    # Kafka: AbstractIndex.close
    def close(self) -> None:
        with self._lock:
            if self._fd < 0:
                return
            if self.writable:
                self.trim_to_valid_size()
            self.close_handler()

    # Kafka: AbstractIndex.closeHandler
    def close_handler(self) -> None:
        with self._lock:
            if self._mmap is not None:
                self._mmap.close()
                self._mmap = None
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    # Kafka: AbstractIndex.deleteIfExists
    def delete_if_exists(self) -> bool:
        self.close_handler()
        try:
            os.unlink(self.file)
            return True
        except FileNotFoundError:
            return False

    # Kafka: AbstractIndex.reset
    def reset(self) -> None:
        self.truncate()
        self.resize(self.max_index_size)

    # Kafka: AbstractIndex.truncate
    def truncate(self) -> None:
        self.truncate_to_entries(0)

    # Kafka: AbstractIndex.relativeOffset / canAppendOffset
    def relative_offset(self, offset: int) -> int:
        relative = offset - self.base_offset
        if not 0 <= relative <= 0x7FFFFFFF:
            raise InvalidOffsetException(
                f"Integer overflow for offset: {offset} ({self.file}, base offset {self.base_offset})")
        return relative

    def can_append_offset(self, offset: int) -> bool:
        return 0 <= offset - self.base_offset <= 0x7FFFFFFF

    # ---- to be supplied by OffsetIndex / TimeIndex ----
    def parse_entry(self, n: int):
        raise NotImplementedError

    def truncate_to_entries(self, entries: int) -> None:
        raise NotImplementedError

    def sanity_check(self) -> None:
        raise NotImplementedError

    def _compare_index_entry(self, entry, target: int, search_entity: IndexSearchType) -> int:
        key, value = entry
        found = key if search_entity is IndexSearchType.KEY else value
        return (found > target) - (found < target)

    # Kafka: AbstractIndex.largestLowerBoundSlotFor
    def _largest_lower_bound_slot_for(self, target: int, search_entity: IndexSearchType) -> int:
        return self._index_slot_range_for(target, search_entity)[0]

    # Kafka: AbstractIndex.smallestUpperBoundSlotFor
    def _smallest_upper_bound_slot_for(self, target: int, search_entity: IndexSearchType) -> int:
        return self._index_slot_range_for(target, search_entity)[1]

    # Kafka: AbstractIndex.indexSlotRangeFor
    def _index_slot_range_for(self, target: int, search_entity: IndexSearchType) -> tuple[int, int]:
        """(largest slot <= target, smallest slot >= target); -1 where there is none."""
        entries = self._entries
        if entries == 0:
            return -1, -1

        def binary_search(begin: int, end: int) -> tuple[int, int]:
            lo, hi = begin, end
            while lo < hi:
                mid = (lo + hi + 1) // 2
                cmp = self._compare_index_entry(self.parse_entry(mid), target, search_entity)
                if cmp > 0:
                    hi = mid - 1
                elif cmp < 0:
                    lo = mid
                else:
                    return mid, mid
            return lo, (-1 if lo == entries - 1 else lo + 1)

        # The warm section: the entries in the last 8192 bytes of the index.
        warm_entries = 8192 // self.entry_size
        first_hot_entry = max(0, entries - 1 - warm_entries)
        if self._compare_index_entry(self.parse_entry(first_hot_entry), target, search_entity) < 0:
            return binary_search(first_hot_entry, entries - 1)
        if self._compare_index_entry(self.parse_entry(0), target, search_entity) > 0:
            return -1, 0
        return binary_search(0, first_hot_entry)
