"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/RecordAccumulator.java
(the Kafka 3.3 version, which drives the BuiltInPartitioner)

Classes: RecordAccumulator, RecordAppendResult, ReadyCheckResult, TopicInfo, BatchDeque (``KafkaException``,
which it raises, lives in ``protocol/errors.py`` and is re-exported here).

The meeting point of the two producer threads (S44, S46):
- the caller's thread, inside ``KafkaProducer.send``, calls ``append``: find (or let the built-in
  partitioner choose) the partition, try the last batch of that partition's deque, and if the record
  does not fit, take a buffer from the ``BufferPool`` and start a new batch at the deque's tail;
- the Sender thread calls ``ready`` (which leaders have a batch that is full, has lingered for
  ``linger.ms``, or must go now because of a flush, close or memory pressure), then ``drain``: per ready
  node, one batch from the head of each of the node's partitions in turn, until ``max.request.size``.
  ``drain`` is where a batch gets its producer id and sequence (idempotence) and its header (``close``).

Locking: each partition's deque has its own lock (Kafka synchronizes on the deque); the lock is held
only to look at or change the deque, never while allocating memory or writing a batch header.

Era notes: the 3.3 ``TopicInfo`` map (partition deques grouped per topic, plus the topic's
BuiltInPartitioner) and ``ready``'s queue-size statistics come with the built-in partitioner.
Left out: ``abortOnNewBatch`` (only for the old sticky DefaultPartitioner), ``splitAndReenqueue``,
``partitioner.availability.timeout.ms``, node latency stats, transactions' ``hasIncomplete`` checks.
"""
from __future__ import annotations

import collections
import logging
import threading

import attrs

from kafkalite.clients.producer.internals.buffer_pool import BufferPool
from kafkalite.clients.producer.internals.built_in_partitioner import BuiltInPartitioner
from kafkalite.clients.producer.internals.producer_batch import ProducerBatch, estimate_size_in_bytes_upper_bound
from kafkalite.clients.producer.record_metadata import UNKNOWN_PARTITION
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import KafkaException
from kafkalite.record.compression_type import CompressionType
from kafkalite.record.record_batch import RecordBatch
from kafkalite.utils.time import SYSTEM, Time

log = logging.getLogger("kafka.producer.RecordAccumulator")
_MAX = 2 ** 63 - 1

__all__ = ["RecordAccumulator", "RecordAppendResult", "ReadyCheckResult", "TopicInfo", "BatchDeque",
           "KafkaException"]


class BatchDeque(collections.deque):
    """Kafka: Deque<ProducerBatch> -- plus the lock Java gets from ``synchronized (deque)``."""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()


@attrs.define
class TopicInfo:
    """Kafka: RecordAccumulator.TopicInfo -- a topic's partition deques and its built-in partitioner."""

    built_in_partitioner: BuiltInPartitioner
    batches: dict[int, BatchDeque] = attrs.field(factory=dict)


@attrs.define
class RecordAppendResult:
    """Kafka: RecordAccumulator.RecordAppendResult."""

    future: object
    batch_is_full: bool
    new_batch_created: bool
    abort_for_new_batch: bool
    appended_bytes: int


@attrs.define
class ReadyCheckResult:
    """Kafka: RecordAccumulator.ReadyCheckResult."""

    ready_nodes: set
    next_ready_check_delay_ms: int
    unknown_leader_topics: set


