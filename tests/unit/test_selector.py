"""SelectorTest: kafkalite's Selector over real loopback sockets (S11, S12, S15, S48).

Each test plays the peer with a plain blocking socket and drives the Selector by hand, as Kafka's
SelectorTest does: ``register`` of an accepted socket (the broker's side) or ``connect`` (the client's).
The rules under test are Kafka 2.4's: every complete frame a readable channel has is *staged*, but at
most one per poll and per unmuted channel moves to ``completed_receives``; a muted channel keeps its
staged receives; a channel closed by the peer hands out what it staged before it is reported
``disconnected``.
"""
from __future__ import annotations

import logging
import select
import socket
import struct
import threading
import time

import pytest

from kafkalite.network.kafka_channel import ChannelState
from kafkalite.network.network_receive import InvalidReceiveException, NetworkReceive
from kafkalite.network.network_send import NetworkSend
from kafkalite.network.selector import Selector
from kafkalite.network.transport_layer import OP_READ, OP_WRITE
from kafkalite.utils.time import MockTime

pytestmark = pytest.mark.timeout(30)

DEADLINE_S = 5.0


def frame(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


@pytest.fixture
def server():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    srv.settimeout(DEADLINE_S)
    yield srv
    srv.close()


class Harness:
    """A Selector plus the peers it is connected to; closes everything at the end."""

    def __init__(self, server, **selector_args):
        self.server = server
        self.selector = Selector(**selector_args)
        self.peers: list[socket.socket] = []

    def accept(self, connection_id: str) -> socket.socket:
        """Connect a peer to the listener and register the accepted end under ``connection_id``."""
        peer = socket.create_connection(self.server.getsockname(), timeout=DEADLINE_S)
        self.peers.append(peer)
        accepted, _ = self.server.accept()
        accepted.setblocking(False)
        self.selector.register(connection_id, accepted)
        return peer

    def channel(self, connection_id):
        return self.selector.channel(connection_id) or self.selector.closing_channel(connection_id)

    def wait_readable(self, connection_id: str, nbytes: int) -> None:
        """Wait until ``nbytes`` are queued on the selector's socket, without consuming them."""
        sock = self.channel(connection_id).transport_layer.socket_channel
        deadline = time.monotonic() + DEADLINE_S
        while True:
            try:
                if len(sock.recv(nbytes, socket.MSG_PEEK)) >= nbytes:
                    return
            except BlockingIOError:
                pass
            assert time.monotonic() < deadline, "data never arrived"
            time.sleep(0.001)

    def wait_peer_closed(self, connection_id: str) -> None:
        """Wait until the FIN of the peer has reached the selector's socket (POLLRDHUP)."""
        sock = self.channel(connection_id).transport_layer.socket_channel
        p = select.poll()
        p.register(sock, select.POLLRDHUP)
        assert p.poll(DEADLINE_S * 1000), "peer close never arrived"

    def poll_until(self, cond, timeout_ms: int = 20) -> None:
        """Poll at least once, then until ``cond()`` holds (bounded)."""
        deadline = time.monotonic() + DEADLINE_S
        self.selector.poll(timeout_ms)
        while not cond():
            assert time.monotonic() < deadline, "condition not reached"
            self.selector.poll(timeout_ms)

    def close(self):
        self.selector.close()
        for p in self.peers:
            p.close()


@pytest.fixture
def h(server):
    harness = Harness(server, max_receive_size=1000)
    yield harness
    harness.close()


def payloads(selector) -> list[bytes]:
    return [bytes(r.payload()) for r in selector.completed_receives]


# ------------------------------------------------------------------ reading
def test_frame_is_read_whole_across_many_small_writes(h):
    peer = h.accept("c1")
    data = frame(b"hello, kafka")
    for i, byte in enumerate(data):
        peer.sendall(bytes([byte]))
        h.wait_readable("c1", 1)
        h.selector.poll(0)
        if i < len(data) - 1:
            assert h.selector.completed_receives == [], f"receive completed after {i + 1} of {len(data)} bytes"
    assert payloads(h.selector) == [b"hello, kafka"]
    assert h.selector.completed_receives[0].source == "c1"
    assert h.selector.completed_receives[0].size() == len(data)


def test_pipelined_frames_are_all_staged_but_completed_one_per_poll(h):
    peer = h.accept("c1")
    data = b"".join(frame(b"req-%d" % i) for i in range(3))
    peer.sendall(data)
    h.wait_readable("c1", len(data))
    ch = h.channel("c1")

    h.selector.poll(1000)
    assert payloads(h.selector) == [b"req-0"]
    assert h.selector.num_staged_receives(ch) == 2     # all three were read in this one poll
    h.selector.poll(0)
    assert payloads(h.selector) == [b"req-1"]
    assert h.selector.num_staged_receives(ch) == 1
    h.selector.poll(0)
    assert payloads(h.selector) == [b"req-2"]
    assert h.selector.num_staged_receives(ch) == 0 and not h.selector.has_staged_receives()


def test_one_receive_per_channel_per_poll_across_channels(h):
    p1, p2 = h.accept("c1"), h.accept("c2")
    for peer, cid in ((p1, "c1"), (p2, "c2")):
        data = frame(cid.encode() + b"-a") + frame(cid.encode() + b"-b")
        peer.sendall(data)
        h.wait_readable(cid, len(data))
    h.selector.poll(1000)
    assert sorted(payloads(h.selector)) == [b"c1-a", b"c2-a"]
    h.selector.poll(0)
    assert sorted(payloads(h.selector)) == [b"c1-b", b"c2-b"]


def test_muted_channel_keeps_staged_receives_until_unmuted(h):
    peer = h.accept("c1")
    data = frame(b"r0") + frame(b"r1")
    peer.sendall(data)
    h.wait_readable("c1", len(data))
    ch = h.channel("c1")
    h.selector.poll(1000)
    assert payloads(h.selector) == [b"r0"]

    h.selector.mute("c1")                       # as the Processor does once it has taken a request
    assert ch.is_muted() and ch in h.selector.explicitly_muted_channels
    assert ch.transport_layer.interest_ops & OP_READ == 0
    peer.sendall(frame(b"r2"))                  # arrives while muted: must not be read

    start = time.monotonic()
    h.selector.poll(300)
    waited = time.monotonic() - start
    assert h.selector.completed_receives == []
    assert h.selector.num_staged_receives(ch) == 1
    assert not h.selector.has_staged_receives()   # a muted channel's staged receives don't count
    assert waited >= 0.2, f"poll returned after {waited:.3f}s although the only staged channel is muted"

    h.selector.unmute("c1")
    assert ch.transport_layer.interest_ops & OP_READ
    h.selector.poll(0)
    assert payloads(h.selector) == [b"r1"]
    h.poll_until(lambda: h.selector.completed_receives)
    assert payloads(h.selector) == [b"r2"]


# ------------------------------------------------------------------ sending
def test_send_completes_into_completed_sends_and_drops_op_write(h):
    peer = h.accept("c1")
    ch = h.channel("c1")
    send = NetworkSend("c1", [b"response-", b"bytes"])
    h.selector.send(send)
    assert ch.transport_layer.interest_ops & OP_WRITE
    h.poll_until(lambda: h.selector.completed_sends)
    assert h.selector.completed_sends == [send]
    assert ch.transport_layer.interest_ops & OP_WRITE == 0
    assert not ch.has_send()
    assert peer.recv(100) == frame(b"response-bytes")
    h.selector.poll(0)
    assert h.selector.completed_sends == []     # cleared by the next poll


def test_write_at_once_sends_without_op_write_and_the_next_poll_reports_it_without_waiting(server):
    """Session 10: the broker's Processors write a response as they hand it over; it never asks for OP_WRITE,
    and the next poll reports it in completed_sends at once (a poll that waited would delay the unmute)."""
    h = Harness(server, max_receive_size=1000, write_at_once=True)
    try:
        peer = h.accept("c1")
        ch = h.channel("c1")
        seen = []
        apply = ch.transport_layer._apply
        ch.transport_layer._apply = lambda: (seen.append(ch.transport_layer.interest_ops), apply())[1]
        send = NetworkSend("c1", [b"response-", b"bytes"])
        h.selector.send(send)
        assert not ch.has_send() and seen == []     # written already: no interest-set change at all
        peer.settimeout(DEADLINE_S)
        assert peer.recv(100) == frame(b"response-bytes")
        t0 = time.monotonic()
        h.selector.poll(5_000)
        assert time.monotonic() - t0 < 2.0, "the poll waited although a send had completed"
        assert h.selector.completed_sends == [send]
        h.selector.poll(0)
        assert h.selector.completed_sends == []
    finally:
        h.close()


def test_write_at_once_leaves_what_the_socket_does_not_take_to_op_write(server):
    h = Harness(server, max_receive_size=1000, write_at_once=True)
    try:
        peer = h.accept("c1")
        ch = h.channel("c1")
        ch.transport_layer.socket_channel.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        big = b"x" * (4 << 20)
        send = NetworkSend("c1", [big])
        h.selector.send(send)
        assert ch.has_send() and ch.transport_layer.interest_ops & OP_WRITE
        got = bytearray()
        peer.setblocking(False)   # this thread both writes (poll) and reads (peer)
        deadline = time.monotonic() + DEADLINE_S
        while not h.selector.completed_sends:
            assert time.monotonic() < deadline, "send never completed"
            h.selector.poll(1)
            try:
                got += peer.recv(1 << 20)
            except BlockingIOError:
                pass
        assert h.selector.completed_sends == [send]
        assert ch.transport_layer.interest_ops & OP_WRITE == 0
        peer.settimeout(DEADLINE_S)
        while len(got) < len(big) + 4:
            got += peer.recv(1 << 20)
        assert bytes(got) == frame(big)
    finally:
        h.close()


def test_second_send_while_one_is_in_progress_fails_the_connection(h):
    peer = h.accept("c1")
    h.selector.send(NetworkSend("c1", [b"one"]))
    with pytest.raises(RuntimeError, match="prior send operation still in progress"):
        h.selector.send(NetworkSend("c1", [b"two"]))
    assert h.selector.channel("c1") is None
    h.selector.poll(0)
    assert h.selector.disconnected == {"c1": ChannelState.FAILED_SEND}
    peer.settimeout(DEADLINE_S)
    assert peer.recv(100) == b""                # closed, nothing written


@pytest.fixture
def at_once(server):
    h = Harness(server, max_receive_size=1000, write_at_once=True, connection_max_idle_ms=1000, time=MockTime())
    yield h
    h.close()


def test_write_at_once_a_second_send_before_the_poll_fails_the_connection(at_once):
    # as set_send refuses a send while one is in progress: the peer gets the first response only, then the close
    peer = at_once.accept("c1")
    at_once.selector.send(NetworkSend("c1", [b"one"]))
    with pytest.raises(RuntimeError, match="prior send operation still in progress"):
        at_once.selector.send(NetworkSend("c1", [b"two"]))
    at_once.selector.poll(0)
    assert at_once.selector.disconnected == {"c1": ChannelState.FAILED_SEND}
    peer.settimeout(DEADLINE_S)
    assert peer.recv(100) == frame(b"one") and peer.recv(100) == b""


class FailsOnce:
    """A file part whose first transfer fails after the header went out (an ENOBUFS from sendfile, say)."""

    def __init__(self, data: bytes):
        self.data, self.calls = data, 0

    def size_in_bytes(self) -> int:
        return len(self.data)

    def write_to(self, sock, offset, length):
        self.calls += 1
        if self.calls == 1:
            raise OSError(105, "No buffer space available")
        return sock.send(self.data[offset:offset + length])


def test_write_at_once_a_failed_write_closes_the_connection(at_once):
    # Kafka: a send that fails closes its channel (FAILED_SEND); kafkalite retried it on OP_WRITE, and with part of
    # it written the retry never completed: the Processor spun and the connection stayed muted
    peer = at_once.accept("c1")
    send = NetworkSend("c1", [b"header", FailsOnce(b"records")])
    at_once.selector.send(send)
    assert at_once.selector.channel("c1") is None
    at_once.selector.poll(0)
    assert at_once.selector.disconnected == {"c1": ChannelState.FAILED_SEND}
    peer.settimeout(DEADLINE_S)
    got = peer.recv(100)
    assert got.startswith(struct.pack(">i", send.size() - 4)) and peer.recv(100) == b""


def test_write_at_once_counts_as_activity_for_the_idle_timeout(at_once):
    # Kafka's poll that writes a response refreshes the connection's idle timer (Selector.pollSelectionKeys)
    at_once.accept("c1")
    clock = at_once.selector.time
    clock.sleep(900)
    at_once.selector.send(NetworkSend("c1", [b"response"]))
    clock.sleep(200)   # 1,100 ms after the connection's last read, 200 ms after the response
    at_once.selector.poll(0)
    assert at_once.selector.channel("c1") is not None, "closed as idle although it answered 200 ms ago"


def test_client_connect_and_round_trip(server):
    sel = Selector()
    try:
        sel.connect("node-1", server.getsockname())
        accepted, _ = server.accept()
        with accepted:
            deadline = time.monotonic() + DEADLINE_S
            while "node-1" not in sel.connected:
                assert time.monotonic() < deadline
                sel.poll(20)
            assert sel.is_channel_ready("node-1")
            sel.send(NetworkSend("node-1", [b"ping"]))
            while not sel.completed_sends:
                assert time.monotonic() < deadline
                sel.poll(20)
            accepted.settimeout(DEADLINE_S)
            assert accepted.recv(100) == frame(b"ping")
            accepted.sendall(frame(b"pong"))
            while not sel.completed_receives:
                assert time.monotonic() < deadline
                sel.poll(20)
            assert [bytes(r.payload()) for r in sel.completed_receives] == [b"pong"]
            assert sel.completed_receives[0].source == "node-1"
    finally:
        sel.close()


def test_connect_to_a_closed_port_is_reported_disconnected(server):
    port = server.getsockname()[1]
    server.close()
    sel = Selector()
    try:
        try:
            sel.connect("n", ("127.0.0.1", port))
        except OSError:
            return   # refused synchronously: also acceptable
        deadline = time.monotonic() + DEADLINE_S
        while "n" not in sel.disconnected:
            assert time.monotonic() < deadline
            sel.poll(20)
        assert "n" not in sel.connected and sel.channel("n") is None
    finally:
        sel.close()


# ------------------------------------------------------------------ closing
def test_peer_close_with_staged_receives_delivers_them_before_disconnect(h):
    peer = h.accept("c1")
    peer.sendall(b"".join(frame(b"last-%d" % i) for i in range(3)))
    peer.close()
    h.wait_peer_closed("c1")

    events = []
    h.selector.poll(1000)
    assert h.selector.closing_channel("c1") is not None    # GRACEFUL: kept to hand out what it staged
    assert h.selector.channel("c1") is None
    for _ in range(10):
        events += [("receive", p) for p in payloads(h.selector)]
        events += [("disconnected", cid) for cid in h.selector.disconnected]
        if ("disconnected", "c1") in events:
            break
        h.selector.poll(0)
    assert events == [("receive", b"last-0"), ("receive", b"last-1"), ("receive", b"last-2"),
                      ("disconnected", "c1")]
    assert h.selector.closing_channel("c1") is None


def test_peer_close_without_staged_receives_is_reported_at_once(h):
    peer = h.accept("c1")
    peer.close()
    h.poll_until(lambda: "c1" in h.selector.disconnected)
    assert h.selector.completed_receives == []
    assert h.selector.channel("c1") is None and h.selector.closing_channel("c1") is None


def test_peer_close_mid_frame_is_logged_and_disconnected(h, caplog):
    peer = h.accept("c1")
    peer.sendall(struct.pack(">i", 50) + b"only part")
    peer.close()
    with caplog.at_level(logging.INFO, logger="kafka.network.Selector"):
        h.poll_until(lambda: "c1" in h.selector.disconnected)
    assert h.selector.completed_receives == []
    assert "disconnected in the middle of a frame" in caplog.text


def test_local_close_is_not_reported(h):
    peer = h.accept("c1")
    h.selector.close_connection("c1")
    h.selector.poll(0)
    assert h.selector.disconnected == {}
    assert h.selector.channel("c1") is None
    peer.settimeout(DEADLINE_S)
    assert peer.recv(10) == b""


@pytest.mark.parametrize("size", [1001, 2**31 - 1, -1, -2**31], ids=["just-over", "huge", "minus-one", "min-int"])
def test_oversize_or_negative_size_closes_only_that_channel(h, size, caplog):
    bad, good = h.accept("bad"), h.accept("good")
    bad.sendall(struct.pack(">i", size) + b"xxxx")
    good.sendall(frame(b"fine"))
    received = []
    with caplog.at_level(logging.WARNING, logger="kafka.network.Selector"):
        def done():
            received.extend(payloads(h.selector))
            return "bad" in h.selector.disconnected and received
        h.poll_until(done)
    assert received == [b"fine"]
    assert h.selector.channel("bad") is None and h.selector.channel("good") is not None
    assert "Invalid receive" in caplog.text and "bad" in caplog.text
    bad.settimeout(DEADLINE_S)
    try:
        assert bad.recv(10) == b""              # the broker closed it
    except ConnectionResetError:
        pass
    good.sendall(frame(b"still served"))
    h.poll_until(lambda: h.selector.completed_receives)
    assert payloads(h.selector) == [b"still served"]


class ChunkTransport:
    def __init__(self, data: bytes, chunk: int = 1):
        self.data, self.pos, self.chunk = data, 0, chunk

    def read(self, dst) -> int:
        if self.pos >= len(self.data):
            return 0
        n = min(self.chunk, len(dst), len(self.data) - self.pos)
        dst[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


@pytest.mark.parametrize("size,message", [(101, "size = 101 larger than 100"), (-5, "size = -5")])
def test_network_receive_raises_invalid_receive_exception(size, message):
    receive = NetworkReceive(100, "src")
    with pytest.raises(InvalidReceiveException, match=message):
        receive.read_from(ChunkTransport(struct.pack(">i", size), chunk=4))
    assert receive.buffer is None   # no payload memory was taken


def test_network_receive_exactly_max_size_and_byte_by_byte():
    receive = NetworkReceive(100, "src")
    transport = ChunkTransport(frame(b"z" * 100), chunk=1)
    calls = 0
    while not receive.complete():
        assert transport.pos < 104
        assert receive.read_from(transport) >= 1
        calls += 1
    assert transport.pos == 104 and calls >= 100
    assert receive.complete() and bytes(receive.payload()) == b"z" * 100 and receive.size() == 104


# ------------------------------------------------------------------ wakeup and idle expiry
def test_wakeup_from_another_thread_interrupts_a_long_poll(h):
    h.accept("c1")
    timer = threading.Timer(0.2, h.selector.wakeup)
    timer.start()
    start = time.monotonic()
    h.selector.poll(20_000)
    elapsed = time.monotonic() - start
    timer.join()
    assert elapsed < 10, f"poll was not woken up ({elapsed:.1f}s)"
    assert h.selector.completed_receives == [] and h.selector.disconnected == {}


def test_wakeup_before_poll_makes_the_next_poll_return_and_is_consumed(h):
    for _ in range(3):
        h.selector.wakeup()
    start = time.monotonic()
    h.selector.poll(20_000)
    assert time.monotonic() - start < 10
    start = time.monotonic()
    h.selector.poll(200)   # the wakeup bytes were drained: this one waits again
    assert time.monotonic() - start >= 0.15


def test_wakeups_while_one_is_pending_write_once_and_every_poll_rearms_them(h):
    """Java's Selector.wakeup writes its pipe once until the select it woke has returned."""
    sent = []
    real = h.selector._wakeup_w

    class Counting:
        def send(self, data):
            sent.append(data)
            return real.send(data)

        def close(self):
            real.close()
    h.selector._wakeup_w = Counting()
    for _ in range(5):
        h.selector.wakeup()
    assert len(sent) == 1
    for round_ in range(3):   # each poll re-arms: the next wakeup writes and wakes the next poll at once
        start = time.monotonic()
        h.selector.poll(20_000)
        assert time.monotonic() - start < 10
        h.selector.wakeup()
        assert len(sent) == 2 + round_
    h.selector.poll(20_000)


def test_a_wakeup_between_select_and_drain_is_not_lost(h):
    """A handler's wakeup that lands after the select returned but before its byte was drained must not leave
    the selector believing a wakeup is still pending: the next one has to write and wake the next poll."""
    real_drain = h.selector._drain_wakeup
    calls = []

    def a_handler_wakes_then_drain():
        if not calls:
            calls.append(1)
            h.selector.wakeup()          # another response queued while the Processor is past its select
        real_drain()
    h.selector._drain_wakeup = a_handler_wakes_then_drain
    h.selector.wakeup()
    h.selector.poll(20_000)
    assert calls
    h.selector._drain_wakeup = real_drain
    timer = threading.Timer(0.05, h.selector.wakeup)
    timer.start()
    start = time.monotonic()
    h.selector.poll(20_000)
    timer.join()
    assert time.monotonic() - start < 10, "the wakeup was lost: the poll slept until its timeout"


def test_idle_connection_is_expired_with_mock_time(server):
    mock = MockTime()
    harness = Harness(server, connection_max_idle_ms=1000, time=mock)
    try:
        idle_peer = harness.accept("idle")
        busy_peer = harness.accept("busy")
        harness.selector.poll(0)
        mock.sleep(600)
        busy_peer.sendall(frame(b"keepalive"))
        harness.poll_until(lambda: harness.selector.completed_receives)   # touches "busy" at t=600
        mock.sleep(401)                                                    # "idle": 1001 ms, "busy": 401 ms
        harness.selector.poll(0)
        assert harness.selector.disconnected == {"idle": ChannelState.EXPIRED}
        assert harness.selector.channel("busy") is not None
        idle_peer.settimeout(DEADLINE_S)
        assert idle_peer.recv(10) == b""
        mock.sleep(500)
        harness.selector.poll(0)
        assert harness.selector.disconnected == {}   # "busy" is 901 ms idle: not yet
        mock.sleep(100)
        harness.selector.poll(0)
        assert harness.selector.disconnected == {"busy": ChannelState.EXPIRED}
    finally:
        harness.close()


def test_no_idle_expiry_by_default(h):
    h.accept("c1")
    h.selector.poll(0)
    assert h.selector.channel("c1") is not None
    assert h.selector.NO_IDLE_TIMEOUT_MS == -1


def test_muted_closing_channel_does_not_make_poll_spin(h):
    peer = h.accept("c1")
    peer.sendall(frame(b"a") + frame(b"b"))
    peer.close()
    h.wait_peer_closed("c1")
    h.selector.poll(1000)
    assert payloads(h.selector) == [b"a"] and h.selector.closing_channel("c1") is not None
    h.selector.mute("c1")          # the Processor took "a": no more receives until its response is sent
    start = time.monotonic()
    h.selector.poll(300)
    assert h.selector.completed_receives == []
    assert time.monotonic() - start >= 0.2, "poll returned at once: the closed socket is still selected"


def test_a_failed_send_drops_the_requests_already_read():
    """Kafka 2.4: close(channel, sendFailed ? NOTIFY_ONLY : GRACEFUL) -- requests read from a connection whose
    write failed are not handed out any more (their answers could never be delivered)."""
    import socket as _socket
    import struct as _struct

    from kafkalite.network.selector import Selector

    class FailingSend:
        destination = "c"

        def completed(self):
            return False

        def write_to(self, transport):
            raise BrokenPipeError("peer gone")

        def size(self):
            return 1

    server = _socket.create_server(("127.0.0.1", 0))
    client = _socket.create_connection(server.getsockname())
    sock, _ = server.accept()
    sock.setblocking(False)
    selector = Selector()
    try:
        selector.register("c", sock)
        client.sendall(b"".join(_struct.pack(">i", 3) + b"abc" for _ in range(3)))   # three pipelined requests
        deadline = time.monotonic() + 5
        while not selector.completed_receives and time.monotonic() < deadline:
            selector.poll(100)
        assert len(selector.completed_receives) == 1
        selector.mute("c")
        assert selector.num_staged_receives(selector.channel("c")) == 2
        selector.send(FailingSend())
        selector.poll(100)
        assert "c" in selector.disconnected
        assert selector.closing_channel("c") is None and selector.channel("c") is None
        selector.poll(0)
        assert selector.completed_receives == []          # the two staged requests were dropped
    finally:
        selector.close()
        client.close()
        server.close()


def test_a_channel_muted_for_memory_reads_again_once_the_pool_has_room(server):
    """Kafka's SelectorTest.testMuteOnOOM: with the pool full, a channel that knows its next frame's size but
    gets no buffer mutes itself; when memory comes back the Selector unmutes it and the frame is read."""
    from kafkalite.common.memory.memory_pool import SimpleMemoryPool
    pool = SimpleMemoryPool(100, 100)
    harness = Harness(server, max_receive_size=100, memory_pool=pool)
    try:
        hog = pool.try_allocate(100)
        assert hog is not None and pool.is_out_of_memory()
        peer = harness.accept("c")
        peer.sendall(frame(b"x" * 10))
        harness.wait_readable("c", 14)
        harness.poll_until(lambda: harness.channel("c").is_muted())
        assert harness.selector.out_of_memory and payloads(harness.selector) == []
        pool.release(100)
        harness.poll_until(lambda: payloads(harness.selector) == [b"x" * 10])
        assert not harness.selector.out_of_memory
    finally:
        harness.close()


def test_io_wait_time_is_the_time_spent_in_select():
    # S7: NetworkProcessorAvgIdlePercent counts the select wait only (Kafka's io-wait-time)
    from kafkalite.utils.time import SYSTEM
    selector = Selector(max_receive_size=1024, time=SYSTEM)
    try:
        before = selector.io_wait_time_nanos
        started = time.monotonic()
        selector.poll(50)
        waited_s = time.monotonic() - started
        spent = (selector.io_wait_time_nanos - before) / 1e9
        assert 0.03 <= spent <= waited_s + 0.01, (spent, waited_s)
    finally:
        selector.close()
