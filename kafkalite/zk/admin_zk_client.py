"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zk/AdminZkClient.scala (and the replica placement of
core/src/main/scala/kafka/admin/AdminUtils.scala)

Classes: AdminZkClient, AdminOperationException; function assign_replicas_to_brokers.

Creating a topic, in Kafka 2.x, is only a write to ZooKeeper: ``/brokers/topics/<t>`` gets the
partition → replicas assignment and ``/config/topics/<t>`` the overrides. The controller watches
``/brokers/topics`` and does the rest (leaders, LeaderAndIsr, UpdateMetadata). Deleting is a
marker under ``/admin/delete_topics`` for the controller to act on.
Omitted: rack-aware placement.
"""
from __future__ import annotations

import random

from kafkalite.common import topic as Topic
from kafkalite.protocol.errors import Errors


# Kafka: AdminUtils.assignReplicasToBrokers (rack-unaware): round robin from a random start, with
# followers shifted so that leaders and followers spread evenly.
def assign_replicas_to_brokers(broker_list: list[int], n_partitions: int, replication_factor: int,
                               fixed_start_index: int = -1, start_partition_id: int = -1) -> dict[int, list[int]]:
    if n_partitions <= 0:
        raise Errors.INVALID_PARTITIONS.exception("Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise Errors.INVALID_REPLICATION_FACTOR.exception("Replication factor must be larger than 0.")
    if replication_factor > len(broker_list):
        raise Errors.INVALID_REPLICATION_FACTOR.exception(
            f"Replication factor: {replication_factor} larger than available brokers: {len(broker_list)}.")
    brokers = sorted(broker_list)
    n = len(brokers)
    start_index = fixed_start_index if fixed_start_index >= 0 else random.randrange(n)
    current_partition_id = max(0, start_partition_id)
    next_replica_shift = fixed_start_index if fixed_start_index >= 0 else random.randrange(n)
    result: dict[int, list[int]] = {}
    for _ in range(n_partitions):
        if current_partition_id > 0 and current_partition_id % n == 0:
            next_replica_shift += 1
        first = (current_partition_id + start_index) % n
        replicas = [brokers[first]]
        for j in range(replication_factor - 1):
            shift = 1 + (next_replica_shift + j) % (n - 1)
            replicas.append(brokers[(first + shift) % n])
        result[current_partition_id] = replicas
        current_partition_id += 1
    return result


class AdminOperationException(RuntimeError):
    """Kafka's kafka.admin.AdminOperationException: a failure that is no client error (not an ApiException);
    AdminManager answers it UNKNOWN_SERVER_ERROR with its message (ApiError.fromThrowable)."""


class AdminZkClient:
    """Kafka: AdminZkClient(zkClient)."""

    def __init__(self, zk_client):
        self.zk_client = zk_client

    # Kafka: AdminZkClient.createTopic
    def create_topic(self, topic: str, partitions: int, replication_factor: int, topic_config: dict | None = None,
                     validate_only: bool = False) -> dict[int, list[int]]:
        brokers = self.zk_client.get_sorted_broker_list()
        assignment = assign_replicas_to_brokers(brokers, partitions, replication_factor)
        self.create_topic_with_assignment(topic, topic_config or {}, assignment, validate_only)
        return assignment

    # Kafka: AdminZkClient.validateTopicCreate
    def validate_topic_create(self, topic: str, assignment: dict[int, list[int]], config: dict) -> None:
        Topic.validate(topic)
        if self.zk_client.topic_exists(topic):
            raise Errors.TOPIC_ALREADY_EXISTS.exception(f"Topic '{topic}' already exists.")
        if Topic.has_collision_chars(topic):
            for existing in self.zk_client.get_all_topics_in_cluster():
                if existing != topic and Topic.has_collision(topic, existing):
                    raise Errors.INVALID_TOPIC_EXCEPTION.exception(
                        f"Topic '{topic}' collides with existing topics: {existing}")
        if len({len(r) for r in assignment.values()}) != 1:   # Kafka checks the sizes before the duplicates
            raise Errors.INVALID_REPLICA_ASSIGNMENT.exception("All partitions should have the same number of replicas")
        if any(len(set(r)) != len(r) for r in assignment.values()):
            raise Errors.INVALID_REPLICA_ASSIGNMENT.exception("Duplicate replica assignment found: "
                                                              f"{assignment}")
        if sorted(assignment) != list(range(len(assignment))):
            raise Errors.INVALID_REPLICA_ASSIGNMENT.exception(
                "partitions should be a consecutive 0-based integer sequence")
        from kafkalite.log.log_config import LogConfig
        LogConfig.validate(config)

    # Kafka: AdminZkClient.createTopicWithAssignment
    def create_topic_with_assignment(self, topic: str, config: dict, assignment: dict[int, list[int]],
                                     validate_only: bool = False) -> str | None:
        self.validate_topic_create(topic, assignment, config)
        if validate_only:
            return None
        self.zk_client.set_or_create_entity_configs("topics", topic, config)
        try:
            topic_id = self.zk_client.create_topic_assignment(topic, assignment)
        except Exception as e:   # NodeExists: a concurrent creation won
            if self.zk_client.topic_exists(topic):
                raise Errors.TOPIC_ALREADY_EXISTS.exception(f"Topic '{topic}' already exists.") from e
            raise
        return topic_id

    # Kafka: AdminZkClient.addPartitions -- new partitions continue the placement of partition 0: round robin
    # from the first broker whose id is not below partition 0's first replica.
    def add_partitions(self, topic: str, existing_assignment: dict[int, list[int]], all_brokers: list[int],
                       num_partitions: int, replica_assignment: dict[int, list[int]] | None = None,
                       validate_only: bool = False) -> dict[int, list[int]]:
        existing_zero = existing_assignment.get(0)
        if existing_zero is None:
            raise AdminOperationException(f"Unexpected existing replica assignment for topic '{topic}', partition "
                                          f"id 0 is missing. Assignment: {existing_assignment}")
        to_add = num_partitions - len(existing_assignment)
        if to_add <= 0:
            raise Errors.INVALID_PARTITIONS.exception(
                f"The number of partitions for a topic can only be increased. Topic {topic} currently has "
                f"{len(existing_assignment)} partitions, {num_partitions} would not be an increase.")
        if replica_assignment is not None:
            self.validate_replica_assignment(replica_assignment, len(existing_zero), set(all_brokers))
            new_assignment = replica_assignment
        else:
            brokers = sorted(all_brokers)
            start = next((i for i, b in enumerate(brokers) if b >= existing_zero[0]), 0)
            new_assignment = assign_replicas_to_brokers(brokers, to_add, len(existing_zero), start,
                                                        len(existing_assignment))
        merged = dict(existing_assignment)
        merged.update(new_assignment)
        if not validate_only:
            self.zk_client.set_topic_assignment(topic, merged)
        return merged

    # Kafka: AdminZkClient.validateReplicaAssignment -- each new partition's replicas, then the replication
    # factor of all of them against partition 0's
    @staticmethod
    def validate_replica_assignment(replica_assignment: dict[int, list[int]], expected_replication_factor: int,
                                    available_broker_ids: set[int]) -> None:
        for partition_id, replicas in sorted(replica_assignment.items()):
            if not replicas:
                raise Errors.INVALID_REPLICA_ASSIGNMENT.exception(
                    f"Cannot have replication factor of 0 for partition id {partition_id}.")
            if len(set(replicas)) != len(replicas):
                raise Errors.INVALID_REPLICA_ASSIGNMENT.exception(
                    f"Duplicate brokers not allowed in replica assignment: {', '.join(map(str, replicas))} for "
                    f"partition id {partition_id}.")
            if not set(replicas) <= available_broker_ids:
                raise Errors.BROKER_NOT_AVAILABLE.exception(
                    f"Some brokers specified for partition id {partition_id} are not available. Specified brokers: "
                    f"{', '.join(map(str, replicas))}, available brokers: "
                    f"{', '.join(map(str, sorted(available_broker_ids)))}.")
        bad = [(p, len(r)) for p, r in sorted(replica_assignment.items()) if len(r) != expected_replication_factor]
        if bad:
            raise Errors.INVALID_REPLICA_ASSIGNMENT.exception(
                f"Inconsistent replication factor between partitions, partition 0 has {expected_replication_factor} "
                f"while partitions [{', '.join(str(p) for p, _ in bad)}] have replication factors "
                f"[{', '.join(str(rf) for _, rf in bad)}], respectively.")

    # Kafka: AdminZkClient.deleteTopic
    def delete_topic(self, topic: str) -> None:
        if not self.zk_client.topic_exists(topic):
            raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"Topic `{topic}` to delete does not exist")
        if not self.zk_client.is_topic_marked_for_deletion(topic):
            self.zk_client.create_delete_topic_path(topic)
