"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DelayedDeleteRecords.scala

Classes: DeleteRecordsPartitionStatus, DelayedDeleteRecords, DelayedDeleteRecordsMetrics (module attribute
``DELAYED_DELETE_RECORDS_METRICS``, Kafka's ``object DelayedDeleteRecordsMetrics``).

DeleteRecords moves the leader's log start offset at once, but its answer promises the partition's *low
watermark*: the smallest log start offset over the leader and its live followers. A follower moves its own log
start offset when a fetch response carries the leader's, and tells the leader in its next fetch; until every
live replica has done so, the request waits here, watched under each partition's key. It completes when each
partition's low watermark reached the requested offset or the partition failed (no longer leader, offline,
unknown), and on expiry answers REQUEST_TIMED_OUT for the partitions still pending, counted in
``kafka.server:type=DelayedDeleteRecordsMetrics,name=ExpiresPerSec``.
"""
from __future__ import annotations

import attrs

from kafkalite.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.server.delayed_operation import DelayedOperation

INVALID_LOW_WATERMARK = -1   # Kafka: DeleteRecordsResponse.INVALID_LOW_WATERMARK


class DelayedDeleteRecordsMetrics(KafkaMetricsGroup):
    """Kafka: DelayedDeleteRecordsMetrics -- how many DeleteRecords requests expired in the purgatory."""

    def __init__(self):
        self.new_meter("ExpiresPerSec", "requests")   # Kafka: aggregateExpirationMeter

    # Kafka: DelayedDeleteRecordsMetrics.recordExpiration
    def record_expiration(self, partition) -> None:
        self.new_meter("ExpiresPerSec", "requests").mark()


DELAYED_DELETE_RECORDS_METRICS = DelayedDeleteRecordsMetrics()


@attrs.define
class DeleteRecordsPartitionStatus:
    """Kafka: DeleteRecordsPartitionStatus(requiredOffset, responseStatus) -- the answer is (low watermark, error)."""

    required_offset: int
    low_watermark: int
    error: Errors
    acks_pending: bool = False


class DelayedDeleteRecords(DelayedOperation):
    """Kafka: DelayedDeleteRecords(delayMs, deleteRecordsStatus, replicaManager, responseCallback)."""

    def __init__(self, delay_ms: int, delete_records_status: dict, replica_manager, response_callback):
        super().__init__(delay_ms)
        self.delete_records_status = delete_records_status
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        # a partition whose local deletion worked waits for its low watermark; until then it has "timed out"
        for status in delete_records_status.values():
            status.acks_pending = status.error is Errors.NONE
            if status.acks_pending:
                status.error = Errors.REQUEST_TIMED_OUT

    # Kafka: DelayedDeleteRecords.tryComplete
    def try_complete(self) -> bool:
        for tp, status in self.delete_records_status.items():
            if not status.acks_pending:
                continue
            # Kafka: getPartition's HostedPartition.Online (leader or not) / Offline / None -- a partition this
            # broker no longer hosts is UNKNOWN_TOPIC_OR_PARTITION, whatever the metadata says
            partition = self.replica_manager.get_partition(tp)
            if partition is not None and partition.leader_log_if_local() is not None:
                try:
                    low_watermark = partition.low_watermark_if_leader()
                    reached, error = low_watermark >= status.required_offset, Errors.NONE
                except ApiException as e:   # the leadership went meanwhile
                    reached, error, low_watermark = False, e.error, INVALID_LOW_WATERMARK
            else:
                reached, low_watermark = False, INVALID_LOW_WATERMARK
                if partition is not None:
                    error = Errors.NOT_LEADER_FOR_PARTITION
                elif tp in self.replica_manager.offline_partitions:
                    error = Errors.KAFKA_STORAGE_ERROR
                else:
                    error = Errors.UNKNOWN_TOPIC_OR_PARTITION
            if error is not Errors.NONE or reached:
                status.acks_pending = False
                status.error = error
                status.low_watermark = low_watermark
        if not any(s.acks_pending for s in self.delete_records_status.values()):
            return self.force_complete()
        return False

    # Kafka: DelayedDeleteRecords.onExpiration
    def on_expiration(self) -> None:
        for tp, status in self.delete_records_status.items():
            if status.acks_pending:
                DELAYED_DELETE_RECORDS_METRICS.record_expiration(tp)

    # Kafka: DelayedDeleteRecords.onComplete
    def on_complete(self) -> None:
        self.response_callback({tp: (s.low_watermark, s.error) for tp, s in self.delete_records_status.items()})
