"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DelayedProduce.scala

Classes: DelayedProduce, ProducePartitionStatus, DelayedProduceMetrics (module attribute
``DELAYED_PRODUCE_METRICS``, Kafka's ``object DelayedProduceMetrics``).

A produce with acks=-1 waits here until every in-sync replica has the appended records (S33–S34):
each partition is pending until ``Partition.check_enough_replicas_reach_offset`` says its high
watermark passed the required offset. It is watched under each partition's key and completed by
``check_and_complete`` when a high watermark moves, or answered with REQUEST_TIMED_OUT for the
partitions still pending when ``timeout_ms`` expires. With one replica the leader alone is the
ISR, so the first try completes it. Each expiry is counted in
``kafka.server:type=DelayedProduceMetrics,name=ExpiresPerSec`` (and per partition, with ``topic`` and
``partition`` tags): the produce requests that timed out in the purgatory (S26's symptom).
"""
from __future__ import annotations

import attrs

from kafkalite.metrics.kafka_metrics_group import KafkaMetricsGroup
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.server.delayed_operation import DelayedOperation


class DelayedProduceMetrics(KafkaMetricsGroup):
    """Kafka: DelayedProduceMetrics -- how many produce requests expired in the purgatory, in all and per partition."""

    def __init__(self):
        self.new_meter("ExpiresPerSec", "requests")   # Kafka: aggregateExpirationMeter, there from the start

    # Kafka: DelayedProduceMetrics.recordExpiration -- meters are looked up in the registry each time, so a
    # registry cleared between benchmark runs gets them back
    def record_expiration(self, partition) -> None:
        self.new_meter("ExpiresPerSec", "requests").mark()
        self.new_meter("ExpiresPerSec", "requests", {"topic": partition.topic,
                                                     "partition": str(partition.partition)}).mark()


DELAYED_PRODUCE_METRICS = DelayedProduceMetrics()


@attrs.define
class ProducePartitionStatus:
    """Kafka: ProducePartitionStatus(requiredOffset, responseStatus)."""

    required_offset: int
    response_status: object        # replica_manager.PartitionResponse
    acks_pending: bool = False


class DelayedProduce(DelayedOperation):
    """Kafka: DelayedProduce(delayMs, produceMetadata, replicaManager, responseCallback, lockOpt)."""

    def __init__(self, delay_ms: int, required_acks: int, produce_status: dict, replica_manager, response_callback,
                 lock=None):
        super().__init__(delay_ms, lock)
        self.required_acks = required_acks
        self.produce_status = produce_status
        self.replica_manager = replica_manager
        self.response_callback = response_callback
        # a partition that appended fine waits for its acks; until then its answer is "timed out"
        for status in produce_status.values():
            if status.response_status.error is Errors.NONE:
                status.acks_pending = True
                status.response_status.error = Errors.REQUEST_TIMED_OUT
            else:
                status.acks_pending = False

    # Kafka: DelayedProduce.tryComplete
    def try_complete(self) -> bool:
        for tp, status in self.produce_status.items():
            if not status.acks_pending:
                continue
            try:
                partition = self.replica_manager.get_partition_or_exception(tp, expect_leader=True)
                has_enough, error = partition.check_enough_replicas_reach_offset(status.required_offset)
            except ApiException as e:
                has_enough, error = False, e.error
            if error is not Errors.NONE or has_enough:
                status.acks_pending = False
                status.response_status.error = error
        if not any(s.acks_pending for s in self.produce_status.values()):
            return self.force_complete()
        return False

    # Kafka: DelayedProduce.onExpiration
    def on_expiration(self) -> None:
        for tp, status in self.produce_status.items():
            if status.acks_pending:
                self.debug(f"Expiring produce request for partition {tp} with status {status}")
                DELAYED_PRODUCE_METRICS.record_expiration(tp)

    # Kafka: DelayedProduce.onComplete
    def on_complete(self) -> None:
        self.response_callback({tp: s.response_status for tp, s in self.produce_status.items()})
