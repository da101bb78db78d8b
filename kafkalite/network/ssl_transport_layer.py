"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/SslTransportLayer.java

Classes: SslTransportLayer.

TLS over a non-blocking socket, driven by the Selector's poll loop as Kafka's is. Python's
``ssl.SSLObject`` with two ``ssl.MemoryBIO`` is the same design as Java's SSLEngine with network buffers:
the engine never touches the socket; this class moves ciphertext between the socket and the BIOs.
- ``net_read_buffer`` (a MemoryBIO) holds ciphertext read from the socket and not yet unwrapped;
  ``net_write_buffer`` holds ciphertext the engine produced and the socket has not taken yet
  (``has_pending_writes``). The application read buffer is inside the SSLObject (``pending()``).
- ``handshake()`` is one non-blocking step: read what the socket has, flush what is pending, advance
  the engine; it sets OP_WRITE while ciphertext waits and drops it while the engine waits for the peer.
  KafkaChannel.prepare() calls it on each poll until ``ready()``.
- ``read()`` unwraps into the caller's buffer, reading the socket only when the engine needs more bytes;
  decrypted bytes left in the engine (or a whole record in ``net_read_buffer``) are invisible to the
  selector, so ``has_bytes_buffered()`` tells the Selector to poll this channel again even though the
  socket is not readable (Selector.keysWithBufferedRead).
- ``write()`` wraps up to WRITE_CHUNK plaintext bytes per call and counts them written once the engine
  took them; a send is complete only when ``has_pending_writes()`` is false too (NetworkSend).
- ``transfer_from()`` cannot use sendfile: the file region is read into memory (TRANSFER_CHUNK at a time)
  and written through TLS, as the JDK's FileChannel.transferTo does for a non-file target. The cost is
  measured in docs/benchmarks.md.
