"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/AbstractIndex.scala (and IndexEntry.scala)

Classes: AbstractIndex (an mmap'd file of fixed-size entries), IndexSearchType (KEY/VALUE),
CorruptIndexException, InvalidOffsetException (kafka.common), MappedFile (the map itself).

The file is preallocated to ``max_index_size`` (rounded down to whole entries) when created,
filled from the front, and trimmed to its valid entries when the segment is rolled or closed
(``trim_to_valid_size``), so an index on disk after a clean shutdown holds exactly ``entries``
entries. ``mmap`` cannot map an empty file; a zero-length index simply has no map.

Descriptors: as Kafka's AbstractIndex (which maps the file and closes its RandomAccessFile), an
index holds no open file. The descriptor is open only while the file is created, mapped or resized
(``resize``, ``trim_to_valid_size``); a broker with many partitions keeps one descriptor per segment,
its ``.log``. Python's own ``mmap.mmap`` keeps a duplicate of the descriptor for as long as the map
lives (until Python 3.13's ``trackfd=False``), so the map is made with libc's ``mmap(2)`` through
ctypes (``MappedFile``) and read and written through a ctypes array over it.

Binary search: Kafka keeps the last 8192 bytes of the index "warm" in the page cache: lookups
for recent offsets (consumers at the tail, followers) first search only that tail section, so
they touch the same few pages; ``_index_slot_range_for`` does the same.

Writes go through the map, as Kafka's go through its MappedByteBuffer. A full filesystem must fail a
write with an error (ENOSPC), never kill the process: writing (or even reading) a not-yet-allocated
page of a mapped file (a hole of the preallocated file) on a full filesystem raises SIGBUS, which a
JVM turns into an InternalError but which kills a Python process. So the index tracks how far the
file is known to be allocated (``_allocated_end``: the first hole found with ``SEEK_HOLE`` when it is
mapped, then every page it allocated itself). Before an entry is written into a page beyond it, that
page is allocated with ``madvise(MADV_POPULATE_WRITE)`` (Linux 5.14; it fails with EFAULT where the
access would raise SIGBUS) -- or, on an older kernel, with ``posix_fallocate`` on a briefly opened
descriptor. A failure raises OSError(ENOSPC), which the storage-error path turns into
KAFKA_STORAGE_ERROR and an offline log directory. Reads never touch a page beyond ``_allocated_end``
through the map either: a hole reads as zeros, which is what those bytes are. So the last entries of
an index found on disk after a crash (the file still has its preallocated length and its tail is a
hole) read safely, and only pages this broker allocated or found written are ever faulted in.

Era notes: LazyIndex (lazy_index.py, Kafka 2.4's KAFKA-7283) wraps each segment's offset and time
index, so an index is mapped only when it is first used.
Left out: Windows-only locking, ``forceUnmap`` (``close_handler`` unmaps at once; an index dropped
without being closed is unmapped when it is collected).
"""
from __future__ import annotations

import ctypes
import enum
import errno
import mmap
import os
import threading

from kafkalite.utils.logging import Logging

_PAGE = mmap.PAGESIZE
_MADV_POPULATE_WRITE = 23   # linux/mman.h, Linux 5.14
_MS_SYNC = 4                # linux: MS_SYNC
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.restype = ctypes.c_int
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.madvise.restype = ctypes.c_int
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.msync.restype = ctypes.c_int
_libc.msync.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_MAP_FAILED = ctypes.c_void_p(-1).value
_populate_supported = True   # cleared the first time the kernel answers EINVAL (before Linux 5.14)


def _os_error(what: str, path: str) -> OSError:
    code = ctypes.get_errno()
    return OSError(code, f"{what} {path}: {os.strerror(code)}")


class MappedFile:
    """A shared map of ``length`` bytes of a file, made with libc's mmap(2) so that it keeps no descriptor.

    ``view`` is a ctypes char array over it (``view[a:b]`` reads bytes, ``view[a:b] = data`` writes,
    ``struct.unpack_from(view, n)`` reads in place). ``close`` unmaps; an object dropped without ``close`` is
    unmapped when it is collected. The index drops its MappedFile at ``close`` under its lock, so nothing
    reads a view after its unmapping.
    """

    __slots__ = ("addr", "length", "view")

    def __init__(self, fd: int, length: int, writable: bool, path: str = ""):
        prot = mmap.PROT_READ | (mmap.PROT_WRITE if writable else 0)
        addr = _libc.mmap(None, length, prot, mmap.MAP_SHARED, fd, 0)
        if addr is None or addr == _MAP_FAILED:
            raise _os_error("Cannot map", path)
        self.addr, self.length = addr, length
        self.view = (ctypes.c_char * length).from_address(addr)

    def populate(self, start: int, end: int, path: str) -> None:
        """Allocate the pages holding [start, end) for writing, or raise OSError (ENOSPC) -- never SIGBUS."""
        global _populate_supported
        first = start - start % _PAGE
        last = min(self.length, -(-end // _PAGE) * _PAGE)
        if _populate_supported:
            if _libc.madvise(self.addr + first, last - first, _MADV_POPULATE_WRITE) == 0:
                return
            code = ctypes.get_errno()
            if code == errno.EFAULT:   # the access would have raised SIGBUS: no space to allocate the page
                raise OSError(errno.ENOSPC, f"No space left on device for bytes {first}-{last} of index {path} "
                                            f"(madvise MADV_POPULATE_WRITE: {os.strerror(code)})")
            if code != errno.EINVAL:
                raise OSError(code, f"Cannot allocate bytes {first}-{last} of index {path}: {os.strerror(code)}")
            _populate_supported = False
        fd = os.open(path, os.O_RDWR)
        try:
            os.posix_fallocate(fd, first, last - first)
        finally:
            os.close(fd)

    def flush(self, path: str) -> None:
        if _libc.msync(self.addr, self.length, _MS_SYNC) != 0:
            raise _os_error("Cannot flush", path)

    def close(self) -> None:
        if self.addr is not None:
            self.view = None
            _libc.munmap(self.addr, self.length)
            self.addr = None

    def __del__(self):
        try:
            self.close()
        except Exception:   # noqa: BLE001 -- interpreter shutdown
            pass


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


def _first_hole(fd: int, length: int) -> int:
    """Where the file's first hole starts (its length if it has none)."""
    if length == 0:
        return 0
    try:
        return min(length, os.lseek(fd, 0, os.SEEK_HOLE))
    except OSError:   # no SEEK_HOLE here: trust the whole file, as Kafka does
        return length


class AbstractIndex(Logging):
    """Kafka: AbstractIndex -- entries of ``entry_size`` bytes in a memory-mapped file."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = (
        'file', 'base_offset', 'max_index_size', 'writable', '_lock', '_closed', '_length', '_allocated_end', '_mmap',
        '_entries', '_max_entries'
    )

    entry_size = 0  # set by subclasses

    # Kafka: AbstractIndex.<init> -- create (and preallocate) the file if needed, map it, close it
    def __init__(self, file: str, base_offset: int, max_index_size: int = -1, writable: bool = True):
        self.file = file
        self.base_offset = base_offset
        self.max_index_size = max_index_size
        self.writable = writable
        self._lock = threading.RLock()
        self._closed = False
        newly_created = not os.path.exists(file)
        if newly_created and max_index_size < self.entry_size:
            raise ValueError(f"Invalid max index size: {max_index_size}")
        fd = os.open(file, (os.O_RDWR | os.O_CREAT) if writable else os.O_RDONLY, 0o644)
        try:
            if newly_created:
                os.ftruncate(fd, round_down_to_exact_multiple(max_index_size, self.entry_size))
            self._length = os.fstat(fd).st_size
            self._allocated_end = _first_hole(fd, self._length)
            self._mmap = self._map(fd, self._length)
        finally:
            os.close(fd)
        # A new file is empty; an existing one was trimmed to its entries when it was closed.
        self._entries = 0 if newly_created else self._length // self.entry_size
        self._max_entries = self._length // self.entry_size

    @property
    def log_ident(self) -> str:
        return f"[{type(self).__name__} file={self.file}] "

    def _map(self, fd: int, length: int) -> MappedFile | None:
        return MappedFile(fd, length, self.writable, self.file) if length else None

    def _write_entry(self, n: int, entry: bytes) -> None:
        """Write slot ``n`` through the map (see "Writes" above); OSError (ENOSPC...) if its page cannot be had."""
        if not self.writable:
            raise OSError(f"Index {self.file} was opened read-only")
        start = n * self.entry_size
        end = start + len(entry)
        if end > self._allocated_end:   # from the end of what is allocated, so that no page is skipped
            self._mmap.populate(min(start, self._allocated_end), end, self.file)
            self._allocated_end = min(self._length, -(-end // _PAGE) * _PAGE)
        self._mmap.view[start:end] = entry

    def _read_entry_bytes(self, n: int) -> bytes:
        """Slot ``n``: through the map where the file is known to be allocated, zeros (a hole) beyond."""
        start = n * self.entry_size
        end = start + self.entry_size
        allocated = self._allocated_end
        if end <= allocated:
            return self._mmap.view[start:end]
        if start >= allocated:
            return bytes(self.entry_size)
        return self._mmap.view[start:allocated] + bytes(end - allocated)

    def _entry_buffer(self, n: int):
        """(buffer, offset) to unpack slot ``n`` from: the map itself, unless the slot reaches past ``_allocated_end``."""
        start = n * self.entry_size
        if start + self.entry_size <= self._allocated_end:
            return self._mmap.view, start
        return self._read_entry_bytes(n), 0

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
        """Change the file (and map) to ``new_size`` rounded down to whole entries; the file is open only meanwhile."""
        with self._lock:
            rounded = round_down_to_exact_multiple(new_size, self.entry_size)
            if rounded == self._length:
                return False
            fd = os.open(self.file, os.O_RDWR)   # nothing has changed if this fails (EMFILE...)
            try:
                os.ftruncate(fd, rounded)   # ... or this
                old, self._mmap = self._mmap, None
                if old is not None:
                    old.close()
                self._length = rounded
                self._allocated_end = min(self._allocated_end, rounded)
                self._max_entries = rounded // self.entry_size
                self._entries = min(self._entries, self._max_entries)
                try:
                    self._mmap = self._map(fd, rounded)
                except OSError:   # e.g. ENOMEM at vm.max_map_count: an index with nothing mapped holds nothing
                    self._length = self._allocated_end = self._max_entries = self._entries = 0
                    raise
            finally:
                os.close(fd)
            return True

    # Kafka: AbstractIndex.trimToValidSize
    def trim_to_valid_size(self) -> None:
        with self._lock:
            self.resize(self.entry_size * self._entries)

    # Kafka: AbstractIndex.flush (MappedByteBuffer.force: msync)
    def flush(self) -> None:
        with self._lock:
            if self._mmap is not None and self.writable:
                self._mmap.flush(self.file)

    # Kafka: AbstractIndex.close
    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self.writable:
                self.trim_to_valid_size()
            self.close_handler()

    # Kafka: AbstractIndex.closeHandler -- unmap at once (Kafka's forceUnmap, KAFKA-4614)
    def close_handler(self) -> None:
        with self._lock:
            self._closed = True
            if self._mmap is not None:
                self._mmap.close()
                self._mmap = None

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
