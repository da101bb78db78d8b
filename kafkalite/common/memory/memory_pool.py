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
"""
from __future__ import annotations

import mmap
import threading

LAZY_ALLOCATION_THRESHOLD = 1 << 20


def allocate(size: int):
    """A zero-filled writable buffer of ``size`` bytes (see the module docstring)."""
    if size >= LAZY_ALLOCATION_THRESHOLD:
        return mmap.mmap(-1, size)
    return bytearray(size)


class MemoryPool:
    """Kafka: MemoryPool.NONE -- every allocation succeeds, nothing is counted."""

    NONE: "MemoryPool"

    # Kafka: MemoryPool.tryAllocate
    def try_allocate(self, size: int):
        if size < 0:
            raise ValueError(f"requested size {size}<0")
        return allocate(size)

    # Kafka: MemoryPool.release
    def release(self, size: int) -> None:
        pass

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

    def release(self, size: int) -> None:
        with self._lock:
            self._available += size

    def available_memory(self) -> int:
        return self._available

    def is_out_of_memory(self) -> bool:
        return self._available <= 0

    def size(self) -> int:
        return self.size_bytes
