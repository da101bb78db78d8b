"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicaFetcherThread.scala

Classes: ReplicaFetcherThread -- a follower's ``ReplicaFetcherThread-<fetcherId>-<leaderId>`` (S9): the
AbstractFetcherThread's loop, talking to the leader through a ``ReplicaFetcherBlockingSend`` and to the
local replicas through the ReplicaManager and Partition.

- Fetch: one request for every partition ready to fetch, as the broker ``replica_id`` (so the leader
  reads up to its log end and records the follower's position, S32), waiting up to
  ``replica.fetch.wait.max.ms`` for ``replica.fetch.min.bytes``, at most ``replica.fetch.max.bytes`` per
  partition and ``replica.fetch.response.max.bytes`` in all, through an incremental fetch session
  (KIP-227): a ``FetchSessionHandler`` makes the first fetch a full one and later ones name only the
  partitions whose fetch offset or log start offset moved (plus those to forget); the leader answers only
  partitions with news. A session error makes the next fetch a full one again.
- ``process_partition_data`` appends the leader's batches as they are (offsets and leader epochs
  assigned by the leader), then takes the leader's high watermark (bounded by its own log end) and log
  start offset: a follower's high watermark trails the leader's by one fetch.
- Replication quotas: a partition of the follower ReplicationQuotaManager's throttled replicas that is not in
  the ISR is left out of the fetch while the follower's rate is over ``follower.replication.throttled.rate``
  (``should_follower_throttle``); the bytes fetched for throttled partitions are recorded in that rate.
- Truncation goes through ``Partition.truncate_to``; OffsetsForLeaderEpoch and ListOffsets carry
  ``replica_id`` too.