Handshake failures (bad certificate, unknown CA, not TLS at all) raise SslAuthenticationException after the
alert was flushed to the peer; a peer that closes during the handshake is an EOFError.
Era notes: TLS 1.3 works (Kafka 2.4 enables only up to TLSv1.2 by default; 2.5+ enables TLSv1.3). With TLS
1.3 a client learns that the server refused its certificate only on its first read after the handshake.
Left out: renegotiation (refused, as Kafka refuses it: OP_NO_RENEGOTIATION), delegated tasks (OpenSSL has
none).
"""
from __future__ import annotations

import enum
import logging
import ssl

from kafkalite.network.kafka_channel import SslAuthenticationException
from kafkalite.network.nio_selector import OP_READ, OP_WRITE
from kafkalite.network.transport_layer import TransportLayer

log = logging.getLogger("kafka.network.SslTransportLayer")

NET_READ_SIZE = 32 * 1024       # one recv: two full TLS records (Kafka sizes its buffers by the packet size)
WRITE_CHUNK = 64 * 1024         # plaintext wrapped per write() call: bounds net_write_buffer
TRANSFER_CHUNK = 64 * 1024      # file bytes read per transfer_from() call


class _State(enum.Enum):
    """Kafka: SslTransportLayer.State."""

    NOT_INITALIZED = 0   # Kafka's spelling
    HANDSHAKE = 1
    HANDSHAKE_FAILED = 2
    READY = 3
    CLOSING = 4


class SslTransportLayer(TransportLayer):
    """Kafka: SslTransportLayer."""

    def __init__(self, channel_id: str, sock, nio_selector, ssl_engine: ssl.SSLObject,
                 net_read_buffer: ssl.MemoryBIO, net_write_bio: ssl.MemoryBIO, attachment=None):
        super().__init__(sock, nio_selector, attachment)
        self.channel_id = channel_id
        self.ssl_engine = ssl_engine
        self.net_read_buffer = net_read_buffer
        self._net_write_bio = net_write_bio          # where the engine writes ciphertext
        self.net_write_buffer = memoryview(b"")     # ciphertext taken from the BIO, not yet sent
        self.state = _State.NOT_INITALIZED
        self.handshake_exception: SslAuthenticationException | None = None
        self._handshake_finished = False
        self._has_bytes_buffered = False
        self._eof_seen = False

    # Kafka: SslTransportLayer.create -- ``engine`` is SslFactory.create_ssl_engine's (SSLObject, read BIO,
    # write BIO).
    @staticmethod
    def create(channel_id: str, sock, nio_selector, engine) -> "SslTransportLayer":
        ssl_object, net_read_buffer, net_write_bio = engine
        return SslTransportLayer(channel_id, sock, nio_selector, ssl_object, net_read_buffer, net_write_bio)

    # Kafka: SslTransportLayer.startHandshake
    def start_handshake(self) -> None:
        if self.state is not _State.NOT_INITALIZED:
            raise RuntimeError(f"startHandshake() can only be called once, state {self.state.name}")
        self.state = _State.HANDSHAKE

    # Kafka: SslTransportLayer.ready
    def ready(self) -> bool:
        return self.state is _State.READY

    # Kafka: SslTransportLayer.finishConnect
    def finish_connect(self) -> bool:
        self._check_connect()
        return True

    # Kafka: SslTransportLayer.hasPendingWrites
    def has_pending_writes(self) -> bool:
        return len(self.net_write_buffer) > 0 or self._net_write_bio.pending > 0

    # Kafka: SslTransportLayer.hasBytesBuffered
    def has_bytes_buffered(self) -> bool:
        return self._has_bytes_buffered

    # Kafka: SslTransportLayer.sslSession -- the SSLObject: getpeercert(), cipher(), version().
    def ssl_session(self) -> ssl.SSLObject:
        return self.ssl_engine

    # ------------------------------------------------------------------ socket <-> BIOs
    # Kafka: SslTransportLayer.readFromSocketChannel -- bytes read, 0 if none now, -1 at end of stream.
    def read_from_socket_channel(self) -> int:
        if self._eof_seen:
            return -1
        try:
            data = self.socket_channel.recv(NET_READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return 0
        if not data:
            self._eof_seen = True
            return -1
        self.net_read_buffer.write(data)
        return len(data)

    # Kafka: SslTransportLayer.flush -- True once every pending ciphertext byte is in the socket.
    def flush(self) -> bool:
        if self._net_write_bio.pending:
            more = self._net_write_bio.read()
            self.net_write_buffer = memoryview(bytes(self.net_write_buffer) + more) if self.net_write_buffer \
                else memoryview(more)
        while self.net_write_buffer:
            try:
                n = self.socket_channel.send(self.net_write_buffer)
            except (BlockingIOError, InterruptedError):
                return False
            self.net_write_buffer = self.net_write_buffer[n:]
        return True

    def _set_ops(self, ops: int) -> None:
        if ops != self.interest_ops:
            self.interest_ops = ops
            self._apply()

    # ------------------------------------------------------------------ handshake
    # Kafka: SslTransportLayer.handshake -- one non-blocking step of the TLS handshake.
    def handshake(self) -> None:
        if self.state is _State.NOT_INITALIZED:
            self.start_handshake()
        if self.state is _State.READY:
            raise SslAuthenticationException("Renegotiation is not supported")
        if self.state is _State.CLOSING:
            raise RuntimeError("Channel is in closing state")
        read = 0
        try:
            # read before writing, so that a failure the peer reported is seen even if our write fails
            read = self.read_from_socket_channel()
            self.do_handshake()
        except ssl.SSLError as e:
            self.maybe_process_handshake_failure(e)
        except OSError:
            self.maybe_throw_ssl_authentication_exception()
            raise
        if read == -1 and not self.ready():
            self.maybe_throw_ssl_authentication_exception()
            raise EOFError(f"EOF during handshake, handshake status is {self.state.name}")

    # Kafka: SslTransportLayer.doHandshake
    def do_handshake(self) -> None:
        if not self.flush():
            self._set_ops(self.interest_ops | OP_WRITE)
            return
        # any pending handshake failure is raised once its alert has been flushed
        self.maybe_throw_ssl_authentication_exception()
        if not self._handshake_finished:
            try:
                self.ssl_engine.do_handshake()   # NEED_WRAP / NEED_UNWRAP, all in one engine call
                self._handshake_finished = True
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                pass
        if not self.flush():
            self._set_ops(self.interest_ops | OP_WRITE)
            return
        if self._handshake_finished:
            self.handshake_finished()
        else:
            self._set_ops((self.interest_ops & ~OP_WRITE) | OP_READ)   # NEED_UNWRAP: wait for the peer

    # Kafka: SslTransportLayer.handshakeFinished -- ready once the last handshake bytes are sent.
    def handshake_finished(self) -> None:
        self.state = _State.READY
        self._set_ops((self.interest_ops & ~OP_WRITE) | OP_READ)
        # the peer's first request may have come in the same segment as its Finished message
        self._has_bytes_buffered = self.net_read_buffer.pending > 0 or self.ssl_engine.pending() > 0
        if log.isEnabledFor(logging.DEBUG):
            cipher = self.ssl_engine.cipher()
            log.debug("[SslTransportLayer channelId=%s] SSL handshake completed successfully with peer %s "
                      "protocol %s cipherSuite '%s'", self.channel_id, self.socket_description(),
                      self.ssl_engine.version(), cipher[0] if cipher else None)

    # Kafka: SslTransportLayer.maybeProcessHandshakeFailure -- which SSL errors are authentication failures.
    def maybe_process_handshake_failure(self, e: ssl.SSLError) -> None:
        if isinstance(e, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
            # the peer closed in the middle of the handshake: retriable, like an IOException
            self.maybe_throw_ssl_authentication_exception()
            raise EOFError(f"EOF during handshake: {e}") from e
        self.handshake_failure(e, True)

    # Kafka: SslTransportLayer.handshakeFailure -- raise once the alert for the peer is flushed.
    def handshake_failure(self, ssl_exception: ssl.SSLError, do_flush: bool) -> None:
        self.state = _State.HANDSHAKE_FAILED
        self.handshake_exception = SslAuthenticationException(f"SSL handshake failed: {ssl_exception}")
        self.handshake_exception.__cause__ = ssl_exception
        try:
            if not do_flush or self.flush():
                raise self.handshake_exception
        except OSError:
            raise self.handshake_exception from None
        self._set_ops(self.interest_ops | OP_WRITE)   # raised by the next handshake() once flushed

    # Kafka: SslTransportLayer.maybeThrowSslAuthenticationException
    def maybe_throw_ssl_authentication_exception(self) -> None:
        if self.handshake_exception is not None:
            raise self.handshake_exception

    # ------------------------------------------------------------------ application data
    # Kafka: SslTransportLayer.read -- decrypted bytes into ``dst``; 0 if none now, -1 at end of stream.
    def read(self, dst: memoryview) -> int:
        if self.state is _State.CLOSING:
            return -1
        if self.state is not _State.READY:
            return 0
        read_from_network = False
        read = 0
        want = len(dst)
        while read < want:
            try:
                n = self.ssl_engine.read(want - read, dst[read:])
                if n == 0:
                    # close_notify: Python's SSLObject returns 0 bytes instead of raising once the peer's
                    # close_notify is in (Kafka: SSLEngineResult.Status.CLOSED); data already read goes first
                    raise ssl.SSLZeroReturnError
            except ssl.SSLWantReadError:
                n = 0
            except ssl.SSLZeroReturnError:
                if read == 0:
                    self._has_bytes_buffered = False
                    return -1
                break
            except ssl.SSLError as e:
                if isinstance(e, ssl.SSLEOFError) and read == 0:
                    return -1
                raise OSError(f"SSL error while reading: {e}") from e
            if n > 0:
                read += n
                continue
            # the engine needs more ciphertext: each step reads the socket once
            netread = self.read_from_socket_channel()
            if netread > 0:
                read_from_network = True
                continue
            if netread < 0 and read == 0:
                self._has_bytes_buffered = False
                return -1
            break
        self.update_bytes_buffered(read_from_network or read > 0)
        return read

    # Kafka: SslTransportLayer.updateBytesBuffered
    def update_bytes_buffered(self, made_progress: bool) -> None:
        if made_progress:
            self._has_bytes_buffered = self.net_read_buffer.pending > 0 or self.ssl_engine.pending() > 0
        else:
            self._has_bytes_buffered = False

    # Kafka: SslTransportLayer.write(ByteBuffer[]) -- plaintext bytes the engine took (possibly 0).
    def write(self, srcs) -> int:
        if self.state is _State.CLOSING:
            raise RuntimeError("Channel is in closing state")
        if self.state is not _State.READY:
            return 0
        if not self.flush():
            return 0
        first = srcs[0] if srcs else b""
        if len(first) >= WRITE_CHUNK or len(srcs) == 1:
            data = first[:WRITE_CHUNK]
        else:
            gathered = bytearray()
            for src in srcs:
                gathered += src[:WRITE_CHUNK - len(gathered)]
                if len(gathered) >= WRITE_CHUNK:
                    break
            data = gathered
        if not len(data):
            return 0
        try:
            written = self.ssl_engine.write(data)
        except ssl.SSLError as e:
            raise OSError(f"SSL error while writing: {e}") from e
        self.flush()
        return written

    # Kafka: SslTransportLayer.transferFrom -- no sendfile through TLS: read the file, then write it.
    def transfer_from(self, records, position: int, count: int) -> int:
        if self.state is not _State.READY or not self.flush():
            return 0
        buf = bytearray(min(count, TRANSFER_CHUNK))
        n = records.read_into(buf, position)
        if n <= 0:
            return 0
        return self.write([memoryview(buf)[:n]])

    # ------------------------------------------------------------------ closing
    # Kafka: SslTransportLayer.close -- send close_notify if we can, then close the socket.
    def close(self) -> None:
        prev = self.state
        if prev is _State.CLOSING:
            return
        self.state = _State.CLOSING
        try:
            if prev is not _State.NOT_INITALIZED and self.connected and not self._disconnected_by_peer():
                if self.flush():
                    try:
                        self.ssl_engine.unwrap()   # writes close_notify into the BIO
                    except ssl.SSLError:
                        pass
                    self.flush()
        except (OSError, ValueError) as e:
            log.debug("Failed to send SSL Close message: %s", e)
        finally:
            self._close_socket()
            self.net_write_buffer = memoryview(b"")

    def _disconnected_by_peer(self) -> bool:
        return self._eof_seen
