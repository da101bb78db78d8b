"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/NetworkReceive.java

Classes: NetworkReceive, InvalidReceiveException.

A receive is one size-delimited frame: a 4-byte big-endian size, then that many bytes (S8, S47).
The size is checked against ``socket.request.max.bytes`` before any payload memory is taken, so a
hostile 2 GB size costs nothing. The payload buffer comes from the ``MemoryPool``
(``queued.max.request.bytes``, KIP-72): when the pool has no room the receive waits with its size known
and no buffer (``required_memory_amount_known`` and not ``memory_allocated``), and its KafkaChannel mutes
itself until memory comes back. The payload lands in the buffer through ``recv_into``; everything above
(request header, produce records) is a ``memoryview`` of it, never a copy. ``release`` gives the buffer's
bytes back to the pool, once, and the buffer itself for reuse (the pool's RECYCLER reuses it only once no
view of it is left). A reused buffer may be larger than the frame: only its first ``size`` bytes are read
into and seen (``payload``).
"""
from __future__ import annotations

from kafkalite.common.memory.memory_pool import MemoryPool

class InvalidReceiveException(Exception):
    """Kafka: InvalidReceiveException -- a negative or oversized frame size."""


class NetworkReceive:
    """Kafka: NetworkReceive."""

    UNKNOWN_SOURCE = ""
    UNLIMITED = -1

    __slots__ = ("source", "max_size", "_size", "_size_read", "buffer", "_pos", "memory_pool", "_request_size",
                 "_released")

    def __init__(self, max_size: int = UNLIMITED, source: str = UNKNOWN_SOURCE,
                 memory_pool: MemoryPool = MemoryPool.NONE):
        self.source = source
        self.max_size = max_size
        self._size = bytearray(4)
        self._size_read = 0
        self.buffer = None          # a bytearray or an anonymous mmap, from the pool
        self._pos = 0
        self.memory_pool = memory_pool
        self._request_size = -1
        self._released = False

    # Kafka: NetworkReceive.requiredMemoryAmountKnown
    def required_memory_amount_known(self) -> bool:
        return self._request_size >= 0

    # Kafka: NetworkReceive.memoryAllocated
    def memory_allocated(self) -> bool:
        return self.buffer is not None or self._released

    # Kafka: NetworkReceive.close -- give the buffer's bytes back to the pool (once)
    def release(self) -> None:
        if self.buffer is not None and not self._released:
            self._released = True
            buffer, self.buffer = self.buffer, None
            self.memory_pool.release(self._request_size, buffer)

    # Kafka: NetworkReceive.complete
    def complete(self) -> bool:
        return self.buffer is not None and self._pos == self._request_size

    # Kafka: NetworkReceive.readFrom
    def read_from(self, transport) -> int:
        """Read what the socket has; returns bytes read. Raises EOFError when the peer closed."""
        read = 0
        if self.buffer is None:
            if self._size_read < 4:
                n = transport.read(memoryview(self._size)[self._size_read:])
                if n < 0:
                    raise EOFError("connection closed by peer")
                read += n
                self._size_read += n
                if self._size_read < 4:
                    return read
            if self._request_size < 0:
                size = int.from_bytes(self._size, "big", signed=True)
                if size < 0:
                    raise InvalidReceiveException(f"Invalid receive (size = {size})")
                if self.max_size != self.UNLIMITED and size > self.max_size:
                    raise InvalidReceiveException(f"Invalid receive (size = {size} larger than {self.max_size})")
                self._request_size = size
            self.buffer = self.memory_pool.try_allocate(self._request_size)
            if self.buffer is None:
                return read   # the pool is full: the channel mutes itself until memory comes back
        if self._pos < self._request_size:
            n = transport.read(memoryview(self.buffer)[self._pos:self._request_size])
            if n < 0:
                raise EOFError("connection closed by peer in the middle of a frame")
            read += n
            self._pos += n
        return read

    # Kafka: NetworkReceive.payload
    def payload(self) -> memoryview:
        view = memoryview(self.buffer)
        return view if len(view) == self._request_size else view[:self._request_size]

    # Kafka: NetworkReceive.size
    def size(self) -> int:
        return 4 + max(self._request_size, 0)
