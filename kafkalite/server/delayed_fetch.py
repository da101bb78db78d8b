"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DelayedFetch.scala

Classes: DelayedFetch, FetchPartitionStatus, FetchMetadata.

A long-poll fetch (S35): created only when the fetch may wait (``max_wait_ms`` > 0), names
partitions, found fewer bytes than ``min_bytes`` and no error. It is watched under each
partition's key; an append to one of them (``Partition.try_complete_delayed_requests``)
calls ``try_complete``, which adds up the bytes now available between each fetch offset and the
log end (followers), the high watermark (read_uncommitted consumers) or the last stable offset
(read_committed consumers: a marker that moves the LSO completes them) -- by file position, without
reading anything. Enough bytes, a partition that
moved or failed, or the timeout complete it; ``on_complete`` then reads the logs again.
Cases of Kafka's tryComplete: A not leader, B unknown partition, C the log was truncated below
the fetch offset, D storage error, E fenced epoch, F the fetch offset is on an older segment,
G enough bytes accumulated (a leader-throttled partition's bytes do not count, and its case F does not
complete the fetch: ReplicaManager.should_leader_throttle), H a follower has not yet been sent the current
high watermark (so the followers learn a new high watermark within one fetch round-trip, not after
replica.fetch.wait.max.ms).
"""
from __future__ import annotations

import attrs

from kafkalite.log.fetch_data_info import FetchIsolation
from kafkalite.log.log_offset_metadata import OffsetOrderingException
from kafkalite.protocol.errors import ApiException
from kafkalite.server.delayed_operation import DelayedOperation
from kafkalite.server.replication_quota_manager import UnboundedQuota


@attrs.define
class FetchPartitionStatus:
    """Kafka: FetchPartitionStatus(startOffsetMetadata, fetchInfo)."""

    start_offset_metadata: object   # LogOffsetMetadata
    fetch_info: object              # FetchRequest partition (fetch_offset, partition_max_bytes, current_leader_epoch)


@attrs.frozen
class FetchMetadata:
    """Kafka: FetchMetadata(fetchMinBytes, fetchMaxBytes, hardMaxBytesLimit, fetchOnlyLeader, fetchIsolation,
    isFromFollower, replicaId, fetchPartitionStatus) -- what a parked fetch asked for. ``fetch_infos`` (the
    request's partitions, in order) is what ``on_complete`` reads again."""

    fetch_min_bytes: int
    fetch_max_bytes: int
    hard_max_bytes_limit: bool
    fetch_only_leader: bool
    fetch_isolation: FetchIsolation
    is_from_follower: bool
    replica_id: int
    fetch_partition_status: list   # [(TopicPartition, FetchPartitionStatus)]
    fetch_infos: list              # [(TopicPartition, FetchRequest partition)]


class DelayedFetch(DelayedOperation):
    """Kafka: DelayedFetch(delayMs, fetchMetadata, replicaManager, quota, clientMetadata, responseCallback)."""

    def __init__(self, delay_ms: int, fetch_metadata: FetchMetadata, replica_manager, response_callback,
                 quota=UnboundedQuota):
        super().__init__(delay_ms)
        self.fetch_metadata = fetch_metadata
        self.quota = quota
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        self.completed_by = None   # "append" or "expiry": lets tests and the request trace see why

    # Kafka: DelayedFetch.tryComplete
    def try_complete(self) -> bool:
        md = self.fetch_metadata
        accumulated = 0
        for tp, status in md.fetch_partition_status:
            fetch_offset = status.start_offset_metadata
            try:
                if fetch_offset.message_offset_only():
                    continue
                partition = self.replica_manager.get_partition_or_exception(tp, expect_leader=md.fetch_only_leader)
                snapshot = partition.fetch_offset_snapshot(status.fetch_info.current_leader_epoch,
                                                           md.fetch_only_leader)
                if md.fetch_isolation is FetchIsolation.FETCH_LOG_END:
                    end = snapshot.log_end_offset
                elif md.fetch_isolation is FetchIsolation.FETCH_TXN_COMMITTED:
                    end = snapshot.last_stable_offset
                else:
                    end = snapshot.high_watermark
                if end.message_offset != fetch_offset.message_offset:
                    if end.on_older_segment(fetch_offset):                 # case C
                        return self.force_complete()
                    if fetch_offset.on_older_segment(end):                 # case F
                        if not self._should_leader_throttle(tp):
                            return self.force_complete()
                    elif fetch_offset.message_offset < end.message_offset:  # count what is readable now
                        if not self._should_leader_throttle(tp):
                            accumulated += min(end.position_diff(fetch_offset), status.fetch_info.partition_max_bytes)
                if md.is_from_follower:                                   # case H: a follower lacks the HW
                    replica = partition.get_replica(md.replica_id)
                    if replica is not None and snapshot.high_watermark.message_offset > replica.last_sent_high_watermark:
                        return self.force_complete()
            except (ApiException, OffsetOrderingException):              # cases A, B, D, E
                return self.force_complete()
        if accumulated >= md.fetch_min_bytes:                           # case G
            return self.force_complete()
        return False

    def _should_leader_throttle(self, tp) -> bool:
        return self.quota is not UnboundedQuota and \
            self.replica_manager.should_leader_throttle(self.quota, tp, self.fetch_metadata.replica_id)

    def force_complete(self) -> bool:
        if self.completed_by is None:
            self.completed_by = "expiry" if self._expiring else "append"
        return super().force_complete()

    _expiring = False

    # Kafka: DelayedOperation.run -- mark expiry before completing, for completed_by
    def run(self) -> None:
        self._expiring = True
        super().run()

    def on_expiration(self) -> None:
        pass

    # Kafka: DelayedFetch.onComplete -- read again and answer.
    def on_complete(self) -> None:
        md = self.fetch_metadata
        results = self.replica_manager.read_from_local_log(
            md.replica_id, md.fetch_only_leader, md.fetch_isolation, md.fetch_max_bytes, md.hard_max_bytes_limit,
            md.fetch_infos, self.quota)
        self.response_callback(self.replica_manager.to_fetch_partition_data(results))
