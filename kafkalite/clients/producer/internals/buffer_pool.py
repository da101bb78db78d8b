"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/BufferPool.java

Classes: BufferPool, BufferExhaustedException.

``buffer.memory`` bytes shared by every batch of a producer (S44). Buffers of exactly ``batch.size``
(the *poolable size*, 16 KiB by default) are kept on a free list when a batch is done and handed out
again, so a busy producer stops allocating. Any other size is allocated fresh and only its byte count
goes back to the pool. When memory runs out, ``allocate`` blocks the caller's thread (the one inside
``send``) for at most ``max.block.ms`` on a condition, first come first served, and then fails with
``BufferExhaustedException``.

Python note: a buffer is a ``bytearray``; ``deallocate`` does not zero it (Kafka's ``clear`` only
resets the position), the batch that gets it next overwrites what it uses.
Left out: metrics (``bufferpool-wait-time``), the ``closed`` flag that wakes waiters on close.
"""
from __future__ import annotations

import collections
import threading

from kafkalite.protocol.errors import Errors
from kafkalite.utils.time import SYSTEM, Time

TimeoutException = Errors.REQUEST_TIMED_OUT.exception_class


class BufferExhaustedException(TimeoutException):
    """Kafka: org.apache.kafka.clients.producer.BufferExhaustedException."""


class BufferPool:
    """Kafka: BufferPool."""

    # Kafka: BufferPool.<init>
    def __init__(self, memory: int, poolable_size: int, time: Time = SYSTEM):
        self.poolable_size = poolable_size
        self.total_memory = memory
        self.free: collections.deque[bytearray] = collections.deque()   # Kafka: Deque<ByteBuffer> free
        self.waiters: collections.deque[threading.Condition] = collections.deque()
        self.non_pooled_available_memory = memory
        self.lock = threading.Lock()
        self.time = time

    # Kafka: BufferPool.allocate
    def allocate(self, size: int, max_time_to_block_ms: int) -> bytearray:
        if size > self.total_memory:
            raise ValueError(f"Attempt to allocate {size} bytes, but there is a hard limit of "
                             f"{self.total_memory} on memory allocations.")
        with self.lock:
            if size == self.poolable_size and self.free:
                return self.free.popleft()   # the reuse: no allocation at all
            free_list_size = len(self.free) * self.poolable_size
            if self.non_pooled_available_memory + free_list_size >= size:
                self.free_up(size)
                self.non_pooled_available_memory -= size
            else:
                buffer = self._wait_for_memory(size, max_time_to_block_ms)
                if buffer is not None:
                    return buffer
        return bytearray(size)   # Kafka: safeAllocateByteBuffer, outside the lock

    # Kafka: the waiting loop inside BufferPool.allocate (called with the lock held)
    def _wait_for_memory(self, size: int, max_time_to_block_ms: int) -> bytearray | None:
        accumulated = 0
        more_memory = threading.Condition(self.lock)
        deadline = self.time.milliseconds() + max_time_to_block_ms
        self.waiters.append(more_memory)
        try:
            while True:
                if accumulated == 0 and size == self.poolable_size and self.free:
                    return self.free.popleft()
                self.free_up(size - accumulated)
                got = min(size - accumulated, self.non_pooled_available_memory)
                self.non_pooled_available_memory -= got
                accumulated += got
                if accumulated >= size:
                    return None
                remaining = deadline - self.time.milliseconds()
                if remaining <= 0:
                    self.non_pooled_available_memory += accumulated   # give back what we took
                    raise BufferExhaustedException(
                        f"Failed to allocate memory within the configured max blocking time "
                        f"{max_time_to_block_ms} ms.")
                more_memory.wait(remaining / 1000.0)
        finally:
            self.waiters.remove(more_memory)
            if (self.non_pooled_available_memory > 0 or self.free) and self.waiters:
                self.waiters[0].notify()   # pass the signal on to the next waiter

    # Kafka: BufferPool.freeUp -- turn pooled buffers back into plain memory until size fits
    def free_up(self, size: int) -> None:
        while self.free and self.non_pooled_available_memory < size:
            self.free.pop()
            self.non_pooled_available_memory += self.poolable_size

    # Kafka: BufferPool.deallocate
    def deallocate(self, buffer: bytearray, size: int | None = None) -> None:
        size = len(buffer) if size is None else size
        with self.lock:
            if size == self.poolable_size and size == len(buffer):
                self.free.append(buffer)
            else:
                self.non_pooled_available_memory += size
            if self.waiters:
                self.waiters[0].notify()

    # Kafka: BufferPool.availableMemory
    def available_memory(self) -> int:
        with self.lock:
            return self.non_pooled_available_memory + len(self.free) * self.poolable_size

    # Kafka: BufferPool.unallocatedMemory
    def unallocated_memory(self) -> int:
        with self.lock:
            return self.non_pooled_available_memory

    # Kafka: BufferPool.queued -- threads waiting for memory
    def queued(self) -> int:
        with self.lock:
            return len(self.waiters)

    # Kafka: BufferPool.totalMemory
    def get_total_memory(self) -> int:
        return self.total_memory
