"""Mirrors Kafka 2.4: core/src/main/scala/kafka/cluster/Partition.scala

Classes: DelayedOperations, Partition.

A partition on this broker is stateful (S38): whether this broker leads it, the leader epoch,
the assigned replicas and the ISR, the remote followers (``Replica``), and the local ``Log``,
which only the LogManager creates (S30). The leader appends (``append_records_to_leader``) and
moves the high watermark; readers only see records below it.
With one replica the ISR is the leader alone and the high watermark follows the log end offset;
followers and ISR changes come with replication (tier 2).

As in 2.4 a Partition knows the LogManager (which creates its log) and a ``DelayedOperations`` (the
produce, fetch and delete-records purgatories it completes after an append), never the ReplicaManager.
``fetch_log_config`` stands for 2.4's ``PartitionStateStore.fetchTopicConfig``: the topic's log config
as ZooKeeper holds it when the log is created.
"""
from __future__ import annotations

import threading

from kafkalite.cluster.replica import Replica
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.fetch_data_info import FetchIsolation, LogReadInfo
from kafkalite.log.log import EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP
from kafkalite.protocol.errors import Errors
from kafkalite.record.file_records import TimestampAndOffset
from kafkalite.server.delayed_operation_key import TopicPartitionOperationKey
from kafkalite.utils.logging import Logging


class DelayedOperations:
    """Kafka: DelayedOperations(topicPartition, produce, fetch, deleteRecords) -- the purgatories a
    partition's changes may unblock."""

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

    # Kafka: DelayedOperations.checkAndCompleteDeleteRecords
    def check_and_complete_delete_records(self) -> None:
        self.delete_records.check_and_complete(self.key)


