"""BuiltInPartitionerTest: sticky partitioning, the switch after batch.size bytes, and the adaptive cumulative
frequency table of seed 004 (queue sizes 1, 4, 3 -> table 4, 5, 7)."""
import random

import pytest

from kafkalite.clients.cluster import Cluster, PartitionInfo
from kafkalite.clients.node import Node
from kafkalite.clients.producer.internals.built_in_partitioner import BuiltInPartitioner

NODES = [Node(0, "localhost", 99), Node(1, "localhost", 100), Node(2, "localhost", 101)]


def cluster(topic="t", n=3, leaderless=()):
    parts = [PartitionInfo(topic, p, None if p in leaderless else NODES[p % 3]) for p in range(n)]
    return Cluster("c", NODES, parts)


class FixedRandom(random.Random):
    """Returns the given values from getrandbits, in turn."""

    def __init__(self, values):
        super().__init__()
        self.values = list(values)

    def getrandbits(self, k):
        return self.values.pop(0)


def test_worked_example_of_seed_004():
    p = BuiltInPartitioner("t", 16384)
    queue_sizes, ids = [1, 4, 3], [0, 1, 2]
    p.update_partition_load_stats(queue_sizes, ids, 3)
    assert p.partition_load_stats.cumulative_frequency_table == [4, 5, 7]
    assert p.load_stats_range_end() == 7
    # random numbers 0-3 -> partition 0, 4 -> partition 1, 5-6 -> partition 2
    p.rng = FixedRandom(range(7))
    assert [p.next_partition(cluster()) for _ in range(7)] == [0, 0, 0, 0, 1, 2, 2]


def test_table_uses_partition_ids_and_logical_length():
    # Kafka: BuiltInPartitionerTest.adaptivePartitionsTest -- ids need not be 0..n-1
    p = BuiltInPartitioner("t", 16384)
    p.update_partition_load_stats([0, 3, 1, 9], [5, 7, 9, 11], 3)   # the 4th is excluded by length
    assert p.partition_load_stats.cumulative_frequency_table[:3] == [4, 5, 8]
    p.rng = FixedRandom([3, 4, 5, 7, 8])
    assert [p.next_partition(cluster(n=12)) for _ in range(5)] == [5, 7, 9, 9, 5]   # 8 % 8 = 0


def test_equal_queues_or_one_partition_disable_adaptive():
    p = BuiltInPartitioner("t", 16384)
    p.update_partition_load_stats([2, 2, 2], [0, 1, 2], 3)
    assert p.partition_load_stats is None
    p.update_partition_load_stats([5], [0], 1)
    assert p.partition_load_stats is None
    p.update_partition_load_stats(None, [], 0)
    assert p.partition_load_stats is None


def test_sticky_until_batch_size_then_switch():
    # Kafka: BuiltInPartitionerTest.stickyPartitioningTest
    p = BuiltInPartitioner("t", 100, FixedRandom([1, 2, 0]))
    c = cluster()
    info = p.peek_current_partition_info(c)
    assert info.partition() == 1
    p.update_partition_info(info, 60, c)
    assert p.peek_current_partition_info(c) is info        # 60 < 100: still sticky
    p.update_partition_info(info, 50, c)                    # 110 >= 100: switch
    new = p.peek_current_partition_info(c)
    assert new is not info and new.partition() == 2
    assert p.is_partition_changed(info) and not p.is_partition_changed(new)


def test_switch_waits_for_full_batch_up_to_twice_the_size():
    p = BuiltInPartitioner("t", 100, FixedRandom([0, 1]))
    c = cluster()
    info = p.peek_current_partition_info(c)
    p.update_partition_info(info, 150, c, enable_switch=False)
    assert p.peek_current_partition_info(c) is info         # batch not full yet: keep batching
    p.update_partition_info(info, 60, c, enable_switch=False)
    assert p.peek_current_partition_info(c).partition() == 1   # 210 >= 2 * 100: switch anyway


def test_without_stats_only_partitions_with_a_leader_are_chosen():
    p = BuiltInPartitioner("t", 100, FixedRandom([0, 1, 2, 3]))
    c = cluster(leaderless={1})
    assert {p.next_partition(c) for _ in range(4)} == {0, 2}


def test_sticky_batch_size_must_be_positive():
    with pytest.raises(ValueError):
        BuiltInPartitioner("t", 0)
