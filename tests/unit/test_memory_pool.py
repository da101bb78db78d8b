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