class Partition(Logging):
    """Kafka: Partition(topicPartition, replicaLagTimeMaxMs, interBrokerProtocolVersion, localBrokerId, time,
    stateStore, delayedOperations, metadataCache, logManager)."""

    def __init__(self, topic_partition: TopicPartition, local_broker_id: int, time, log_manager,
                 delayed_operations: DelayedOperations, fetch_log_config):
        self.topic_partition = topic_partition
        self.topic = topic_partition.topic
        self.partition_id = topic_partition.partition
        self.local_broker_id = local_broker_id
        self.time = time
        self.log_manager = log_manager
        self.delayed_operations = delayed_operations
        self.fetch_log_config = fetch_log_config
        self.log = None
        self.leader_replica_id_opt: int | None = None
        self.in_sync_replica_ids: set[int] = set()
        self.all_replica_ids: list[int] = []
        self.remote_replicas_map: dict[int, Replica] = {}
        self.leader_epoch = -1
        self.zk_version = -1
        self.controller_epoch = -1
        self.leader_isr_update_lock = threading.RLock()
        self.log_ident = f"[Partition {topic_partition} broker={local_broker_id}] "

    def is_leader(self) -> bool:
        return self.leader_replica_id_opt == self.local_broker_id

    # Kafka: Partition.createLogIfNotExists -- through the LogManager, with the topic's config.
    def create_log_if_not_exists(self, is_new: bool) -> None:
        if self.log is None:
            self.log = self.log_manager.get_or_create_log(self.topic_partition, self.fetch_log_config(self.topic),
                                                          is_new=is_new)

    # Kafka: Partition.makeLeader -- returns True if this broker just became the leader.
    def make_leader(self, controller_id: int, partition_state, correlation_id: int) -> bool:
        with self.leader_isr_update_lock:
            self.controller_epoch = partition_state.controller_epoch
            self.all_replica_ids = list(partition_state.replicas)
            self.in_sync_replica_ids = set(partition_state.isr)
            self.create_log_if_not_exists(getattr(partition_state, "is_new", False))
            self.remote_replicas_map = {r: self.remote_replicas_map.get(r) or Replica(r, self.topic_partition)
                                        for r in self.all_replica_ids if r != self.local_broker_id}
            self.leader_epoch = partition_state.leader_epoch
            self.zk_version = partition_state.zk_version
            is_new_leader = self.leader_replica_id_opt != self.local_broker_id
            self.leader_replica_id_opt = self.local_broker_id
            self.maybe_increment_leader_hw()
            log = self.log
            assert log is not None   # created above
            self.info(f"{self.topic_partition} starts at leader epoch {self.leader_epoch} from offset "
                      f"{log.log_end_offset} with high watermark {log.high_watermark}. "
                      f"Previous leader epoch was {self.leader_epoch if not is_new_leader else -1}.")
            return is_new_leader

    # Kafka: Partition.makeFollower (the replica fetcher comes with replication)
    def make_follower(self, controller_id: int, partition_state, correlation_id: int) -> bool:
        with self.leader_isr_update_lock:
            self.controller_epoch = partition_state.controller_epoch
            self.all_replica_ids = list(partition_state.replicas)
            self.in_sync_replica_ids = set()
            self.create_log_if_not_exists(getattr(partition_state, "is_new", False))
            self.leader_epoch = partition_state.leader_epoch
            self.zk_version = partition_state.zk_version
            changed = self.leader_replica_id_opt != partition_state.leader
            self.leader_replica_id_opt = partition_state.leader
            return changed

    # Kafka: Partition.maybeIncrementLeaderHW -- HW = min LEO over the ISR.
    def maybe_increment_leader_hw(self) -> bool:
        if self.log is None:
            return False
        leo = self.log.log_end_offset
        candidates = [leo] + [r.log_end_offset for rid, r in self.remote_replicas_map.items()
                              if rid in self.in_sync_replica_ids]
        new_hw = min(candidates)
        if new_hw > self.log.high_watermark:
            self.log.update_high_watermark(new_hw)
            return True
        return False

    # Kafka: Partition.appendRecordsToLeader
    def append_records_to_leader(self, records, is_from_client: bool, required_acks: int):
        with self.leader_isr_update_lock:
            if not self.is_leader() or self.log is None:
                raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            min_isr = self.log.config.min_in_sync_replicas
            if required_acks == -1 and len(self.in_sync_replica_ids) < min_isr:
                raise Errors.NOT_ENOUGH_REPLICAS.exception(
                    f"The size of the current ISR {sorted(self.in_sync_replica_ids)} is insufficient to satisfy "
                    f"the min.isr requirement of {min_isr} for partition {self.topic_partition}")
            info = self.log.append_as_leader(records, self.leader_epoch, is_from_client)
            hw_incremented = self.maybe_increment_leader_hw()
        # outside the lock, as 2.4: a moved high watermark may unblock every kind of delayed request;
        # otherwise only the log end moved, which is what followers' delayed fetches wait for
        if hw_incremented:
            self.try_complete_delayed_requests()
        else:
            self.delayed_operations.check_and_complete_fetch()
        return info

    # Kafka: Partition.tryCompleteDelayedRequests
    def try_complete_delayed_requests(self) -> None:
        self.delayed_operations.check_and_complete_all()

    # Kafka: Partition.localLogWithEpochOrException -- KIP-320 fencing by the client's leader epoch.
    def local_log_with_epoch_or_exception(self, current_leader_epoch: int, require_leader: bool):
        if current_leader_epoch >= 0 and current_leader_epoch != self.leader_epoch:
            if current_leader_epoch < self.leader_epoch:
                raise Errors.FENCED_LEADER_EPOCH.exception(
                    f"The leader epoch {current_leader_epoch} is older than the current {self.leader_epoch} of {self.topic_partition}")
            raise Errors.UNKNOWN_LEADER_EPOCH.exception(
                f"The leader epoch {current_leader_epoch} is newer than the current {self.leader_epoch} of {self.topic_partition}")
        if require_leader and not self.is_leader():
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
        if self.log is None:
            raise Errors.REPLICA_NOT_AVAILABLE.exception(f"Log for {self.topic_partition} is not available")
        return self.log

    # Kafka: Partition.readRecords -- consumers read below the high watermark (LSO = HW: no transactions).
    def read_records(self, fetch_offset: int, current_leader_epoch: int, max_bytes: int,
                     fetch_isolation: FetchIsolation, fetch_only_from_leader: bool,
                     min_one_message: bool) -> LogReadInfo:
        log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
        hw, lso = log.high_watermark, log.high_watermark
        log_start, leo = log.log_start_offset, log.log_end_offset
        max_offset = None if fetch_isolation is FetchIsolation.FETCH_LOG_END else hw
        data = log.read(fetch_offset, max_bytes, max_offset, min_one_message)
        return LogReadInfo(data, hw, log_start, leo, lso)

    # Kafka: Partition.fetchOffsetSnapshot -- the end a delayed fetch is waiting for, with its segment position.
    def fetch_offset_snapshot(self, current_leader_epoch: int, fetch_only_from_leader: bool,
                              fetch_isolation: FetchIsolation):
        log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
        if fetch_isolation is FetchIsolation.FETCH_LOG_END:
            return log.log_end_offset_metadata
        return log.fetch_high_watermark_metadata()

    # Kafka: Partition.fetchOffsetForTimestamp -- consumers see offsets below the high watermark only
    def fetch_offset_for_timestamp(self, timestamp: int, current_leader_epoch: int, fetch_only_from_leader: bool,
                                   is_from_consumer: bool) -> TimestampAndOffset | None:
        log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
        last_fetchable = log.high_watermark if is_from_consumer else log.log_end_offset
        if timestamp == LATEST_TIMESTAMP:
            return TimestampAndOffset(-1, last_fetchable, self.leader_epoch)
        if timestamp == EARLIEST_TIMESTAMP:
            found = log.fetch_offset_by_timestamp(timestamp)
            return TimestampAndOffset(-1, found.offset, found.leader_epoch)
        if timestamp < MAX_TIMESTAMP:
            raise Errors.INVALID_REQUEST.exception(f"Invalid timestamp {timestamp}")
        found = log.fetch_offset_by_timestamp(timestamp)
        if found is None or found.offset >= last_fetchable:
            return None
        return found

    # Kafka: Partition.lastOffsetForLeaderEpoch -- (epoch, end offset), or None when the epoch is unknown
    def last_offset_for_leader_epoch(self, current_leader_epoch: int, leader_epoch: int,
                                     fetch_only_from_leader: bool) -> tuple[int, int] | None:
        log = self.local_log_with_epoch_or_exception(current_leader_epoch, fetch_only_from_leader)
        return log.end_offset_for_epoch(leader_epoch)

    # Kafka: Partition.deleteRecordsOnLeader -- returns the low watermark (with one replica, the log start offset)
    def delete_records_on_leader(self, offset: int) -> int:
        with self.leader_isr_update_lock:
            if not self.is_leader() or self.log is None:
                raise Errors.NOT_LEADER_FOR_PARTITION.exception(
                    f"Leader not local for partition {self.topic_partition} on broker {self.local_broker_id}")
            log = self.log
            converted = log.high_watermark if offset == -1 else offset
            if converted < 0 or converted > log.high_watermark:
                raise Errors.OFFSET_OUT_OF_RANGE.exception(
                    f"Cannot increment the log start offset to {converted} of partition {self.topic_partition} "
                    f"since it is larger than the high watermark {log.high_watermark}")
            log.maybe_increment_log_start_offset(converted)
            return log.log_start_offset

    # Kafka: Partition.checkEnoughReplicasReachOffset
    def check_enough_replicas_reach_offset(self, required_offset: int) -> tuple[bool, Errors]:
        if not self.is_leader() or self.log is None:
            return False, Errors.NOT_LEADER_FOR_PARTITION
        if self.log.high_watermark >= required_offset:
            return True, Errors.NONE
        return False, Errors.NONE

    # Kafka: Partition.delete
    def delete(self) -> None:
        with self.leader_isr_update_lock:
            self.remote_replicas_map.clear()
            self.in_sync_replica_ids = set()
            self.leader_replica_id_opt = None
            self.log = None
