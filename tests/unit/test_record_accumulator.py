"""RecordAccumulatorTest: batches fill and become ready, linger, drain grouped by node up to max.request.size,
the batch header written only at drain (S45), buffer reuse, expiry, and re-enqueue in sequence order."""
import pytest

from kafkalite.clients.cluster import Cluster, PartitionInfo
from kafkalite.clients.node import Node
from kafkalite.clients.producer.internals.buffer_pool import BufferPool
from kafkalite.clients.producer.internals.producer_batch import (
    ProducerBatch, estimate_size_in_bytes_upper_bound, record_size_upper_bound)
from kafkalite.clients.producer.internals.record_accumulator import RecordAccumulator
from kafkalite.clients.producer.internals.transaction_manager import ProducerIdAndEpoch, TransactionManager
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import KafkaException
from kafkalite.record.default_record_batch import DefaultRecordBatch
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.utils.time import MockTime

pytestmark = pytest.mark.timeout(30)

N1, N2 = Node(0, "localhost", 1111), Node(1, "localhost", 1112)
TP1, TP2, TP3 = TopicPartition("test", 0), TopicPartition("test", 1), TopicPartition("test", 2)
CLUSTER = Cluster("c", [N1, N2], [PartitionInfo("test", 0, N1), PartitionInfo("test", 1, N1),
                                  PartitionInfo("test", 2, N2)])
KEY, VALUE = b"key", b"value"


def accum(mock_time, batch_size=1024, linger_ms=10, memory=10 * 1024, **kw):
    return RecordAccumulator(batch_size, linger_ms=linger_ms, retry_backoff_ms=100, delivery_timeout_ms=3200,
                             free=BufferPool(memory, batch_size, mock_time), time=mock_time, **kw)


def append(acc, mock_time, tp=TP1, key=KEY, value=VALUE):
    return acc.append(tp.topic, tp.partition, mock_time.milliseconds(), key, value, [], None, 1000,
                      mock_time.milliseconds(), CLUSTER)


def test_size_estimate_is_header_plus_21_plus_key_and_value():
    # S44: 61-byte header + at most 21 bytes of record overhead + key and value (with their length varints)
    assert record_size_upper_bound(KEY, VALUE) == 21 + (1 + 3) + (1 + 5) + 1
    assert estimate_size_in_bytes_upper_bound(KEY, VALUE) == 61 + 21 + 4 + 6 + 1
    assert estimate_size_in_bytes_upper_bound(None, None) == 61 + 21 + 1 + 1 + 1


def test_full():
    # Kafka: RecordAccumulatorTest.testFull -- records fill one batch; the next one makes it ready
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=10)
    per_batch = 0
    while True:
        result = append(acc, mock_time)
        if result.new_batch_created and per_batch:
            break
        per_batch += 1
        assert not acc.ready(CLUSTER, mock_time.milliseconds()).ready_nodes, "not ready before full or linger"
    assert result.batch_is_full                      # two batches in the deque now
    assert acc.ready(CLUSTER, mock_time.milliseconds()).ready_nodes == {N1}
    batches = acc.drain(CLUSTER, {N1}, 1024 * 1024, mock_time.milliseconds())[N1.id]
    assert len(batches) == 1
    records = list(batches[0].records().records())
    assert len(records) == per_batch and per_batch > 10
    assert [r.offset for r in records] == list(range(per_batch))
    assert all(r.key == KEY and r.value == VALUE for r in records)


def test_linger():
    # Kafka: RecordAccumulatorTest.testLinger
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=10)
    append(acc, mock_time)
    result = acc.ready(CLUSTER, mock_time.milliseconds())
    assert not result.ready_nodes and result.next_ready_check_delay_ms == 10
    mock_time.sleep(10)
    assert acc.ready(CLUSTER, mock_time.milliseconds()).ready_nodes == {N1}
    batches = acc.drain(CLUSTER, {N1}, 1024 * 1024, mock_time.milliseconds())[N1.id]
    assert len(batches) == 1 and batches[0].record_count == 1


def test_header_written_at_drain_time():
    # S45: until drain the first 61 bytes are untouched; after it the batch is a valid v2 batch
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=0)
    append(acc, mock_time)
    batch = acc.get_deque(TP1)[0]
    assert bytes(batch.buffer[:61]) == bytes(61) and not batch.is_closed()
    drained = acc.drain(CLUSTER, {N1}, 1024 * 1024, mock_time.milliseconds())[N1.id]
    assert drained == [batch] and batch.is_closed()
    view = DefaultRecordBatch(batch.records().buffer)
    assert view.is_valid() and view.magic == 2 and view.count == 1 and view.base_offset == 0
    assert view.base_timestamp == mock_time.milliseconds()


def test_drain_groups_by_node_and_stops_at_max_size():
    # S46: one list per ready node; a node's list stays within max.request.size (except a lone batch)
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=0)
    for tp in (TP1, TP2, TP3):
        append(acc, mock_time, tp)
    assert acc.ready(CLUSTER, mock_time.milliseconds()).ready_nodes == {N1, N2}
    one = acc.get_deque(TP1)[0].estimated_size_in_bytes()
    drained = acc.drain(CLUSTER, {N1, N2}, one + 1, mock_time.milliseconds())
    assert [b.topic_partition for b in drained[N2.id]] == [TP3]
    assert len(drained[N1.id]) == 1                 # the second partition of node 1 did not fit
    left = TP2 if drained[N1.id][0].topic_partition == TP1 else TP1
    # the next drain of node 1 starts at the partition it stopped at, so nothing starves
    assert [b.topic_partition for b in acc.drain(CLUSTER, {N1}, one + 1, mock_time.milliseconds())[N1.id]] == [left]


