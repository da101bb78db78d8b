"""Mirrors Kafka 2.4: core/src/main/scala/kafka/cluster/Partition.scala

Classes: ZkPartitionStateStore, DelayedOperations, Partition.

A partition on this broker is stateful (S38): whether this broker leads it, the leader epoch,
the assigned replicas and the ISR, the remote followers (``Replica``), and the local ``Log``,
which only the LogManager creates (S30).

As leader (S32): ``append_records_to_leader`` appends (refusing acks=-1 when the ISR is smaller than
``min.insync.replicas``); each follower fetch calls ``update_follower_fetch_state``, which records the
follower's log end offset, may add it to the ISR (``maybe_expand_isr``) and may move the high
watermark (``maybe_increment_leader_hw``: the smallest log end offset over the ISR and the replicas
caught up within ``replica.lag.time.max.ms``); a moved high watermark completes delayed produce and
fetch requests. The ``isr-expiration`` task calls ``maybe_shrink_isr``. ISR changes are written to the
partition's state znode through the ``PartitionStateStore``, conditionally on its version.
As follower: the replica fetcher appends (``append_records_to_follower_or_future_replica``) and
truncates (``truncate_to``) through this class.
Moving the replica to another log dir (AlterReplicaLogDirs, KIP-113): ``maybe_create_future_replica`` has the
LogManager create a *future log* there (``future_log``); the ReplicaAlterLogDirsThread appends to it and truncates
it with ``is_future=True``, and once it holds as much as the current log, ``maybe_replace_current_with_future_replica``
swaps them under the leader-ISR lock (so no append slips in between the check and the swap).

As in 2.4 a Partition knows the LogManager (which creates its log) and a ``DelayedOperations`` (the
produce, fetch and delete-records purgatories it completes), never the ReplicaManager itself; its
state store does (ISR metrics, ISR change notifications).
"""
from __future__ import annotations

import threading

from kafkalite.cluster.replica import UNKNOWN_OFFSET, Replica
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.fetch_data_info import FetchIsolation, LogOffsetSnapshot, LogReadInfo
from kafkalite.log.log import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP
from kafkalite.log.log_offset_metadata import LogOffsetMetadata
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.record.file_records import TimestampAndOffset
from kafkalite.record.record_batch import RecordBatch
from kafkalite.server.delayed_operation_key import TopicPartitionOperationKey
from kafkalite.utils.logging import Logging
from kafkalite.utils.replication_utils import ReplicationUtils
from kafkalite.zk.zk_data import LeaderAndIsr

# the names under which a test can switch one of Kafka's replication fixes off (kafkalite.test.disable.fixes)
KAFKA_7128 = "KAFKA-7128"   # a follower joins the ISR only once it reached the leader epoch's start offset
KAFKA_7415 = "KAFKA-7415"   # a new leader records (epoch, log end offset) even before it appends


class ZkPartitionStateStore:
    """Kafka: ZkPartitionStateStore(topicPartition, zkClient, replicaManager) -- where a leader writes the ISR.
    Without ZooKeeper (unit tests build Partitions alone) the write always succeeds at the next version."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = ('topic_partition', 'zk_client', 'replica_manager', 'log_config_fn')

    def __init__(self, topic_partition: TopicPartition, zk_client, replica_manager, log_config_fn):
        self.topic_partition = topic_partition
        self.zk_client = zk_client
        self.replica_manager = replica_manager
        self.log_config_fn = log_config_fn

    # Kafka: ZkPartitionStateStore.fetchTopicConfig -- the topic's log config as ZooKeeper holds it
    def fetch_topic_config(self):
        return self.log_config_fn(self.topic_partition.topic)

    # Kafka: ZkPartitionStateStore.shrinkIsr
    def shrink_isr(self, controller_epoch: int, leader_and_isr: LeaderAndIsr) -> int | None:
        version = self.update_isr(controller_epoch, leader_and_isr)
        if version is not None and self.replica_manager is not None:
            self.replica_manager.isr_shrink_rate.mark()
        return version

    # Kafka: ZkPartitionStateStore.expandIsr
    def expand_isr(self, controller_epoch: int, leader_and_isr: LeaderAndIsr) -> int | None:
        version = self.update_isr(controller_epoch, leader_and_isr)
        if version is not None and self.replica_manager is not None:
            self.replica_manager.isr_expand_rate.mark()
        return version

    # Kafka: ZkPartitionStateStore.updateIsr
    def update_isr(self, controller_epoch: int, leader_and_isr: LeaderAndIsr) -> int | None:
        if self.zk_client is None:
            return leader_and_isr.zk_version + 1
        ok, new_version = ReplicationUtils.update_leader_and_isr(self.zk_client, self.topic_partition,
                                                                 leader_and_isr, controller_epoch)
        if ok:
            if self.replica_manager is not None:
                self.replica_manager.record_isr_change(self.topic_partition)
            return new_version
        if self.replica_manager is not None:
            self.replica_manager.failed_isr_updates_rate.mark()
        return None


class DelayedOperations:
    """Kafka: DelayedOperations(topicPartition, produce, fetch, deleteRecords) -- the purgatories a
    partition's changes may unblock."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = ('key', 'produce', 'fetch', 'delete_records')

    def __init__(self, topic_partition: TopicPartition, produce, fetch, delete_records):
        self.key = TopicPartitionOperationKey.from_topic_partition(topic_partition)
        self.produce = produce
        self.fetch = fetch
        self.delete_records = delete_records

    # Kafka: DelayedOperations.checkAndCompleteAll
    def check_and_complete_all(self) -> None:
        self.fetch.check_and_complete(self.key)
        self.produce.check_and_complete(self.key)
        self.delete_records.check_and_complete(self.key)

    # Kafka: DelayedOperations.checkAndCompleteFetch
    def check_and_complete_fetch(self) -> None:
        self.fetch.check_and_complete(self.key)

    # Kafka: DelayedOperations.checkAndCompleteProduce
    def check_and_complete_produce(self) -> None:
        self.produce.check_and_complete(self.key)

    # Kafka: DelayedOperations.numDelayedDelete
    def num_delayed_delete(self) -> int:
        return self.delete_records.num_delayed()

    # Kafka: DelayedOperations.checkAndCompleteDeleteRecords
    def check_and_complete_delete_records(self) -> None:
        self.delete_records.check_and_complete(self.key)


