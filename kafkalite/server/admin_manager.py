"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/AdminManager.scala,
DelayedCreatePartitions.scala and DelayedDeleteTopics.scala

Classes: AdminManager, CreatePartitionsMetadata, DelayedCreatePartitions, DelayedDeleteTopics.

CreateTopics and DeleteTopics only write to ZooKeeper; the answer waits in the "topic" purgatory
until the controller's UPDATE_METADATA shows the change in this broker's MetadataCache (every
partition of a new topic has a leader; a deleted topic is gone), or until the request's timeout.
KafkaApis calls ``try_complete_delayed_topic_operations(topic)`` after each UpdateMetadata.
"""
from __future__ import annotations

import attrs

from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafkalite.server.delayed_operation_key import TopicKey
from kafkalite.utils.logging import Logging
from kafkalite.zk.admin_zk_client import AdminZkClient, assign_replicas_to_brokers


@attrs.define
class CreatePartitionsMetadata:
    """Kafka: CreatePartitionsMetadata(topic, partitions, error)."""

    topic: str
    partitions: list[int]
    error: Errors = Errors.NONE
    message: str | None = None
    replication_factor: int = -1
    configs: dict = attrs.Factory(dict)


class DelayedCreatePartitions(DelayedOperation):
    """Kafka: DelayedCreatePartitions -- done when every new partition has a leader in the cache."""

    def __init__(self, delay_ms: int, create_metadata: list[CreatePartitionsMetadata], admin_manager, callback):
        super().__init__(delay_ms)
        self.create_metadata = create_metadata
        self.admin_manager = admin_manager
        self.callback = callback

    def _missing_leaders(self, m: CreatePartitionsMetadata) -> bool:
        cache = self.admin_manager.metadata_cache
        for p in m.partitions:
            st = cache.get_partition_info(m.topic, p)
            if st is None or st.leader < 0:
                return True
        return False

    # Kafka: DelayedCreatePartitions.tryComplete
    def try_complete(self) -> bool:
        if all(m.error is not Errors.NONE or not self._missing_leaders(m) for m in self.create_metadata):
            return self.force_complete()
        return False

    # Kafka: DelayedCreatePartitions.onComplete -- a partition still without leader is a timeout.
    def on_complete(self) -> None:
        results = {}
        for m in self.create_metadata:
            if m.error is Errors.NONE and self._missing_leaders(m):
                results[m.topic] = (Errors.REQUEST_TIMED_OUT, "Operation timed out")
            else:
                results[m.topic] = (m.error, m.message)
        self.callback(results)

    def on_expiration(self) -> None:
        pass


class DelayedDeleteTopics(DelayedOperation):
    """Kafka: DelayedDeleteTopics -- done when the deleted topics are gone from the cache."""

    def __init__(self, delay_ms: int, delete_metadata: list[tuple[str, Errors]], admin_manager, callback):
        super().__init__(delay_ms)
        self.delete_metadata = delete_metadata
        self.admin_manager = admin_manager
        self.callback = callback

    def try_complete(self) -> bool:
        cache = self.admin_manager.metadata_cache
        if all(err is not Errors.NONE or not cache.contains(t) for t, err in self.delete_metadata):
            return self.force_complete()
        return False

    def on_complete(self) -> None:
        cache = self.admin_manager.metadata_cache
        self.callback({t: (Errors.REQUEST_TIMED_OUT if err is Errors.NONE and cache.contains(t) else err)
                       for t, err in self.delete_metadata})

    def on_expiration(self) -> None:
        pass


class AdminManager(Logging):
    """Kafka: AdminManager(config, metrics, metadataCache, zkClient)."""

    def __init__(self, config, metadata_cache, zk_client):
        self.config = config
        self.metadata_cache = metadata_cache
        self.zk_client = zk_client
        self.admin_zk_client = AdminZkClient(zk_client)
        self.log_ident = f"[Admin Manager on Broker {config.broker_id}]: "
        self.topic_purgatory = DelayedOperationPurgatory("topic", broker_id=config.broker_id)

    def has_delayed_topic_operations(self) -> bool:
        return self.topic_purgatory.num_delayed() != 0

    # Kafka: AdminManager.tryCompleteDelayedTopicOperations
    def try_complete_delayed_topic_operations(self, topic: str) -> None:
        self.topic_purgatory.check_and_complete(TopicKey(topic))

    # Kafka: AdminManager.createTopics
    def create_topics(self, timeout_ms: int, validate_only: bool, to_create: dict, response_callback) -> None:
        """``to_create``: name -> CreatableTopic. Calls back with {name: (Errors, message)} and metadata."""
        brokers = self.zk_client.get_sorted_broker_list()
        metadata: list[CreatePartitionsMetadata] = []
        for name, topic in to_create.items():
            try:
                if topic.assignments and (topic.num_partitions != -1 or topic.replication_factor != -1):
                    raise Errors.INVALID_REQUEST.exception(
                        "Both numPartitions or replicationFactor and replicasAssignments were set. "
                        "Both cannot be used at the same time.")
                configs = {c.name: c.value for c in topic.configs if c.value is not None}
                if topic.assignments:
                    assignment = {a.partition_index: list(a.broker_ids) for a in topic.assignments}
                else:
                    n = self.config.num_partitions if topic.num_partitions == -1 else topic.num_partitions
                    rf = self.config.default_replication_factor if topic.replication_factor == -1 \
                        else topic.replication_factor
                    assignment = assign_replicas_to_brokers(brokers, n, rf)
                self.admin_zk_client.create_topic_with_assignment(name, configs, assignment, validate_only)
                rf = len(next(iter(assignment.values()))) if assignment else 0
                metadata.append(CreatePartitionsMetadata(name, sorted(assignment), Errors.NONE, None, rf, configs))
                if not validate_only:
                    self.info(f"Creating topic {name} with configuration {configs} and initial partition "
                              f"assignment {assignment}")
            except ApiException as e:
                self.info(f"Error processing create topic request {name}: {e}")
                metadata.append(CreatePartitionsMetadata(name, [], e.error, str(e)))
            except Exception as e:  # noqa: BLE001
                self.error(f"Error processing create topic request {name}: {e}", exc_info=True)
                metadata.append(CreatePartitionsMetadata(name, [], Errors.UNKNOWN_SERVER_ERROR, str(e)))

        def respond(results):
            response_callback(results, {m.topic: m for m in metadata})

        if timeout_ms <= 0 or validate_only or not any(m.error is Errors.NONE for m in metadata):
            respond({m.topic: (m.error, m.message) for m in metadata})
        else:
            delayed = DelayedCreatePartitions(timeout_ms, metadata, self, respond)
            self.topic_purgatory.try_complete_else_watch(delayed, [TopicKey(m.topic) for m in metadata])

    # Kafka: AdminManager.createPartitions
    def create_partitions(self, timeout_ms: int, new_partitions: list, validate_only: bool, response_callback) -> None:
        """``new_partitions``: CreatePartitionsTopic requests. Calls back with {topic: (Errors, message)}."""
        brokers = self.zk_client.get_sorted_broker_list()
        metadata: list[CreatePartitionsMetadata] = []
        for req in new_partitions:
            topic = req.name
            try:
                existing = self.zk_client.get_partition_assignment_for_topic(topic)
                if not existing:
                    raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"The topic '{topic}' does not exist.")
                old = len(existing)
                if req.count < old:
                    raise Errors.INVALID_PARTITIONS.exception(
                        f"Topic currently has {old} partitions, which is higher than the requested {req.count}.")
                if req.count == old:
                    raise Errors.INVALID_PARTITIONS.exception(f"Topic already has {old} partitions.")
                assignment = None
                if req.assignments is not None:
                    if len(req.assignments) != req.count - old:
                        raise Errors.INVALID_REPLICA_ASSIGNMENT.exception(
                            f"Increasing the number of partitions by {req.count - old} but {len(req.assignments)} "
                            "assignments provided.")
                    assignment = {old + i: list(a.broker_ids) for i, a in enumerate(req.assignments)}
                updated = self.admin_zk_client.add_partitions(topic, existing, brokers, req.count, assignment,
                                                              validate_only)
                metadata.append(CreatePartitionsMetadata(topic, sorted(updated)))
                if not validate_only:
                    self.info(f"Creating {req.count - old} partitions for '{topic}' with the following replica "
                              f"assignment: { {p: r for p, r in updated.items() if p >= old} }.")
            except ApiException as e:
                metadata.append(CreatePartitionsMetadata(topic, [], e.error, str(e)))

        def respond(results):
            response_callback(results)

        if timeout_ms <= 0 or validate_only or not any(m.error is Errors.NONE for m in metadata):
            respond({m.topic: (m.error, m.message) for m in metadata})
        else:
            delayed = DelayedCreatePartitions(timeout_ms, metadata, self, respond)
            self.topic_purgatory.try_complete_else_watch(delayed, [TopicKey(m.topic) for m in metadata])

    # Kafka: AdminManager.deleteTopics
    def delete_topics(self, timeout_ms: int, to_delete: list[str], response_callback) -> None:
        results = []
        for topic in to_delete:
            try:
                self.admin_zk_client.delete_topic(topic)
                self.info(f"Marked topic {topic} for deletion")
                results.append((topic, Errors.NONE))
            except ApiException as e:
                results.append((topic, e.error))
        if timeout_ms <= 0 or not any(err is Errors.NONE for _, err in results):
            response_callback(dict(results))
        else:
            delayed = DelayedDeleteTopics(timeout_ms, results, self, response_callback)
            self.topic_purgatory.try_complete_else_watch(delayed, [TopicKey(t) for t, _ in results])

    def shutdown(self) -> None:
        self.topic_purgatory.shutdown()
