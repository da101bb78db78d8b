"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/TransactionManager.java
(the idempotent-producer half only) and ProducerIdAndEpoch.java

Classes: ProducerIdAndEpoch, TransactionManager.

With ``enable.idempotence=true`` the Sender first gets a producer id and epoch (InitProducerId), then
stamps each batch at drain time with that id and a per-partition sequence number. The broker accepts a
batch only if its sequence follows the last one it stored, so a retried batch can neither be written
twice nor overtake a later one: batches sent after a failed one come back OUT_OF_ORDER_SEQUENCE_NUMBER,
are retried, and ``RecordAccumulator.reenqueue`` puts every retried batch back in sequence order.
Only the first in-flight sequence of a partition may be re-sent while retries are pending
(``first_in_flight_sequence``), which keeps order with up to 5 requests in flight.

Left out: transactions (begin/commit/abort, AddPartitionsToTxn, the coordinator), epoch bumps of
KIP-360 (a fatal sequence error resets the producer id instead, as 2.4 did), unresolved-sequence
handling after delivery timeouts.
"""
from __future__ import annotations

import logging

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors, RetriableException
from kafkalite.record.record_batch import RecordBatch

log = logging.getLogger("kafka.producer.TransactionManager")


@attrs.frozen
class ProducerIdAndEpoch:
    """Kafka: ProducerIdAndEpoch."""

    producer_id: int = RecordBatch.NO_PRODUCER_ID
    epoch: int = RecordBatch.NO_PRODUCER_EPOCH

    # Kafka: ProducerIdAndEpoch.isValid
    def is_valid(self) -> bool:
        return self.producer_id != RecordBatch.NO_PRODUCER_ID


ProducerIdAndEpoch.NONE = ProducerIdAndEpoch()


class TransactionManager:
    """Kafka: TransactionManager (idempotence only)."""

    def __init__(self):
        self.producer_id_and_epoch = ProducerIdAndEpoch.NONE
        self.next_sequence: dict[TopicPartition, int] = {}
        self.last_acked_sequence: dict[TopicPartition, int] = {}
        self.inflight_batches_by_sequence: dict[TopicPartition, list] = {}   # sorted by base sequence
        self.last_error: BaseException | None = None

    # Kafka: TransactionManager.hasFatalError
    def has_fatal_error(self) -> bool:
        return self.last_error is not None

    # Kafka: TransactionManager.transitionToFatalError
    def transition_to_fatal_error(self, exception: BaseException) -> None:
        log.error("Transition to fatal error state: %s", exception)
        self.last_error = exception

    # Kafka: TransactionManager.isTransactional
    def is_transactional(self) -> bool:
        return False

    # Kafka: TransactionManager.hasProducerId
    def has_producer_id(self, producer_id: int | None = None) -> bool:
        if producer_id is None:
            return self.producer_id_and_epoch.is_valid()
        return self.producer_id_and_epoch.producer_id == producer_id

    # Kafka: TransactionManager.hasProducerIdAndEpoch
    def has_producer_id_and_epoch(self, producer_id: int, producer_epoch: int) -> bool:
        return (self.producer_id_and_epoch.producer_id == producer_id
                and self.producer_id_and_epoch.epoch == producer_epoch)

    # Kafka: TransactionManager.setProducerIdAndEpoch
    def set_producer_id_and_epoch(self, producer_id_and_epoch: ProducerIdAndEpoch) -> None:
        log.info("ProducerId set to %d with epoch %d", producer_id_and_epoch.producer_id,
                 producer_id_and_epoch.epoch)
        self.producer_id_and_epoch = producer_id_and_epoch

    # Kafka: TransactionManager.resetProducerId -- forget the id and every sequence; the Sender asks again
    def reset_producer_id(self) -> None:
        log.info("Resetting producer id and all sequence numbers")
        self.producer_id_and_epoch = ProducerIdAndEpoch.NONE
        self.next_sequence.clear()
        self.last_acked_sequence.clear()
        self.inflight_batches_by_sequence.clear()

    # Kafka: TransactionManager.sequenceNumber
    def sequence_number(self, tp: TopicPartition) -> int:
        return self.next_sequence.get(tp, 0)

    # Kafka: TransactionManager.incrementSequenceNumber
    def increment_sequence_number(self, tp: TopicPartition, increment: int) -> None:
        self.next_sequence[tp] = self.sequence_number(tp) + increment

    # Kafka: TransactionManager.addInFlightBatch
    def add_in_flight_batch(self, batch) -> None:
        if not batch.has_sequence():
            raise RuntimeError(f"Can't track batch for partition {batch.topic_partition} when sequence is not set.")
        batches = self.inflight_batches_by_sequence.setdefault(batch.topic_partition, [])
        if batch not in batches:
            batches.append(batch)
            batches.sort(key=lambda b: b.base_sequence)

    # Kafka: TransactionManager.firstInFlightSequence
    def first_in_flight_sequence(self, tp: TopicPartition) -> int:
        batches = self.inflight_batches_by_sequence.get(tp)
        return batches[0].base_sequence if batches else RecordBatch.NO_SEQUENCE

    # Kafka: TransactionManager.nextBatchBySequence
    def next_batch_by_sequence(self, tp: TopicPartition):
        batches = self.inflight_batches_by_sequence.get(tp)
        return batches[0] if batches else None

    # Kafka: TransactionManager.removeInFlightBatch
    def remove_in_flight_batch(self, batch) -> None:
        batches = self.inflight_batches_by_sequence.get(batch.topic_partition)
        if batches and batch in batches:
            batches.remove(batch)

    # Kafka: TransactionManager.lastAckedSequence
    def last_acked_sequence_for(self, tp: TopicPartition) -> int:
        return self.last_acked_sequence.get(tp, -1)

    # Kafka: TransactionManager.isNextSequence
    def is_next_sequence(self, tp: TopicPartition, sequence: int) -> bool:
        return sequence - self.last_acked_sequence_for(tp) == 1

    # Kafka: TransactionManager.handleCompletedBatch
    def handle_completed_batch(self, batch) -> None:
        if not self.has_producer_id_and_epoch(batch.producer_id, batch.producer_epoch):
            return
        tp = batch.topic_partition
        self.last_acked_sequence[tp] = max(self.last_acked_sequence_for(tp), batch.last_sequence())
        log.debug("ProducerId: %d; Set last ack'd sequence number for topic-partition %s to %d",
                  batch.producer_id, tp, self.last_acked_sequence[tp])
        self.remove_in_flight_batch(batch)

    # Kafka: TransactionManager.handleFailedBatch
    def handle_failed_batch(self, batch, exception: BaseException, adjust_sequence_numbers: bool) -> None:
        if not self.has_producer_id_and_epoch(batch.producer_id, batch.producer_epoch):
            return
        if Errors.for_exception(exception) in (Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, Errors.UNKNOWN_PRODUCER_ID):
            log.error("The broker returned %s for topic-partition %s with producerId %d, epoch %d, and sequence "
                      "number %d", exception, batch.topic_partition, batch.producer_id, batch.producer_epoch,
                      batch.base_sequence)
            self.reset_producer_id()   # no guarantee about what the broker kept: start again with a new id
            return
        if adjust_sequence_numbers:
            self.adjust_sequences_due_to_failed_batch(batch)
        self.remove_in_flight_batch(batch)

    # Kafka: TransactionManager.adjustSequencesDueToFailedBatch -- close the gap the failed batch leaves
    def adjust_sequences_due_to_failed_batch(self, batch) -> None:
        tp = batch.topic_partition
        if tp not in self.next_sequence:
            return
        self.next_sequence[tp] = max(self.next_sequence[tp] - batch.record_count, 0)
        for in_flight in self.inflight_batches_by_sequence.get(tp, []):
            if in_flight.base_sequence > batch.base_sequence:
                new_sequence = in_flight.base_sequence - batch.record_count
                log.info("Resetting sequence number of batch with current sequence %d for partition %s to %d",
                         in_flight.base_sequence, tp, new_sequence)
                in_flight.reset_producer_state(in_flight.producer_id, in_flight.producer_epoch, new_sequence,
                                               False)
        self.inflight_batches_by_sequence[tp] = sorted(self.inflight_batches_by_sequence.get(tp, []),
                                                       key=lambda b: b.base_sequence)

    # Kafka: TransactionManager.canRetry
    def can_retry(self, error: Errors, batch) -> bool:
        if not self.has_producer_id_and_epoch(batch.producer_id, batch.producer_epoch):
            return False
        if error is Errors.OUT_OF_ORDER_SEQUENCE_NUMBER and \
                (batch.reopened or not self.is_next_sequence(batch.topic_partition, batch.base_sequence)):
            # An earlier batch of this partition is being retried: this one was refused only because it came
            # too soon. Retry it after that one.
            return True
        return isinstance(error.exception(), RetriableException) if error is not Errors.NONE else False
