"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/controller/ControllerContextTest.scala, with the
``ReplicaAssignment`` arithmetic of a reassignment (KIP-455): RS = target first, then the origin replicas
not in the target; AR = target - origin; RR = origin - target; a cancellation goes back to the origin."""
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_context import ControllerContext, ReplicaAssignment

TP = TopicPartition("A", 0)


def test_update_partition_replica_assignment_updates_replica_assignment_only():
    # Kafka: testUpdatePartitionReplicaAssignmentUpdatesReplicaAssignmentOnly
    ctx = ControllerContext()
    ctx.update_partition_replica_assignment(TP, [4, 5, 6])
    assert ctx.partition_replica_assignment(TP) == [4, 5, 6]
    assert ctx.partition_full_replica_assignment(TP) == ReplicaAssignment([4, 5, 6])


def test_update_partition_replica_assignment_keeps_adding_and_removing_replicas():
    # Kafka: testUpdatePartitionReplicaAssignmentUpdatesReplicaAssignmentOnlyAndDoesNotOverwrite
    ctx = ControllerContext()
    ctx.update_partition_full_replica_assignment(TP, ReplicaAssignment([3], [1], [2]))
    ctx.update_partition_replica_assignment(TP, [4, 5, 6])
    assert ctx.partition_full_replica_assignment(TP) == ReplicaAssignment([4, 5, 6], [1], [2])


def test_unknown_partitions_have_empty_assignments():
    # Kafka: testPartitionReplicaAssignmentReturnsEmptySeqIfTopicOrPartitionDoesNotExist
    ctx = ControllerContext()
    ctx.update_partition_replica_assignment(TP, [1])
    assert ctx.partition_replica_assignment(TopicPartition("NONEXISTENT", 0)) == []
    assert ctx.partition_replica_assignment(TopicPartition("A", 100)) == []
    assert not ctx.partition_full_replica_assignment(TopicPartition("A", 100)).is_being_reassigned


def test_reassign_to_lists_the_target_first_and_marks_adding_and_removing():
    moving = ReplicaAssignment([0, 1]).reassign_to([1, 2])
    assert moving == ReplicaAssignment([1, 2, 0], [2], [0])
    assert moving.origin_replicas == [1, 0] and moving.target_replicas == [1, 2]
    assert moving.is_being_reassigned
    # the example of KafkaController.updateCurrentReassignment's comment: [1,2,3] -> [3,4,2] is stored [3,4,2,1]
    assert ReplicaAssignment([1, 2, 3]).reassign_to([3, 4, 2]) == ReplicaAssignment([3, 4, 2, 1], [4], [1])


def test_a_new_target_replaces_a_reassignment_in_progress_from_the_origin_replicas():
    moving = ReplicaAssignment([0, 1]).reassign_to([1, 2])
    replaced = moving.reassign_to([1, 3])          # from the origin [1, 0], not from [1, 2, 0]
    assert replaced == ReplicaAssignment([1, 3, 0], [3], [0])
    cancelled = moving.reassign_to(moving.origin_replicas)
    assert cancelled == ReplicaAssignment([1, 0]) and not cancelled.is_being_reassigned


def test_same_replicas_is_no_reassignment():
    assert not ReplicaAssignment([2, 1]).reassign_to([2, 1]).is_being_reassigned


def test_the_reassignment_bookkeeping_leaves_with_its_topic():
    ctx = ControllerContext()
    ctx.update_partition_full_replica_assignment(TP, ReplicaAssignment([1, 2, 0], [2], [0]))
    ctx.partitions_being_reassigned.add(TP)
    ctx.remove_topic("A")
    assert ctx.partitions_being_reassigned == set()
    assert ctx.partition_replica_assignment(TP) == []


def test_a_replica_in_an_offline_log_dir_is_offline_on_a_live_broker():
    # Kafka: ControllerContext.isReplicaOnline -- the broker is live and the replica is not in replicasOnOfflineDirs
    from kafkalite.zk.zk_data import BrokerInfo
    ctx = ControllerContext()
    ctx.add_live_brokers_and_epochs({BrokerInfo(1, ("PLAINTEXT://127.0.0.1:9092",), {}): 7})
    other = TopicPartition("A", 1)
    assert ctx.is_replica_online(1, TP) and ctx.is_replica_online(1, other)
    ctx.replicas_on_offline_dirs[1] = {TP}
    assert not ctx.is_replica_online(1, TP) and ctx.is_replica_online(1, other)
    assert not ctx.is_replica_online(2, other)
    ctx.reset_context()
    assert ctx.replicas_on_offline_dirs == {}
