"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/BuiltInPartitioner.java
(a Kafka 3.3 class, KIP-794), plus Utils.murmur2 and Utils.toPositive from common/utils/Utils.java

Classes: BuiltInPartitioner (one per topic), StickyPartitionInfo, PartitionLoadStats; functions
``murmur2`` and ``to_positive``.

How a record without a key and without an explicit partition finds its partition (S43):
- *sticky*: all such records of a topic go to one partition until ``sticky_batch_size`` (batch.size)
  bytes were appended there, then the partitioner switches (``update_partition_info``);
- *adaptive*: the switch picks the next partition at random, weighted so short queues win.
  ``update_partition_load_stats`` turns the queue sizes (batches waiting per partition, counted by
  ``RecordAccumulator.ready``) into a cumulative frequency table: each size is subtracted from
  max + 1, then summed left to right. Sizes 1, 4, 3 give 4, 1, 2 and the table 4, 5, 7; a random
  number in [0, 7) picks the first entry strictly greater than it (``bisect_right``, Kafka's
  ``Arrays.binarySearch`` + 1), so 0-3 choose the first partition, 4 the second, 5-6 the third.
- keyed records use ``partition_for_key``: ``to_positive(murmur2(key)) % num_partitions``, bit for bit
  what Java clients (and librdkafka's ``murmur2_random``) compute, so keys land on the same partitions.

Era notes: Kafka 2.4's DefaultPartitioner was sticky (KIP-480) but not adaptive; kafkalite uses the 3.3
built-in partitioner on purpose (DESIGN §2). Python has no compare-and-set; the accumulator calls these
methods under the partition's deque lock, as Kafka requires, and a per-topic lock guards the swap.
Left out: ``partitioner.availability.timeout.ms`` (excluding slow brokers), ``partitioner.ignore.keys``.
"""
from __future__ import annotations

import bisect
import logging
import random
import threading

import attrs

log = logging.getLogger("kafka.producer.BuiltInPartitioner")

_M32 = 0xFFFFFFFF


# Kafka: Utils.murmur2 -- 32-bit MurmurHash2 with Kafka's seed, returned as a signed Java int
def murmur2(data: bytes) -> int:
    length = len(data)
    m = 0x5BD1E995
    h = (0x9747B28C ^ length) & _M32
    whole = length & ~3
    for i in range(0, whole, 4):
        k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        k = (k * m) & _M32
        k ^= k >> 24
        k = (k * m) & _M32
        h = ((h * m) & _M32) ^ k
    rest = length & 3
    if rest == 3:
        h ^= data[whole + 2] << 16
    if rest >= 2:
        h ^= data[whole + 1] << 8
    if rest >= 1:
        h ^= data[whole]
        h = (h * m) & _M32
    h ^= h >> 13
    h = (h * m) & _M32
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


# Kafka: Utils.toPositive -- clear the sign bit (not abs(): abs(MIN_VALUE) stays negative in Java)
def to_positive(number: int) -> int:
    return number & 0x7FFFFFFF


@attrs.define(eq=False)
class StickyPartitionInfo:
    """Kafka: BuiltInPartitioner.StickyPartitionInfo -- the current sticky partition and bytes sent to it."""

    index: int
    produced_bytes: int = 0

    # Kafka 3.3: StickyPartitionInfo.partition
    def partition(self) -> int:
        return self.index


@attrs.frozen
class PartitionLoadStats:
    """Kafka: BuiltInPartitioner.PartitionLoadStats."""

    cumulative_frequency_table: list[int]
    partition_ids: list[int]
    length: int


class BuiltInPartitioner:
    """Kafka: BuiltInPartitioner."""

    # Kafka 3.3: BuiltInPartitioner.<init>
    def __init__(self, topic: str, sticky_batch_size: int, rng: random.Random | None = None):
        if sticky_batch_size < 1:
            raise ValueError(f"stickyBatchSize must be >= 1 but got {sticky_batch_size}")
        self.topic = topic
        self.sticky_batch_size = sticky_batch_size
        self.partition_load_stats: PartitionLoadStats | None = None
        self.sticky_partition_info: StickyPartitionInfo | None = None
        self.rng = rng or random.Random()
        self._lock = threading.Lock()

    # Kafka 3.3: BuiltInPartitioner.randomPartition
    def random_partition(self) -> int:
        return to_positive(self.rng.getrandbits(32))

    # Kafka 3.3: BuiltInPartitioner.nextPartition
    def next_partition(self, cluster) -> int:
        rand = self.random_partition()
        stats = self.partition_load_stats
        if stats is None:
            # No load stats: uniform choice among partitions with a leader (or all, if none has one).
            available = cluster.available_partitions_for_topic(self.topic)
            if available:
                partition = available[rand % len(available)].partition
            else:
                partition = rand % len(cluster.partitions_for_topic(self.topic))
        else:
            table = stats.cumulative_frequency_table
            weighted_random = rand % table[stats.length - 1]
            # The first entry strictly greater than weighted_random (Kafka: abs(binarySearch(...) + 1)).
            partition_index = bisect.bisect_right(table, weighted_random, 0, stats.length)
            partition = stats.partition_ids[partition_index]
        log.debug("Switching to partition %d in topic %s", partition, self.topic)
        return partition

    # Kafka 3.3: BuiltInPartitioner.loadStatsRangeEnd (test helper)
    def load_stats_range_end(self) -> int:
        return self.partition_load_stats.cumulative_frequency_table[self.partition_load_stats.length - 1]

    # Kafka 3.3: BuiltInPartitioner.peekCurrentPartitionInfo
    def peek_current_partition_info(self, cluster) -> StickyPartitionInfo:
        with self._lock:
            if self.sticky_partition_info is None:
                self.sticky_partition_info = StickyPartitionInfo(self.next_partition(cluster))
            return self.sticky_partition_info

    # Kafka 3.3: BuiltInPartitioner.isPartitionChanged -- another thread switched partitions meanwhile
    def is_partition_changed(self, partition_info: StickyPartitionInfo | None) -> bool:
        return partition_info is not None and self.sticky_partition_info is not partition_info

    # Kafka 3.3: BuiltInPartitioner.updatePartitionInfo -- count bytes, switch after sticky_batch_size
    def update_partition_info(self, partition_info: StickyPartitionInfo | None, appended_bytes: int, cluster,
                              enable_switch: bool = True) -> None:
        if partition_info is None:
            return
        partition_info.produced_bytes += appended_bytes
        produced = partition_info.produced_bytes
        # Switching only when the batch is full keeps batches whole; 2x the size is the hard limit.
        if (produced >= self.sticky_batch_size and enable_switch) or produced >= self.sticky_batch_size * 2:
            with self._lock:
                self.sticky_partition_info = StickyPartitionInfo(self.next_partition(cluster))

    # Kafka 3.3: BuiltInPartitioner.updatePartitionLoadStats -- build the cumulative frequency table in place
    def update_partition_load_stats(self, queue_sizes: list[int] | None, partition_ids: list[int],
                                    length: int) -> None:
        if queue_sizes is None:
            self.partition_load_stats = None
            return
        assert len(queue_sizes) == len(partition_ids) and length <= len(queue_sizes)
        if length < 1 or len(queue_sizes) < 2:
            self.partition_load_stats = None   # one partition: nothing to balance
            return
        max_size_plus1 = max(queue_sizes[:length]) + 1
        all_equal = all(q == queue_sizes[0] for q in queue_sizes[:length])
        if all_equal and length == len(queue_sizes):
            self.partition_load_stats = None   # equal queues: uniform choice is already right
            return
        # Invert (max + 1 - size) and turn into a running sum.
        queue_sizes[0] = max_size_plus1 - queue_sizes[0]
        for i in range(1, length):
            queue_sizes[i] = max_size_plus1 - queue_sizes[i] + queue_sizes[i - 1]
        log.debug("Partition load stats for topic %s: CFT=%s, IDs=%s, length=%d",
                  self.topic, queue_sizes, partition_ids, length)
        self.partition_load_stats = PartitionLoadStats(queue_sizes, partition_ids, length)

    # Kafka 3.3: BuiltInPartitioner.partitionForKey
    @staticmethod
    def partition_for_key(serialized_key: bytes, num_partitions: int) -> int:
        return to_positive(murmur2(serialized_key)) % num_partitions
