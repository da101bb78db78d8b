"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/NetworkReceive.java

Classes: NetworkReceive, InvalidReceiveException.

A receive is one size-delimited frame: a 4-byte big-endian size, then that many bytes (S8, S47).
The size is checked against ``socket.request.max.bytes`` before any payload memory is taken, so a
hostile 2 GB size costs nothing. The payload lands in one ``bytearray`` through ``recv_into``;
everything above (request header, produce records) is a ``memoryview`` of it, never a copy.
Omitted: the MemoryPool (Kafka's ``queued.max.request.bytes``).
"""
from __future__ import annotations

class InvalidReceiveException(Exception):
    """Kafka: InvalidReceiveException -- a negative or oversized frame size."""


class NetworkReceive:
    """Kafka: NetworkReceive."""

    UNKNOWN_SOURCE = ""
    UNLIMITED = -1

    __slots__ = ("source", "max_size", "_size", "_size_read", "buffer", "_pos")

    def __init__(self, max_size: int = UNLIMITED, source: str = UNKNOWN_SOURCE):
        self.source = source
        self.max_size = max_size
        self._size = bytearray(4)
        self._size_read = 0
        self.buffer: bytearray | None = None
        self._pos = 0

    # Kafka: NetworkReceive.complete
    def complete(self) -> bool:
        return self.buffer is not None and self._pos == len(self.buffer)

    # Kafka: NetworkReceive.readFrom
    def read_from(self, transport) -> int:
        """Read what the socket has; returns bytes read. Raises EOFError when the peer closed."""
        read = 0
        if self.buffer is None:
            n = transport.read(memoryview(self._size)[self._size_read:])
            if n < 0:
                raise EOFError("connection closed by peer")
            read += n
            self._size_read += n
            if self._size_read < 4:
                return read
            size = int.from_bytes(self._size, "big", signed=True)
            if size < 0:
                raise InvalidReceiveException(f"Invalid receive (size = {size})")
            if self.max_size != self.UNLIMITED and size > self.max_size:
                raise InvalidReceiveException(f"Invalid receive (size = {size} larger than {self.max_size})")
            self.buffer = bytearray(size)
        if self._pos < len(self.buffer):
            n = transport.read(memoryview(self.buffer)[self._pos:])
            if n < 0:
                raise EOFError("connection closed by peer in the middle of a frame")
            read += n
            self._pos += n
        return read

    # Kafka: NetworkReceive.payload
    def payload(self) -> memoryview:
        return memoryview(self.buffer)

    # Kafka: NetworkReceive.size
    def size(self) -> int:
        return 4 + (len(self.buffer) if self.buffer is not None else 0)
