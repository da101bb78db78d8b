"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/memory/MemoryPool.java and
SimpleMemoryPool.java (KIP-72)

Classes: MemoryPool (``MemoryPool.NONE``: no limit), SimpleMemoryPool.

The broker takes the buffer of every request it reads from one pool, sized by
``queued.max.request.bytes``. A receive whose size is known but for which the pool has no room gets no
buffer: its channel is muted until requests are handled and their buffers come back (``release``), so
however many clients send, the request bytes held at once stay near the pool's size. As in Kafka's
broker the pool is not strict: an allocation succeeds while any memory is left, so it may overshoot by
at most one request (``socket.request.max.bytes``).

How the buffer is made (no Kafka counterpart: the JVM allocates heap buffers): below 1 MiB a
``bytearray``; from 1 MiB an anonymous ``mmap``, whose pages the kernel commits only as bytes arrive, so
a client that declares a large frame and trickles costs what it sent, not what it declared, and the
pages go back to the system as soon as the buffer is dropped.

Reuse (no Kafka counterpart, issue 18): a fresh buffer per request costs a zero-fill (``bytearray``) or a
page fault per 4 KiB (``mmap``) and, for the handler thread that writes it to the log, cold cache lines;
the JVM pays neither (TLAB allocation, a young-generation GC). So buffers from 64 KiB up come in
power-of-two sizes and go back to a small ``RECYCLER`` when their request is done (``release``). A
produce request's records are ``memoryview``s of its buffer and may outlive the request (a response
still being sent, a handler that has not dropped its last request yet): a buffer is handed out again
only once nothing but the recycler refers to it -- every view holds a reference to the object it
views, so ``sys.getrefcount`` tells (CPython). Until then it waits in a short pending list; a
buffer still referred to when the list is full is simply dropped, and the garbage collector frees it
when its last view goes.
"""
from __future__ import annotations

import mmap
import sys
import threading

LAZY_ALLOCATION_THRESHOLD = 1 << 20
RECYCLE_MIN_SIZE = 64 << 10          # smaller buffers are cheap to make: not worth a lock and a list
RECYCLE_MAX_CACHED_BYTES = 32 << 20  # idle buffers kept for reuse, all sizes together (bursts of staged receives)
RECYCLE_MAX_PENDING = 32             # released buffers waiting for their last views to go


def _new_buffer(size: int):
    if size >= LAZY_ALLOCATION_THRESHOLD:
        # private: Python's default for an anonymous map is MAP_SHARED, which the kernel backs with shmem
        return mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return bytearray(size)


class BufferRecycler:
    """No Kafka counterpart: request buffers of 64 KiB and more, reused once no view of them is left.

    ``allocate(size)`` returns a buffer of at least ``size`` bytes (a power of two; the caller uses the
    first ``size``); a reused buffer still holds the bytes of an earlier request, which the caller
    overwrites. ``give_back(buffer)`` takes a buffer back whether or not views of it are still alive.
    """

    def __init__(self, max_cached_bytes: int = RECYCLE_MAX_CACHED_BYTES, max_pending: int = RECYCLE_MAX_PENDING):
        self.max_cached_bytes = max_cached_bytes
        self.max_pending = max_pending
        self._free: dict[int, list] = {}   # capacity -> buffers nobody else refers to
        self._cached_bytes = 0
        self._pending: list = []           # given back, maybe still viewed
        self._lock = threading.Lock()
        self.reused = 0                    # counters for tests and bench/ (not metrics)
        self.created = 0

    @staticmethod
    def capacity_for(size: int) -> int:
        return 1 << (size - 1).bit_length()

    def allocate(self, size: int):
        capacity = self.capacity_for(size)
        with self._lock:
            free = self._free.get(capacity)
            if not free and self._pending:
                self._collect_pending()
                free = self._free.get(capacity)
            if free:
                self._cached_bytes -= capacity
                self.reused += 1
                return free.pop()
            self.created += 1
        return _new_buffer(capacity)

    def give_back(self, buffer) -> None:
        with self._lock:
            if len(self._pending) >= self.max_pending:
                del self._pending[0]   # still viewed after all this time: let the garbage collector have it
            self._pending.append(buffer)
            del buffer
            self._collect_pending()

    def _collect_pending(self) -> None:
        """Move the pending buffers nobody else refers to any more to the free lists (lock held)."""
        still_viewed = []
        pending = self._pending
        while pending:
            buffer = pending.pop()
            # references: ``buffer`` and getrefcount's argument; any memoryview of it adds one
            if sys.getrefcount(buffer) > 2:
                still_viewed.append(buffer)
                continue
            capacity = len(buffer)
            if self._cached_bytes + capacity <= self.max_cached_bytes:
                self._free.setdefault(capacity, []).append(buffer)
                self._cached_bytes += capacity
            # else: enough is cached already; this one is dropped
        still_viewed.reverse()
        self._pending = still_viewed

    def cached_bytes(self) -> int:
        return self._cached_bytes


RECYCLER = BufferRecycler()


def allocate(size: int):
    """A writable buffer for a ``size``-byte frame (see the module docstring): exactly ``size`` zero bytes
    below RECYCLE_MIN_SIZE; from there a power-of-two buffer of at least ``size`` bytes, maybe reused."""
    if size < RECYCLE_MIN_SIZE:
        return bytearray(size)
    return RECYCLER.allocate(size)


def recycle(buffer) -> None:
    """Give a buffer from ``allocate`` back for reuse (a no-op for the small ones)."""
    if buffer is not None and len(buffer) >= RECYCLE_MIN_SIZE:
        RECYCLER.give_back(buffer)


class MemoryPool:
    """Kafka: MemoryPool.NONE -- every allocation succeeds, nothing is counted."""

    NONE: "MemoryPool"

    # Kafka: MemoryPool.tryAllocate
    def try_allocate(self, size: int):
        if size < 0:
            raise ValueError(f"requested size {size}<0")
        return allocate(size)

    # Kafka: MemoryPool.release(previouslyAllocated) -- here the size counted and, when given, the buffer
    # itself, which goes back to the RECYCLER
    def release(self, size: int, buffer=None) -> None:
        recycle(buffer)

    # Kafka: MemoryPool.availableMemory
    def available_memory(self) -> int:
        return (1 << 63) - 1

    # Kafka: MemoryPool.isOutOfMemory
    def is_out_of_memory(self) -> bool:
        return False


MemoryPool.NONE = MemoryPool()


class SimpleMemoryPool(MemoryPool):
    """Kafka: SimpleMemoryPool(sizeInBytes, maxSingleAllocationBytes, strict, oomPeriodSensor)."""

    def __init__(self, size_in_bytes: int, max_single_allocation_bytes: int, strict: bool = False):
        if size_in_bytes <= 0 or max_single_allocation_bytes <= 0 or max_single_allocation_bytes > size_in_bytes:
            raise ValueError(f"must provide a positive size and max single allocation size smaller than size. "
                             f"provided {size_in_bytes} and {max_single_allocation_bytes} respectively")
        self.size_bytes = size_in_bytes
        self.strict = strict
        self.max_single_allocation_size = max_single_allocation_bytes
        self._available = size_in_bytes
        self._lock = threading.Lock()   # Kafka: an AtomicLong and a compare-and-set loop

    def try_allocate(self, size: int):
        if size < 1:
            if size < 0:
                raise ValueError(f"requested size {size}<=0")
            return allocate(0)
        if size > self.max_single_allocation_size:
            raise ValueError(f"requested size {size} is larger than maxSingleAllocationSize "
                             f"{self.max_single_allocation_size}")
        with self._lock:
            threshold = size if self.strict else 1
            if self._available < threshold:
                return None
            self._available -= size
        try:
            return allocate(size)
        except BaseException:
            self.release(size)
            raise

    def release(self, size: int, buffer=None) -> None:
        with self._lock:
            self._available += size
        recycle(buffer)

    def available_memory(self) -> int:
        return self._available

    def is_out_of_memory(self) -> bool:
        return self._available <= 0

    def size(self) -> int:
        return self.size_bytes
