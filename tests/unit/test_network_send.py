"""NetworkSendTest: a size-prefixed frame written from byte parts and a file-like record part (S15, S47).

Kafka 2.4 tests this through ByteBufferSend/MultiRecordsSend; here one NetworkSend goes over a real
socketpair. The file part stands in for FileRecords: it offers ``size_in_bytes()`` and
``write_to(sock, offset, length)`` (the sendfile path) and, like ``FileChannel.transferTo``, may write
less than asked.
"""
from __future__ import annotations

import selectors
import socket
import threading

import pytest
from support import recv_exact

from kafkalite.network.network_send import NetworkSend
from kafkalite.network.transport_layer import PlaintextTransportLayer

pytestmark = pytest.mark.timeout(30)


class FakeFileRecords:
    """A record set living 'in a file': writes slices of ``data``, at most ``max_chunk`` bytes per call."""

    def __init__(self, data: bytes, max_chunk: int):
        self.data = data
        self.max_chunk = max_chunk
        self.calls: list[tuple[int, int]] = []

    def size_in_bytes(self) -> int:
        return len(self.data)

    def write_to(self, sock, offset: int, length: int) -> int:
        self.calls.append((offset, length))
        chunk = self.data[offset:offset + min(length, self.max_chunk)]
        try:
            return sock.send(chunk)
        except BlockingIOError:
            return 0


class ShortWriteTransport(PlaintextTransportLayer):
    """A transport whose gathering write takes at most ``limit`` bytes per call (a short ``sendmsg``)."""

    def __init__(self, sock, limit):
        super().__init__(sock, selectors.DefaultSelector())
        self.limit = limit
        self.writes = 0

    def write(self, srcs):
        self.writes += 1
        data = b"".join(bytes(v) for v in srcs)[:self.limit]
        return super().write([data])


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    a.setblocking(False)
    b.settimeout(10)
    yield a, b
    a.close()
    b.close()


def write_all(send, transport, max_rounds=100_000):
    rounds = 0
    while not send.completed():
        send.write_to(transport)
        rounds += 1
        assert rounds < max_rounds, "send made no progress"
    return rounds


def test_size_prefix_and_parts_in_order(pair):
    a, b = pair
    records = FakeFileRecords(b"RECORDS-0123456789", max_chunk=1000)
    send = NetworkSend("conn-1", [b"head:", bytearray(b"mid:"), records, memoryview(b":tail")])
    assert send.size() == 4 + 5 + 4 + 18 + 5
    assert not send.completed()
    transport = PlaintextTransportLayer(a, selectors.DefaultSelector())
    write_all(send, transport)
    assert send.completed() and send.destination == "conn-1"
    frame = recv_exact(b, send.size())
    assert frame[:4] == (send.size() - 4).to_bytes(4, "big")
    assert frame[4:] == b"head:mid:RECORDS-0123456789:tail"
    assert records.calls == [(0, 18)]


def test_empty_parts_are_skipped(pair):
    a, b = pair
    send = NetworkSend("c", [b"", b"x", FakeFileRecords(b"", 10)])
    assert send.size() == 5
    write_all(send, PlaintextTransportLayer(a, selectors.DefaultSelector()))
    assert recv_exact(b, 5) == b"\x00\x00\x00\x01x"


def test_partial_file_writes_resume_at_the_right_offset(pair):
    a, b = pair
    data = bytes(range(256)) * 4
    records = FakeFileRecords(data, max_chunk=100)   # writes less than asked every time
    send = NetworkSend("c", [b"AB", records, b"YZ"])
    write_all(send, PlaintextTransportLayer(a, selectors.DefaultSelector()))
    assert recv_exact(b, send.size())[4:] == b"AB" + data + b"YZ"
    offsets = [off for off, _ in records.calls]
    assert offsets == list(range(0, len(data), 100))
    # every call asked for the rest of the part, from where the previous one stopped
    assert all(length == len(data) - off for off, length in records.calls)


def test_short_gathering_writes_resume_inside_and_across_byte_parts(pair):
    a, b = pair
    parts = [b"one-", b"two-", b"three-", FakeFileRecords(b"file-part", 4), b"four-", b"five"]
    send = NetworkSend("c", parts)
    transport = ShortWriteTransport(a, limit=3)
    write_all(send, transport)
    expected = b"one-two-three-file-partfour-five"
    assert recv_exact(b, send.size()) == len(expected).to_bytes(4, "big") + expected
    assert transport.writes >= (4 + 14 + 9) // 3   # the byte parts really went out 3 bytes at a time


def test_real_partial_writes_on_a_full_socket_buffer(pair):
    a, b = pair
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    big = bytes(i % 251 for i in range(3_000_000))
    records = FakeFileRecords(big[:1_000_000], max_chunk=1 << 20)
    send = NetworkSend("c", [big[1_000_000:2_000_000], records, big[2_000_000:]])
    transport = PlaintextTransportLayer(a, selectors.DefaultSelector())

    first = send.write_to(transport)   # nobody reads yet: the kernel takes only part of it
    assert 0 < first < send.size() and not send.completed()

    received = {}

    def reader():
        received["frame"] = recv_exact(b, send.size())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    sel = selectors.DefaultSelector()
    sel.register(a, selectors.EVENT_WRITE)
    zero_writes = 0
    while not send.completed():
        sel.select(5)
        if send.write_to(transport) == 0:
            zero_writes += 1
            assert zero_writes < 10_000
    sel.close()
    t.join(20)
    assert not t.is_alive()
    frame = received["frame"]
    assert frame[:4] == (3_000_000).to_bytes(4, "big")
    assert frame[4:] == big[1_000_000:2_000_000] + big[:1_000_000] + big[2_000_000:]


def test_write_to_returns_bytes_written(pair):
    a, b = pair
    send = NetworkSend("c", [b"abc"])
    n = send.write_to(PlaintextTransportLayer(a, selectors.DefaultSelector()))
    assert n == 7 and send.completed()
    assert send.write_to(PlaintextTransportLayer(a, selectors.DefaultSelector())) == 0   # nothing left
    assert recv_exact(b, 7) == b"\x00\x00\x00\x03abc"
