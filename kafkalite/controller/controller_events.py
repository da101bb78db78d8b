"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/KafkaController.scala (its ControllerEvent case classes
and ElectionTrigger; 2.4 keeps them at the end of KafkaController.scala)

Classes: Startup, ControllerChange, Reelect, RegisterBrokerAndReelect, Expire, BrokerChange, TopicChange, PartitionModifications, TopicDeletion, IsrChangeNotification, LogDirEventNotification, LeaderAndIsrResponseReceived, UpdateMetadataResponseReceived, ElectionTrigger, ReplicaLeaderElection, AutoPreferredReplicaLeaderElection, UncleanLeaderElectionEnable, TopicUncleanLeaderElectionEnable, ControlledShutdown, TopicDeletionStopReplicaResponseReceived, ApiPartitionReassignment, PartitionReassignmentIsrChange, ZkPartitionReassignment, ListPartitionReassignments.

Each event is one piece of the controller's work, put on ``controller-event-thread``'s queue by a ZooKeeper
handler (controller_znode_handlers.py), a broker's request (KafkaApis through KafkaController's public methods)
or the controller itself, and processed there by calling the KafkaController method of the same name:
``process(controller)``. ``preempt(controller)`` answers the caller of an event that a resigning controller drops.
"""
from __future__ import annotations

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_event_manager import ControllerEvent, ControllerState
from kafkalite.protocol.errors import ControllerMovedException, Errors

class Startup(ControllerEvent):
    state = ControllerState.ControllerChange

    def process(self, controller) -> None:
        controller.process_startup()


class ControllerChange(ControllerEvent):
    state = ControllerState.ControllerChange

    def process(self, controller) -> None:
        controller.maybe_resign()


class Reelect(ControllerEvent):
    state = ControllerState.ControllerChange

    def process(self, controller) -> None:
        controller.process_reelect()


class RegisterBrokerAndReelect(ControllerEvent):
    state = ControllerState.ControllerChange

    def process(self, controller) -> None:
        controller.process_register_broker_and_reelect()


class Expire(ControllerEvent):
    state = ControllerState.ControllerChange

    def process(self, controller) -> None:
        controller.process_expire()


class BrokerChange(ControllerEvent):
    state = ControllerState.BrokerChange

    def process(self, controller) -> None:
        controller.process_broker_change()


class TopicChange(ControllerEvent):
    state = ControllerState.TopicChange

    def process(self, controller) -> None:
        controller.process_topic_change()


class PartitionModifications(ControllerEvent):
    state = ControllerState.TopicChange

    def __init__(self, topic: str):
        self.topic = topic

    def process(self, controller) -> None:
        controller.process_partition_modifications(self.topic)


class TopicDeletion(ControllerEvent):
    state = ControllerState.TopicDeletion

    def process(self, controller) -> None:
        controller.process_topic_deletion()


class IsrChangeNotification(ControllerEvent):
    state = ControllerState.IsrChange

    def process(self, controller) -> None:
        controller.process_isr_change_notification()


class LogDirEventNotification(ControllerEvent):
    """Kafka: LogDirEventNotification -- a broker wrote /log_dir_event_notification."""

    state = ControllerState.LogDirChange

    def process(self, controller) -> None:
        controller.process_log_dir_event_notification()


class LeaderAndIsrResponseReceived(ControllerEvent):
    state = ControllerState.LeaderAndIsrResponseReceived

    def __init__(self, response, broker_id: int):
        self.response, self.broker_id = response, broker_id

    def process(self, controller) -> None:
        controller.process_leader_and_isr_response_received(self.response, self.broker_id)


class UpdateMetadataResponseReceived(ControllerEvent):
    state = ControllerState.UpdateMetadataResponseReceived

    def __init__(self, response, broker_id: int):
        self.response, self.broker_id = response, broker_id

    def process(self, controller) -> None:
        controller.process_update_metadata_response_received(self.response, self.broker_id)


class ElectionTrigger:
    """Kafka: ElectionTrigger -- who asked for a replica leader election."""

    ADMIN_CLIENT = "AdminClientTriggered"
    AUTO = "AutoTriggered"
    ZK = "ZkTriggered"


ELECTION_TYPE_PREFERRED, ELECTION_TYPE_UNCLEAN = 0, 1   # Kafka: ElectionType.PREFERRED / UNCLEAN


def election_name(election_type: int) -> str:
    return "PREFERRED" if election_type == ELECTION_TYPE_PREFERRED else "UNCLEAN"


class ReplicaLeaderElection(ControllerEvent):
    """Kafka: ReplicaLeaderElection(partitionsFromAdminClientOpt, electionType, electionTrigger, callback)."""

    state = ControllerState.ManualLeaderBalance

    def __init__(self, partitions, election_type: int, election_trigger: str, callback):
        self.partitions, self.election_type = partitions, election_type
        self.election_trigger, self.callback = election_trigger, callback

    def process(self, controller) -> None:
        controller.process_replica_leader_election(self.partitions, self.election_type, self.election_trigger,
                                                   self.callback)

    # Kafka: KafkaController.preemptReplicaLeaderElection
    def preempt(self, controller) -> None:
        self.callback({tp: (None, (Errors.NOT_CONTROLLER, None)) for tp in self.partitions or ()})


class AutoPreferredReplicaLeaderElection(ControllerEvent):
    """Kafka: AutoPreferredReplicaLeaderElection."""

    state = ControllerState.AutoLeaderBalance

    def process(self, controller) -> None:
        controller.process_auto_preferred_replica_leader_election()


class UncleanLeaderElectionEnable(ControllerEvent):
    """Kafka: UncleanLeaderElectionEnable."""

    state = ControllerState.UncleanLeaderElectionEnable

    def process(self, controller) -> None:
        controller.process_unclean_leader_election_enable()


class TopicUncleanLeaderElectionEnable(ControllerEvent):
    """Kafka: TopicUncleanLeaderElectionEnable(topic)."""

    state = ControllerState.TopicUncleanLeaderElectionEnable

    def __init__(self, topic: str):
        self.topic = topic

    def process(self, controller) -> None:
        controller.process_topic_unclean_leader_election_enable(self.topic)


class ControlledShutdown(ControllerEvent):
    """Kafka: ControlledShutdown(id, brokerEpoch, controlledShutdownCallback)."""

    state = ControllerState.ControlledShutdown

    def __init__(self, broker_id: int, broker_epoch: int, callback):
        self.broker_id, self.broker_epoch, self.callback = broker_id, broker_epoch, callback

    def process(self, controller) -> None:
        controller.process_controlled_shutdown(self.broker_id, self.broker_epoch, self.callback)

    # Kafka: KafkaController.preemptControlledShutdown
    def preempt(self, controller) -> None:
        self.callback(None, ControllerMovedException("Controller moved to another broker"))


class TopicDeletionStopReplicaResponseReceived(ControllerEvent):
    state = ControllerState.TopicDeletion

    def __init__(self, replica_id: int, response):
        self.replica_id, self.response = replica_id, response

    def process(self, controller) -> None:
        controller.process_topic_deletion_stop_replica_response_received(self.replica_id, self.response)


class ApiPartitionReassignment(ControllerEvent):
    """Kafka: ApiPartitionReassignment(reassignments, callback)."""

    state = ControllerState.AlterPartitionReassignment

    def __init__(self, reassignments: dict, callback):
        self.reassignments, self.callback = reassignments, callback

    def process(self, controller) -> None:
        controller.process_api_partition_reassignment(self.reassignments, self.callback)

    # Later Kafka (not 2.4, which leaves the callback unanswered): ApiPartitionReassignment.preempt
    def preempt(self, controller) -> None:
        self.callback(None, (Errors.NOT_CONTROLLER, None))


class PartitionReassignmentIsrChange(ControllerEvent):
    """Kafka: PartitionReassignmentIsrChange(partition)."""

    state = ControllerState.AlterPartitionReassignment

    def __init__(self, tp: TopicPartition):
        self.topic_partition = tp

    def process(self, controller) -> None:
        controller.process_partition_reassignment_isr_change(self.topic_partition)


class ZkPartitionReassignment(ControllerEvent):
    """Kafka: ZkPartitionReassignment -- /admin/reassign_partitions was created."""

    state = ControllerState.AlterPartitionReassignment

    def process(self, controller) -> None:
        controller.process_zk_partition_reassignment()


class ListPartitionReassignments(ControllerEvent):
    """Kafka: ListPartitionReassignments(partitionsOpt, callback)."""

    state = ControllerState.ListPartitionReassignment

    def __init__(self, partitions, callback):
        self.partitions, self.callback = partitions, callback

    def process(self, controller) -> None:
        controller.process_list_partition_reassignments(self.partitions, self.callback)

    # Later Kafka (not 2.4, which leaves the callback unanswered): ListPartitionReassignments.preempt
    def preempt(self, controller) -> None:
        self.callback(None, (Errors.NOT_CONTROLLER, None))
