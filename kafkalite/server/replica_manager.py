"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicaManager.scala

Classes: ReplicaManager, PartitionResponse, LogAppendResult, LogReadResult, FetchPartitionData.

The hub between KafkaApis and the partitions (S29–S35):
- ``become_leader_or_follower`` turns the controller's LEADER_AND_ISR into Partitions and logs;
- ``append_records`` → ``append_to_local_log`` (one ``Partition.append_records_to_leader`` per
  partition), then answers at once (acks 0/1) or parks a DelayedProduce (acks=-1, S33–S34);
- ``fetch_messages`` → ``read_from_local_log``, then answers at once or parks a DelayedFetch
  (S35) that the next append to one of its partitions completes (S32). A fetch from a follower
  (``replica_id`` >= 0) first records where the follower is (``update_follower_fetch_state``): that
  moves the high watermark and completes delayed produces waiting for acks=-1 (S32, S33).
- ``make_followers`` hands partitions to the ReplicaFetcherManager (S9), ``make_leaders`` takes them
  away; the ``isr-expiration`` task shrinks ISRs, ``isr-change-propagation`` tells the controller,
  ``highwatermark-checkpoint`` writes each log dir's ``replication-offset-checkpoint``.
- Several ``log.dirs`` (KIP-113): ``describe_log_dirs`` reports each dir's partitions (size, lag, future or
  not); ``alter_replica_log_dirs`` moves a replica to another dir: it creates the partition's future log there
  and hands the partition to the ReplicaAlterLogDirsManager, whose thread copies the current log into it and
  swaps them (``Partition.maybe_replace_current_with_future_replica``). A future log found at start-up resumes
  its move with the first LeaderAndIsr that names the partition, and so does a move whose thread a new leader
  epoch fenced (``maybe_add_log_dir_fetchers``, Kafka 2.6).
Transactions: ``append_records`` takes an ``origin`` (AppendOrigin.CLIENT for producers, COORDINATOR for
the group coordinator's offsets and WriteTxnMarkers' control batches; 2.4 passes a bool isFromClient,
which is still accepted). A read_committed consumer fetch (isolation level 1) reads with
FetchIsolation.FETCH_TXN_COMMITTED: up to the last stable offset, with the aborted transactions.
``active_producer_state`` (KIP-664, Kafka 3.0) serves DescribeProducers.
Replication quotas: a follower's fetch carries the leader's ReplicationQuotaManager (KafkaApis.replication_quota);
a throttled partition of a follower not in the ISR is read as no records while the leader's rate is over its
bound (``should_leader_throttle``); the fetcher threads are given the follower / alter-log-dirs managers.
"""
from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

import attrs

from kafkalite.cluster.partition import DelayedOperations, Partition, ZkPartitionStateStore
from kafkalite.common import topic as Topic
from kafkalite.common.record_validation_exception import RecordValidationException
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.log.checkpoint_file import LazyOffsetCheckpoints, OffsetCheckpointFile
from kafkalite.log.fetch_data_info import FetchDataInfo, FetchIsolation
from kafkalite.log.log_dir_failure_channel import is_out_of_descriptors
from kafkalite.log.log_file_utils import log_dir_name
from kafkalite.log.log import to_append_origin
from kafkalite.log.log_offset_metadata import LogOffsetMetadata
from kafkalite.metrics.broker_topic_stats import BROKER_TOPIC_STATS
from kafkalite.metrics.kafka_metrics_group import MetricsGroup
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.server.delayed_delete_records import INVALID_LOW_WATERMARK, DeleteRecordsPartitionStatus, DelayedDeleteRecords
from kafkalite.server.delayed_elect_leader import DelayedElectLeader
from kafkalite.server.delayed_fetch import DelayedFetch, FetchMetadata, FetchPartitionStatus
from kafkalite.server.delayed_operation import DelayedOperationPurgatory
from kafkalite.server.delayed_produce import DelayedProduce, ProducePartitionStatus
from kafkalite.server.delayed_operation_key import TopicPartitionOperationKey
from kafkalite.cluster.broker_end_point import BrokerEndPoint
from kafkalite.server.replica_alter_log_dirs_manager import ReplicaAlterLogDirsManager
from kafkalite.server.replica_fetcher_manager import InitialFetchState, ReplicaFetcherManager
from kafkalite.server.replication_quota_manager import UnboundedQuota
from kafkalite.utils.logging import Logging
from kafkalite.utils.shutdownable_thread import ShutdownableThread

if TYPE_CHECKING:
    from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrResponse

HIGH_WATERMARK_FILENAME = "replication-offset-checkpoint"   # Kafka: ReplicaManager.HighWatermarkFilename
ISR_CHANGE_PROPAGATION_BLACK_OUT_MS = 5000                  # Kafka: ReplicaManager.IsrChangePropagationBlackOut
ISR_CHANGE_PROPAGATION_INTERVAL_MS = 60000                  # Kafka: ReplicaManager.IsrChangePropagationInterval
# Kafka: appendToLocalLog's first case -- errors answered with no log start offset (and not logged)
_APPEND_ERRORS_WITHOUT_LOG_START = tuple(error.exception_class for error in (
    Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_FOR_PARTITION, Errors.MESSAGE_TOO_LARGE,
    Errors.RECORD_LIST_TOO_LARGE, Errors.CORRUPT_MESSAGE, Errors.KAFKA_STORAGE_ERROR))
KAFKA_9087 = "KAFKA-9087"   # switched off: a resumed log-dir move starts at the current log's high watermark (2.4)


@attrs.define
class PartitionResponse:
    """Kafka: ProduceResponse.PartitionResponse."""

    error: Errors
    base_offset: int = -1
    log_append_time: int = -1
    log_start_offset: int = -1
    record_errors: tuple | list = ()   # [RecordError]: Produce v8 (KIP-467)
    error_message: str | None = None


@attrs.define
class LogAppendResult:
    """Kafka: LogAppendResult(info, exception). A failed append has no info here; what Kafka keeps in its
    stand-in info (LogAppendInfo.unknownLogAppendInfoWithAdditionalInfo) -- the log start offset, the record
    errors and their message -- sits in the result's own fields."""

    info: object | None
    exception: Exception | None = None
    log_start_offset: int = -1
    record_errors: tuple | list = ()
    error_message: str | None = None

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
    follower_log_start_offset: int = -1
    fetch_time_ms: int = -1
    follower_needs_hw_update: bool = False

    def records_size(self) -> int:
        return self.info.records.size_in_bytes() if self.info is not None else 0

    # Kafka: LogReadResult.withEmptyFetchInfo
    def with_empty_fetch_info(self) -> "LogReadResult":
        return attrs.evolve(self, info=FetchDataInfo(LogOffsetMetadata(-1), MemoryRecords.EMPTY))


@attrs.define
class FetchPartitionData:
    """Kafka: FetchPartitionData -- what the Fetch response needs per partition."""

    error: Errors
    high_watermark: int
    log_start_offset: int
    last_stable_offset: int
    records: object | None
    aborted_transactions: list | None = None   # [(producer_id, first_offset)] for read_committed fetches