def test_buffers_return_to_the_pool_and_are_reused():
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=0, memory=2048)
    append(acc, mock_time)
    batch = acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds())[N1.id][0]
    buffer = batch.buffer
    assert acc.free.available_memory() == 1024
    batch.complete(0, -1)
    acc.deallocate(batch)
    assert acc.free.available_memory() == 2048 and not acc.has_incomplete()
    append(acc, mock_time)
    assert acc.get_deque(TP1)[0].buffer is buffer


def test_large_record_gets_its_own_bigger_batch():
    mock_time = MockTime()
    acc = accum(mock_time, memory=10 * 1024)
    append(acc, mock_time, value=b"x" * 3000)
    batch = acc.get_deque(TP1)[0]
    assert len(batch.buffer) == estimate_size_in_bytes_upper_bound(KEY, b"x" * 3000) > 1024


def test_futures_complete_with_offsets():
    mock_time = MockTime()
    acc = accum(mock_time)
    futures = [append(acc, mock_time).future for _ in range(3)]
    batch = acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds() + 100)[N1.id][0]
    assert not futures[0].is_done()
    batch.complete(100, -1)
    assert [f.get(1).offset for f in futures] == [100, 101, 102]
    assert futures[0].get(1).partition == 0 and futures[0].get(1).timestamp == mock_time.milliseconds()



def test_abort_incomplete_batches():
    # Kafka: RecordAccumulatorTest.testAbortIncompleteBatches -- a forced close fails every pending record
    # with the clients' general KafkaException (protocol/errors.py), and a closed accumulator refuses appends
    mock_time = MockTime()
    acc = accum(mock_time)
    futures = [append(acc, mock_time, tp).future for tp in (TP1, TP2, TP3)]
    acc.close()
    acc.abort_incomplete_batches()
    for f in futures:
        with pytest.raises(KafkaException, match="closed forcefully"):
            f.get(1)
    assert not acc.has_incomplete()
    with pytest.raises(KafkaException, match="closed while send in progress"):
        append(acc, mock_time)

def test_expired_batches():
    # Kafka: RecordAccumulatorTest.testExpiredBatches -- delivery.timeout.ms from creation
    mock_time = MockTime()
    acc = accum(mock_time)
    append(acc, mock_time)
    mock_time.sleep(3199)
    assert acc.expired_batches(mock_time.milliseconds()) == []
    mock_time.sleep(1)
    expired = acc.expired_batches(mock_time.milliseconds())
    assert [b.topic_partition for b in expired] == [TP1] and not acc.get_deque(TP1)


def test_retry_backoff():
    # Kafka: RecordAccumulatorTest.testRetryBackoff -- a re-enqueued batch waits retry.backoff.ms
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=0)
    append(acc, mock_time)
    batch = acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds())[N1.id][0]
    acc.reenqueue(batch, mock_time.milliseconds())
    result = acc.ready(CLUSTER, mock_time.milliseconds())
    assert not result.ready_nodes and result.next_ready_check_delay_ms == 100
    assert acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds())[N1.id] == []
    mock_time.sleep(100)
    assert acc.ready(CLUSTER, mock_time.milliseconds()).ready_nodes == {N1}
    assert acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds())[N1.id] == [batch]


def test_flush_makes_everything_ready():
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=10_000)
    append(acc, mock_time)
    assert not acc.ready(CLUSTER, mock_time.milliseconds()).ready_nodes
    acc.begin_flush()
    assert acc.ready(CLUSTER, mock_time.milliseconds()).ready_nodes == {N1}


def test_unknown_leader_is_reported():
    mock_time = MockTime()
    acc = accum(mock_time, linger_ms=0)
    acc.append("other", 0, mock_time.milliseconds(), KEY, VALUE, [], None, 1000, mock_time.milliseconds(), CLUSTER)
    assert acc.ready(CLUSTER, mock_time.milliseconds()).unknown_leader_topics == {"other"}


def test_idempotent_drain_assigns_sequences_and_reenqueue_keeps_their_order():
    mock_time = MockTime()
    tm = TransactionManager()
    tm.set_producer_id_and_epoch(ProducerIdAndEpoch(7, 0))
    acc = accum(mock_time, linger_ms=0, transaction_manager=tm)
    drained = []
    for _ in range(3):
        append(acc, mock_time)
        append(acc, mock_time)
        drained += acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds())[N1.id]
    assert [b.base_sequence for b in drained] == [0, 2, 4]
    assert DefaultRecordBatch(drained[1].records().buffer).producer_id == 7
    # all three fail and come back in any order: the deque puts them back in sequence order
    for batch in (drained[2], drained[0], drained[1]):
        acc.reenqueue(batch, mock_time.milliseconds())
    assert [b.base_sequence for b in acc.get_deque(TP1)] == [0, 2, 4]
    # only the first in-flight sequence may be re-sent while the others wait
    mock_time.sleep(100)
    assert [b.base_sequence for b in acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds())[N1.id]] == [0]
    assert acc.drain(CLUSTER, {N1}, 1 << 20, mock_time.milliseconds())[N1.id] == []


def test_producer_batch_rejects_what_does_not_fit():
    mock_time = MockTime()
    size = estimate_size_in_bytes_upper_bound(KEY, b"x" * 200)   # what the accumulator would allocate
    batch = ProducerBatch(TP1, bytearray(size), mock_time.milliseconds())
    assert batch.try_append(0, KEY, b"x" * 200, [], None, 0) is not None   # the first record always fits
    assert len(batch.buffer) == size                                       # written in place, never grown
    assert batch.try_append(0, KEY, VALUE, [], None, 0) is None
    assert isinstance(batch.records(), MemoryRecords)
