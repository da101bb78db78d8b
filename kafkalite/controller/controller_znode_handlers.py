"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/KafkaController.scala (its ZooKeeper handlers;
2.4 keeps them near the end of KafkaController.scala)

Classes: _ControllerStateChangeHandler, ControllerChangeHandler, BrokerChangeHandler, TopicChangeHandler, PartitionModificationsHandler, TopicDeletionHandler, PartitionReassignmentIsrChangeHandler, PartitionReassignmentHandler, IsrChangeNotificationHandler, LogDirEventNotificationHandler.

A handler runs on the ZooKeeper client's event thread when a watched znode changes; it only puts the matching
event (controller_events.py) on ``controller-event-thread``'s queue, where the work happens.
"""
from __future__ import annotations

from kafkalite.controller.controller_events import (
    BrokerChange, ControllerChange, Expire, IsrChangeNotification, LogDirEventNotification, PartitionModifications,
    PartitionReassignmentIsrChange, Reelect, RegisterBrokerAndReelect, TopicChange, TopicDeletion,
    ZkPartitionReassignment,
)
from kafkalite.zk.zk_data import (
    BrokerIdsZNode, ControllerZNode, DeleteTopicsZNode, IsrChangeNotificationZNode, LogDirEventNotificationZNode,
    ReassignPartitionsZNode,
    TopicPartitionStateZNode,
    TopicsZNode, TopicZNode,
)
from kafkalite.zookeeper.zoo_keeper_client import StateChangeHandler, ZNodeChangeHandler, ZNodeChildChangeHandler


class _ControllerStateChangeHandler(StateChangeHandler):
    """Kafka: the anonymous StateChangeHandler of KafkaController.startup."""

    name = "controller-state-change-handler"

    def __init__(self, controller):
        self.controller = controller

    def after_initializing_session(self) -> None:
        self.controller.event_manager.put(RegisterBrokerAndReelect())

    def before_initializing_session(self) -> None:
        queued = self.controller.event_manager.clear_and_put(Expire())
        queued.await_processing(30)


class ControllerChangeHandler(ZNodeChangeHandler):
    """Kafka: ControllerChangeHandler -- watches /controller."""

    path = ControllerZNode.path()

    def __init__(self, event_manager: ControllerEventManager):
        self.event_manager = event_manager

    def handle_creation(self) -> None:
        self.event_manager.put(ControllerChange())

    def handle_deletion(self) -> None:
        self.event_manager.put(Reelect())

    def handle_data_change(self) -> None:
        self.event_manager.put(ControllerChange())


class BrokerChangeHandler(ZNodeChildChangeHandler):
    """Kafka: BrokerChangeHandler -- watches the children of /brokers/ids."""

    path = BrokerIdsZNode.path()

    def __init__(self, event_manager: ControllerEventManager):
        self.event_manager = event_manager

    def handle_child_change(self) -> None:
        self.event_manager.put(BrokerChange())


class TopicChangeHandler(ZNodeChildChangeHandler):
    """Kafka: TopicChangeHandler -- watches the children of /brokers/topics."""

    path = TopicsZNode.path()

    def __init__(self, event_manager: ControllerEventManager):
        self.event_manager = event_manager

    def handle_child_change(self) -> None:
        self.event_manager.put(TopicChange())


class PartitionModificationsHandler(ZNodeChangeHandler):
    """Kafka: PartitionModificationsHandler -- watches /brokers/topics/<topic> for added partitions."""

    def __init__(self, event_manager: ControllerEventManager, topic: str):
        self.event_manager = event_manager
        self.topic = topic
        self.path = TopicZNode.path(topic)

    def handle_data_change(self) -> None:
        self.event_manager.put(PartitionModifications(self.topic))


class TopicDeletionHandler(ZNodeChildChangeHandler):
    """Kafka: TopicDeletionHandler -- watches the children of /admin/delete_topics."""

    path = DeleteTopicsZNode.path()

    def __init__(self, event_manager: ControllerEventManager):
        self.event_manager = event_manager

    def handle_child_change(self) -> None:
        self.event_manager.put(TopicDeletion())


class PartitionReassignmentIsrChangeHandler(ZNodeChangeHandler):
    """Kafka: PartitionReassignmentIsrChangeHandler -- the state znode of a partition being reassigned."""

    def __init__(self, event_manager: ControllerEventManager, tp: TopicPartition):
        self.event_manager, self.topic_partition = event_manager, tp
        self.path = TopicPartitionStateZNode.path(tp)

    def handle_data_change(self) -> None:
        self.event_manager.put(PartitionReassignmentIsrChange(self.topic_partition))


class PartitionReassignmentHandler(ZNodeChangeHandler):
    """Kafka: PartitionReassignmentHandler -- watches /admin/reassign_partitions (2.4's ZooKeeper route)."""

    path = ReassignPartitionsZNode.path()

    def __init__(self, event_manager: ControllerEventManager):
        self.event_manager = event_manager

    # the controller deletes the znode when the last partition is done; only its creation starts work
    def handle_creation(self) -> None:
        self.event_manager.put(ZkPartitionReassignment())


class IsrChangeNotificationHandler(ZNodeChildChangeHandler):
    """Kafka: IsrChangeNotificationHandler -- watches the children of /isr_change_notification."""

    path = IsrChangeNotificationZNode.path()

    def __init__(self, event_manager: ControllerEventManager):
        self.event_manager = event_manager

    def handle_child_change(self) -> None:
        self.event_manager.put(IsrChangeNotification())


class LogDirEventNotificationHandler(ZNodeChildChangeHandler):
    """Kafka: LogDirEventNotificationHandler -- watches the children of /log_dir_event_notification."""

    path = LogDirEventNotificationZNode.path()

    def __init__(self, event_manager: ControllerEventManager):
        self.event_manager = event_manager

    def handle_child_change(self) -> None:
        self.event_manager.put(LogDirEventNotification())