"""
from __future__ import annotations

from kafkalite.clients.fetch_session_handler import FetchSessionHandler
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.metrics.broker_topic_stats import BROKER_TOPIC_STATS
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic, ForgottenTopic
from kafkalite.protocol.messages.list_offsets import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from kafkalite.protocol.messages.offset_for_leader_epoch import (
    OffsetForLeaderEpochRequest, OffsetForLeaderPartition, OffsetForLeaderTopic,
)
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.server.abstract_fetcher_thread import (
    UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, AbstractFetcherThread, EpochEndOffset, OffsetAndEpoch,
    ResultWithPartitions,
)
from kafkalite.server.replica_fetcher_blocking_send import ReplicaFetcherBlockingSend
from kafkalite.server.replication_quota_manager import UnboundedQuota

EARLIEST_TIMESTAMP, LATEST_TIMESTAMP = -2, -1   # Kafka: ListOffsetRequest.EARLIEST_TIMESTAMP / LATEST_TIMESTAMP


class ReplicaFetcherThread(AbstractFetcherThread):
    """Kafka: ReplicaFetcherThread(name, fetcherId, sourceBroker, brokerConfig, failedPartitions, replicaMgr,
    metrics, time, quota, leaderEndpointBlockingSend)."""

    def __init__(self, name: str, fetcher_id: int, source_broker, broker_config, failed_partitions, replica_mgr,
                 time, leader_endpoint_blocking_send=None, quota=None):
        super().__init__(name, name, source_broker, failed_partitions, broker_config.get("replica.fetch.backoff.ms"),
                         time, is_interruptible=False,
                         disabled_fixes=frozenset(broker_config.get("kafkalite.test.disable.fixes") or ()))
        self.fetcher_id = fetcher_id
        self.broker_config = broker_config
        self.replica_id = broker_config.broker_id
        self.replica_mgr = replica_mgr
        self.quota = UnboundedQuota if quota is None else quota
        self.leader_endpoint = leader_endpoint_blocking_send or ReplicaFetcherBlockingSend(
            source_broker, broker_config, time, fetcher_id, f"broker-{broker_config.broker_id}-fetcher-{fetcher_id}")
        self.max_wait = broker_config.get("replica.fetch.wait.max.ms")
        self.min_bytes = broker_config.get("replica.fetch.min.bytes")
        self.max_bytes = broker_config.get("replica.fetch.response.max.bytes")
        self.fetch_size = broker_config.get("replica.fetch.max.bytes")
        self.fetch_session_handler = FetchSessionHandler(source_broker.id)   # Kafka: fetchSessionHandler

    # Kafka: ReplicaFetcherThread.initiateShutdown -- closing the client wakes a fetch blocked on the leader
    def initiate_shutdown(self) -> bool:
        just_shutdown = super().initiate_shutdown()
        if just_shutdown:
            self.leader_endpoint.initiate_close()
        return just_shutdown

    # Kafka: ReplicaFetcherThread.awaitShutdown -- the connection is closed once the loop has ended
    def await_shutdown(self, timeout: float | None = None) -> bool:
        done = super().await_shutdown(timeout)
        if done:
            self.leader_endpoint.close()
        return done

    # ---- the local replicas
    # Kafka: ReplicaFetcherThread.latestEpoch
    def latest_epoch(self, topic_partition) -> int | None:
        return self.replica_mgr.local_log_or_exception(topic_partition).latest_epoch

    # Kafka: ReplicaFetcherThread.logEndOffset
    def log_end_offset(self, topic_partition) -> int:
        return self.replica_mgr.local_log_or_exception(topic_partition).log_end_offset

    # Kafka: ReplicaFetcherThread.endOffsetForEpoch
    def end_offset_for_epoch(self, topic_partition, epoch: int) -> OffsetAndEpoch | None:
        found = self.replica_mgr.local_log_or_exception(topic_partition).end_offset_for_epoch(epoch)
        return None if found is None else OffsetAndEpoch(found[1], found[0])

    # Kafka: ReplicaFetcherThread.processPartitionData
    def process_partition_data(self, topic_partition, fetch_offset: int, partition_data):
        partition = self.replica_mgr.non_offline_partition(topic_partition)
        if partition is None:
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(f"{topic_partition} is no longer hosted here")
        log = partition.local_log_or_exception()
        records = self.to_memory_records(partition_data.records)
        if fetch_offset != log.log_end_offset:
            raise RuntimeError(f"Offset mismatch for partition {topic_partition}: fetched offset = {fetch_offset}, "
                               f"log end offset = {log.log_end_offset}.")   # IllegalStateException
        log_append_info = partition.append_records_to_follower_or_future_replica(records, is_future=False)
        follower_high_watermark = log.update_high_watermark(partition_data.high_watermark)
        log.maybe_increment_log_start_offset(partition_data.log_start_offset)
        if self.is_trace_enabled():
            self.trace(f"Follower has replica log end offset {log.log_end_offset} for partition {topic_partition}. "
                       f"Received {records.size_in_bytes()} bytes of messages and leader hw "
                       f"{partition_data.high_watermark}; follower high watermark {follower_high_watermark}")
        # Kafka: "Traffic from both in-sync and out of sync replicas are accounted for in replication quota to
        # ensure total replication traffic doesn't exceed quota."
        if self.quota.is_throttled(topic_partition):
            self.quota.record(records.size_in_bytes())
        BROKER_TOPIC_STATS.update_replication_bytes_in(records.size_in_bytes())
        return log_append_info

    # Kafka: AbstractFetcherThread.toMemoryRecords
    @staticmethod
    def to_memory_records(records) -> MemoryRecords:
        if records is None:
            return MemoryRecords.EMPTY
        if isinstance(records, MemoryRecords):
            return records
        return MemoryRecords.readable_records(bytes(records))

    # Kafka: ReplicaFetcherThread.truncate
    def truncate(self, topic_partition, truncation_state) -> None:
        partition = self.replica_mgr.non_offline_partition(topic_partition)
        if partition is None:
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(f"{topic_partition} is no longer hosted here")
        log = partition.local_log_or_exception()
        partition.truncate_to(truncation_state.offset, is_future=False)
        if truncation_state.offset < log.high_watermark:
            self.warn(f"Truncating {topic_partition} to offset {truncation_state.offset} below high watermark "
                      f"{log.high_watermark}")
        # a replica moving to another log dir: its future log truncates too, once this truncation is final
        if truncation_state.truncation_completed:
            self.replica_mgr.replica_alter_log_dirs_manager.mark_partitions_for_truncation(
                self.broker_config.broker_id, topic_partition, truncation_state.offset)

    # Kafka: ReplicaFetcherThread.truncateFullyAndStartAt
    def truncate_fully_and_start_at(self, topic_partition, offset: int) -> None:
        partition = self.replica_mgr.non_offline_partition(topic_partition)
        if partition is None:
            raise Errors.NOT_LEADER_FOR_PARTITION.exception(f"{topic_partition} is no longer hosted here")
        partition.truncate_fully_and_start_at(offset, is_future=False)

    # ---- the leader
    # Kafka: ReplicaFetcherThread.buildFetch -- the FetchSessionHandler picks what an incremental fetch names; a
    # replica that should be throttled is not included
    def build_fetch(self, partition_map: dict) -> ResultWithPartitions:
        with_error = set()
        now = self.time.milliseconds()
        builder = self.fetch_session_handler.new_builder()
        for tp, state in partition_map.items():
            if not state.is_ready_for_fetch(now) or self.should_follower_throttle(self.quota, tp):
                continue
            try:
                log_start_offset = self.replica_mgr.local_log_or_exception(tp).log_start_offset
            except Exception as e:  # noqa: BLE001 -- KafkaStorageException: fetch it later
                self.debug(f"Exception while building fetch for partition {tp}: {e!r}")
                with_error.add(tp)
                continue
            builder.add(tp, FetchPartition(
                partition=tp.partition, current_leader_epoch=state.current_leader_epoch,
                fetch_offset=state.fetch_offset, log_start_offset=log_start_offset,
                partition_max_bytes=self.fetch_size))
        fetch_data = builder.build()
        request = None
        if fetch_data.session_partitions or fetch_data.to_forget:
            topics: dict[str, list] = {}
            for tp, data in fetch_data.to_send.items():
                topics.setdefault(tp.topic, []).append(data)
            forgotten: dict[str, list] = {}
            for tp in fetch_data.to_forget:
                forgotten.setdefault(tp.topic, []).append(tp.partition)
            request = FetchRequest(replica_id=self.replica_id, max_wait_ms=self.max_wait, min_bytes=self.min_bytes,
                                   max_bytes=self.max_bytes, isolation_level=0,
                                   session_id=fetch_data.metadata.session_id,
                                   session_epoch=fetch_data.metadata.epoch,
                                   topics=[FetchTopic(topic=t, partitions=ps) for t, ps in topics.items()],
                                   forgotten_topics_data=[ForgottenTopic(topic=t, partitions=ps)
                                                          for t, ps in forgotten.items()])
        return ResultWithPartitions(request, frozenset(with_error))

    # Kafka: ReplicaFetcherThread.shouldFollowerThrottle -- the partition is throttled, the quota exceeded and
    # this replica not in sync (its lag at the last fetch, FetcherLagStats.isReplicaInSync, above 0)
    def should_follower_throttle(self, quota, topic_partition) -> bool:
        is_replica_in_sync = self.fetcher_lag_stats.is_replica_in_sync(topic_partition)
        return not is_replica_in_sync and quota.is_throttled(topic_partition) and quota.is_quota_exceeded()

    # Kafka: ReplicaFetcherThread.fetchFromLeader -- a session error or a bad response yields no partitions
    def fetch_from_leader(self, fetch_request) -> list:
        try:
            response = self.leader_endpoint.send_request(ApiKeys.FETCH, fetch_request).response_body
        except BaseException as e:
            self.fetch_session_handler.handle_error(e)
            raise
        if not self.fetch_session_handler.handle_response(response):
            return []
        return [(TopicPartition(topic.topic, p.partition_index), p)
                for topic in response.responses for p in topic.partitions]

    # Kafka: ReplicaFetcherThread.fetchEpochEndOffsets -- any failure marks every partition with an error
    def fetch_epoch_end_offsets(self, partitions: dict) -> dict:
        if not partitions:
            return {}
        by_topic: dict[str, list] = {}
        for tp, epoch_data in partitions.items():
            by_topic.setdefault(tp.topic, []).append(OffsetForLeaderPartition(
                partition=tp.partition, current_leader_epoch=epoch_data.current_leader_epoch,
                leader_epoch=epoch_data.leader_epoch))
        request = OffsetForLeaderEpochRequest(replica_id=self.replica_id, topics=[
            OffsetForLeaderTopic(topic=t, partitions=ps) for t, ps in by_topic.items()])
        try:
            response = self.leader_endpoint.send_request(ApiKeys.OFFSET_FOR_LEADER_EPOCH, request).response_body
        except Exception as e:  # noqa: BLE001
            self.warn(f"Error when sending leader epoch request for {sorted(map(str, partitions))}: {e!r}")
            error = Errors.for_exception(e)
            return {tp: EpochEndOffset(error, UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET) for tp in partitions}
        return {TopicPartition(topic.topic, p.partition): EpochEndOffset(Errors.for_code(p.error_code), p.leader_epoch,
                                                                         p.end_offset)
                for topic in response.topics for p in topic.partitions}

    # Kafka: ReplicaFetcherThread.fetchEarliestOffsetFromLeader
    def fetch_earliest_offset_from_leader(self, topic_partition, current_leader_epoch: int) -> int:
        return self.fetch_offset_from_leader(topic_partition, current_leader_epoch, EARLIEST_TIMESTAMP)

    # Kafka: ReplicaFetcherThread.fetchLatestOffsetFromLeader
    def fetch_latest_offset_from_leader(self, topic_partition, current_leader_epoch: int) -> int:
        return self.fetch_offset_from_leader(topic_partition, current_leader_epoch, LATEST_TIMESTAMP)

    # Kafka: ReplicaFetcherThread.fetchOffsetFromLeader
    def fetch_offset_from_leader(self, topic_partition, current_leader_epoch: int, earliest_or_latest: int) -> int:
        request = ListOffsetsRequest(replica_id=self.replica_id, isolation_level=0, topics=[ListOffsetsTopic(
            name=topic_partition.topic, partitions=[ListOffsetsPartition(
                partition_index=topic_partition.partition, current_leader_epoch=current_leader_epoch,
                timestamp=earliest_or_latest)])])
        response = self.leader_endpoint.send_request(ApiKeys.LIST_OFFSETS, request).response_body
        [answer] = [p for t in response.topics for p in t.partitions]
        if answer.error_code != Errors.NONE.code:
            raise Errors.for_code(answer.error_code).exception(
                f"ListOffsets for {topic_partition} from broker {self.source_broker.id} failed")
        return answer.offset

    # Kafka: ReplicaFetcherThread.isOffsetForLeaderEpochSupported (every supported protocol version has it)
    def is_offset_for_leader_epoch_supported(self) -> bool:
        return True
