"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicaManager.scala

Classes: ReplicaManager, PartitionResponse, LogAppendResult, LogReadResult, FetchPartitionData.

The hub between KafkaApis and the partitions (S29–S35):
- ``become_leader_or_follower`` turns the controller's LEADER_AND_ISR into Partitions and logs;
- ``append_records`` → ``append_to_local_log`` (one ``Partition.append_records_to_leader`` per
  partition), then answers at once (acks 0/1) or parks a DelayedProduce (acks=-1, S33–S34);
- ``fetch_messages`` → ``read_from_local_log``, then answers at once or parks a DelayedFetch
  (S35) that the next append to one of its partitions completes (S32).
Omitted: replica fetchers and follower fetch state (tier 2), log dir failure handling, quotas.
"""
from __future__ import annotations

import threading

import attrs

from kafkalite.cluster.partition import Partition
from kafkalite.common import topic as Topic
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionError, LeaderAndIsrResponse
from kafkalite.server.delayed_operation import DelayedOperationPurgatory
from kafkalite.server.delayed_operation_key import TopicPartitionOperationKey
from kafkalite.utils.logging import Logging

FUTURE_LOCAL_REPLICA_ID = -3


@attrs.define
class PartitionResponse:
    """Kafka: ProduceResponse.PartitionResponse."""

    error: Errors
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    error_message: str | None = None


@attrs.define
class LogAppendResult:
    """Kafka: LogAppendResult(info, exception)."""

    info: object | None
    exception: Exception | None = None

    @property
    def error(self) -> Errors:
        return Errors.NONE if self.exception is None else Errors.for_exception(self.exception)


@attrs.define
class LogReadResult:
    """Kafka: LogReadResult."""

    info: object | None        # FetchDataInfo
    high_watermark: int = -1
    leader_log_start_offset: int = -1
    leader_log_end_offset: int = -1
    last_stable_offset: int = -1
    error: Errors = Errors.NONE

    def records_size(self) -> int:
        return self.info.records.size_in_bytes() if self.info is not None else 0


@attrs.define
class FetchPartitionData:
    """Kafka: FetchPartitionData -- what the Fetch response needs per partition."""

    error: Errors
    high_watermark: int
    log_start_offset: int
    last_stable_offset: int
    records: object | None


class ReplicaManager(Logging):
    """Kafka: ReplicaManager(config, metrics, time, zkClient, scheduler, logManager, isShuttingDown, quotaManagers,
    brokerTopicStats, metadataCache, logDirFailureChannel, ...)."""

    def __init__(self, config, time, zk_client, scheduler, log_manager, metadata_cache, log_config_fn):
        self.config = config
        self.time = time
        self.zk_client = zk_client
        self.scheduler = scheduler
        self.log_manager = log_manager
        self.metadata_cache = metadata_cache
        self.local_broker_id = config.broker_id
        self.log_config_fn = log_config_fn
        self.log_ident = f"[ReplicaManager broker={config.broker_id}] "
        self.all_partitions: dict[TopicPartition, Partition] = {}
        self.controller_epoch = 0
        self.replica_state_change_lock = threading.RLock()
        bid = config.broker_id
        self.delayed_produce_purgatory = DelayedOperationPurgatory(
            "Produce", broker_id=bid, purge_interval=config.get("producer.purgatory.purge.interval.requests"))
        self.delayed_fetch_purgatory = DelayedOperationPurgatory(
            "Fetch", broker_id=bid, purge_interval=config.get("fetch.purgatory.purge.interval.requests"))
        self.delayed_delete_records_purgatory = DelayedOperationPurgatory("DeleteRecords", broker_id=bid)

    def log_config_for(self, topic: str):
        return self.log_config_fn(topic)

    # Kafka: ReplicaManager.startup
    def startup(self) -> None:
        pass   # isr-expiration and isr-change-propagation are scheduled with replication (tier 2)

    # ------------------------------------------------------------------ partitions
    # Kafka: ReplicaManager.getPartition
    def get_partition(self, tp: TopicPartition) -> Partition | None:
        return self.all_partitions.get(tp)

    # Kafka: ReplicaManager.getPartitionOrException
    def get_partition_or_exception(self, tp: TopicPartition, expect_leader: bool = True) -> Partition:
        partition = self.all_partitions.get(tp)
        if partition is None or partition.log is None:
            if self.metadata_cache.get_partition_info(tp.topic, tp.partition) is not None:
                raise Errors.NOT_LEADER_FOR_PARTITION.exception(f"Broker {self.local_broker_id} is not a replica "
                                                                f"of {tp}")
            raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"This server does not host this topic-partition: {tp}")
        if expect_leader and not partition.is_leader():
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(f"Leader not local for partition {tp} on broker "
                                                            f"{self.local_broker_id}")
        return partition

    # Kafka: ReplicaManager.getLog
    def get_log(self, tp: TopicPartition):
        p = self.all_partitions.get(tp)
        return p.log if p is not None else None

    # Kafka: ReplicaManager.becomeLeaderOrFollower
    def become_leader_or_follower(self, correlation_id: int, request, on_leadership_change) -> LeaderAndIsrResponse:
        with self.replica_state_change_lock:
            states = request.partition_states()
            if request.controller_epoch < self.controller_epoch:
                self.warn(f"Ignoring LeaderAndIsr request from controller {request.controller_id} with correlation "
                          f"id {correlation_id} since its controller epoch {request.controller_epoch} is old. "
                          f"Latest known controller epoch is {self.controller_epoch}")
                return LeaderAndIsrResponse(error_code=Errors.STALE_CONTROLLER_EPOCH.code)
            self.controller_epoch = request.controller_epoch
            errors: dict[TopicPartition, Errors] = {}
            to_lead, to_follow = [], []
            for st in states:
                tp = TopicPartition(st.topic_name, st.partition_index)
                partition = self.all_partitions.get(tp)
                if partition is None:
                    partition = self.all_partitions[tp] = Partition(tp, self.local_broker_id, self.time, self)
                if st.leader_epoch < partition.leader_epoch:
                    self.warn(f"Ignoring LeaderAndIsr request for {tp}: leader epoch {st.leader_epoch} is older "
                              f"than the current {partition.leader_epoch}")
                    errors[tp] = Errors.STALE_CONTROLLER_EPOCH
                    continue
                if self.local_broker_id not in st.replicas:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                (to_lead if st.leader == self.local_broker_id else to_follow).append((partition, st))
            leaders = self.make_leaders(request.controller_id, to_lead, correlation_id, errors)
            followers = self.make_followers(request.controller_id, to_follow, correlation_id, errors)
            on_leadership_change(leaders, followers)
            return LeaderAndIsrResponse(error_code=0, partition_errors=[
                LeaderAndIsrPartitionError(topic_name=tp.topic, partition_index=tp.partition, error_code=e.code)
                for tp, e in errors.items()])

    # Kafka: ReplicaManager.makeLeaders
    def make_leaders(self, controller_id, partition_states, correlation_id, errors) -> list[Partition]:
        made = []
        for partition, st in partition_states:
            try:
                if partition.make_leader(controller_id, st, correlation_id):
                    made.append(partition)
                errors[partition.topic_partition] = Errors.NONE
            except Exception as e:  # noqa: BLE001
                self.error(f"Error while making broker the leader for partition {partition.topic_partition}: {e}",
                           exc_info=True)
                errors[partition.topic_partition] = Errors.for_exception(e) if isinstance(e, ApiException) \
                    else Errors.KAFKA_STORAGE_ERROR
        return made

    # Kafka: ReplicaManager.makeFollowers
    def make_followers(self, controller_id, partition_states, correlation_id, errors) -> list[Partition]:
        made = []
        for partition, st in partition_states:
            try:
                if partition.make_follower(controller_id, st, correlation_id):
                    made.append(partition)
                errors[partition.topic_partition] = Errors.NONE
            except Exception as e:  # noqa: BLE001
                self.error(f"Error while making broker a follower for partition {partition.topic_partition}: {e}")
                errors[partition.topic_partition] = Errors.KAFKA_STORAGE_ERROR
        return made

    # Kafka: ReplicaManager.maybeUpdateMetadataCache
    def maybe_update_metadata_cache(self, correlation_id: int, request) -> list[TopicPartition]:
        with self.replica_state_change_lock:
            if request.controller_epoch < self.controller_epoch:
                raise Errors.STALE_CONTROLLER_EPOCH.exception(
                    f"Received update metadata request with correlation id {correlation_id} from an old controller "
                    f"{request.controller_id} with epoch {request.controller_epoch}. Latest known controller epoch "
                    f"is {self.controller_epoch}")
            self.controller_epoch = request.controller_epoch
            deleted = self.metadata_cache.update_metadata(correlation_id, request)
            return [TopicPartition(t, p) for t, p in deleted]

    # Kafka: ReplicaManager.stopReplicas
    def stop_replicas(self, request) -> tuple[dict[TopicPartition, Errors], Errors]:
        with self.replica_state_change_lock:
            if request.controller_epoch < self.controller_epoch:
                return {}, Errors.STALE_CONTROLLER_EPOCH
            self.controller_epoch = request.controller_epoch
            result = {}
            for topic, partition in request.partitions():
                tp = TopicPartition(topic, partition)
                try:
                    self.stop_replica(tp, request.delete_partitions)
                    result[tp] = Errors.NONE
                except Exception as e:  # noqa: BLE001
                    self.error(f"Error while deleting replica for {tp}: {e}")
                    result[tp] = Errors.KAFKA_STORAGE_ERROR
            return result, Errors.NONE

    # Kafka: ReplicaManager.stopReplica
    def stop_replica(self, tp: TopicPartition, delete_partition: bool) -> None:
        partition = self.all_partitions.get(tp)
        if delete_partition:
            if partition is not None:
                self.all_partitions.pop(tp, None)
                partition.delete()
            if self.log_manager.get_log(tp) is not None:
                self.log_manager.async_delete(tp)
        elif partition is not None:
            partition.leader_replica_id_opt = None
        # any request waiting on this partition completes now (with an error)
        key = TopicPartitionOperationKey.from_topic_partition(tp)
        self.delayed_produce_purgatory.check_and_complete(key)
        self.delayed_fetch_purgatory.check_and_complete(key)

    # Kafka: ReplicaManager.tryCompleteDelayedFetch / tryCompleteDelayedProduce (S32)
    def try_complete_delayed_requests(self, tp: TopicPartition) -> None:
        key = TopicPartitionOperationKey.from_topic_partition(tp)
        self.delayed_fetch_purgatory.check_and_complete(key)
        self.delayed_produce_purgatory.check_and_complete(key)

    def is_internal_topic_allowed(self, topic: str, internal_topics_allowed: bool) -> bool:
        return internal_topics_allowed or not Topic.is_internal(topic)

    # Kafka: ReplicaManager.shutdown
    def shutdown(self, checkpoint_hw: bool = True) -> None:
        self.info("Shutting down")
        self.delayed_fetch_purgatory.shutdown()
        self.delayed_produce_purgatory.shutdown()
        self.delayed_delete_records_purgatory.shutdown()
        self.info("Shut down completely")