class RecordAccumulator:
    """Kafka: RecordAccumulator."""

    # Kafka: RecordAccumulator.<init>
    def __init__(self, batch_size: int = 16384, compression: CompressionType = CompressionType.NONE,
                 linger_ms: int = 0, retry_backoff_ms: int = 100, delivery_timeout_ms: int = 120_000,
                 free: BufferPool | None = None, time: Time = SYSTEM, transaction_manager=None,
                 enable_adaptive_partitioning: bool = True, log_context: str = ""):
        self.batch_size = batch_size
        self.compression = compression
        self.linger_ms = linger_ms
        self.retry_backoff_ms = retry_backoff_ms
        self.delivery_timeout_ms = delivery_timeout_ms
        self.free = free or BufferPool(32 * 1024 * 1024, batch_size, time)
        self.time = time
        self.transaction_manager = transaction_manager
        self.enable_adaptive_partitioning = enable_adaptive_partitioning
        self.log_context = log_context
        self.closed = False
        self.flushes_in_progress = 0
        self.appends_in_progress = 0
        self.topic_info_map: dict[str, TopicInfo] = {}
        self.incomplete: set[ProducerBatch] = set()   # Kafka: IncompleteBatches
        self.muted: set[TopicPartition] = set()
        self.node_to_drain_index: dict[str, int] = {}
        self.next_batch_expiry_time_ms = _MAX
        self.lock = threading.Lock()   # guards the maps and counters above (Java: concurrent maps, atomics)

    # ---------------------------------------------------------------- the caller's thread

    # Kafka: RecordAccumulator.append
    def append(self, topic: str, partition: int, timestamp: int, key, value, headers, callback,
               max_time_to_block_ms: int, now_ms: int, cluster) -> RecordAppendResult:
        with self.lock:
            topic_info = self.topic_info_map.get(topic)
            if topic_info is None:
                topic_info = self.topic_info_map[topic] = TopicInfo(BuiltInPartitioner(topic, self.batch_size))
            self.appends_in_progress += 1
        buffer = None
        try:
            while True:   # loop again if another thread switched the sticky partition meanwhile
                if partition == UNKNOWN_PARTITION:
                    partition_info = topic_info.built_in_partitioner.peek_current_partition_info(cluster)
                    effective_partition = partition_info.partition()
                else:
                    partition_info, effective_partition = None, partition
                dq = self.get_or_create_deque(topic_info, effective_partition)
                with dq.lock:
                    if topic_info.built_in_partitioner.is_partition_changed(partition_info):
                        continue
                    result = self.try_append(timestamp, key, value, headers, callback, dq, now_ms)
                    if result is not None:
                        topic_info.built_in_partitioner.update_partition_info(
                            partition_info, result.appended_bytes, cluster, self.all_batches_full(dq))
                        return result
                if buffer is None:
                    size = max(self.batch_size, estimate_size_in_bytes_upper_bound(key, value, headers))
                    log.debug("%sAllocating a new %d byte message buffer for topic %s partition %d with remaining "
                              "timeout %dms", self.log_context, size, topic, effective_partition,
                              max_time_to_block_ms)
                    buffer = self.free.allocate(size, max_time_to_block_ms)   # may block: outside the lock
                    now_ms = self.time.milliseconds()
                with dq.lock:
                    if topic_info.built_in_partitioner.is_partition_changed(partition_info):
                        continue
                    result = self.append_new_batch(topic, effective_partition, dq, timestamp, key, value, headers,
                                                   callback, buffer, now_ms)
                    if result.new_batch_created:
                        buffer = None   # the batch owns it now
                    topic_info.built_in_partitioner.update_partition_info(
                        partition_info, result.appended_bytes, cluster, self.all_batches_full(dq))
                    return result
        finally:
            if buffer is not None:
                self.free.deallocate(buffer)
            with self.lock:
                self.appends_in_progress -= 1

    # Kafka 3.3: RecordAccumulator.appendNewBatch (called with the deque's lock held)
    def append_new_batch(self, topic: str, partition: int, dq: BatchDeque, timestamp: int, key, value, headers,
                         callback, buffer: bytearray, now_ms: int) -> RecordAppendResult:
        result = self.try_append(timestamp, key, value, headers, callback, dq, now_ms)
        if result is not None:
            return result   # another thread made a batch while we allocated; our buffer goes back
        batch = ProducerBatch(TopicPartition(topic, partition), buffer, now_ms, self.compression)
        future = batch.try_append(timestamp, key, value, headers, callback, now_ms)
        dq.append(batch)
        with self.lock:
            self.incomplete.add(batch)
        return RecordAppendResult(future, len(dq) > 1 or batch.is_full(), True, False,
                                  batch.estimated_size_in_bytes())

    # Kafka: RecordAccumulator.tryAppend -- into the last batch of the deque, if there is room
    def try_append(self, timestamp: int, key, value, headers, callback, dq: BatchDeque, now_ms: int
                   ) -> RecordAppendResult | None:
        if self.closed:
            raise KafkaException("Producer closed while send in progress")
        if not dq:
            return None
        last = dq[-1]
        initial_bytes = last.estimated_size_in_bytes()
        future = last.try_append(timestamp, key, value, headers, callback, now_ms)
        if future is None:
            last.close_for_record_appends()
            return None
        return RecordAppendResult(future, len(dq) > 1 or last.is_full(), False, False,
                                  last.estimated_size_in_bytes() - initial_bytes)

    # Kafka 3.3: RecordAccumulator.allBatchesFull -- the sticky partitioner may switch only then
    @staticmethod
    def all_batches_full(dq: BatchDeque) -> bool:
        return not dq or len(dq) > 1 or dq[-1].is_full()

    # Kafka: RecordAccumulator.getOrCreateDeque
    def get_or_create_deque(self, topic_info: TopicInfo, partition: int) -> BatchDeque:
        dq = topic_info.batches.get(partition)
        if dq is None:
            with self.lock:
                dq = topic_info.batches.setdefault(partition, BatchDeque())
        return dq

    # Kafka: RecordAccumulator.getDeque
    def get_deque(self, tp: TopicPartition) -> BatchDeque | None:
        topic_info = self.topic_info_map.get(tp.topic)
        return None if topic_info is None else topic_info.batches.get(tp.partition)

    # ---------------------------------------------------------------- the Sender's thread

    # Kafka: RecordAccumulator.ready -- which leaders have something to send, and when to look again
    def ready(self, cluster, now_ms: int) -> ReadyCheckResult:
        ready_nodes: set = set()
        next_ready_check_delay_ms = _MAX
        unknown_leader_topics: set = set()
        exhausted = self.free.queued() > 0   # someone is blocked on memory: send everything
        for topic, topic_info in list(self.topic_info_map.items()):
            next_ready_check_delay_ms = self.partition_ready(cluster, now_ms, topic, topic_info,
                                                             next_ready_check_delay_ms, ready_nodes,
                                                             unknown_leader_topics, exhausted)
        return ReadyCheckResult(ready_nodes, next_ready_check_delay_ms, unknown_leader_topics)

    # Kafka 3.3: RecordAccumulator.partitionReady -- one topic; also collects queue sizes for the partitioner
    def partition_ready(self, cluster, now_ms: int, topic: str, topic_info: TopicInfo, next_ready_check_delay_ms,
                        ready_nodes: set, unknown_leader_topics: set, exhausted: bool) -> int:
        batches = dict(topic_info.batches)
        queue_sizes = partition_ids = None
        if self.enable_adaptive_partitioning and len(batches) >= len(cluster.partitions_for_topic(topic)):
            # Only once every partition has had a deque do we know all queue sizes.
            queue_sizes, partition_ids = [0] * len(batches), [0] * len(batches)
        index = -1
        for partition, dq in sorted(batches.items()):
            part = TopicPartition(topic, partition)
            leader = cluster.leader_for(part)
            if leader is not None and queue_sizes is not None:
                index += 1
                partition_ids[index] = partition
            with dq.lock:
                if not dq:
                    continue
                batch = dq[0]
                waited_time_ms = batch.waited_time_ms(now_ms)
                backing_off = batch.attempts > 0 and waited_time_ms < self.retry_backoff_ms
                deque_size = len(dq)
                full = deque_size > 1 or batch.is_full()
            if leader is None:
                unknown_leader_topics.add(topic)
            else:
                if queue_sizes is not None:
                    queue_sizes[index] = deque_size
                next_ready_check_delay_ms = self.batch_ready(now_ms, exhausted, part, leader, waited_time_ms,
                                                             backing_off, full, next_ready_check_delay_ms,
                                                             ready_nodes)
        topic_info.built_in_partitioner.update_partition_load_stats(queue_sizes, partition_ids, index + 1)
        return next_ready_check_delay_ms

    # Kafka 3.3: RecordAccumulator.batchReady -- full, lingered long enough, or must go now
    def batch_ready(self, now_ms: int, exhausted: bool, part: TopicPartition, leader, waited_time_ms: int,
                    backing_off: bool, full: bool, next_ready_check_delay_ms: int, ready_nodes: set) -> int:
        if leader not in ready_nodes and part not in self.muted:
            time_to_wait_ms = self.retry_backoff_ms if backing_off else self.linger_ms
            expired = waited_time_ms >= time_to_wait_ms
            sendable = full or expired or exhausted or self.closed or self.flush_in_progress()
            if sendable and not backing_off:
                ready_nodes.add(leader)
            else:
                time_left_ms = max(time_to_wait_ms - waited_time_ms, 0)
                next_ready_check_delay_ms = min(time_left_ms, next_ready_check_delay_ms)
        return next_ready_check_delay_ms

    # Kafka: RecordAccumulator.hasUndrained
    def has_undrained(self) -> bool:
        return any(dq for info in list(self.topic_info_map.values()) for dq in list(info.batches.values()))

    # Kafka: RecordAccumulator.drain -- node id -> batches, each list at most max_size bytes (S46)
    def drain(self, cluster, nodes, max_size: int, now: int) -> dict[int, list[ProducerBatch]]:
        if not nodes:
            return {}
        return {node.id: self.drain_batches_for_one_node(cluster, node, max_size, now) for node in nodes}

    # Kafka: RecordAccumulator.drainBatchesForOneNode -- round robin over the node's partitions
    def drain_batches_for_one_node(self, cluster, node, max_size: int, now: int) -> list[ProducerBatch]:
        size = 0
        parts = cluster.partitions_for_node(node.id)
        ready: list[ProducerBatch] = []
        if not parts:
            return ready
        start = self.node_to_drain_index.get(node.id_string, 0) % len(parts)
        for i in range(len(parts)):
            drain_index = (start + i) % len(parts)
            part = parts[drain_index]
            tp = TopicPartition(part.topic, part.partition)
            self.node_to_drain_index[node.id_string] = drain_index   # each node starts where it stopped
            if tp in self.muted:
                continue
            dq = self.get_deque(tp)
            if dq is None:
                continue
            with dq.lock:
                if not dq:
                    continue
                first = dq[0]
                if first.attempts > 0 and first.waited_time_ms(now) < self.retry_backoff_ms:
                    continue   # still backing off after a failed attempt
                if size + first.estimated_size_in_bytes() > max_size and ready:
                    break      # the request is full; a lone over-size batch still goes alone
                if self.should_stop_drain_batches_for_partition(first, tp):
                    break
                batch = dq.popleft()
                tm = self.transaction_manager
                if tm is not None and not batch.has_sequence():
                    pid = tm.producer_id_and_epoch
                    batch.set_producer_state(pid.producer_id, pid.epoch, tm.sequence_number(tp),
                                             tm.is_transactional())
                    tm.increment_sequence_number(tp, batch.record_count)
                    log.debug("%sAssigned producerId %d and producerEpoch %d to batch with base sequence %d being "
                              "sent to partition %s", self.log_context, pid.producer_id, pid.epoch,
                              batch.base_sequence, tp)
                    tm.add_in_flight_batch(batch)
            batch.close()   # the 61-byte header is written now, outside the lock (S45)
            size += batch.records().size_in_bytes()
            ready.append(batch)
            batch.drained(now)
        return ready

    # Kafka: RecordAccumulator.shouldStopDrainBatchesForPartition -- idempotence keeps retries in order
    def should_stop_drain_batches_for_partition(self, first: ProducerBatch, tp: TopicPartition) -> bool:
        tm = self.transaction_manager
        if tm is None:
            return False
        if not tm.producer_id_and_epoch.is_valid():
            return True   # no producer id yet
        first_in_flight_sequence = tm.first_in_flight_sequence(tp)
        # A batch that already has a sequence is a retry: it may go only when it is first in line.
        return (first_in_flight_sequence != RecordBatch.NO_SEQUENCE and first.has_sequence()
                and first.base_sequence != first_in_flight_sequence)

    # Kafka: RecordAccumulator.reenqueue -- back at the head of its deque (in sequence order if idempotent)
    def reenqueue(self, batch: ProducerBatch, now: int) -> None:
        batch.reenqueued(now)
        with self.lock:
            topic_info = self.topic_info_map[batch.topic_partition.topic]
        dq = self.get_or_create_deque(topic_info, batch.topic_partition.partition)
        with dq.lock:
            if self.transaction_manager is not None:
                self.insert_in_sequence_order(dq, batch)
            else:
                dq.appendleft(batch)

    # Kafka: RecordAccumulator.insertInSequenceOrder
    @staticmethod
    def insert_in_sequence_order(dq: BatchDeque, batch: ProducerBatch) -> None:
        if batch.base_sequence == RecordBatch.NO_SEQUENCE:
            raise RuntimeError("Trying to re-enqueue a batch which doesn't have a sequence even though "
                               "idempotency is enabled.")
        earlier = []
        while dq and dq[0].has_sequence() and dq[0].base_sequence < batch.base_sequence:
            earlier.append(dq.popleft())
        dq.appendleft(batch)
        for b in reversed(earlier):
            dq.appendleft(b)

    # Kafka: RecordAccumulator.expiredBatches -- batches past delivery.timeout.ms, from the deque heads
    def expired_batches(self, now: int) -> list[ProducerBatch]:
        expired = []
        for topic_info in list(self.topic_info_map.values()):
            for dq in list(topic_info.batches.values()):
                with dq.lock:
                    while dq:
                        batch = dq[0]
                        if batch.has_reached_delivery_timeout(self.delivery_timeout_ms, now):
                            dq.popleft()
                            batch.close_for_record_appends()
                            expired.append(batch)
                        else:
                            self.maybe_update_next_batch_expiry_time(batch)
                            break
        return expired

    # Kafka: RecordAccumulator.maybeUpdateNextBatchExpiryTime
    def maybe_update_next_batch_expiry_time(self, batch: ProducerBatch) -> None:
        self.next_batch_expiry_time_ms = min(self.next_batch_expiry_time_ms,
                                             batch.create_ms + self.delivery_timeout_ms)

    # Kafka: RecordAccumulator.resetNextBatchExpiryTime
    def reset_next_batch_expiry_time(self) -> None:
        self.next_batch_expiry_time_ms = _MAX

    # Kafka: RecordAccumulator.nextExpiryTimeMs
    def next_expiry_time_ms(self) -> int:
        return self.next_batch_expiry_time_ms

    # Kafka: RecordAccumulator.getDeliveryTimeoutMs
    def get_delivery_timeout_ms(self) -> int:
        return self.delivery_timeout_ms

    # Kafka: RecordAccumulator.deallocate -- the batch is done: its buffer goes back to the pool
    def deallocate(self, batch: ProducerBatch) -> None:
        with self.lock:
            self.incomplete.discard(batch)
        self.free.deallocate(batch.buffer, batch.initial_capacity)

    # Kafka: RecordAccumulator.mutePartition / unmutePartition (max.in.flight.requests.per.connection=1)
    def mute_partition(self, tp: TopicPartition) -> None:
        self.muted.add(tp)

    def unmute_partition(self, tp: TopicPartition) -> None:
        self.muted.discard(tp)

    # ---------------------------------------------------------------- flush and close

    # Kafka: RecordAccumulator.flushInProgress
    def flush_in_progress(self) -> bool:
        return self.flushes_in_progress > 0

    # Kafka: RecordAccumulator.beginFlush -- every batch counts as ready until the flush ends
    def begin_flush(self) -> None:
        with self.lock:
            self.flushes_in_progress += 1

    # Kafka: RecordAccumulator.awaitFlushCompletion -- wait for every batch that exists now
    def await_flush_completion(self, timeout_ms: int | None = None) -> None:
        try:
            with self.lock:
                pending = list(self.incomplete)
            for batch in pending:
                if not batch.produce_future.await_(timeout_ms):
                    raise batch.produce_future.error or KafkaException("Flush timed out")
        finally:
            with self.lock:
                self.flushes_in_progress -= 1

    # Kafka: RecordAccumulator.hasIncomplete
    def has_incomplete(self) -> bool:
        with self.lock:
            return bool(self.incomplete)

    # Kafka: RecordAccumulator.appendsInProgress
    def appends_in_progress_(self) -> bool:
        return self.appends_in_progress > 0

    # Kafka: RecordAccumulator.abortIncompleteBatches -- forced close: fail whatever is left
    def abort_incomplete_batches(self) -> None:
        while True:
            self.abort_batches(KafkaException("Producer is closed forcefully."))
            if not self.appends_in_progress_():
                break
        with self.lock:
            self.topic_info_map.clear()

    # Kafka: RecordAccumulator.abortBatches
    def abort_batches(self, reason: BaseException) -> None:
        with self.lock:
            pending = list(self.incomplete)
        for batch in pending:
            dq = self.get_deque(batch.topic_partition)
            if dq is not None:
                with dq.lock:
                    batch.close_for_record_appends()
                    if batch in dq:
                        dq.remove(batch)
            if not batch.is_done():
                batch.abort(reason)
            self.deallocate(batch)

    # Kafka: RecordAccumulator.close
    def close(self) -> None:
        self.closed = True
