"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/TransportLayer.java and
PlaintextTransportLayer.java

Classes: TransportLayer, PlaintextTransportLayer.

The transport owns the socket and its interest set in the selector (``nio_selector.NioSelector``, the
stand-in for java.nio's Selector): ``add_interest_ops`` / ``remove_interest_ops`` change it, and an
empty interest set (muted, nothing to send) keeps the socket registered, as in Java.
Python note: the selection-key handling (interest set, registration, cancel) is Java's SelectionKey, which
both transports use; it lives in the TransportLayer base here, so SslTransportLayer
(ssl_transport_layer.py) shares it instead of repeating it.
"""
from __future__ import annotations

import socket

from kafkalite.network.nio_selector import OP_READ, OP_WRITE


class TransportLayer:
    """Kafka: TransportLayer (interface) -- plus the SelectionKey both transports share."""

    def __init__(self, sock: socket.socket, nio_selector, attachment=None):
        self.socket_channel = sock
        self._selector = nio_selector
        self.attachment = attachment
        self.interest_ops = 0
        self._registered = False
        self._disconnected = False
        self.connected = False

    # Kafka: TransportLayer.isConnected
    def is_connected(self) -> bool:
        return self.connected

    # Kafka: TransportLayer.addInterestOps
    def add_interest_ops(self, ops: int) -> None:
        if self.interest_ops & ops != ops:
            self.interest_ops |= ops
            self._apply()

    # Kafka: TransportLayer.removeInterestOps
    def remove_interest_ops(self, ops: int) -> None:
        if self.interest_ops & ops:
            self.interest_ops &= ~ops
            self._apply()

    def _apply(self) -> None:
        if self._disconnected or self._selector is None:
            return
        if self._registered:
            self._selector.modify(self.socket_channel, self.interest_ops, self.attachment)
        else:
            self._selector.register(self.socket_channel, self.interest_ops, self.attachment)
            self._registered = True

    # Kafka: TransportLayer.isMute
    def is_mute(self) -> bool:
        return not self.interest_ops & OP_READ

    # Kafka: TransportLayer.disconnect -- cancel the selection key; the socket stays open until the
    # channel is finally closed (its staged requests may still be handed out).
    def disconnect(self) -> None:
        if self._registered:
            try:
                self._selector.unregister(self.socket_channel)
            except (KeyError, ValueError):
                pass
            self._registered = False
        self.interest_ops = 0
        self._disconnected = True

    def socket_description(self) -> str:
        try:
            host, port = self.socket_channel.getpeername()[:2]
            return f"{host}:{port}"
        except OSError:
            return "[unconnected socket]"

    def _check_connect(self) -> None:
        err = self.socket_channel.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err:
            raise ConnectionRefusedError(err, f"connect failed: {socket.errno.errorcode.get(err, err)}")
        self.connected = True
        self.interest_ops = (self.interest_ops & ~OP_WRITE) | OP_READ
        self._apply()

    def _close_socket(self) -> None:
        self.disconnect()
        try:
            self.socket_channel.close()
        except OSError:
            pass


class PlaintextTransportLayer(TransportLayer):
    """Kafka: PlaintextTransportLayer -- reads and writes the socket as it is."""

    # Kafka: PlaintextTransportLayer.ready -- plaintext needs no handshake.
    def ready(self) -> bool:
        return True

    # Kafka: PlaintextTransportLayer.handshake -- nothing to do.
    def handshake(self) -> None:
        pass

    # Kafka: PlaintextTransportLayer.hasBytesBuffered -- the kernel buffers, the selector sees them.
    def has_bytes_buffered(self) -> bool:
        return False

    # Kafka: PlaintextTransportLayer.finishConnect
    def finish_connect(self) -> bool:
        self._check_connect()
        return True

    # Kafka: PlaintextTransportLayer.read
    def read(self, dst: memoryview) -> int:
        """Bytes read into ``dst``; 0 when the socket has nothing now; -1 at end of stream."""
        try:
            n = self.socket_channel.recv_into(dst)
        except (BlockingIOError, InterruptedError):
            return 0
        return n if n else -1

    # Kafka: PlaintextTransportLayer.write(ByteBuffer[])
    def write(self, srcs) -> int:
        try:
            return self.socket_channel.sendmsg(srcs)
        except (BlockingIOError, InterruptedError):
            return 0

    # Kafka: PlaintextTransportLayer.transferFrom(FileChannel, position, count) -- sendfile, zero-copy.
    def transfer_from(self, records, position: int, count: int) -> int:
        return records.write_to(self.socket_channel, position, count)

    # Kafka: PlaintextTransportLayer.hasPendingWrites
    def has_pending_writes(self) -> bool:
        return False

    # Kafka: PlaintextTransportLayer.close
    def close(self) -> None:
        self._close_socket()
