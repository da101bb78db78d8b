"""BufferPoolTest: batch.size buffers are reused, other sizes only count memory, and allocation blocks for at
most max.block.ms when buffer.memory is used up."""
import threading

import pytest

from kafkalite.clients.producer.internals.buffer_pool import BufferExhaustedException, BufferPool

pytestmark = pytest.mark.timeout(30)


def test_simple():
    # Kafka: BufferPoolTest.testSimple
    pool = BufferPool(2048, 1024)
    buf = pool.allocate(1024, 1000)
    assert len(buf) == 1024
    assert pool.unallocated_memory() == 1024 and pool.available_memory() == 1024
    pool.deallocate(buf)
    assert pool.available_memory() == 2048
    assert pool.unallocated_memory() == 1024      # kept on the free list, not returned as raw memory
    again = pool.allocate(1024, 1000)
    assert again is buf                           # the same 16 KiB-style buffer, reused


def test_non_poolable_sizes_are_not_kept():
    pool = BufferPool(2048, 1024)
    buf = pool.allocate(500, 1000)
    assert pool.available_memory() == 1548
    pool.deallocate(buf)
    assert pool.available_memory() == 2048 and not pool.free


def test_cant_allocate_more_than_total():
    with pytest.raises(ValueError):
        BufferPool(1024, 512).allocate(1025, 10)


def test_free_list_is_turned_back_into_memory():
    pool = BufferPool(2048, 1024)
    a, b = pool.allocate(1024, 10), pool.allocate(1024, 10)
    pool.deallocate(a)
    pool.deallocate(b)
    big = pool.allocate(2048, 10)                 # needs both pooled buffers released
    assert len(big) == 2048 and not pool.free and pool.unallocated_memory() == 0


def test_blocks_then_times_out():
    # Kafka: BufferPoolTest.testBlockTimeout
    pool = BufferPool(1024, 1024)
    pool.allocate(1024, 10)
    with pytest.raises(BufferExhaustedException, match="max blocking time"):
        pool.allocate(1024, 50)
    assert pool.queued() == 0 and pool.unallocated_memory() == 0


def test_delayed_allocation_is_woken_by_deallocate():
    # Kafka: BufferPoolTest.testDelayedAllocation
    pool = BufferPool(1024, 1024)
    buf = pool.allocate(1024, 10)
    got = []
    t = threading.Thread(target=lambda: got.append(pool.allocate(1024, 10_000)))
    t.start()
    deadline = threading.Event()
    for _ in range(500):                          # wait (bounded) until the thread is queued
        if pool.queued() == 1:
            break
        deadline.wait(0.01)
    assert pool.queued() == 1 and not got
    pool.deallocate(buf)
    t.join(5)
    assert got and got[0] is buf and pool.queued() == 0
