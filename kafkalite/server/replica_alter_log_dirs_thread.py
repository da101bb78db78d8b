"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicaAlterLogDirsThread.scala

Classes: ReplicaAlterLogDirsThread -- ``ReplicaAlterLogDirsThread-<fetcherId>``: moves replicas between the
log dirs of this broker (KIP-113, AlterReplicaLogDirs). It is an AbstractFetcherThread whose "leader" is the
partition's *current* log on this same broker and whose "follower" is the partition's *future* log in the
destination dir:

- Fetch: no network. ``fetch_from_leader`` calls ``ReplicaManager.fetch_messages`` directly, as the replica id
  ``FUTURE_LOCAL_REPLICA_ID`` (-3), with no wait and no minimum, so the read goes up to the current log's end
  and comes back at once.
- One partition at a time (``select_partition_to_fetch``): the thread keeps copying the partition it began with
  until it is done or gone, then takes the next one in (topic, partition) order, so each move finishes as soon
  as it can.
- ``process_partition_data`` appends the batches to the future log as a follower would (offsets and leader
  epochs as they are), then asks ``Partition.maybe_replace_current_with_future_replica`` to swap the logs; once
  swapped, the partition leaves the thread.
- Truncation works as a follower's: OffsetsForLeaderEpoch is answered by the current log
  (``Partition.last_offset_for_leader_epoch``), so a future log that missed a truncation of the current one
  (it was offline, the broker restarted) cuts itself to their common prefix.