class ReplicaManager(Logging):
    """Kafka: ReplicaManager(config, metrics, time, zkClient, scheduler, logManager, isShuttingDown, quotaManagers,
    brokerTopicStats, metadataCache, logDirFailureChannel, ...)."""

    def __init__(self, config, time, zk_client, scheduler, log_manager, metadata_cache, log_config_fn,
                 log_dir_failure_channel=None, quota_managers=None):
        self.config = config
        self.quota_managers = quota_managers   # None (tests): replication is never throttled
        self.time = time
        self.zk_client = zk_client
        self.scheduler = scheduler
        self.log_manager = log_manager
        self.metadata_cache = metadata_cache
        self.local_broker_id = config.broker_id
        self.log_config_fn = log_config_fn
        self.log_ident = f"[ReplicaManager broker={config.broker_id}] "
        self.all_partitions: dict[TopicPartition, Partition] = {}
        # Kafka: HostedPartition.Offline -- partitions whose log dir failed; they answer KAFKA_STORAGE_ERROR
        self.offline_partitions: set[TopicPartition] = set()
        # No Kafka counterpart: partitions whose log could not be created (out of file descriptors: the log dir
        # stays online, see LogDirFailureChannel) -> why; answered KAFKA_STORAGE_ERROR until a LeaderAndIsr
        # creates the log or the partition is deleted, and told to CreateTopics (AdminManager.log_creation_error)
        self.log_creation_failures: dict[TopicPartition, str] = {}
        self.log_dir_failure_channel = log_dir_failure_channel
        self.log_dir_failure_handler: LogDirFailureHandler | None = None
        self.controller_epoch = 0
        self.active_controller_id = -1
        self.replica_state_change_lock = threading.RLock()
        bid = config.broker_id
        self.delayed_produce_purgatory = DelayedOperationPurgatory(
            "Produce", broker_id=bid, purge_interval=config.get("producer.purgatory.purge.interval.requests"))
        self.delayed_fetch_purgatory = DelayedOperationPurgatory(
            "Fetch", broker_id=bid, purge_interval=config.get("fetch.purgatory.purge.interval.requests"))
        self.delayed_delete_records_purgatory = DelayedOperationPurgatory("DeleteRecords", broker_id=bid)
        self.delayed_elect_leader_purgatory = DelayedOperationPurgatory("ElectLeader", broker_id=bid)
        # switches for tests that show what one of Kafka's replication fixes prevents (kafkalite.test.disable.fixes)
        self.disabled_fixes = frozenset(config.get("kafkalite.test.disable.fixes") or ())
        self.replica_lag_time_max_ms = config.get("replica.lag.time.max.ms")
        self.is_shutting_down = threading.Event()
        metrics = MetricsGroup("kafka.server", "ReplicaManager")
        self.isr_expand_rate = metrics.new_meter("IsrExpandsPerSec", "expands")
        self.isr_shrink_rate = metrics.new_meter("IsrShrinksPerSec", "shrinks")
        self.failed_isr_updates_rate = metrics.new_meter("FailedIsrUpdatesPerSec", "failedUpdates")
        # partitions whose ISR this broker changed, until the isr-change-propagation task tells the controller
        self.isr_change_set: set[TopicPartition] = set()
        self.isr_change_lock = threading.Lock()
        self.last_isr_change_ms = time.milliseconds()
        self.last_isr_propagation_ms = time.milliseconds()
        self.high_watermark_checkpoints = {
            d: OffsetCheckpointFile(os.path.join(d, HIGH_WATERMARK_FILENAME)) for d in log_manager.live_log_dirs}
        self.high_watermark_checkpoint_thread_started = False
        self.replica_fetcher_manager = self.create_replica_fetcher_manager()
        self.replica_alter_log_dirs_manager = self.create_replica_alter_log_dirs_manager()

    # Kafka: ReplicaManager.createReplicaFetcherManager
    def create_replica_fetcher_manager(self) -> ReplicaFetcherManager:
        quota = UnboundedQuota if self.quota_managers is None else self.quota_managers.follower
        return ReplicaFetcherManager(self.config, self, self.time, quota_manager=quota)

    # Kafka: ReplicaManager.createReplicaAlterLogDirsManager
    def create_replica_alter_log_dirs_manager(self) -> ReplicaAlterLogDirsManager:
        quota = UnboundedQuota if self.quota_managers is None else self.quota_managers.alter_log_dirs
        return ReplicaAlterLogDirsManager(self.config, self, self.time, quota_manager=quota)

    # Kafka: ReplicaManager.shutdownIdleReplicaAlterLogDirsThread -- a thread whose partitions all moved stays up
    # until this task stops it
    def shutdown_idle_replica_alter_log_dirs_thread(self) -> None:
        self.replica_alter_log_dirs_manager.shutdown_idle_fetcher_threads()

    # Kafka: ReplicaManager.startup
    def startup(self) -> None:
        self.scheduler.schedule("isr-expiration", self.maybe_shrink_isr, 0, self.replica_lag_time_max_ms // 2)
        self.scheduler.schedule("isr-change-propagation", self.maybe_propagate_isr_changes, 0, 2500)
        self.scheduler.schedule("shutdown-idle-replica-alter-log-dirs-thread",
                                self.shutdown_idle_replica_alter_log_dirs_thread, 0, 10000)
        if self.log_dir_failure_channel is not None:
            self.log_dir_failure_handler = LogDirFailureHandler("LogDirFailureHandler", self)
            self.log_dir_failure_handler.start()

    # Kafka: ReplicaManager.handleLogDirFailure -- the failed dir's partitions go offline (KAFKA_STORAGE_ERROR),
    # requests waiting on them complete, and the LogManager stops serving the dir (halting with none left).
    # Then /log_dir_event_notification tells the controller, which asks this broker about all its replicas
    # (LeaderAndIsr) and elects other leaders for those it answers KAFKA_STORAGE_ERROR for.
    def handle_log_dir_failure(self, d: str, send_zk_notification: bool = True) -> None:
        if not self.log_manager.is_log_dir_online(d):
            return
        self.warn(f"Stopping serving replicas in dir {d}")
        with self.replica_state_change_lock:
            offline = [tp for tp, p in self.all_partitions.items()
                       if p.log is not None and p.log.parent_dir == d]
            with_offline_future = [p for p in self.all_partitions.values()
                                   if p.future_log is not None and p.future_log.parent_dir == d]
            self.replica_fetcher_manager.remove_fetcher_for_partitions(set(offline))
            self.replica_alter_log_dirs_manager.remove_fetcher_for_partitions(
                set(offline) | {p.topic_partition for p in with_offline_future})
            for partition in with_offline_future:
                partition.remove_future_local_replica(delete_from_log_dir=False)
            for tp in offline:
                self.all_partitions.pop(tp).delete()
                self.offline_partitions.add(tp)
            self.info(f"Partitions {','.join(map(str, offline))} are offline due to failure on log directory {d}")
        for tp in offline:
            self.complete_delayed_fetch_or_produce_requests(tp)
        self.log_manager.handle_log_dir_failure(d)
        if send_zk_notification and self.zk_client is not None:
            try:
                self.zk_client.propagate_log_dir_event(self.local_broker_id)
            except Exception as e:  # noqa: BLE001 -- no Kafka counterpart: the embedded ZooKeeper store lives
                # in the first log dir, which may be the one that failed; this thread must survive to handle the
                # next dir (and to halt when none is left)
                self.error(f"Error while telling the controller about the failure of log dir {d}: {e}")
        self.info(f"Stopped serving replicas in dir {d}")

    # ------------------------------------------------------------------ ISR changes and high watermarks
    # Kafka: ReplicaManager.recordIsrChange -- called by a partition's state store after an ISR write
    def record_isr_change(self, tp: TopicPartition) -> None:
        with self.isr_change_lock:
            self.isr_change_set.add(tp)
            self.last_isr_change_ms = self.time.milliseconds()

    # Kafka: ReplicaManager.maybePropagateIsrChanges -- the isr-change-propagation task: ISR changes go to
    # /isr_change_notification once none happened for 5 s, or at least every 60 s while they keep coming
    def maybe_propagate_isr_changes(self) -> None:
        now = self.time.milliseconds()
        with self.isr_change_lock:
            if self.isr_change_set and (
                    self.last_isr_change_ms + ISR_CHANGE_PROPAGATION_BLACK_OUT_MS < now
                    or self.last_isr_propagation_ms + ISR_CHANGE_PROPAGATION_INTERVAL_MS < now):
                if self.zk_client is not None:
                    self.zk_client.propagate_isr_changes(sorted(self.isr_change_set))
                self.isr_change_set.clear()
                self.last_isr_propagation_ms = now

    # Kafka: ReplicaManager.maybeShrinkIsr -- the isr-expiration task
    def maybe_shrink_isr(self) -> None:
        self.trace("Evaluating ISR list of partitions to see which replicas can be removed from the ISR")
        for tp in list(self.all_partitions):
            partition = self.non_offline_partition(tp)
            if partition is not None and partition.log is not None:
                partition.maybe_shrink_isr(self.replica_lag_time_max_ms)

    # Kafka: ReplicaManager.startHighWatermarkCheckPointThread -- after the first LeaderAndIsr, when every
    # partition it names exists
    def start_high_watermark_check_point_thread(self) -> None:
        if not self.high_watermark_checkpoint_thread_started:
            self.high_watermark_checkpoint_thread_started = True
            interval = self.config.get("replica.high.watermark.checkpoint.interval.ms")
            self.scheduler.schedule("highwatermark-checkpoint", self.checkpoint_high_watermarks, interval, interval)

    # Kafka: ReplicaManager.checkpointHighWatermarks -- each log dir's replication-offset-checkpoint
    def checkpoint_high_watermarks(self) -> None:
        by_dir: dict[str, dict[TopicPartition, int]] = {}
        for partition in list(self.all_partitions.values()):
            for log in (partition.log, partition.future_log):
                if log is not None:
                    by_dir.setdefault(log.parent_dir, {})[partition.topic_partition] = log.high_watermark
        for d, high_watermarks in by_dir.items():
            checkpoint = self.high_watermark_checkpoints.get(d)
            if checkpoint is None or d not in self.log_manager.live_log_dirs:
                continue
            try:
                checkpoint.write(high_watermarks)
            except OSError as e:
                self.error(f"Error while writing to highwatermark file in directory {d}: {e}")
                if self.log_dir_failure_channel is not None:
                    self.log_dir_failure_channel.maybe_add_offline_log_dir(d, f"Error writing {checkpoint.path}", e)

    # ------------------------------------------------------------------ partitions
    # Kafka: ReplicaManager.nonOfflinePartition
    def non_offline_partition(self, tp: TopicPartition) -> Partition | None:
        return self.all_partitions.get(tp)

    # Kafka: ReplicaManager.localLogOrException
    def local_log_or_exception(self, tp: TopicPartition):
        return self.get_partition_or_exception(tp, expect_leader=False).local_log_or_exception()

    # Kafka: ReplicaManager.futureLocalLogOrException
    def future_local_log_or_exception(self, tp: TopicPartition):
        return self.get_partition_or_exception(tp, expect_leader=False).future_local_log_or_exception()

    # Kafka: ReplicaManager.localLog
    def local_log(self, tp: TopicPartition):
        partition = self.non_offline_partition(tp)
        return None if partition is None else partition.log

    # Kafka: ReplicaManager.getLogDir
    def get_log_dir(self, tp: TopicPartition) -> str | None:
        log = self.local_log(tp)
        return None if log is None else log.parent_dir

    # Kafka: ReplicaManager.getPartition
    def get_partition(self, tp: TopicPartition) -> Partition | None:
        return self.all_partitions.get(tp)

    # Kafka: ReplicaManager.getPartitionOrException (getPartitionOrError) -- a partition this broker does not host
    # but the cluster has: NOT_LEADER_FOR_PARTITION when the caller wants the leader (clients refresh their
    # metadata), else REPLICA_NOT_AVAILABLE. Leadership of a hosted partition is not checked here: the Partition
    # method called next checks it, after the request's leader epoch where it has one (Fetch, ListOffsets,
    # OffsetsForLeaderEpoch: FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH come before NOT_LEADER_FOR_PARTITION)
    def get_partition_or_exception(self, tp: TopicPartition, expect_leader: bool = True) -> Partition:
        partition = self.all_partitions.get(tp)
        if partition is None or partition.log is None:
            if tp in self.offline_partitions:
                raise Errors.KAFKA_STORAGE_ERROR.exception(f"Partition {tp} is in an offline log directory")
            failure = self.log_creation_failures.get(tp)
            if failure is not None:
                raise Errors.KAFKA_STORAGE_ERROR.exception(f"The log of {tp} could not be created: {failure}")
            if self.metadata_cache.get_partition_info(tp.topic, tp.partition) is not None:
                error = Errors.NOT_LEADER_FOR_PARTITION if expect_leader else Errors.REPLICA_NOT_AVAILABLE
                raise error.exception(f"Broker {self.local_broker_id} is not a replica of {tp}")
            raise Errors.UNKNOWN_TOPIC_OR_PARTITION.exception(f"This server does not host this topic-partition: {tp}")
        return partition

    def log_creation_error(self, topic: str, partition: int) -> str | None:
        """Why this broker could not create the log of a partition it was told to host (None: it did not fail)."""
        return self.log_creation_failures.get(TopicPartition(topic, partition))

    # Kafka: ReplicaManager.getLog
    def get_log(self, tp: TopicPartition):
        return self.log_manager.get_log(tp)

    # No Kafka counterpart. Kafka 2.4 compares the request's controller epoch with the latest one it knows
    # (the checks at the top of becomeLeaderOrFollower, maybeUpdateMetadataCache and stopReplicas) and trusts
    # the rest to the ClusterAction ACL check in KafkaApis. kafkalite has no ACLs yet, so a plain client could
    # forge a control request with a huge epoch and make the broker ignore its real controller. A controller
    # this broker has not heard from before is therefore believed only when ZooKeeper names it: /controller
    # holds its id and /controller_epoch its epoch (a new controller writes both in one transaction before
    # it sends anything). Requests from the known controller at the known epoch cost no ZooKeeper read.
    def is_from_current_controller(self, request, what: str, correlation_id: int) -> bool:
        controller_id, controller_epoch = request.controller_id, request.controller_epoch
        if controller_epoch < self.controller_epoch:
            self.warn(f"Ignoring {what} request from controller {controller_id} with correlation id "
                      f"{correlation_id} since its controller epoch {controller_epoch} is old. Latest known "
                      f"controller epoch is {self.controller_epoch}")
            return False
        if (controller_id, controller_epoch) == (self.active_controller_id, self.controller_epoch):
            return True
        if self.zk_client is not None:
            registered_id = self.zk_client.get_controller_id()
            registered_epoch = self.zk_client.get_controller_epoch()
            if registered_id != controller_id or registered_epoch is None or registered_epoch[0] != controller_epoch:
                self.warn(f"Ignoring {what} request from controller {controller_id} with correlation id "
                          f"{correlation_id} and controller epoch {controller_epoch}: ZooKeeper names controller "
                          f"{registered_id} with epoch {registered_epoch[0] if registered_epoch else None}")
                return False
        self.active_controller_id, self.controller_epoch = controller_id, controller_epoch
        return True

    # Kafka: ReplicaManager.becomeLeaderOrFollower
    def become_leader_or_follower(self, correlation_id: int, request, on_leadership_change) -> LeaderAndIsrResponse:
        from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionError, LeaderAndIsrResponse
        with self.replica_state_change_lock:
            states = request.partition_states()
            if not self.is_from_current_controller(request, "LeaderAndIsr", correlation_id):
                return LeaderAndIsrResponse(error_code=Errors.STALE_CONTROLLER_EPOCH.code)
            errors: dict[TopicPartition, Errors] = {}
            to_lead, to_follow = [], []
            for st in states:
                tp = TopicPartition(st.topic_name, st.partition_index)
                if tp in self.offline_partitions:
                    errors[tp] = Errors.KAFKA_STORAGE_ERROR
                    continue
                partition = self.all_partitions.get(tp)
                if partition is None:
                    partition = self.all_partitions[tp] = self.create_partition(tp)
                if st.leader_epoch <= partition.leader_epoch:
                    self.warn(f"Ignoring LeaderAndIsr request from controller {request.controller_id} with "
                              f"correlation id {correlation_id} epoch {request.controller_epoch} for partition {tp} "
                              f"since its associated leader epoch {st.leader_epoch} is not higher than the current "
                              f"leader epoch {partition.leader_epoch}")
                    errors[tp] = Errors.STALE_CONTROLLER_EPOCH
                    continue
                if self.local_broker_id not in st.replicas:
                    errors[tp] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                (to_lead if st.leader == self.local_broker_id else to_follow).append((partition, st))
            high_watermark_checkpoints = LazyOffsetCheckpoints(self.high_watermark_checkpoints)
            leaders = self.make_leaders(request.controller_id, to_lead, correlation_id, errors,
                                        high_watermark_checkpoints)
            followers = self.make_followers(request.controller_id, to_follow, correlation_id, errors,
                                            high_watermark_checkpoints)
            # every partition the request names exists now: the high watermarks can be checkpointed
            self.start_high_watermark_check_point_thread()
            self.maybe_add_log_dir_fetchers([p for p, _ in to_lead + to_follow], high_watermark_checkpoints)
            self.replica_fetcher_manager.shutdown_idle_fetcher_threads()
            self.replica_alter_log_dirs_manager.shutdown_idle_fetcher_threads()
            on_leadership_change(leaders, followers)
            return LeaderAndIsrResponse(error_code=0, partition_errors=[
                LeaderAndIsrPartitionError(topic_name=tp.topic, partition_index=tp.partition, error_code=e.code)
                for tp, e in errors.items()])

    # Kafka 2.6: ReplicaManager.maybeAddLogDirFetchers (KAFKA-9654) -- every partition this LeaderAndIsr updated that
    # has a future log gets it copied: a move the broker did not finish before it stopped resumes, and a move
    # whose thread was fenced by the new leader epoch goes on with it. 2.4 did this for partitions new to the
    # broker only, so a leader epoch bump in the middle of a move stalled it.
    def maybe_add_log_dir_fetchers(self, partitions: list, high_watermark_checkpoints) -> None:
        future_replicas_and_initial_offset = {}
        for partition in partitions:
            tp = partition.topic_partition
            if self.log_manager.get_log(tp, is_future=True) is not None and partition.log is not None:
                partition.create_log_if_not_exists(False, high_watermark_checkpoints, is_future_replica=True)
                # Kafka 3.5: ReplicaManager.maybeAddLogDirFetchers (KAFKA-9087) -- the copy resumes from the future
                # log's high watermark. 2.4 gave the current log's, past the end of a future log that holds less
                # (an empty one, after a restart): the thread then failed the partition with an offset mismatch.
                init_offset = partition.log.high_watermark if KAFKA_9087 in self.disabled_fixes \
                    else partition.future_log.high_watermark
                future_replicas_and_initial_offset[tp] = InitialFetchState(
                    BrokerEndPoint(self.local_broker_id, "localhost", -1), partition.get_leader_epoch(), init_offset)
        if future_replicas_and_initial_offset:
            self.replica_alter_log_dirs_manager.add_fetcher_for_partitions(future_replicas_and_initial_offset)

    # Kafka: ReplicaManager.createPartition
    def create_partition(self, tp: TopicPartition) -> Partition:
        return Partition(tp, self.replica_lag_time_max_ms, self.local_broker_id, self.time,
                         ZkPartitionStateStore(tp, self.zk_client, self, self.log_config_fn),
                         DelayedOperations(tp, self.delayed_produce_purgatory, self.delayed_fetch_purgatory,
                                           self.delayed_delete_records_purgatory),
                         self.metadata_cache, self.log_manager, self.disabled_fixes)

    # Kafka: ReplicaManager.makeLeaders -- stop fetching these partitions first, then lead them
    def make_leaders(self, controller_id, partition_states, correlation_id, errors,
                     high_watermark_checkpoints=None) -> list[Partition]:
        self.replica_fetcher_manager.remove_fetcher_for_partitions({p.topic_partition for p, _ in partition_states})
        return self._change_roles(partition_states, errors, "the leader",
                                  lambda p, st: p.make_leader(controller_id, st, correlation_id,
                                                              high_watermark_checkpoints))

    # Kafka: ReplicaManager.makeFollowers -- mark the partitions followers of their (live) leader, stop their
    # fetchers, complete what waited on them here, then fetch from the new leader from the high watermark
    # (the fetcher first finds where to truncate with OffsetsForLeaderEpoch).
    def make_followers(self, controller_id, partition_states, correlation_id, errors,
                       high_watermark_checkpoints=None) -> list[Partition]:
        with_live_leader, leader_unavailable = [], []
        for partition, st in partition_states:
            if self.metadata_cache.get_alive_broker(st.leader) is not None:
                with_live_leader.append((partition, st))
            else:
                leader_unavailable.append((partition, st))
        for partition, st in leader_unavailable:
            self.error(f"Received LeaderAndIsrRequest with correlation id {correlation_id} from controller "
                       f"{controller_id} for partition {partition.topic_partition} but cannot become follower "
                       f"since the new leader {st.leader} is unavailable.")
            # the log exists even so, so that its high watermark is checkpointed (KAFKA-1647)
            self._change_roles([(partition, st)], errors, "a follower", lambda p, s: p.create_log_if_not_exists(
                getattr(s, "is_new", False), high_watermark_checkpoints))
        partitions_to_make_follower = self._change_roles(
            with_live_leader, errors, "a follower",
            lambda p, st: p.make_follower(controller_id, st, correlation_id, high_watermark_checkpoints))
        self.replica_fetcher_manager.remove_fetcher_for_partitions(
            {p.topic_partition for p in partitions_to_make_follower})
        for partition in partitions_to_make_follower:
            self.complete_delayed_fetch_or_produce_requests(partition.topic_partition)
        if self.is_shutting_down.is_set():
            self.info(f"Skipped the adding-fetcher step of the become-follower state change for "
                      f"{len(partitions_to_make_follower)} partitions since the broker is shutting down")
        else:
            listener = self.config.inter_broker_listener_name
            initial_states = {}
            for partition in partitions_to_make_follower:
                leader = self.metadata_cache.get_alive_broker(partition.leader_replica_id_opt)
                initial_states[partition.topic_partition] = InitialFetchState(
                    leader.broker_end_point(listener), partition.get_leader_epoch(),
                    partition.local_log_or_exception().high_watermark)
            self.replica_fetcher_manager.add_fetcher_for_partitions(initial_states)
        return partitions_to_make_follower

    def _change_roles(self, partition_states, errors, role: str, change) -> list[Partition]:
        """Apply ``change`` to each partition; return those whose role really changed, record errors."""
        changed = []
        for partition, st in partition_states:
            try:
                if change(partition, st):
                    changed.append(partition)
                errors[partition.topic_partition] = Errors.NONE
                self.log_creation_failures.pop(partition.topic_partition, None)
            except Exception as e:  # noqa: BLE001 -- one bad partition must not fail the others
                out_of_descriptors = is_out_of_descriptors(e)
                # one clear line, no traceback, when out of descriptors: LogManager said why
                self.error(f"Error while making broker {role} for partition {partition.topic_partition}: {e}",
                           exc_info=not out_of_descriptors)
                # Kafka 2.4's makeLeaders/makeFollowers answer KAFKA_STORAGE_ERROR only for a KafkaStorageException,
                # which the controller takes for a replica in a failed dir, offline until a restart; anything else
                # is no news about the disk. Nor is running out of descriptors: the dir stays online and the log
                # can be made once they return (kafkalite's deviation, docs/file-descriptors.md); clients still get
                # KAFKA_STORAGE_ERROR (log_creation_failures).
                errors[partition.topic_partition] = e.error if isinstance(e, ApiException) and not out_of_descriptors \
                    else Errors.UNKNOWN_SERVER_ERROR
                if partition.log is None:
                    self.log_creation_failures[partition.topic_partition] = str(e)
        return changed

    # Kafka: ReplicaManager.maybeUpdateMetadataCache
    def maybe_update_metadata_cache(self, correlation_id: int, request) -> list[TopicPartition]:
        with self.replica_state_change_lock:
            if not self.is_from_current_controller(request, "UpdateMetadata", correlation_id):
                raise Errors.STALE_CONTROLLER_EPOCH.exception(
                    f"Received update metadata request with correlation id {correlation_id} from controller "
                    f"{request.controller_id} with epoch {request.controller_epoch}, which is not the current "
                    f"controller. Latest known controller epoch is {self.controller_epoch}")
            deleted = self.metadata_cache.update_metadata(correlation_id, request)
            return [TopicPartition(t, p) for t, p in deleted]

    # Kafka: ReplicaManager.stopReplicas
    def stop_replicas(self, request) -> tuple[dict[TopicPartition, Errors], Errors]:
        with self.replica_state_change_lock:
            if not self.is_from_current_controller(request, "StopReplica", -1):
                return {}, Errors.STALE_CONTROLLER_EPOCH
            result = {}
            # first stop fetchers for all partitions, then stop the corresponding replicas
            partitions = {TopicPartition(topic, partition) for topic, partition in request.partitions()}
            self.replica_fetcher_manager.remove_fetcher_for_partitions(partitions)
            self.replica_alter_log_dirs_manager.remove_fetcher_for_partitions(partitions)
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
            if tp in self.offline_partitions:
                # its files sit in the failed dir and cannot be deleted now: the controller keeps the deletion
                # waiting until this broker restarts (a recreated topic would otherwise meet the old log)
                raise Errors.KAFKA_STORAGE_ERROR.exception(f"Partition {tp} is on an offline disk")
            self.log_creation_failures.pop(tp, None)
            if partition is not None:
                self.all_partitions.pop(tp, None)
                partition.delete()
            if self.log_manager.get_log(tp) is not None:
                self.log_manager.async_delete(tp)
            if self.log_manager.get_log(tp, is_future=True) is not None:
                self.log_manager.async_delete(tp, is_future=True)
        # if we were the leader, operations may still wait on the partition: complete them, as 2.4 does
        self.complete_delayed_fetch_or_produce_requests(tp)

    # Kafka: ReplicaManager.completeDelayedFetchOrProduceRequests -- after a partition stopped here or went
    # offline, whatever waited on it completes now (with an error)
    def complete_delayed_fetch_or_produce_requests(self, tp: TopicPartition) -> None:
        key = TopicPartitionOperationKey.from_topic_partition(tp)
        self.delayed_fetch_purgatory.check_and_complete(key)
        self.delayed_produce_purgatory.check_and_complete(key)

    # ------------------------------------------------------------------ produce (S31, S33, S34)
    # Kafka: ReplicaManager.appendRecords
    def append_records(self, timeout_ms: int, required_acks: int, internal_topics_allowed: bool, origin,
                       entries_per_partition: dict, response_callback) -> None:
        """``origin``: AppendOrigin.CLIENT / COORDINATOR (or 2.4's isFromClient: True = CLIENT, False = COORDINATOR)."""
        origin = to_append_origin(origin)
        if required_acks not in (-1, 0, 1):
            response_callback({tp: PartitionResponse(Errors.INVALID_REQUIRED_ACKS) for tp in entries_per_partition})
            return
        local_produce_results = self.append_to_local_log(internal_topics_allowed, origin,
                                                         entries_per_partition, required_acks)
        produce_status = {}
        for tp, result in local_produce_results.items():
            info = result.info
            produce_status[tp] = ProducePartitionStatus(
                (info.last_offset + 1) if info is not None else -1,
                PartitionResponse(result.error,
                                  info.first_offset if info is not None and info.first_offset is not None else -1,
                                  info.log_append_time if info is not None else -1,
                                  info.log_start_offset if info is not None else result.log_start_offset,
                                  result.record_errors, result.error_message))
        if self.delayed_produce_request_required(required_acks, entries_per_partition, local_produce_results):
            delayed = DelayedProduce(timeout_ms, required_acks, produce_status, self, response_callback)
            keys = [TopicPartitionOperationKey.from_topic_partition(tp) for tp in entries_per_partition]
            self.delayed_produce_purgatory.try_complete_else_watch(delayed, keys)
        else:
            response_callback({tp: s.response_status for tp, s in produce_status.items()})

    # Kafka: ReplicaManager.delayedProduceRequestRequired (S34)
    @staticmethod
    def delayed_produce_request_required(required_acks, entries_per_partition, local_produce_results) -> bool:
        return (required_acks == -1 and len(entries_per_partition) > 0
                and sum(1 for r in local_produce_results.values() if r.exception is not None) < len(entries_per_partition))

    # Kafka: ReplicaManager.appendToLocalLog -- one Partition.append_records_to_leader per partition.
    def append_to_local_log(self, internal_topics_allowed: bool, origin, entries_per_partition: dict,
                            required_acks: int) -> dict:
        results = {}
        for tp, records in entries_per_partition.items():
            if Topic.is_internal(tp.topic) and not internal_topics_allowed:
                results[tp] = LogAppendResult(None, Errors.INVALID_TOPIC_EXCEPTION.exception(
                    f"Cannot append to internal topic {tp.topic}"))
                continue
            try:
                partition = self.get_partition_or_exception(tp, expect_leader=True)
                info = partition.append_records_to_leader(records, origin, required_acks)
                # update stats for successfully appended bytes and messages as bytesInRate and messageInRate
                BROKER_TOPIC_STATS.update_bytes_and_messages_in(tp.topic, records.size_in_bytes(), info.num_messages)
                if self.is_trace_enabled():
                    self.trace(f"{records.size_in_bytes()} written to log {tp} beginning at offset "
                               f"{info.first_offset} and ending at offset {info.last_offset}")
                results[tp] = LogAppendResult(info)
            except _APPEND_ERRORS_WITHOUT_LOG_START as e:
                results[tp] = LogAppendResult(None, e)
            except RecordValidationException as rve:
                results[tp] = LogAppendResult(None, rve.invalid_exception,
                                              self._process_failed_record(tp, rve.invalid_exception),
                                              rve.record_errors, str(rve.invalid_exception))
            except Exception as e:  # noqa: BLE001 -- Kafka: case t: Throwable
                log_start_offset = self._process_failed_record(tp, e)
                if not isinstance(e, ApiException):
                    e = Errors.UNKNOWN_SERVER_ERROR.exception(str(e))
                results[tp] = LogAppendResult(None, e, log_start_offset)
        return results

    # Kafka: ReplicaManager.appendToLocalLog.processFailedRecord -- the partition's log start offset for the
    # answer (-1 when it is not online here). Kafka logs every such failure with its stack trace; kafkalite
    # gives the trace only for an unexpected error, one line for an ApiException (NOT_ENOUGH_REPLICAS, ...)
    def _process_failed_record(self, tp: TopicPartition, e: Exception) -> int:
        hosted = self.all_partitions.get(tp)   # HostedPartition.Online: here, with its log
        log_start_offset = hosted.log_start_offset if hosted is not None and hosted.log is not None else -1
        self.error(f"Error processing append operation on partition {tp}: {e!r}",
                   exc_info=not isinstance(e, ApiException))
        return log_start_offset

    # ------------------------------------------------------------------ ListOffsets, OffsetForLeaderEpoch
    # Kafka: ReplicaManager.fetchOffsetForTimestamp
    def fetch_offset_for_timestamp(self, tp: TopicPartition, timestamp: int, current_leader_epoch: int,
                                   fetch_only_from_leader: bool, is_from_consumer: bool, isolation_level: int = 0):
        partition = self.get_partition_or_exception(tp, expect_leader=fetch_only_from_leader)
        return partition.fetch_offset_for_timestamp(timestamp, current_leader_epoch, fetch_only_from_leader,
                                                    is_from_consumer, isolation_level)

    # Kafka: ReplicaManager.legacyFetchOffsetsForTimestamp -- ListOffsets v0
    def legacy_fetch_offsets_for_timestamp(self, tp: TopicPartition, timestamp: int, max_num_offsets: int,
                                           is_from_consumer: bool, fetch_only_from_leader: bool) -> list[int]:
        partition = self.get_partition_or_exception(tp, expect_leader=fetch_only_from_leader)
        return partition.legacy_fetch_offsets_for_timestamp(timestamp, max_num_offsets, is_from_consumer,
                                                            fetch_only_from_leader)

    # KIP-664 (Kafka 3.0, not in 2.4) ReplicaManager.activeProducerState -- (error, [(producer id, entry)])
    def active_producer_state(self, tp: TopicPartition) -> tuple[Errors, list]:
        try:
            return Errors.NONE, self.get_partition_or_exception(tp, expect_leader=True).active_producer_state()
        except ApiException as e:
            return e.error, []

    # Kafka: ReplicaManager.lastOffsetForLeaderEpoch
    def last_offset_for_leader_epoch(self, tp: TopicPartition, current_leader_epoch: int, leader_epoch: int):
        partition = self.get_partition_or_exception(tp, expect_leader=True)
        return partition.last_offset_for_leader_epoch(current_leader_epoch, leader_epoch, True)

    # ------------------------------------------------------------------ DeleteRecords
    # Kafka: ReplicaManager.deleteRecords -- moves each partition's log start offset (-1: to the high watermark);
    # the answer waits in DelayedDeleteRecords until every live replica's log start offset got there too
    def delete_records(self, timeout_ms: int, offset_per_partition: dict, response_callback) -> None:
        local_results = self.delete_records_on_local_log(offset_per_partition)
        status = {tp: DeleteRecordsPartitionStatus(requested, low_watermark, error)
                  for tp, (requested, low_watermark, error) in local_results.items()}
        if self.delayed_delete_records_required(local_results):
            keys = [TopicPartitionOperationKey.from_topic_partition(tp) for tp in offset_per_partition]
            self.delayed_delete_records_purgatory.try_complete_else_watch(
                DelayedDeleteRecords(timeout_ms, status, self, response_callback), keys)
        else:
            response_callback({tp: (s.low_watermark, s.error) for tp, s in status.items()})

    # Kafka: ReplicaManager.delayedDeleteRecordsRequired
    @staticmethod
    def delayed_delete_records_required(local_results: dict) -> bool:
        return any(error is Errors.NONE and low_watermark < requested
                   for requested, low_watermark, error in local_results.values())

    # Kafka: ReplicaManager.deleteRecordsOnLocalLog -- tp -> (requested offset, low watermark, error); the records
    # of an internal topic (__consumer_offsets, __transaction_state) are never deleted this way
    def delete_records_on_local_log(self, offset_per_partition: dict) -> dict:
        results = {}
        for tp, requested_offset in offset_per_partition.items():
            if Topic.is_internal(tp.topic):
                self.debug(f"Cannot delete records of internal topic {tp.topic}")
                results[tp] = (-1, INVALID_LOW_WATERMARK, Errors.INVALID_TOPIC_EXCEPTION)
                continue
            try:
                partition = self.get_partition_or_exception(tp, expect_leader=True)
                requested, low_watermark = partition.delete_records_on_leader(requested_offset)
                results[tp] = (requested, low_watermark, Errors.NONE)
            except ApiException as e:
                results[tp] = (-1, INVALID_LOW_WATERMARK, e.error)
            except Exception as e:  # noqa: BLE001 -- Kafka: logged, and the partition's error (Errors.forException)
                self.error(f"Error processing delete records operation on partition {tp}", exc_info=True)
                results[tp] = (-1, INVALID_LOW_WATERMARK, Errors.for_exception(e))
        return results

    # ------------------------------------------------------------------ ElectLeaders
    # Kafka: ReplicaManager.electLeaders -- the controller elects; the answer waits (DelayedElectLeader) until
    # this broker's metadata shows the new leaders, at most ``request_timeout_ms``
    def elect_leaders(self, controller, partitions: set, election_type: int, response_callback,
                      request_timeout_ms: int) -> None:
        deadline = self.time.milliseconds() + request_timeout_ms

        def election_callback(results: dict) -> None:
            expected = {tp: leader for tp, (leader, error) in results.items() if error is None}
            failures = {tp: error for tp, (leader, error) in results.items() if error is not None}
            if expected:
                keys = [TopicPartitionOperationKey.from_topic_partition(tp) for tp in expected]
                self.delayed_elect_leader_purgatory.try_complete_else_watch(DelayedElectLeader(
                    max(0, deadline - self.time.milliseconds()), expected, failures, self, response_callback), keys)
            else:
                response_callback(failures)
        controller.elect_leaders(partitions, election_type, election_callback)

    # Kafka: ReplicaManager.hasDelayedElectionOperations
    def has_delayed_election_operations(self) -> bool:
        return self.delayed_elect_leader_purgatory.num_delayed() != 0

    # Kafka: ReplicaManager.tryCompleteElection
    def try_complete_election(self, key) -> None:
        completed = self.delayed_elect_leader_purgatory.check_and_complete(key)
        self.debug(f"Request key {key} unblocked {completed} ElectLeader.")

    # ------------------------------------------------------------------ log dirs (KIP-113)
    # Kafka: ReplicaManager.alterReplicaLogDirs -- for each partition, move its replica to ``destination_dir``:
    # a future log there, filled by a ReplicaAlterLogDirsThread. A partition not hosted yet gets the dir as its
    # preferred one (its log will be created there) and answers REPLICA_NOT_AVAILABLE.
    def alter_replica_log_dirs(self, partition_dirs: dict) -> dict:
        with self.replica_state_change_lock:
            results = {}
            for tp, destination_dir in partition_dirs.items():
                try:
                    # the future directory name must fit in 255 characters (KAFKA-4893)
                    if len(log_dir_name(tp)) + 1 + 32 + len("-future") > 255:
                        raise Errors.INVALID_TOPIC_EXCEPTION.exception("The topic name is too long.")
                    if not self.log_manager.is_log_dir_online(destination_dir):
                        raise Errors.KAFKA_STORAGE_ERROR.exception(f"Log directory {destination_dir} is offline")
                    if tp in self.offline_partitions:
                        raise Errors.KAFKA_STORAGE_ERROR.exception(f"Partition {tp} is offline")
                    partition = self.all_partitions.get(tp)
                    # a move to another dir than the one in progress cancels that one first
                    if partition is not None and partition.future_replica_dir_changed(destination_dir):
                        self.replica_alter_log_dirs_manager.remove_fetcher_for_partitions({tp})
                        partition.remove_future_local_replica()
                    self.log_manager.maybe_update_preferred_log_dir(tp, destination_dir)
                    # Kafka: getPartitionOrException(expectLeader = false) + localLogOrException -- REPLICA_NOT_AVAILABLE
                    # when this broker has no replica (yet) of a partition the metadata knows, UNKNOWN_TOPIC_OR_PARTITION
                    # for one it does not
                    partition = self.get_partition_or_exception(tp, expect_leader=False)
                    if partition.log is None:
                        raise Errors.REPLICA_NOT_AVAILABLE.exception(
                            f"Log for partition {tp} is not available on broker {self.local_broker_id}")
                    high_watermark_checkpoints = LazyOffsetCheckpoints(self.high_watermark_checkpoints)
                    if partition.maybe_create_future_replica(destination_dir, high_watermark_checkpoints):
                        future_log = self.future_local_log_or_exception(tp)
                        initial_fetch_state = InitialFetchState(BrokerEndPoint(self.local_broker_id, "localhost", -1),
                                                                partition.get_leader_epoch(), future_log.high_watermark)
                        self.replica_alter_log_dirs_manager.add_fetcher_for_partitions({tp: initial_fetch_state})
                    results[tp] = Errors.NONE
                except ApiException as e:
                    results[tp] = e.error
                except Exception as e:  # noqa: BLE001
                    self.error(f"Error while changing replica dir for partition {tp}: {e}", exc_info=True)
                    results[tp] = Errors.for_exception(e)
            return results

    # Kafka: ReplicaManager.describeLogDirs -- every configured log dir (offline ones with KAFKA_STORAGE_ERROR)
    # and, in each, the current and future logs of the asked partitions
    def describe_log_dirs(self, partitions: set) -> dict:
        from kafkalite.protocol.messages.describe_log_dirs import LogDirInfo, ReplicaInfo
        logs_by_dir: dict[str, list] = {}
        for log in self.log_manager.all_logs():
            logs_by_dir.setdefault(log.parent_dir, []).append(log)
        result = {}
        for log_dir in dict.fromkeys(self.config.log_dirs):
            absolute_path = os.path.abspath(log_dir)
            try:
                if not self.log_manager.is_log_dir_online(absolute_path):
                    raise Errors.KAFKA_STORAGE_ERROR.exception(f"Log directory {absolute_path} is offline")
                replica_infos = {
                    log.topic_partition: ReplicaInfo(log.size, self.get_log_end_offset_lag(
                        log.topic_partition, log.log_end_offset, log.is_future), log.is_future)
                    for log in logs_by_dir.get(absolute_path, []) if log.topic_partition in partitions}
                result[absolute_path] = LogDirInfo(Errors.NONE, replica_infos)
            except Errors.KAFKA_STORAGE_ERROR.exception_class:
                result[absolute_path] = LogDirInfo(Errors.KAFKA_STORAGE_ERROR, {})
            except Exception as e:  # noqa: BLE001
                self.error(f"Error while describing replica in dir {absolute_path}: {e}", exc_info=True)
                result[absolute_path] = LogDirInfo(Errors.for_exception(e), {})
        return result

    # Kafka: ReplicaManager.getLogEndOffsetLag -- a current log's distance to the high watermark, a future log's
    # to the current log's end; -1 when the partition has no local log
    def get_log_end_offset_lag(self, tp: TopicPartition, log_end_offset: int, is_future: bool) -> int:
        log = self.local_log(tp)
        if log is None:
            from kafkalite.protocol.messages.describe_log_dirs import INVALID_OFFSET_LAG
            return INVALID_OFFSET_LAG
        if is_future:
            return log.log_end_offset - log_end_offset
        return max(log.high_watermark - log_end_offset, 0)

    # ------------------------------------------------------------------ fetch (S31, S35)
    # Kafka: ReplicaManager.fetchMessages
    def fetch_messages(self, timeout_ms: int, replica_id: int, fetch_min_bytes: int, fetch_max_bytes: int,
                       hard_max_bytes_limit: bool, fetch_infos: list, response_callback,
                       isolation_level: int = 0, client_metadata: bool = False, quota=UnboundedQuota) -> None:
        """``fetch_infos``: [(TopicPartition, FetchPartition)] in request order. ``client_metadata``: the request
        carries a client's rack (Fetch v11+, KIP-392). ``quota``: the leader's replication quota for a follower's
        fetch, UnboundedQuota otherwise."""
        from kafkalite.server.replica_alter_log_dirs_thread import FUTURE_LOCAL_REPLICA_ID  # loaded by the first fetch
        is_from_follower = replica_id >= 0
        is_from_consumer = not (is_from_follower or replica_id == FUTURE_LOCAL_REPLICA_ID)
        # Kafka 2.4: a consumer that sends its client metadata (Fetch v11+) may read a follower, up to that
        # follower's high watermark (KIP-392); older consumers, debugging ones (-2) included, read the leader; the
        # ReplicaAlterLogDirsThread (-3) reads its own broker's log. Left out: replica.selector.class, so no
        # preferred read replica is ever named (-1, 2.4's default)
        fetch_only_from_leader = is_from_follower or (is_from_consumer and not client_metadata)
        if not is_from_consumer:
            fetch_isolation = FetchIsolation.FETCH_LOG_END
        elif isolation_level == 1:   # Kafka: IsolationLevel.READ_COMMITTED
            fetch_isolation = FetchIsolation.FETCH_TXN_COMMITTED
        else:
            fetch_isolation = FetchIsolation.FETCH_HIGH_WATERMARK
        results = self.read_from_local_log(replica_id, fetch_only_from_leader, fetch_isolation, fetch_max_bytes,
                                           hard_max_bytes_limit, fetch_infos, quota)
        if is_from_follower:
            results = self.update_follower_fetch_state(replica_id, results)
        bytes_readable = sum(r.records_size() for _, r in results)
        error_reading = any(r.error is not Errors.NONE for _, r in results)
        needs_hw_update = is_from_follower and any(r.follower_needs_hw_update for _, r in results)
        # respond at once: no wait wanted, nothing asked, enough data, an error, or a follower lacking the HW
        if (timeout_ms <= 0 or not fetch_infos or bytes_readable >= fetch_min_bytes or error_reading
                or needs_hw_update):
            response_callback(self.to_fetch_partition_data(results))
            return
        status = [(tp, FetchPartitionStatus(r.info.fetch_offset_metadata, info))
                  for (tp, info), (_, r) in zip(fetch_infos, results)]
        metadata = FetchMetadata(fetch_min_bytes, fetch_max_bytes, hard_max_bytes_limit, fetch_only_from_leader,
                                 fetch_isolation, is_from_follower, replica_id, status, fetch_infos)
        delayed = DelayedFetch(timeout_ms, metadata, self, response_callback, quota)
        keys = [TopicPartitionOperationKey.from_topic_partition(tp) for tp, _ in status]
        self.delayed_fetch_purgatory.try_complete_else_watch(delayed, keys)

    # Kafka: ReplicaManager.readFromLocalLog -- fetch.max.bytes shared across partitions in order;
    # the first batch is returned whole even if larger (min_one_message), unless the client asked for a hard limit.
    def read_from_local_log(self, replica_id: int, fetch_only_from_leader: bool, fetch_isolation: FetchIsolation,
                            fetch_max_bytes: int, hard_max_bytes_limit: bool, fetch_infos: list,
                            quota=UnboundedQuota) -> list:
        limit_bytes = fetch_max_bytes
        min_one_message = not hard_max_bytes_limit
        results = []
        for tp, info in fetch_infos:
            r = self._read(replica_id, tp, info, limit_bytes, min_one_message, fetch_only_from_leader, fetch_isolation,
                           hard_max_bytes_limit, quota)
            size = r.records_size()
            if size > 0:
                min_one_message = False
            limit_bytes = max(0, limit_bytes - size)
            results.append((tp, r))
        return results

    def _read(self, replica_id, tp, info, limit_bytes, min_one_message, fetch_only_from_leader,
              fetch_isolation, hard_max_bytes_limit: bool, quota) -> LogReadResult:
        adjusted_max_bytes = min(info.partition_max_bytes, limit_bytes)
        try:
            partition = self.get_partition_or_exception(tp, expect_leader=fetch_only_from_leader)
            fetch_time_ms = self.time.milliseconds()
            read = partition.read_records(info.fetch_offset, getattr(info, "current_leader_epoch", -1),
                                          adjusted_max_bytes, fetch_isolation, fetch_only_from_leader, min_one_message)
            # does the follower know the high watermark yet? (otherwise answer at once, KIP-392)
            replica = partition.get_replica(replica_id)
            follower_needs_hw_update = replica is not None and replica.last_sent_high_watermark < read.high_watermark
            fetched = read.fetched_data
            if quota is not UnboundedQuota and self.should_leader_throttle(quota, tp, replica_id):
                # a throttled partition, read for an out-of-sync follower while the leader's rate is over: no records
                fetched = FetchDataInfo(fetched.fetch_offset_metadata, MemoryRecords.EMPTY)
            elif not hard_max_bytes_limit and fetched.first_entry_incomplete:
                # Fetch v3+: a partition whose first batch does not fit in what is left of the response's bytes
                # answers no records rather than a cut batch -- the consumer asks again, with room for it, and
                # needs no RecordTooLargeException (Kafka's comment)
                fetched = FetchDataInfo(fetched.fetch_offset_metadata, MemoryRecords.EMPTY)
            return LogReadResult(fetched, read.high_watermark, read.log_start_offset, read.log_end_offset,
                                 read.last_stable_offset, follower_log_start_offset=getattr(info, "log_start_offset", -1),
                                 fetch_time_ms=fetch_time_ms, follower_needs_hw_update=follower_needs_hw_update)
        except ApiException as e:
            return LogReadResult(FetchDataInfo(LogOffsetMetadata(-1), MemoryRecords.EMPTY), error=e.error)
        except Exception as e:  # noqa: BLE001
            self.error(f"Error processing fetch with max size {adjusted_max_bytes} from consumer on partition {tp}: {e}",
                       exc_info=True)
            return LogReadResult(FetchDataInfo(LogOffsetMetadata(-1), MemoryRecords.EMPTY),
                                 error=Errors.UNKNOWN_SERVER_ERROR)

    # Kafka: ReplicaManager.shouldLeaderThrottle -- the partition is throttled, the quota exceeded and the replica
    # not in sync (an in-sync follower is never held back: that would hold back acks=-1 produces)
    def should_leader_throttle(self, quota, topic_partition: TopicPartition, replica_id: int) -> bool:
        # Kafka looks up the partition's ISR first; the same three conditions are tested here cheapest first,
        # as this runs for every partition of every follower fetch and almost no partition is throttled
        if not quota.is_throttled(topic_partition):
            return False
        partition = self.non_offline_partition(topic_partition)
        is_replica_in_sync = partition is not None and replica_id in partition.in_sync_replica_ids
        return not is_replica_in_sync and quota.is_quota_exceeded()

    # Kafka: ReplicaManager.updateFollowerFetchState -- the leader records where each follower is; a follower
    # that is not a replica of the partition gets no records (the offsets stay consistent with them)
    def update_follower_fetch_state(self, follower_id: int, read_results: list) -> list:
        updated = []
        for tp, result in read_results:
            if result.error is Errors.NONE:
                partition = self.non_offline_partition(tp)
                if partition is None:
                    self.warn(f"While recording the replica LEO, the partition {tp} hasn't been created.")
                elif not partition.update_follower_fetch_state(
                        follower_id, result.info.fetch_offset_metadata, result.follower_log_start_offset,
                        result.fetch_time_ms, result.leader_log_end_offset, result.high_watermark):
                    self.warn(f"Leader {self.local_broker_id} failed to record follower {follower_id}'s position "
                              f"{result.info.fetch_offset_metadata.message_offset}, and last sent HW since the replica "
                              f"is not recognized to be one of the assigned replicas "
                              f"{','.join(map(str, partition.all_replica_ids))} for partition {tp}. Empty records "
                              f"will be returned for this partition.")
                    result = result.with_empty_fetch_info()
            updated.append((tp, result))
        return updated

    @staticmethod
    def to_fetch_partition_data(results: list) -> list:
        return [(tp, FetchPartitionData(r.error, r.high_watermark, r.leader_log_start_offset, r.last_stable_offset,
                                        r.info.records if r.info is not None else None,
                                        r.info.aborted_transactions if r.info is not None else None))
                for tp, r in results]

    # Kafka: ReplicaManager.shutdown
    def shutdown(self, checkpoint_hw: bool = True) -> None:
        self.info("Shutting down")
        self.is_shutting_down.set()
        if self.log_dir_failure_handler is not None:
            self.log_dir_failure_handler.shutdown()
        self.replica_fetcher_manager.shutdown()
        self.replica_alter_log_dirs_manager.shutdown()
        self.delayed_fetch_purgatory.shutdown()
        self.delayed_produce_purgatory.shutdown()
        self.delayed_delete_records_purgatory.shutdown()
        self.delayed_elect_leader_purgatory.shutdown()
        if checkpoint_hw:
            self.checkpoint_high_watermarks()
        self.info("Shut down completely")


class LogDirFailureHandler(ShutdownableThread):
    """Kafka: ReplicaManager.LogDirFailureHandler -- takes each failed log dir off the channel and hands it
    to ``handle_log_dir_failure``."""

    def __init__(self, name: str, replica_manager: ReplicaManager):
        super().__init__(name)
        self.replica_manager = replica_manager

    # Kafka: Thread.interrupt -- the shutdown wakes the blocked take at once (a clean stop waited up to 0.5 s)
    def interrupt(self) -> None:
        self.replica_manager.log_dir_failure_channel.wake_taker()

    def do_work(self) -> None:
        d = self.replica_manager.log_dir_failure_channel.take_next_offline_log_dir(timeout_s=0.5)
        if d is not None:
            self.replica_manager.handle_log_dir_failure(d)
