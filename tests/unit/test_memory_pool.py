"""Mirrors Kafka 2.4: clients/src/test/java/org/apache/kafka/common/memory/SimpleMemoryPoolTest.java, plus
the pool's use by NetworkReceive and KafkaChannel (SelectorTest.testMuteOnOOM in spirit)."""
import mmap
import socket
import struct

import pytest

from kafkalite.common.memory.memory_pool import LAZY_ALLOCATION_THRESHOLD, MemoryPool, SimpleMemoryPool
from kafkalite.network.network_receive import NetworkReceive


class TestSimpleMemoryPool:
    def test_non_strict_pool_overshoots_by_at_most_one_allocation(self):
        pool = SimpleMemoryPool(1000, 600, strict=False)
        a = pool.try_allocate(600)
        b = pool.try_allocate(600)         # 400 left: non-strict, so it succeeds
        assert a is not None and b is not None and pool.available_memory() == -200
        assert pool.is_out_of_memory() and pool.try_allocate(1) is None
        pool.release(600)
        assert pool.available_memory() == 400 and not pool.is_out_of_memory()

    def test_strict_pool_needs_the_whole_size(self):
        pool = SimpleMemoryPool(1000, 600, strict=True)
        assert pool.try_allocate(600) is not None
        assert pool.try_allocate(600) is None and pool.available_memory() == 400

    def test_too_large_allocation_is_refused(self):
        with pytest.raises(ValueError):
            SimpleMemoryPool(1000, 100).try_allocate(101)

    def test_large_buffers_are_lazily_committed_mmaps(self):
        assert isinstance(MemoryPool.NONE.try_allocate(LAZY_ALLOCATION_THRESHOLD), mmap.mmap)
        assert isinstance(MemoryPool.NONE.try_allocate(100), bytearray)


class SocketTransport:
    def __init__(self, sock):
        self.sock = sock

    def read(self, view) -> int:
        try:
            n = self.sock.recv_into(view)
        except BlockingIOError:
            return 0
        return n if n > 0 else -1


def test_receive_waits_for_memory_then_reads_and_releases_once():
    pool = SimpleMemoryPool(100, 100)
    hog = pool.try_allocate(100)
    assert hog is not None and pool.is_out_of_memory()
    a, b = socket.socketpair()
    b.setblocking(False)
    a.sendall(struct.pack(">i", 10) + b"0123456789")
    receive = NetworkReceive(100, "c", pool)
    receive.read_from(SocketTransport(b))
    assert receive.required_memory_amount_known() and not receive.memory_allocated() and not receive.complete()
    pool.release(100)
    receive.read_from(SocketTransport(b))
    assert receive.complete() and bytes(receive.payload()) == b"0123456789"
    assert pool.available_memory() == 90
    receive.release()
    receive.release()
    assert pool.available_memory() == 100
    a.close()
    b.close()


def test_oversized_frame_is_refused_before_any_allocation():
    pool = SimpleMemoryPool(100, 100)
    a, b = socket.socketpair()
    b.setblocking(False)
    a.sendall(struct.pack(">i", 1 << 30))
    from kafkalite.network.network_receive import InvalidReceiveException
    with pytest.raises(InvalidReceiveException):
        NetworkReceive(100, "c", pool).read_from(SocketTransport(b))
    assert pool.available_memory() == 100
    a.close()
    b.close()


# ---------------------------------------------------------------- reuse of request buffers (issue 18)
from kafkalite.common.memory import memory_pool as mp   # noqa: E402


@pytest.fixture
def recycler(monkeypatch):
    r = mp.BufferRecycler(max_cached_bytes=1 << 20, max_pending=4)
    monkeypatch.setattr(mp, "RECYCLER", r)
    return r


def _frame(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def _read_one(sock, pool=MemoryPool.NONE) -> NetworkReceive:
    receive = NetworkReceive(1 << 24, "c", pool)
    transport = SocketTransport(sock)
    for _ in range(1000):   # the bytes are already in the socket: a few reads suffice
        if receive.complete():
            return receive
        receive.read_from(transport)
    raise AssertionError("frame not complete")


def test_a_view_held_past_its_request_keeps_its_bytes(recycler):
    """A produce request's records are views of its buffer: one still alive after the request was released
    must never see the next request's bytes, and the buffer is reused only once the view is gone."""
    a, b = socket.socketpair()
    b.setblocking(False)
    first, second, third = (bytes([i]) * (100 << 10) for i in (1, 2, 3))
    with a, b:
        a.sendall(_frame(first))
        r1 = _read_one(b)
        records = r1.payload()[10:1000]   # what the body keeps of request 1
        r1.release()
        a.sendall(_frame(second))
        r2 = _read_one(b)
        assert bytes(r2.payload()) == second and bytes(records) == first[10:1000]
        assert recycler.reused == 0
        r2.release()
        del records                       # request 1's last view goes
        a.sendall(_frame(third))
        r3 = _read_one(b)
        assert recycler.reused == 1 and bytes(r3.payload()) == third


def test_a_larger_reused_buffer_reads_only_its_frame(recycler):
    """Buffers come in powers of two: a 70 KiB frame read into a 128 KiB buffer must stop at its end, so
    the next frame's bytes (already in the socket) stay for the next receive."""
    a, b = socket.socketpair()
    b.setblocking(False)
    one, two = b"x" * (70 << 10), b"y" * (90 << 10)
    with a, b:
        a.setblocking(False)
        a.sendall(_frame(one) + _frame(two))
        r1 = _read_one(b)
        assert len(r1.buffer) == 128 << 10 and len(r1.payload()) == len(one) and bytes(r1.payload()) == one
        r1.release()
        r2 = _read_one(b)
        assert recycler.reused == 1 and bytes(r2.payload()) == two


def test_released_buffers_count_against_the_pool_once(recycler):
    pool = SimpleMemoryPool(1 << 20, 1 << 20)
    a, b = socket.socketpair()
    b.setblocking(False)
    with a, b:
        a.sendall(_frame(b"z" * (65 << 10)))
        receive = _read_one(b, pool)
        assert pool.available_memory() == (1 << 20) - (65 << 10)
        receive.release()
        receive.release()
        assert pool.available_memory() == 1 << 20 and receive.buffer is None


def test_recycler_keeps_a_bounded_cache_and_pending_list(recycler):
    held = [recycler.allocate(256 << 10) for _ in range(6)]
    views = [memoryview(h) for h in held]
    for h in held:
        recycler.give_back(h)
    del held, h
    assert len(recycler._pending) == 4          # the two oldest, still viewed, were dropped
    del views
    assert recycler.allocate(256 << 10) is not None and recycler.reused == 1
    assert recycler.cached_bytes() <= 1 << 20   # the 4 freed: 3 x 256 KiB left cached at most
    small = mp.allocate(1000)
    assert isinstance(small, bytearray) and len(small) == 1000   # below the reuse size: exact and fresh