The alter-log-dirs replication quota (``replica.alter.log.dirs.io.max.bytes.per.second``): every byte
copied is recorded in it, and while its rate is over the bound the thread fetches nothing.
"""
from __future__ import annotations

from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages.fetch import FetchPartition, PartitionData
from kafkalite.record.file_records import FileRecords
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.server.replication_quota_manager import UnboundedQuota
from kafkalite.server.abstract_fetcher_thread import (
    UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, AbstractFetcherThread, EpochEndOffset, OffsetAndEpoch,
    ResultWithPartitions,
)

FUTURE_LOCAL_REPLICA_ID = -3   # Kafka: Request.FutureLocalReplicaId


class ReplicaAlterLogDirsThread(AbstractFetcherThread):
    """Kafka: ReplicaAlterLogDirsThread(name, sourceBroker, brokerConfig, failedPartitions, replicaMgr, quota,
    brokerTopicStats)."""

    def __init__(self, name: str, source_broker, broker_config, failed_partitions, replica_mgr, time, quota=None):
        super().__init__(name, name, source_broker, failed_partitions, broker_config.get("replica.fetch.backoff.ms"),
                         time, is_interruptible=False)
        self.replica_id = broker_config.broker_id
        self.replica_mgr = replica_mgr
        self.max_bytes = broker_config.get("replica.fetch.response.max.bytes")
        self.fetch_size = broker_config.get("replica.fetch.max.bytes")
        self.in_progress_partition = None
        self.quota = UnboundedQuota if quota is None else quota

    # ---- the future log (the "follower")
    # Kafka: ReplicaAlterLogDirsThread.latestEpoch
    def latest_epoch(self, topic_partition) -> int | None:
        return self.replica_mgr.future_local_log_or_exception(topic_partition).latest_epoch

    # Kafka: ReplicaAlterLogDirsThread.logEndOffset
    def log_end_offset(self, topic_partition) -> int:
        return self.replica_mgr.future_local_log_or_exception(topic_partition).log_end_offset

    # Kafka: ReplicaAlterLogDirsThread.endOffsetForEpoch
    def end_offset_for_epoch(self, topic_partition, epoch: int) -> OffsetAndEpoch | None:
        found = self.replica_mgr.future_local_log_or_exception(topic_partition).end_offset_for_epoch(epoch)
        return None if found is None else OffsetAndEpoch(found[1], found[0])

    # Kafka: ReplicaAlterLogDirsThread.processPartitionData -- append to the future log, then swap if caught up
    def process_partition_data(self, topic_partition, fetch_offset: int, partition_data):
        partition = self.replica_mgr.non_offline_partition(topic_partition)
        if partition is None:
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(f"{topic_partition} is no longer hosted here")
        future_log = partition.future_local_log_or_exception()
        records = self.to_memory_records(partition_data.records)
        if fetch_offset != future_log.log_end_offset:
            raise RuntimeError(f"Offset mismatch for the future replica {topic_partition}: fetched offset = "
                               f"{fetch_offset}, log end offset = {future_log.log_end_offset}.")  # IllegalStateException
        log_append_info = partition.append_records_to_follower_or_future_replica(records, is_future=True)
        future_log.update_high_watermark(partition_data.high_watermark)
        future_log.maybe_increment_log_start_offset(partition_data.log_start_offset)
        if partition.maybe_replace_current_with_future_replica():
            self.remove_partitions({topic_partition})
        self.quota.record(records.size_in_bytes())
        return log_append_info

    # Kafka: AbstractFetcherThread.toMemoryRecords -- the local read hands out a slice of the current log's file
    @staticmethod
    def to_memory_records(records) -> MemoryRecords:
        if records is None:
            return MemoryRecords.EMPTY
        if isinstance(records, MemoryRecords):
            return records
        if isinstance(records, FileRecords):
            return MemoryRecords.readable_records(records.read_bytes())
        return MemoryRecords.readable_records(bytes(records))

    # Kafka: ReplicaAlterLogDirsThread.truncate
    def truncate(self, topic_partition, truncation_state) -> None:
        partition = self.replica_mgr.get_partition_or_exception(topic_partition, expect_leader=False)
        partition.truncate_to(truncation_state.offset, is_future=True)

    # Kafka: ReplicaAlterLogDirsThread.truncateFullyAndStartAt
    def truncate_fully_and_start_at(self, topic_partition, offset: int) -> None:
        partition = self.replica_mgr.get_partition_or_exception(topic_partition, expect_leader=False)
        partition.truncate_fully_and_start_at(offset, is_future=True)

    # ---- the current log (the "leader")
    # Kafka: ReplicaAlterLogDirsThread.fetchFromLeader -- a local read with no wait: the callback runs at once
    def fetch_from_leader(self, fetch_request) -> list:
        answered: list = []

        def process_response_callback(response_partition_data: list) -> None:
            for tp, data in response_partition_data:
                answered.append((tp, PartitionData(
                    partition_index=tp.partition, error_code=data.error.code, high_watermark=data.high_watermark,
                    last_stable_offset=data.last_stable_offset, log_start_offset=data.log_start_offset,
                    records=data.records)))

        fetch_infos = [(tp, p) for tp, p in fetch_request]
        self.replica_mgr.fetch_messages(0, FUTURE_LOCAL_REPLICA_ID, 0, self.max_bytes, False, fetch_infos,
                                        process_response_callback)
        if not answered and fetch_infos:
            raise RuntimeError(f"Failed to fetch data for partitions "
                               f"{','.join(str(tp) for tp, _ in fetch_infos)}")   # IllegalStateException
        return answered

    # Kafka: ReplicaAlterLogDirsThread.fetchEarliestOffsetFromLeader
    def fetch_earliest_offset_from_leader(self, topic_partition, current_leader_epoch: int) -> int:
        partition = self.replica_mgr.get_partition_or_exception(topic_partition, expect_leader=False)
        return partition.local_log_or_exception().log_start_offset

    # Kafka: ReplicaAlterLogDirsThread.fetchLatestOffsetFromLeader
    def fetch_latest_offset_from_leader(self, topic_partition, current_leader_epoch: int) -> int:
        partition = self.replica_mgr.get_partition_or_exception(topic_partition, expect_leader=False)
        return partition.local_log_or_exception().log_end_offset

    # Kafka: ReplicaAlterLogDirsThread.fetchEpochEndOffsets -- answered by the current log of each partition
    def fetch_epoch_end_offsets(self, partitions: dict) -> dict:
        result = {}
        for tp, epoch_data in partitions.items():
            try:
                if epoch_data.leader_epoch == UNDEFINED_EPOCH:
                    result[tp] = EpochEndOffset(Errors.NONE, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
                    continue
                partition = self.replica_mgr.get_partition_or_exception(tp, expect_leader=False)
                found = partition.last_offset_for_leader_epoch(epoch_data.current_leader_epoch,
                                                               epoch_data.leader_epoch, False)
                result[tp] = EpochEndOffset(Errors.NONE, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) if found is None \
                    else EpochEndOffset(Errors.NONE, found[0], found[1])
            except Exception as e:  # noqa: BLE001 -- Kafka catches Throwable here
                self.warn(f"Error when getting EpochEndOffset for {tp}: {e!r}")
                result[tp] = EpochEndOffset(Errors.for_exception(e), UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
        return result

    # Kafka: ReplicaAlterLogDirsThread.isOffsetForLeaderEpochSupported
    def is_offset_for_leader_epoch_supported(self) -> bool:
        return True

    # ---- one partition at a time
    # Kafka: ReplicaAlterLogDirsThread.nextReadyPartition -- the smallest (topic, partition) ready to fetch
    @staticmethod
    def next_ready_partition(partition_map: dict, now_ms: int):
        ready = [(tp, state) for tp, state in partition_map.items() if state.is_ready_for_fetch(now_ms)]
        return min(ready, key=lambda item: (item[0].topic, item[0].partition), default=None)

    # Kafka: ReplicaAlterLogDirsThread.selectPartitionToFetch -- keep copying the partition in progress while it
    # is ready; else begin (or resume) the next one
    def select_partition_to_fetch(self, partition_map: dict):
        now = self.time.milliseconds()
        if self.in_progress_partition is not None:
            state = partition_map.get(self.in_progress_partition)
            if state is not None and state.is_ready_for_fetch(now):
                return self.in_progress_partition, state
        self.in_progress_partition = None
        next_partition = self.next_ready_partition(partition_map, now)
        if next_partition is not None:
            tp, state = next_partition
            self.in_progress_partition = tp
            self.info(f"Beginning/resuming copy of partition {tp} from offset {state.fetch_offset}. Including this "
                      f"partition, there are {len(partition_map)} remaining partitions to copy by this thread.")
        return next_partition

    # Kafka: ReplicaAlterLogDirsThread.buildFetchForPartition
    def build_fetch_for_partition(self, tp, fetch_state) -> ResultWithPartitions:
        try:
            log_start_offset = self.replica_mgr.future_local_log_or_exception(tp).log_start_offset
        except ApiException as e:   # KafkaStorageException (and a move cancelled meanwhile): try again later
            self.debug(f"Failed to build fetch for {tp}: {e!r}")
            return ResultWithPartitions(None, frozenset({tp}))
        request = [(tp, FetchPartition(partition=tp.partition, current_leader_epoch=fetch_state.current_leader_epoch,
                                       fetch_offset=fetch_state.fetch_offset, log_start_offset=log_start_offset,
                                       partition_max_bytes=self.fetch_size))]
        return ResultWithPartitions(request, frozenset())

    # Kafka: ReplicaAlterLogDirsThread.buildFetch -- the "request" is the list of (partition, fetch data) to read;
    # nothing while the alter-log-dirs quota is exceeded
    def build_fetch(self, partition_map: dict) -> ResultWithPartitions:
        if self.quota.is_quota_exceeded():
            return ResultWithPartitions(None, frozenset())
        selected = self.select_partition_to_fetch(partition_map)
        if selected is None:
            return ResultWithPartitions(None, frozenset())
        return self.build_fetch_for_partition(*selected)
