"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/TopicDeletionManager.scala

Classes: DeletionClient, ControllerDeletionClient, TopicDeletionManager.

How a topic is deleted (``kafka-topics --delete`` creates ``/admin/delete_topics/<topic>``):
1. The controller's ``TopicDeletion`` event queues the topic (``enqueue_topics_for_deletion``).
2. ``on_topic_deletion``: its partitions go Offline → NonExistent; every broker gets UpdateMetadata with leader -2
   (LeaderDuringDelete), so Metadata stops listing the topic; then ``on_partition_deletion`` moves its live
   replicas to OfflineReplica (StopReplica delete=false) and ReplicaDeletionStarted (StopReplica delete=true).
   Replicas on dead brokers become ReplicaDeletionIneligible and the topic waits for them.
3. Each broker's StopReplica response comes back as a ``TopicDeletionStopReplicaResponseReceived`` event:
   ``complete_replica_deletion`` (ReplicaDeletionSuccessful) or ``fail_replica_deletion`` (Ineligible; retried
   when the broker returns).
4. When every replica succeeded, ``complete_delete_topic`` forgets the topic and removes
   ``/brokers/topics/<t>``, ``/config/topics/<t>`` and ``/admin/delete_topics/<t>``.
With ``delete.topic.enable=false`` deletion requests are simply removed.

