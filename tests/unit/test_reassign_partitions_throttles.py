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


class RecordingAdmin:
    """Just what cancel_assignment and clear_all_throttles ask of the admin client; records the config changes."""

    def __init__(self, reassigning: dict):
        self.reassigning = reassigning
        self.altered = []

    def list_partition_reassignments(self, partitions=None):
        return dict(self.reassigning)

    def alter_partition_reassignments(self, reassignments):
        self.reassigning.clear()
        return {tp: None for tp in reassignments}

    def describe_cluster(self):
        return type("Cluster", (), {"nodes": [type("Node", (), {"id": 0})()]})()

    def incremental_alter_configs(self, configs):
        self.altered.extend(str(resource.name) for resource in configs)


PLAN = '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,1]}]}'


def test_cancel_clears_the_throttles_unless_asked_to_keep_them():
    # Kafka 2.6 ReassignPartitionsCommand.cancelAssignment: "if (!preserveThrottles) clearAllThrottles(...)"
    from kafkalite.tools.reassign_partitions_command import cancel_assignment
    moving = {TopicPartition("foo", 0): PartitionReassignment((0, 1), (1,), ())}
    admin = RecordingAdmin(dict(moving))
    assert cancel_assignment(admin, PLAN) == {TopicPartition("foo", 0)}
    assert admin.altered == ["0", "1", "foo"]   # the brokers' rates, then the topic's lists
    kept = RecordingAdmin(dict(moving))
    cancel_assignment(kept, PLAN, preserve_throttles=True)
    assert kept.altered == []
