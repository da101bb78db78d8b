"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/NetworkSend.java
(with ByteBufferSend.java, and the record parts of MultiRecordsSend/RecordsSend)

Classes: Send, NetworkSend.

A send is one size-delimited frame on its way out. Its parts are byte strings, written together
with one ``sendmsg`` (a gathering write, as Java's ``GatheringByteChannel.write(ByteBuffer[])``),
and record sets that live in a segment file, written with ``os.sendfile`` (Kafka's
``FileRecords.writeTo`` → ``FileChannel.transferTo``). So a Fetch response copies no record
bytes through Python (DESIGN §5).
A part that is not bytes-like must offer ``size_in_bytes()`` and ``write_to(sock, offset, length)``
(and ``read_into(buf, offset)`` for TLS, where sendfile cannot be used: SslTransportLayer.transfer_from).
A send is complete once every byte was taken *and* the transport has nothing pending: TLS counts bytes
written when it encrypted them, not when the socket took them (Kafka: TransportLayers.hasPendingWrites).
"""
from __future__ import annotations

_BYTES = (bytes, bytearray, memoryview)


class Send:
    """Kafka: Send -- destination, completed(), writeTo(channel), size()."""

    destination: str

    def completed(self) -> bool:
        raise NotImplementedError

    def write_to(self, transport) -> int:
        raise NotImplementedError

    def size(self) -> int:
        raise NotImplementedError


class NetworkSend(Send):
    """Kafka: NetworkSend -- a 4-byte size followed by the given parts."""

    __slots__ = ("destination", "_parts", "_size", "_remaining", "_index", "_offset", "_pending")

    def __init__(self, destination: str, parts):
        self.destination = destination
        total = 0
        sized = []
        for p in parts:
            n = len(p) if isinstance(p, _BYTES) else p.size_in_bytes()
            if n:
                sized.append((p, n))
                total += n
        self._parts = [(total.to_bytes(4, "big"), 4)] + sized
        self._size = total + 4
        self._remaining = self._size
        self._index = 0      # first part not fully written
        self._offset = 0     # bytes of that part already written
        self._pending = False   # the transport still holds bytes of this send (TLS)

    def completed(self) -> bool:
        return self._remaining == 0 and not self._pending

    def size(self) -> int:
        return self._size

    # Kafka: ByteBufferSend.writeTo / MultiRecordsSend.writeTo
    def write_to(self, transport) -> int:
        written = 0
        if self._pending and self._index >= len(self._parts):
            transport.write([])   # every byte taken: only flush what the transport still holds
        try:
            while self._index < len(self._parts):
                part, n = self._parts[self._index]
                if isinstance(part, _BYTES):
                    views = []
                    j = self._index
                    while j < len(self._parts) and isinstance(self._parts[j][0], _BYTES):
                        views.append(memoryview(self._parts[j][0])[self._offset if j == self._index else 0:])
                        j += 1
                    w = transport.write(views)
                else:
                    w = transport.transfer_from(part, self._offset, n - self._offset)
                if w <= 0:
                    break
                written += w
                self._advance(w)
        finally:   # what went out before an error counts (the send's own accounting stays true)
            self._remaining -= written
        self._pending = transport.has_pending_writes()
        return written

    def _advance(self, w: int) -> None:
        while w > 0:
            n = self._parts[self._index][1]
            left = n - self._offset
            if w >= left:
                w -= left
                self._index += 1
                self._offset = 0
            else:
                self._offset += w
                w = 0
