"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/ControllerContext.scala

Classes: ReplicaAssignment, PartitionAndReplica, ControllerContext.

The controller's in-memory picture of the cluster, read from ZooKeeper at failover and kept current by the
controller's events: live brokers and their epochs (the czxid of ``/brokers/ids/<id>``, KIP-380), every topic
with its topic id and replica assignment (a ``ReplicaAssignment``: the replicas and, while a partition is
being reassigned, the ones being added and removed), each partition's leader/ISR (``LeaderIsrAndControllerEpoch``), the
partition and replica states of the two state machines, and the topics queued for deletion. Only the
``controller-event-thread`` touches it, so it needs no locks.

Era notes: topic ids are Kafka 2.8's (KIP-516).
Left out: offline log dirs, stats.
"""
from __future__ import annotations

from typing import Iterable

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.zk.zk_data import BrokerInfo, LeaderIsrAndControllerEpoch


def _replicas(replicas) -> tuple:
    """The converter of ReplicaAssignment's replica lists. A Python function, not the builtin ``tuple``: attrs reads
    a converter's signature, and for a builtin Python parses its text signature with tokenize, whose first use in a
    process compiles a large regular expression (~7 ms of a broker's start-up, issue 18)."""
    return tuple(replicas)


@attrs.frozen
class ReplicaAssignment:
    """Kafka: kafka.controller.ReplicaAssignment -- a partition's replicas; during a reassignment (KIP-455) the
    full set RS = origin + target, with AR (adding) = target - origin and RR (removing) = origin - target."""

    replicas: tuple[int, ...] = attrs.field(converter=_replicas)
    adding_replicas: tuple[int, ...] = attrs.field(converter=_replicas, default=())
    removing_replicas: tuple[int, ...] = attrs.field(converter=_replicas, default=())

    # Kafka: ReplicaAssignment.fromOldAndNewReplicas -- target replicas first, in the order asked for
    @classmethod
    def from_old_and_new_replicas(cls, old_replicas, new_replicas) -> "ReplicaAssignment":
        full = list(dict.fromkeys([*new_replicas, *old_replicas]))
        return cls(full, [r for r in full if r not in old_replicas], [r for r in full if r not in new_replicas])

    # Kafka: ReplicaAssignment.originReplicas
    @property
    def origin_replicas(self) -> list[int]:
        return [r for r in self.replicas if r not in self.adding_replicas]

    # Kafka: ReplicaAssignment.targetReplicas
    @property
    def target_replicas(self) -> list[int]:
        return [r for r in self.replicas if r not in self.removing_replicas]

    # Kafka: ReplicaAssignment.isBeingReassigned
    @property
    def is_being_reassigned(self) -> bool:
        return bool(self.adding_replicas or self.removing_replicas)

    # Kafka: ReplicaAssignment.reassignTo
    def reassign_to(self, target) -> "ReplicaAssignment":
        return ReplicaAssignment.from_old_and_new_replicas(self.origin_replicas, list(target))

    def __str__(self) -> str:
        return (f"ReplicaAssignment(replicas={','.join(map(str, self.replicas))}, "
                f"addingReplicas={','.join(map(str, self.adding_replicas))}, "
                f"removingReplicas={','.join(map(str, self.removing_replicas))})")


@attrs.frozen
class PartitionAndReplica:
    """Kafka: kafka.controller.PartitionAndReplica -- one replica (a broker id) of one partition."""

    topic_partition: TopicPartition
    replica: int

    @property
    def topic(self) -> str:
        return self.topic_partition.topic

    def __str__(self) -> str:
        return f"[Topic={self.topic_partition.topic},Partition={self.topic_partition.partition},Replica={self.replica}]"


class ControllerContext:
    """Kafka: ControllerContext."""

    INITIAL_CONTROLLER_EPOCH = 0            # Kafka: KafkaController.InitialControllerEpoch
    INITIAL_CONTROLLER_EPOCH_ZK_VERSION = 0

    def __init__(self):
        self.epoch = self.INITIAL_CONTROLLER_EPOCH
        self.epoch_zk_version = self.INITIAL_CONTROLLER_EPOCH_ZK_VERSION
        self.reset_context()

    # Kafka: ControllerContext.resetContext
    def reset_context(self) -> None:
        self.live_brokers: dict[int, BrokerInfo] = {}
        self.live_broker_epochs: dict[int, int] = {}
        self.shutting_down_broker_ids: set[int] = set()
        self.all_topics: set[str] = set()
        self.topic_ids: dict[str, str] = {}
        self.partition_assignments: dict[str, dict[int, ReplicaAssignment]] = {}
        self.partitions_being_reassigned: set[TopicPartition] = set()
        self.partition_leadership_info: dict[TopicPartition, LeaderIsrAndControllerEpoch] = {}
        self.partition_states: dict[TopicPartition, object] = {}     # -> PartitionState
        self.replica_states: dict[PartitionAndReplica, object] = {}  # -> ReplicaState
        self.topics_to_be_deleted: set[str] = set()
        self.topics_with_deletion_started: set[str] = set()
        # Kafka: ControllerContext.replicasOnOfflineDirs -- broker id -> its replicas in failed log dirs, as its
        # LeaderAndIsr responses said (KAFKA_STORAGE_ERROR); offline although the broker lives
        self.replicas_on_offline_dirs: dict[int, set[TopicPartition]] = {}
        self.topics_ineligible_for_deletion: set[str] = set()

    # ------------------------------------------------------------ brokers

    # Kafka: ControllerContext.setLiveBrokerAndEpochs
    def set_live_brokers_and_epochs(self, broker_and_epochs: dict[BrokerInfo, int]) -> None:
        self.live_brokers = {}
        self.live_broker_epochs = {}
        self.add_live_brokers_and_epochs(broker_and_epochs)

    # Kafka: ControllerContext.addLiveBrokersAndEpochs
    def add_live_brokers_and_epochs(self, broker_and_epochs: dict[BrokerInfo, int]) -> None:
        for broker, epoch in broker_and_epochs.items():
            self.live_brokers[broker.id] = broker
            self.live_broker_epochs[broker.id] = epoch

    # Kafka: ControllerContext.removeLiveBrokers
    def remove_live_brokers(self, broker_ids: Iterable[int]) -> None:
        for broker_id in broker_ids:
            self.live_brokers.pop(broker_id, None)
            self.live_broker_epochs.pop(broker_id, None)

    # Kafka: ControllerContext.liveBrokerIds -- live and not shutting down
    @property
    def live_broker_ids(self) -> set[int]:
        return set(self.live_brokers) - self.shutting_down_broker_ids

    # Kafka: ControllerContext.liveOrShuttingDownBrokerIds
    @property
    def live_or_shutting_down_broker_ids(self) -> set[int]:
        return set(self.live_brokers)

    # Kafka: ControllerContext.liveOrShuttingDownBroker
    def live_or_shutting_down_broker(self, broker_id: int) -> BrokerInfo | None:
        return self.live_brokers.get(broker_id)

    # Kafka: ControllerContext.liveBrokerIdAndEpochs
    @property
    def live_broker_id_and_epochs(self) -> dict[int, int]:
        return dict(self.live_broker_epochs)

    # Kafka: ControllerContext.isReplicaOnline (no offline log dirs here)
    def is_replica_online(self, broker_id: int, tp: TopicPartition, include_shutting_down_brokers: bool = False
                          ) -> bool:
        live = self.live_or_shutting_down_broker_ids if include_shutting_down_brokers else self.live_broker_ids
        return broker_id in live and tp not in self.replicas_on_offline_dirs.get(broker_id, ())

    # ------------------------------------------------------------ topics and assignments

    # Kafka: ControllerContext.partitionReplicaAssignment
    def partition_replica_assignment(self, tp: TopicPartition) -> list[int]:
        assignment = self.partition_assignments.get(tp.topic, {}).get(tp.partition)
        return list(assignment.replicas) if assignment is not None else []

    # Kafka: ControllerContext.partitionFullReplicaAssignment
    def partition_full_replica_assignment(self, tp: TopicPartition) -> ReplicaAssignment:
        return self.partition_assignments.get(tp.topic, {}).get(tp.partition) or ReplicaAssignment(())

    # Kafka: ControllerContext.partitionFullReplicaAssignmentForTopic
    def partition_full_replica_assignment_for_topic(self, topic: str) -> dict[TopicPartition, ReplicaAssignment]:
        return {TopicPartition(topic, p): a for p, a in self.partition_assignments.get(topic, {}).items()}

    # Kafka: ControllerContext.updatePartitionReplicaAssignment -- a reassignment in progress keeps its AR and RR
    def update_partition_replica_assignment(self, tp: TopicPartition, replicas: list[int]) -> None:
        current = self.partition_assignments.get(tp.topic, {}).get(tp.partition)
        if current is None:
            self.update_partition_full_replica_assignment(tp, ReplicaAssignment(replicas))
        else:
            self.update_partition_full_replica_assignment(
                tp, ReplicaAssignment(replicas, current.adding_replicas, current.removing_replicas))

    # Kafka: ControllerContext.updatePartitionFullReplicaAssignment
    def update_partition_full_replica_assignment(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        self.partition_assignments.setdefault(tp.topic, {})[tp.partition] = assignment

    # Kafka: ControllerContext.partitionsForTopic
    def partitions_for_topic(self, topic: str) -> set[TopicPartition]:
        return {TopicPartition(topic, p) for p in self.partition_assignments.get(topic, {})}

    # Kafka: ControllerContext.allPartitions
    def all_partitions(self) -> set[TopicPartition]:
        return {TopicPartition(t, p) for t, parts in self.partition_assignments.items() for p in parts}

    # Kafka: ControllerContext.replicasOnBrokers
    def replicas_on_brokers(self, broker_ids: set[int]) -> set[PartitionAndReplica]:
        return {PartitionAndReplica(TopicPartition(t, p), r)
                for t, parts in self.partition_assignments.items()
                for p, assignment in parts.items() for r in assignment.replicas if r in broker_ids}

    # Kafka: ControllerContext.replicasForTopic
    def replicas_for_topic(self, topic: str) -> set[PartitionAndReplica]:
        return {PartitionAndReplica(TopicPartition(topic, p), r)
                for p, assignment in self.partition_assignments.get(topic, {}).items() for r in assignment.replicas}

    # Kafka: ControllerContext.replicasForPartition
    def replicas_for_partition(self, partitions: Iterable[TopicPartition]) -> list[PartitionAndReplica]:
        return [PartitionAndReplica(tp, r) for tp in sorted(partitions, key=_tp_key)
                for r in self.partition_replica_assignment(tp)]

    # Kafka: ControllerContext.partitionsOnBroker
    def partitions_on_broker(self, broker_id: int) -> set[TopicPartition]:
        return {TopicPartition(t, p) for t, parts in self.partition_assignments.items()
                for p, assignment in parts.items() if broker_id in assignment.replicas}

    # No Kafka counterpart: the partitions a broker leads (2.4 filters partitionLeadershipInfo where it needs them)
    def partitions_lead_by_broker(self, broker_id: int) -> set[TopicPartition]:
        return {tp for tp, lice in self.partition_leadership_info.items() if lice.leader_and_isr.leader == broker_id}

    # Kafka: ControllerContext.removeTopic
    def remove_topic(self, topic: str) -> None:
        self.partition_assignments.pop(topic, None)
        self.topic_ids.pop(topic, None)
        self.partitions_being_reassigned = {tp for tp in self.partitions_being_reassigned if tp.topic != topic}
        for tp in [tp for tp in self.partition_leadership_info if tp.topic == topic]:
            del self.partition_leadership_info[tp]
        for tp in [tp for tp in self.partition_states if tp.topic == topic]:
            del self.partition_states[tp]
        for r in [r for r in self.replica_states if r.topic == topic]:
            del self.replica_states[r]
        self.all_topics.discard(topic)

    # ------------------------------------------------------------ topic deletion

    # Kafka: ControllerContext.queueTopicDeletion
    def queue_topic_deletion(self, topics: Iterable[str]) -> None:
        self.topics_to_be_deleted.update(topics)

    # Kafka: ControllerContext.beginTopicDeletion
    def begin_topic_deletion(self, topics: Iterable[str]) -> None:
        self.topics_with_deletion_started.update(topics)

    # Kafka: ControllerContext.isTopicDeletionInProgress
    def is_topic_deletion_in_progress(self, topic: str) -> bool:
        return topic in self.topics_with_deletion_started

    # Kafka: ControllerContext.isTopicQueuedUpForDeletion
    def is_topic_queued_up_for_deletion(self, topic: str) -> bool:
        return topic in self.topics_to_be_deleted

    # Kafka: ControllerContext.isTopicEligibleForDeletion
    def is_topic_eligible_for_deletion(self, topic: str) -> bool:
        return topic in self.topics_to_be_deleted and topic not in self.topics_ineligible_for_deletion

    # Kafka: ControllerContext.removeTopic (its topicsToBeDeleted part)
    def remove_topic_from_deletion(self, topic: str) -> None:
        self.topics_to_be_deleted.discard(topic)
        self.topics_with_deletion_started.discard(topic)
        self.topics_ineligible_for_deletion.discard(topic)

    # ------------------------------------------------------------ states of the state machines

    # Kafka: ControllerContext.partitionsInState
    def partitions_in_states(self, states) -> set[TopicPartition]:
        return {tp for tp, s in self.partition_states.items() if s in states}

    # Kafka: ControllerContext.replicasInState
    def replicas_in_state(self, topic: str, state) -> set[PartitionAndReplica]:
        return {r for r, s in self.replica_states.items() if r.topic == topic and s is state}

    # Kafka: ControllerContext.areAllReplicasInState
    def are_all_replicas_in_state(self, topic: str, state) -> bool:
        return all(self.replica_states.get(r) is state for r in self.replicas_for_topic(topic))

    # Kafka: ControllerContext.isAnyReplicaInState
    def is_any_replica_in_state(self, topic: str, state) -> bool:
        return any(self.replica_states.get(r) is state for r in self.replicas_for_topic(topic))


def _tp_key(tp: TopicPartition):
    return tp.topic, tp.partition
