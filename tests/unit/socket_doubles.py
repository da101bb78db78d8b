"""Shared plumbing for the tests' socket-level broker doubles: a listening socket on 127.0.0.1, reading
one size-prefixed Kafka frame, and ``SocketBrokerDouble`` -- the accept loop every double shares (one
thread per connection runs the subclass's ``_serve(conn)``)."""
from __future__ import annotations

import socket
import struct
import threading

from support import recv_exact


def listening_socket(backlog: int = 8) -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(backlog)
    return server


def recv_frame(sock) -> bytes:
    """One request frame: the 4-byte size, then that many bytes (raises EOFError when the peer closed)."""
    return recv_exact(sock, struct.unpack(">i", recv_exact(sock, 4))[0])


class SocketBrokerDouble:
    """Listens on 127.0.0.1; each accepted connection is served by ``self._serve(conn)`` on its own thread."""

    def __init__(self, backlog: int = 8):
        self.server = listening_socket(backlog)
        self.port = self.server.getsockname()[1]
        self.conns = []
        self._stop = False
        threading.Thread(target=self._accept_loop, daemon=True).start()

    def _accept_loop(self):
        while not self._stop:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        raise NotImplementedError

    def close(self):
        self._stop = True
        self.server.close()
        for c in self.conns:
            try:
                c.close()
            except OSError:
                pass