class Partition(Logging):
    """Kafka: Partition(topicPartition, replicaLagTimeMaxMs, interBrokerProtocolVersion, localBrokerId, time,
    stateStore, delayedOperations, metadataCache, logManager)."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = (
        'topic_partition', 'topic', 'partition_id', 'replica_lag_time_max_ms', 'local_broker_id', 'time', 'state_store',
        'delayed_operations', 'metadata_cache', 'log_manager', 'disabled_fixes', 'log', 'future_log',
        'leader_replica_id_opt', 'in_sync_replica_ids', 'all_replica_ids', 'remote_replicas_map', 'leader_epoch',
        'leader_epoch_start_offset_opt', 'zk_version', 'controller_epoch', 'leader_isr_update_lock'
    )

    # Kafka: Logging.logIdent -- Kafka builds this string in the constructor; it is built when a line is
    # logged instead: a broker holds one such object per partition, and the string costs ~100 B
    @property
    def log_ident(self) -> str:  # type: ignore[override]
        return f"[Partition {self.topic_partition} broker={self.local_broker_id}] "

    def __init__(self, topic_partition: TopicPartition, replica_lag_time_max_ms: int, local_broker_id: int, time,
                 state_store: ZkPartitionStateStore, delayed_operations: DelayedOperations, metadata_cache,
                 log_manager, disabled_fixes: frozenset[str] = frozenset()):
        self.topic_partition = topic_partition
        self.topic = topic_partition.topic
        self.partition_id = topic_partition.partition
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self.local_broker_id = local_broker_id
        self.time = time
        self.state_store = state_store
        self.delayed_operations = delayed_operations
        self.metadata_cache = metadata_cache
        self.log_manager = log_manager
        self.disabled_fixes = disabled_fixes
        self.log = None
        # Kafka: futureLog -- while an AlterReplicaLogDirs move is in progress, the log in the destination dir
        self.future_log = None
        self.leader_replica_id_opt: int | None = None
        self.in_sync_replica_ids: set[int] = set()
        self.all_replica_ids: list[int] = []
        self.remote_replicas_map: dict[int, Replica] = {}
        self.leader_epoch = -1
        # the leader's log end offset when it became leader at this epoch (KAFKA-7128); None as a follower
        self.leader_epoch_start_offset_opt: int | None = None
        self.zk_version = -1
        self.controller_epoch = -1
        # Kafka has a read-write lock; Python's threads take turns anyway, so one re-entrant lock serves both
        self.leader_isr_update_lock = threading.RLock()

    # ------------------------------------------------------------------ who leads, who is in sync
    # Kafka: Partition.isLeader
    def is_leader(self) -> bool:
        return self.leader_replica_id_opt == self.local_broker_id

    # Kafka: Partition.leaderLogIfLocal
    def leader_log_if_local(self):
        return self.log if self.is_leader() else None

    # Kafka: Partition.logStartOffset -- the leader's log start offset; -1 on a follower
    @property
    def log_start_offset(self) -> int:
        with self.leader_isr_update_lock:
            log = self.leader_log_if_local()
            return -1 if log is None else log.log_start_offset

    # Kafka: Partition.localLogOrException
    def local_log_or_exception(self):
        if self.log is None:
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                f"Log for partition {self.topic_partition} is not available on broker {self.local_broker_id}")
        return self.log

    # Kafka: Partition.futureLocalLogOrException
    def future_local_log_or_exception(self):
        if self.future_log is None:
            raise Errors.REPLICA_NOT_AVAILABLE.exception(
                f"Future log for partition {self.topic_partition} is not available on broker {self.local_broker_id}")
        return self.future_log

    # Kafka: Partition.getReplica -- a remote replica (a follower, as the leader sees it)
    def get_replica(self, replica_id: int) -> Replica | None:
        return self.remote_replicas_map.get(replica_id)

    # Kafka: Partition.remoteReplicas
    def remote_replicas(self) -> list[Replica]:
        return list(self.remote_replicas_map.values())

    # Kafka: Partition.getLeaderEpoch
    def get_leader_epoch(self) -> int:
        return self.leader_epoch

    # Kafka: Partition.isUnderReplicated
    def is_under_replicated(self) -> bool:
        return self.is_leader() and len(self.in_sync_replica_ids) < len(self.all_replica_ids)

    # Kafka: Partition.isUnderMinIsr
    def is_under_min_isr(self) -> bool:
        log = self.leader_log_if_local()
        return log is not None and len(self.in_sync_replica_ids) < log.config.min_in_sync_replicas

    # Kafka: Partition.isAtMinIsr
    def is_at_min_isr(self) -> bool:
        log = self.leader_log_if_local()
        return log is not None and len(self.in_sync_replica_ids) == log.config.min_in_sync_replicas

    # Kafka: Partition.createLogIfNotExists -- through the LogManager, with the topic's config; the high
    # watermark starts from the log dir's replication-offset-checkpoint
    def create_log_if_not_exists(self, is_new: bool, high_watermark_checkpoints=None,
                                 is_future_replica: bool = False) -> None:
        if is_future_replica:
            if self.future_log is None:
                self.future_log = self.create_log(is_new, high_watermark_checkpoints, is_future_replica=True)
        elif self.log is None:
            self.log = self.create_log(is_new, high_watermark_checkpoints)

    # Kafka: Partition.maybeCreateFutureReplica -- True if a future log was created in ``log_dir`` (the current
    # log is elsewhere and no future log exists yet)
    def maybe_create_future_replica(self, log_dir: str, high_watermark_checkpoints=None) -> bool:
        with self.leader_isr_update_lock:
            current_log_dir = self.local_log_or_exception().parent_dir
            if current_log_dir == log_dir:
                self.info(f"Current log directory {current_log_dir} is same as requested log dir {log_dir}. "
                          f"Skipping future replica creation.")
                return False
            if self.future_log is not None:
                future_log_dir = self.future_log.parent_dir
                if future_log_dir != log_dir:
                    raise RuntimeError(f"The future log dir {future_log_dir} of {self.topic_partition} is different "
                                       f"from the requested log dir {log_dir}")   # IllegalStateException
                return False
            self.create_log_if_not_exists(False, high_watermark_checkpoints, is_future_replica=True)
            return True

    # Kafka: Partition.futureReplicaDirChanged
    def future_replica_dir_changed(self, new_destination_dir: str) -> bool:
        with self.leader_isr_update_lock:
            return self.future_log is not None and self.future_log.parent_dir != new_destination_dir

    # Kafka: Partition.removeFutureLocalReplica -- a move cancelled (or its dir failed: ``delete_from_log_dir``
    # False)
    def remove_future_local_replica(self, delete_from_log_dir: bool = True) -> None:
        with self.leader_isr_update_lock:
            self.future_log = None
            if delete_from_log_dir:
                self.log_manager.async_delete(self.topic_partition, is_future=True)

    # Kafka: Partition.maybeReplaceCurrentWithFutureReplica -- True once the future log has caught up with the
    # current one and replaced it. Only the ReplicaAlterLogDirsThread calls it; it then drops the partition.
    def maybe_replace_current_with_future_replica(self) -> bool:
        local_replica_leo = self.local_log_or_exception().log_end_offset
        future_log = self.future_log
        if future_log is None or future_log.log_end_offset != local_replica_leo:
            return False
        # under the lock no append or truncation can move the current log's end between the check and the swap
        with self.leader_isr_update_lock:
            future_log = self.future_log
            if future_log is None:
                # removed by another thread (a new AlterReplicaLogDirs, a failed dir) since the thread fetched
                return False
            if self.log is not None and self.log.log_end_offset == future_log.log_end_offset:
                self.log_manager.replace_current_with_future_log(self.topic_partition)
                self.log = future_log
                self.remove_future_local_replica(delete_from_log_dir=False)
                return True
            return False

    # Kafka: Partition.createLog
    # Kafka 2.6 (KAFKA-9932): the topic's config is read from ZooKeeper only if the log has to be created; 2.4
    # read it for every partition of the first LeaderAndIsr after a restart (10,000 ZooKeeper reads for
    # 10,000 partitions the LogManager had already loaded).
    def create_log(self, is_new: bool, high_watermark_checkpoints, is_future_replica: bool = False):
        def fetch_log_config():
            config = self.state_store.fetch_topic_config()
            return self.log_manager.shared_log_config(config) if config is not None else None
        log = self.log_manager.get_or_create_log(self.topic_partition, fetch_log_config,
                                                 is_new=is_new, is_future=is_future_replica)
        checkpointed = None
        if high_watermark_checkpoints is not None:
            checkpointed = high_watermark_checkpoints.fetch(log.parent_dir, self.topic_partition)
        if checkpointed is not None:
            log.update_high_watermark(checkpointed)
        return log

    # Kafka: Partition.updateAssignmentAndIsr
    def update_assignment_and_isr(self, assignment: list[int], isr: set[int]) -> None:
        for replica_id in assignment:
            if replica_id != self.local_broker_id and replica_id not in self.remote_replicas_map:
                self.remote_replicas_map[replica_id] = Replica(replica_id, self.topic_partition)
        for removed in set(self.remote_replicas_map) - set(assignment):
            del self.remote_replicas_map[removed]
        self.all_replica_ids = list(assignment)
        self.in_sync_replica_ids = set(isr)

    # ------------------------------------------------------------------ role changes (LeaderAndIsr)
    # Kafka: Partition.makeLeader -- returns True if this broker just became the leader.
    def make_leader(self, controller_id: int, partition_state, correlation_id: int,
                    high_watermark_checkpoints=None) -> bool:
        with self.leader_isr_update_lock:
            self.controller_epoch = partition_state.controller_epoch
            self.update_assignment_and_isr(list(partition_state.replicas), set(partition_state.isr))
            self.create_log_if_not_exists(getattr(partition_state, "is_new", False), high_watermark_checkpoints)
            leader_log = self.local_log_or_exception()
            leader_epoch_start_offset = leader_log.log_end_offset
            self.info(f"{self.topic_partition} starts at Leader Epoch {partition_state.leader_epoch} from offset "
                      f"{leader_epoch_start_offset}. Previous Leader Epoch was: {self.leader_epoch}")
            self.leader_epoch = partition_state.leader_epoch
            self.leader_epoch_start_offset_opt = leader_epoch_start_offset
            self.zk_version = partition_state.zk_version
            # a follower may hold entries of a later epoch than any in this log (quick successive elections);
            # recording (new epoch, LEO) now lets it find where to truncate (KAFKA-7415)
            if KAFKA_7415 not in self.disabled_fixes:
                leader_log.maybe_assign_epoch_start_offset(self.leader_epoch, leader_epoch_start_offset)
            is_new_leader = not self.is_leader()
            cur_leader_log_end_offset = leader_log.log_end_offset
            cur_time_ms = self.time.milliseconds()
            for replica in self.remote_replicas():
                last_caught_up_time_ms = cur_time_ms if replica.broker_id in self.in_sync_replica_ids else 0
                replica.reset_last_caught_up_time(cur_leader_log_end_offset, cur_time_ms, last_caught_up_time_ms)
            if is_new_leader:
                self.leader_replica_id_opt = self.local_broker_id
                # what followers had fetched from an earlier term as leader no longer counts
                for replica in self.remote_replicas():
                    replica.update_fetch_state(LogOffsetMetadata(UNKNOWN_OFFSET), UNKNOWN_OFFSET, 0, UNKNOWN_OFFSET, 0)
            # the ISR may be down to the leader alone: the high watermark may move now
            hw_incremented = self.maybe_increment_leader_hw(leader_log)
        if hw_incremented:
            self.try_complete_delayed_requests()
        return is_new_leader

    # Kafka: Partition.makeFollower -- returns False when neither the leader nor the epoch changed.
    def make_follower(self, controller_id: int, partition_state, correlation_id: int,
                      high_watermark_checkpoints=None) -> bool:
        with self.leader_isr_update_lock:
            new_leader_broker_id = partition_state.leader
            old_leader_epoch = self.leader_epoch
            self.controller_epoch = partition_state.controller_epoch
            self.update_assignment_and_isr(list(partition_state.replicas), set())
            self.create_log_if_not_exists(getattr(partition_state, "is_new", False), high_watermark_checkpoints)
            self.leader_epoch = partition_state.leader_epoch
            self.leader_epoch_start_offset_opt = None
            self.zk_version = partition_state.zk_version
            if self.leader_replica_id_opt == new_leader_broker_id and self.leader_epoch == old_leader_epoch:
                return False
            self.leader_replica_id_opt = new_leader_broker_id
            return True

    # ------------------------------------------------------------------ the leader's side of a follower fetch (S32)
    # Kafka: Partition.updateFollowerFetchState -- False if the follower is not a replica of this partition
    def update_follower_fetch_state(self, follower_id: int, follower_fetch_offset_metadata: LogOffsetMetadata,
                                    follower_start_offset: int, follower_fetch_time_ms: int, leader_end_offset: int,
                                    last_sent_high_watermark: int) -> bool:
        follower_replica = self.get_replica(follower_id)
        if follower_replica is None:
            return False
        prev_follower_end_offset = follower_replica.log_end_offset
        # the low watermark only matters while a DeleteRecords waits for it (Kafka: numDelayedDelete > 0)
        waiting_delete = self.delayed_operations.num_delayed_delete() > 0
        old_low_watermark = self._low_watermark_or_none() if waiting_delete else None
        follower_replica.update_fetch_state(follower_fetch_offset_metadata, follower_start_offset,
                                            follower_fetch_time_ms, leader_end_offset, last_sent_high_watermark)
        if follower_id not in self.in_sync_replica_ids:
            self.maybe_expand_isr(follower_replica, follower_fetch_time_ms)
        hw_incremented = False
        if prev_follower_end_offset != follower_replica.log_end_offset:
            with self.leader_isr_update_lock:
                leader_log = self.leader_log_if_local()
                if leader_log is not None:
                    hw_incremented = self.maybe_increment_leader_hw(leader_log, follower_fetch_time_ms)
        low_watermark_incremented = waiting_delete and old_low_watermark is not None and \
            (self._low_watermark_or_none() or -1) > old_low_watermark
        if hw_incremented or low_watermark_incremented:
            self.try_complete_delayed_requests()
        self.debug(f"Recorded replica {follower_id} log end offset (LEO) position "
                   f"{follower_fetch_offset_metadata.message_offset} and log start offset {follower_start_offset}.")
        return True

    # Kafka: Partition.maybeExpandIsr -- a follower joins the ISR once it reached the high watermark and
    # the offset at which this leader's epoch began.
    def maybe_expand_isr(self, follower_replica: Replica, follower_fetch_time_ms: int) -> None:
        with self.leader_isr_update_lock:
            leader_log = self.leader_log_if_local()
            if leader_log is None or follower_replica.broker_id in self.in_sync_replica_ids:
                return
            if self.is_follower_in_sync(follower_replica, leader_log.high_watermark):
                new_in_sync_replica_ids = self.in_sync_replica_ids | {follower_replica.broker_id}
                self.info(f"Expanding ISR from {_ids(self.in_sync_replica_ids)} to {_ids(new_in_sync_replica_ids)}")
                self.expand_isr(new_in_sync_replica_ids)

    # Kafka: Partition.isFollowerInSync
    def is_follower_in_sync(self, follower_replica: Replica, high_watermark: int) -> bool:
        follower_end_offset = follower_replica.log_end_offset
        if follower_end_offset < high_watermark:
            return False
        if KAFKA_7128 in self.disabled_fixes:
            return True
        return self.leader_epoch_start_offset_opt is not None and follower_end_offset >= self.leader_epoch_start_offset_opt

    # Kafka: Partition.checkEnoughReplicasReachOffset -- for a DelayedProduce with acks=-1 (S33)
    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        leader_log = self.leader_log_if_local()
        if leader_log is None:
            return False, Errors.NOT_LEADER_FOR_PARTITION
        cur_in_sync_replica_ids = self.in_sync_replica_ids
        if self.is_trace_enabled():
            acked = [r.broker_id for r in self.remote_replicas()
                     if r.broker_id in cur_in_sync_replica_ids and r.log_end_offset >= required_offset]
            self.trace(f"Progress awaiting ISR acks for offset {required_offset}: acked by {acked} "
                       f"of ISR {_ids(cur_in_sync_replica_ids)}")
        if leader_log.high_watermark >= required_offset:
            # the ISR may have shrunk below min.insync.replicas while the request waited
            if leader_log.config.min_in_sync_replicas <= len(cur_in_sync_replica_ids):
                return True, Errors.NONE
            return True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        return False, Errors.NONE

    # Kafka: Partition.maybeIncrementLeaderHW -- the smallest LEO over the leader, the ISR and the replicas
    # caught up within replica.lag.time.max.ms (so a follower about to join is waited for); only forward.
    def maybe_increment_leader_hw(self, leader_log, cur_time: int | None = None) -> bool:
        cur_time = self.time.milliseconds() if cur_time is None else cur_time
        with self.leader_isr_update_lock:
            new_high_watermark = leader_log.log_end_offset_metadata
            for replica in self.remote_replicas():
                if replica.log_end_offset < new_high_watermark.message_offset and (
                        cur_time - replica.last_caught_up_time_ms <= self.replica_lag_time_max_ms
                        or replica.broker_id in self.in_sync_replica_ids):
                    new_high_watermark = replica.log_end_offset_metadata
            old_high_watermark = leader_log.maybe_increment_high_watermark(new_high_watermark)
            if old_high_watermark is not None:
                self.debug(f"High watermark updated from {old_high_watermark} to {new_high_watermark}")
                return True
            return False

    # Kafka: Partition.lowWatermarkIfLeader -- the smallest log start offset over the live replicas
    def low_watermark_if_leader(self) -> int:
        leader_log = self.leader_log_if_local()
        if leader_log is None:
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
        low_watermark = leader_log.log_start_offset
        for replica in self.remote_replicas():
            alive = self.metadata_cache is None or self.metadata_cache.get_alive_broker(replica.broker_id) is not None
            if alive and 0 <= replica.log_start_offset < low_watermark:
                low_watermark = replica.log_start_offset
        future_log = self.future_log
        return low_watermark if future_log is None else min(low_watermark, future_log.log_start_offset)

    def _low_watermark_or_none(self) -> int | None:
        try:
            return self.low_watermark_if_leader()
        except ApiException:
            return None

    # Kafka: Partition.tryCompleteDelayedRequests -- called without holding the leader-ISR lock
    def try_complete_delayed_requests(self) -> None:
        self.delayed_operations.check_and_complete_all()

    # Kafka: Partition.maybeShrinkIsr -- the isr-expiration task: followers out of sync leave the ISR
    def maybe_shrink_isr(self, replica_max_lag_time_ms: int) -> None:
        hw_incremented = False
        with self.leader_isr_update_lock:
            leader_log = self.leader_log_if_local()
            if leader_log is not None:
                out_of_sync_replica_ids = self.get_out_of_sync_replicas(replica_max_lag_time_ms)
                if out_of_sync_replica_ids:
                    new_in_sync_replica_ids = self.in_sync_replica_ids - out_of_sync_replica_ids
                    assert new_in_sync_replica_ids, "the leader never leaves its own ISR"
                    lagging = " ".join(f"(brokerId: {r}, endOffset: {self.remote_replicas_map[r].log_end_offset})"
                                       for r in sorted(out_of_sync_replica_ids))
                    self.info(f"Shrinking ISR from {_ids(self.in_sync_replica_ids)} to {_ids(new_in_sync_replica_ids)}. "
                              f"Leader: (highWatermark: {leader_log.high_watermark}, endOffset: "
                              f"{leader_log.log_end_offset}). Out of sync replicas: {lagging}.")
                    self.shrink_isr(new_in_sync_replica_ids)
                    hw_incremented = self.maybe_increment_leader_hw(leader_log)
        if hw_incremented:
            self.try_complete_delayed_requests()

    # Kafka: Partition.isFollowerOutOfSync -- behind the leader's LEO and not caught up for longer than max lag
    def is_follower_out_of_sync(self, replica_id: int, leader_end_offset: int, current_time_ms: int,
                                max_lag_ms: int) -> bool:
        follower = self.remote_replicas_map[replica_id]
        return (follower.log_end_offset != leader_end_offset
                and current_time_ms - follower.last_caught_up_time_ms > max_lag_ms)

    # Kafka: Partition.getOutOfSyncReplicas -- stuck and slow followers alike
    def get_out_of_sync_replicas(self, max_lag_ms: int) -> set[int]:
        candidates = self.in_sync_replica_ids - {self.local_broker_id}
        now = self.time.milliseconds()
        leader_end_offset = self.local_log_or_exception().log_end_offset
        return {r for r in candidates if r in self.remote_replicas_map
                and self.is_follower_out_of_sync(r, leader_end_offset, now, max_lag_ms)}

    # Kafka: Partition.expandIsr
    def expand_isr(self, new_isr: set[int]) -> None:
        lai = LeaderAndIsr(self.local_broker_id, self.leader_epoch, sorted(new_isr), self.zk_version)
        self.maybe_update_isr_and_version(new_isr, self.state_store.expand_isr(self.controller_epoch, lai))

    # Kafka: Partition.shrinkIsr
    def shrink_isr(self, new_isr: set[int]) -> None:
        lai = LeaderAndIsr(self.local_broker_id, self.leader_epoch, sorted(new_isr), self.zk_version)
        self.maybe_update_isr_and_version(new_isr, self.state_store.shrink_isr(self.controller_epoch, lai))

    # Kafka: Partition.maybeUpdateIsrAndVersion -- only a write ZooKeeper accepted changes the ISR here
    def maybe_update_isr_and_version(self, isr: set[int], zk_version_opt: int | None) -> None:
        if zk_version_opt is None:
            self.info(f"Cached zkVersion {self.zk_version} not equal to that in zookeeper, skip updating ISR")
            return
        self.in_sync_replica_ids = set(isr)
        self.zk_version = zk_version_opt
        self.info(f"ISR updated to [{_ids(isr)}] and zkVersion updated to [{self.zk_version}]")

    # ------------------------------------------------------------------ appends
    # Kafka: Partition.appendRecordsToFollowerOrFutureReplica -- the replica fetcher's append, or the
    # ReplicaAlterLogDirsThread's to the future log (None if the move was cancelled meanwhile)
    def append_records_to_follower_or_future_replica(self, records, is_future: bool = False):
        with self.leader_isr_update_lock:
            if is_future:
                return None if self.future_log is None else self.future_log.append_as_follower(records)
            return self.local_log_or_exception().append_as_follower(records)

    # Kafka: Partition.appendRecordsToLeader
    def append_records_to_leader(self, records, origin, required_acks: int):
        """``origin``: AppendOrigin (or 2.4's isFromClient bool)."""
        with self.leader_isr_update_lock:
            leader_log = self.leader_log_if_local()
            if leader_log is None:
                raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            min_isr = leader_log.config.min_in_sync_replicas
            if required_acks == -1 and len(self.in_sync_replica_ids) < min_isr:
                raise Errors.NOT_ENOUGH_REPLICAS.exception(
                    f"The size of the current ISR {sorted(self.in_sync_replica_ids)} is insufficient to satisfy "
                    f"the min.isr requirement of {min_isr} for partition {self.topic_partition}")
            info = leader_log.append_as_leader(records, self.leader_epoch, origin)
            # the ISR may be the leader alone: then the high watermark follows the append
            hw_incremented = self.maybe_increment_leader_hw(leader_log)
        # outside the lock, as 2.4: a moved high watermark may unblock every kind of delayed request;
        # otherwise only the log end moved, which is what followers' delayed fetches wait for
        if hw_incremented:
            self.try_complete_delayed_requests()
        else:
            self.delayed_operations.check_and_complete_fetch()
        return info

    # ------------------------------------------------------------------ reads
    # Kafka: Partition.localLogWithEpochOrException -- KIP-320 fencing by the client's leader epoch: -1 means none
    # was given (RequestUtils.getLeaderEpoch); any other epoch, negative too, is compared (checkCurrentLeaderEpoch).
    # A request that requires the leader, to a replica that is not, is NOT_LEADER_FOR_PARTITION; a replica without
    # its log REPLICA_NOT_AVAILABLE (getLocalLog).
    def local_log_with_epoch_or_exception(self, current_leader_epoch: int, require_leader: bool):
        if current_leader_epoch != RecordBatch.NO_PARTITION_LEADER_EPOCH and current_leader_epoch != self.leader_epoch:
            if current_leader_epoch < self.leader_epoch:
                raise Errors.FENCED_LEADER_EPOCH.exception(
                    f"The leader epoch {current_leader_epoch} is older than the current {self.leader_epoch} of {self.topic_partition}")
            raise Errors.UNKNOWN_LEADER_EPOCH.exception(
                f"The leader epoch {current_leader_epoch} is newer than the current {self.leader_epoch} of {self.topic_partition}")
        if require_leader and not self.is_leader():
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
        if self.log is None:
            if require_leader:
                raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            raise Errors.REPLICA_NOT_AVAILABLE.exception(f"Log for {self.topic_partition} is not available")
        return self.log

    # Kafka: Partition.readRecords -- read_uncommitted consumers read below the high watermark, read_committed
    # ones below the last stable offset (with the aborted transactions of the range), followers up to the log end.
    def read_records(self, fetch_offset: int, current_leader_epoch: int, max_bytes: int,
                     fetch_isolation: FetchIsolation, fetch_only_from_leader: bool,
                     min_one_message: bool) -> LogReadInfo:
        with self.leader_isr_update_lock:
            log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
            hw, lso = log.high_watermark, log.last_stable_offset
            log_start, leo = log.log_start_offset, log.log_end_offset
        if fetch_isolation is FetchIsolation.FETCH_LOG_END:
            max_offset = None
        elif fetch_isolation is FetchIsolation.FETCH_TXN_COMMITTED:
            max_offset = lso
        else:
            max_offset = hw
        data = log.read(fetch_offset, max_bytes, max_offset, min_one_message, isolation=fetch_isolation)
        return LogReadInfo(data, hw, log_start, leo, lso)

    # Kafka: Partition.fetchOffsetSnapshot -- the offsets a delayed fetch compares with its fetch position
    def fetch_offset_snapshot(self, current_leader_epoch: int, fetch_only_from_leader: bool) -> LogOffsetSnapshot:
        log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
        hw = log.fetch_high_watermark_metadata()
        return LogOffsetSnapshot(log.log_start_offset, log.log_end_offset_metadata, hw,
                                 log.fetch_last_stable_offset_metadata())

    # Kafka: Partition.fetchOffsetForTimestamp -- consumers see offsets below the high watermark only, and
    # read_committed ones (isolation level 1) below the last stable offset. A new leader whose high watermark
    # has not reached the start of its epoch yet cannot answer a consumer's "latest", nor a timestamp it finds
    # nothing for below that point: OFFSET_NOT_AVAILABLE. Any other timestamp (below -3 too) is looked up.
    def fetch_offset_for_timestamp(self, timestamp: int, current_leader_epoch: int, fetch_only_from_leader: bool,
                                   is_from_consumer: bool, isolation_level: int = 0) -> TimestampAndOffset | None:
        # Kafka holds leaderIsrUpdateLock's read lock for all of it, so appends (read lock too) go on; kafkalite's
        # lock is exclusive, so it takes what the answer depends on under the lock and looks the timestamp up
        # outside it (a lookup may load time indexes), as read_records does
        with self.leader_isr_update_lock:
            log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
            high_watermark = log.high_watermark
            if not is_from_consumer:
                last_fetchable = log.log_end_offset
            elif isolation_level == 1:
                last_fetchable = log.last_stable_offset
            else:
                last_fetchable = high_watermark
            epoch_start = self.leader_epoch_start_offset_opt
            leader_epoch = self.leader_epoch
        offsets_error = None
        if is_from_consumer and epoch_start is not None and epoch_start > high_watermark:
            epoch_text = f"epoch {current_leader_epoch}" if current_leader_epoch != -1 else "unknown epoch"
            offsets_error = Errors.OFFSET_NOT_AVAILABLE.exception(
                f"Failed to fetch offsets for partition {self.topic_partition} with leader {epoch_text} as "
                f"this partition's high watermark ({high_watermark}) is lagging behind the start offset "
                f"from the beginning of this epoch ({epoch_start}).")
        if timestamp == LATEST_TIMESTAMP:
            if offsets_error is not None:
                raise offsets_error
            return TimestampAndOffset(-1, last_fetchable, leader_epoch)
        found = log.fetch_offset_by_timestamp(timestamp)
        if timestamp == EARLIEST_TIMESTAMP:
            return TimestampAndOffset(-1, found.offset, found.leader_epoch)
        if found is None or found.offset >= last_fetchable:
            if offsets_error is not None:
                raise offsets_error
            return None
        return found

    # Kafka: Partition.legacyFetchOffsetsForTimestamp -- ListOffsets v0; a consumer sees nothing past the
    # high watermark (offsets above it are replaced by the high watermark itself)
    def legacy_fetch_offsets_for_timestamp(self, timestamp: int, max_num_offsets: int, is_from_consumer: bool,
                                           fetch_only_from_leader: bool) -> list[int]:
        with self.leader_isr_update_lock:
            log = self.local_log_with_epoch_or_exception(-1, fetch_only_from_leader)
            offsets = log.legacy_fetch_offsets_before(timestamp, max_num_offsets)
            if not is_from_consumer:
                return offsets
            hw = log.high_watermark
            if any(o > hw for o in offsets):
                return [hw] + [o for o in offsets if o <= hw]
            return offsets

    # Kafka: Partition.lastOffsetForLeaderEpoch -- (epoch, end offset), or None when the epoch is unknown
    def last_offset_for_leader_epoch(self, current_leader_epoch: int, leader_epoch: int,
                                     fetch_only_from_leader: bool) -> tuple[int, int] | None:
        with self.leader_isr_update_lock:
            log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
            return log.end_offset_for_epoch(leader_epoch)

    # KIP-664 (Kafka 3.0, not in 2.4) Partition.activeProducerState -- the producers the leader's log knows,
    # for DescribeProducers: [(producer id, ProducerStateEntry)]
    def active_producer_state(self) -> list:
        with self.leader_isr_update_lock:
            log = self.leader_log_if_local()
            if log is None:
                raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            return log.active_producers()

    # ------------------------------------------------------------------ truncation and deletion
    # Kafka: Partition.truncateTo -- the replica fetcher's truncation (through the LogManager, which
    # checkpoints the recovery point)
    def truncate_to(self, offset: int, is_future: bool = False) -> None:
        with self.leader_isr_update_lock:
            self.log_manager.truncate_to({self.topic_partition: offset}, is_future=is_future)

    # Kafka: Partition.truncateFullyAndStartAt
    def truncate_fully_and_start_at(self, new_offset: int, is_future: bool = False) -> None:
        with self.leader_isr_update_lock:
            self.log_manager.truncate_fully_and_start_at(self.topic_partition, new_offset, is_future=is_future)

    # Kafka: Partition.deleteRecordsOnLeader -- moves the log start offset; returns (requested offset, low watermark)
    def delete_records_on_leader(self, offset: int) -> tuple[int, int]:
        with self.leader_isr_update_lock:
            log = self.leader_log_if_local()
            if log is None:
                raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            if not log.config.delete:
                raise Errors.POLICY_VIOLATION.exception(
                    f"Records of partition {self.topic_partition} can not be deleted due to the configured policy")
            converted = log.high_watermark if offset == -1 else offset   # DeleteRecordsRequest.HIGH_WATERMARK
            if converted < 0:
                raise Errors.OFFSET_OUT_OF_RANGE.exception(
                    f"The offset {converted} for partition {self.topic_partition} is not valid")
            log.maybe_increment_log_start_offset(converted)   # past the high watermark: OFFSET_OUT_OF_RANGE
            return converted, self.low_watermark_if_leader()

    # Kafka: Partition.delete
    def delete(self) -> None:
        with self.leader_isr_update_lock:
            self.remote_replicas_map.clear()
            self.all_replica_ids = []
            self.in_sync_replica_ids = set()
            self.leader_replica_id_opt = None
            self.leader_epoch_start_offset_opt = None
            self.log = None
            self.future_log = None

    def __repr__(self) -> str:
        return (f"Partition(topicPartition={self.topic_partition}, leader={self.leader_replica_id_opt}, "
                f"leaderEpoch={self.leader_epoch}, allReplicas={_ids(self.all_replica_ids)}, "
                f"isr={_ids(self.in_sync_replica_ids)})")


def _ids(ids) -> str:
    return ",".join(str(i) for i in sorted(ids))
