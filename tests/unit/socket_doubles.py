"""Shared plumbing for the tests' socket-level broker doubles: a listening socket on 127.0.0.1 and
reading one size-prefixed Kafka frame."""
from __future__ import annotations

import socket
import struct


def listening_socket(backlog: int = 8) -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(backlog)
    return server


def recv_exact(sock, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def recv_frame(sock) -> bytes:
    """One request frame: the 4-byte size, then that many bytes (raises EOFError when the peer closed)."""
    return recv_exact(sock, struct.unpack(">i", recv_exact(sock, 4))[0])