Left out: marking topics ineligible during partition reassignment (no reassignment in kafkalite yet).
"""
from __future__ import annotations

from typing import Iterable

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_context import ControllerContext, PartitionAndReplica
from kafkalite.controller.partition_state_machine import PartitionState
from kafkalite.controller.replica_state_machine import ReplicaState
from kafkalite.utils.logging import Logging
from kafkalite.zk.zk_data import ConfigEntityZNode, ConfigType


class DeletionClient:
    """Kafka: DeletionClient -- what the deletion manager needs from the controller."""

    def delete_topic(self, topic: str, epoch_zk_version: int) -> None:
        raise NotImplementedError

    def delete_topic_deletions(self, topics: Iterable[str], epoch_zk_version: int) -> None:
        raise NotImplementedError

    def mute_topic_modifications(self, topic: str) -> None:
        raise NotImplementedError

    def send_metadata_update(self, partitions: set[TopicPartition]) -> None:
        raise NotImplementedError


class ControllerDeletionClient(DeletionClient):
    """Kafka: ControllerDeletionClient."""

    def __init__(self, controller, zk_client):
        self.controller = controller
        self.zk_client = zk_client

    # Kafka: ControllerDeletionClient.deleteTopic
    def delete_topic(self, topic: str, epoch_zk_version: int) -> None:
        self.zk_client.delete_topic_z_node(topic, epoch_zk_version)
        self.zk_client.delete_recursive(ConfigEntityZNode.path(ConfigType.TOPIC, topic), epoch_zk_version)
        self.zk_client.delete_topic_deletions([topic], epoch_zk_version)

    # Kafka: ControllerDeletionClient.deleteTopicDeletions
    def delete_topic_deletions(self, topics: Iterable[str], epoch_zk_version: int) -> None:
        self.zk_client.delete_topic_deletions(list(topics), epoch_zk_version)

    # Kafka: ControllerDeletionClient.mutePartitionModifications (no per-topic handlers in kafkalite yet)
    def mute_topic_modifications(self, topic: str) -> None:
        pass

    # Kafka: ControllerDeletionClient.sendMetadataUpdate
    def send_metadata_update(self, partitions: set[TopicPartition]) -> None:
        ctx = self.controller.controller_context
        self.controller.send_update_metadata_request(sorted(ctx.live_or_shutting_down_broker_ids), partitions)


class TopicDeletionManager(Logging):
    """Kafka: TopicDeletionManager."""

    def __init__(self, config, controller_context: ControllerContext, replica_state_machine,
                 partition_state_machine, client: DeletionClient):
        self.config = config
        self.controller_context = controller_context
        self.replica_state_machine = replica_state_machine
        self.partition_state_machine = partition_state_machine
        self.client = client
        self.is_delete_topic_enabled = bool(config.get("delete.topic.enable"))
        self.log_ident = f"[Topic Deletion Manager {config.broker_id}] "

    # Kafka: TopicDeletionManager.init
    def init(self, initial_topics_to_be_deleted: set[str], initial_topics_ineligible_for_deletion: set[str]) -> None:
        self.info(f"Initializing manager with initial deletions: {sorted(initial_topics_to_be_deleted)}, initial "
                  f"ineligible deletions: {sorted(initial_topics_ineligible_for_deletion)}")
        if self.is_delete_topic_enabled:
            self.controller_context.queue_topic_deletion(initial_topics_to_be_deleted)
            self.controller_context.topics_ineligible_for_deletion.update(
                initial_topics_ineligible_for_deletion & initial_topics_to_be_deleted)
        else:
            # delete.topic.enable=false: forget any deletion requests
            self.info(f"Removing {sorted(initial_topics_to_be_deleted)} since delete topic is disabled")
            self.client.delete_topic_deletions(initial_topics_to_be_deleted, self.controller_context.epoch_zk_version)

    # Kafka: TopicDeletionManager.tryTopicDeletion
    def try_topic_deletion(self) -> None:
        if self.is_delete_topic_enabled:
            self.resume_deletions()

    # Kafka: TopicDeletionManager.enqueueTopicsForDeletion
    def enqueue_topics_for_deletion(self, topics: set[str]) -> None:
        if self.is_delete_topic_enabled:
            self.controller_context.queue_topic_deletion(topics)
            self.resume_deletions()

    # Kafka: TopicDeletionManager.resumeDeletionForTopics
    def resume_deletion_for_topics(self, topics: set[str]) -> None:
        if self.is_delete_topic_enabled:
            queued = {t for t in topics if self.controller_context.is_topic_queued_up_for_deletion(t)}
            if queued:
                self.controller_context.topics_ineligible_for_deletion.difference_update(queued)
                self.resume_deletions()

    # Kafka: TopicDeletionManager.failReplicaDeletion
    def fail_replica_deletion(self, replicas: set[PartitionAndReplica]) -> None:
        if not self.is_delete_topic_enabled:
            return
        replicas = {r for r in replicas if self.controller_context.is_topic_queued_up_for_deletion(r.topic)}
        if not replicas:
            return
        topics = {r.topic for r in replicas}
        self.debug(f"Deletion failed for replicas {','.join(map(str, replicas))}. Halting deletion for topics "
                   f"{sorted(topics)}")
        self.replica_state_machine.handle_state_changes(sorted(replicas, key=_replica_key),
                                                        ReplicaState.ReplicaDeletionIneligible)
        self.mark_topic_ineligible_for_deletion(topics, "replica deletion failure")
        self.resume_deletions()

    # Kafka: TopicDeletionManager.markTopicIneligibleForDeletion
    def mark_topic_ineligible_for_deletion(self, topics: set[str], reason: str) -> None:
        if self.is_delete_topic_enabled:
            queued = {t for t in topics if self.controller_context.is_topic_queued_up_for_deletion(t)}
            self.controller_context.topics_ineligible_for_deletion.update(queued)
            if queued:
                self.info(f"Halted deletion of topics {','.join(sorted(queued))} due to {reason}")

    # Kafka: TopicDeletionManager.isTopicIneligibleForDeletion
    def is_topic_ineligible_for_deletion(self, topic: str) -> bool:
        return self.is_delete_topic_enabled and topic in self.controller_context.topics_ineligible_for_deletion

    # Kafka: TopicDeletionManager.isTopicQueuedUpForDeletion
    def is_topic_queued_up_for_deletion(self, topic: str) -> bool:
        return self.is_delete_topic_enabled and self.controller_context.is_topic_queued_up_for_deletion(topic)

    # Kafka: TopicDeletionManager.completeReplicaDeletion
    def complete_replica_deletion(self, replicas: set[PartitionAndReplica]) -> None:
        successfully_deleted = sorted(replicas, key=_replica_key)
        self.debug(f"Deletion successfully completed for replicas {','.join(map(str, successfully_deleted))}")
        self.replica_state_machine.handle_state_changes(successfully_deleted, ReplicaState.ReplicaDeletionSuccessful)
        self.resume_deletions()

    # Kafka 3.x: TopicDeletionManager.reset
    def reset(self) -> None:
        if self.is_delete_topic_enabled:
            ctx = self.controller_context
            ctx.topics_to_be_deleted.clear()
            ctx.topics_with_deletion_started.clear()
            ctx.topics_ineligible_for_deletion.clear()

    # No Kafka counterpart: is every replica of the topic deleted (2.4 checks it inline)
    def _is_topic_deletion_successful(self, topic: str) -> bool:
        return self.controller_context.are_all_replicas_in_state(topic, ReplicaState.ReplicaDeletionSuccessful)

    # Kafka: TopicDeletionManager.completeDeleteTopic
    def complete_delete_topic(self, topic: str) -> None:
        ctx = self.controller_context
        self.client.mute_topic_modifications(topic)
        replicas = sorted(ctx.replicas_in_state(topic, ReplicaState.ReplicaDeletionSuccessful), key=_replica_key)
        self.replica_state_machine.handle_state_changes(replicas, ReplicaState.NonExistentReplica)
        ctx.remove_topic_from_deletion(topic)
        self.client.delete_topic(topic, ctx.epoch_zk_version)
        ctx.remove_topic(topic)
        self.info(f"Deletion of topic {topic} successfully completed")

    # Kafka: TopicDeletionManager.onTopicDeletion
    def on_topic_deletion(self, topics: set[str]) -> None:
        ctx = self.controller_context
        unseen = {t for t in topics if t not in ctx.topics_with_deletion_started}
        if unseen:
            unseen_partitions = sorted((tp for t in unseen for tp in ctx.partitions_for_topic(t)), key=_tp_key)
            self.partition_state_machine.handle_state_changes(unseen_partitions, PartitionState.OfflinePartition)
            self.partition_state_machine.handle_state_changes(unseen_partitions, PartitionState.NonExistentPartition)
            ctx.begin_topic_deletion(unseen)
        # leader -2 tells every broker to drop these partitions from its metadata cache
        self.client.send_metadata_update({tp for t in topics for tp in ctx.partitions_for_topic(t)})
        self.on_partition_deletion(topics)

    # Kafka: TopicDeletionManager.onPartitionDeletion / startReplicaDeletion
    def on_partition_deletion(self, topics: set[str]) -> None:
        ctx = self.controller_context
        all_replicas = {r for t in topics for r in ctx.replicas_for_topic(t)}
        already_deleted = {r for r in all_replicas if ctx.replica_states.get(r) is ReplicaState.ReplicaDeletionSuccessful}
        to_retry = all_replicas - already_deleted
        alive = sorted((r for r in to_retry if ctx.is_replica_online(r.replica, r.topic_partition)), key=_replica_key)
        dead = sorted((r for r in to_retry if not ctx.is_replica_online(r.replica, r.topic_partition)),
                      key=_replica_key)
        self.replica_state_machine.handle_state_changes(alive, ReplicaState.OfflineReplica)
        self.replica_state_machine.handle_state_changes(alive, ReplicaState.ReplicaDeletionStarted)
        if dead:
            self.debug(f"Dead replicas ({','.join(map(str, dead))}) found for topics {sorted(topics)}")
            self.replica_state_machine.handle_state_changes(dead, ReplicaState.ReplicaDeletionIneligible)
            self.mark_topic_ineligible_for_deletion({r.topic for r in dead}, "offline replicas")

    # Kafka: TopicDeletionManager.resumeDeletions
    def resume_deletions(self) -> None:
        ctx = self.controller_context
        topics_queued = set(ctx.topics_to_be_deleted)
        topics_eligible: set[str] = set()
        if topics_queued:
            self.info(f"Handling deletion for topics {','.join(sorted(topics_queued))}")
        for topic in sorted(topics_queued):
            if self._is_topic_deletion_successful(topic):
                self.complete_delete_topic(topic)
                self.info(f"Deletion of topic {topic} successfully completed")
            elif ctx.is_topic_deletion_in_progress(topic):
                if ctx.is_any_replica_in_state(topic, ReplicaState.ReplicaDeletionStarted):
                    self.info(f"Deletion for replicas of topic {topic} still in progress")
                elif ctx.is_any_replica_in_state(topic, ReplicaState.ReplicaDeletionIneligible):
                    self._retry_deletion_for_ineligible_replicas(topic)
            if ctx.is_topic_eligible_for_deletion(topic) and not ctx.is_topic_deletion_in_progress(topic):
                self.info(f"Deletion of topic {topic} (re)started")
                topics_eligible.add(topic)
        if topics_eligible:
            self.on_topic_deletion(topics_eligible)

    # Kafka: TopicDeletionManager.retryDeletionForIneligibleReplicas
    def _retry_deletion_for_ineligible_replicas(self, topic: str) -> None:
        ctx = self.controller_context
        ineligible = sorted(ctx.replicas_in_state(topic, ReplicaState.ReplicaDeletionIneligible), key=_replica_key)
        alive = [r for r in ineligible if ctx.is_replica_online(r.replica, r.topic_partition)]
        if alive:
            self.debug(f"Retrying deletion of topic {topic} on replicas {','.join(map(str, alive))}")
            self.replica_state_machine.handle_state_changes(alive, ReplicaState.OfflineReplica)
            self.replica_state_machine.handle_state_changes(alive, ReplicaState.ReplicaDeletionStarted)
            ctx.topics_ineligible_for_deletion.discard(topic)


def _tp_key(tp: TopicPartition):
    return tp.topic, tp.partition


def _replica_key(r: PartitionAndReplica):
    return r.topic_partition.topic, r.topic_partition.partition, r.replica
