"""Mirrors Kafka 2.6: core/src/test/scala/unit/kafka/admin/ReassignPartitionsUnitTest.scala's testMoveMap --
``kafka-reassign-partitions --throttle``'s arithmetic: which replicas are sources (leader throttle) and which
destinations (follower throttle) of the moves in progress and proposed, and the brokers whose rates it sets."""
from kafkalite.clients.admin.admin_types import PartitionReassignment
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.tools.reassign_partitions_command import (
    PartitionMove, calculate_follower_throttles, calculate_leader_throttles, calculate_move_map,
    calculate_reassigning_brokers,
)


def test_move_map():
    move_map = calculate_move_map({
        TopicPartition("foo", 0): PartitionReassignment((1, 2, 3), (4,), (3,)),
        TopicPartition("foo", 1): PartitionReassignment((4, 5, 6), (7, 8), (4, 5)),
    }, {
        TopicPartition("foo", 0): [1, 2, 5],
        TopicPartition("bar", 0): [1, 2, 3],
    }, {
        TopicPartition("foo", 0): [1, 2, 3],
        TopicPartition("foo", 1): [4, 5, 6],
        TopicPartition("bar", 0): [2, 3, 4],
        TopicPartition("baz", 0): [1, 2, 3],
    })
    assert move_map == {"foo": {0: PartitionMove({1, 2, 3}, {5}), 1: PartitionMove({4, 5, 6}, {7, 8})},
                        "bar": {0: PartitionMove({2, 3, 4}, {1})}}
    assert calculate_leader_throttles(move_map) == {"foo": "0:1,0:2,0:3,1:4,1:5,1:6", "bar": "0:2,0:3,0:4"}
    assert calculate_follower_throttles(move_map) == {"foo": "0:5,1:7,1:8", "bar": "0:1"}
    assert calculate_reassigning_brokers(move_map) == {1, 2, 3, 4, 5, 6, 7, 8}
