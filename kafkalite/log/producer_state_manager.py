"""Mirrors Kafka 2.4: core/src/main/scala/kafka/log/ProducerStateManager.scala

Classes: BatchMetadata, ProducerStateEntry, ProducerAppendInfo, ProducerStateManager,
AppendOrigin (Kafka 2.4 has it in Log.scala).

Idempotent producers (KIP-98): for each producer id the broker remembers the epoch and the
metadata of its last 5 batches. A leader append from a client is checked against it:
- the same (epoch, first sequence, last sequence) as a remembered batch is a duplicate; Log
  answers with the original offsets and appends nothing;
- an epoch older than the remembered one -> ProducerFencedException (INVALID_PRODUCER_EPOCH);
- a first sequence that does not follow the last one -> OutOfOrderSequenceException;
- a producer id the broker has never seen (or a new epoch) whose first sequence is not 0 ->
  UnknownProducerIdException if the broker knows no epoch for it, else
  OutOfOrderSequenceException -- exactly Kafka 2.4's ``checkSequence``.
Only batch headers are read (pid, epoch, base/last sequence), never records.

Era notes / left out: no ``.snapshot`` files -- Log rebuilds this state at load by scanning the
batch headers of every segment; no transactions (``currentTxnFirstOffset``, ongoing/completed
transactions, the coordinator epoch are kept only as fields).
"""
from __future__ import annotations

import collections
import enum

import attrs

from kafkalite.protocol.errors import Errors
from kafkalite.record.record_batch import RecordBatch
from kafkalite.utils.logging import Logging

INT_MAX = 0x7FFFFFFF


class AppendOrigin(enum.Enum):
    """Kafka: AppendOrigin -- who is appending (client produce, replication, a coordinator)."""

    CLIENT = "Client"
    REPLICATION = "Replication"
    COORDINATOR = "Coordinator"


# Kafka: DefaultRecordBatch.decrementSequence
def decrement_sequence(sequence: int, decrement: int) -> int:
    if sequence < decrement:
        return INT_MAX - (decrement - sequence) + 1
    return sequence - decrement


@attrs.frozen
class BatchMetadata:
    """Kafka: BatchMetadata -- what is remembered of one appended batch."""

    last_seq: int
    last_offset: int
    offset_delta: int
    timestamp: int

    @property
    def first_seq(self) -> int:
        return decrement_sequence(self.last_seq, self.offset_delta)

    @property
    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta


class ProducerStateEntry:
    """Kafka: ProducerStateEntry -- one producer id's epoch and last few batches."""

    NUM_BATCHES_TO_RETAIN = 5

    def __init__(self, producer_id: int, producer_epoch: int = RecordBatch.NO_PRODUCER_EPOCH,
                 coordinator_epoch: int = -1, last_timestamp: int = RecordBatch.NO_TIMESTAMP,
                 current_txn_first_offset: int | None = None):
        self.producer_id = producer_id
        self.batch_metadata: collections.deque[BatchMetadata] = collections.deque()
        self.producer_epoch = producer_epoch
        self.coordinator_epoch = coordinator_epoch
        self.last_timestamp = last_timestamp
        self.current_txn_first_offset = current_txn_first_offset

    # Kafka: ProducerStateEntry.empty
    @classmethod
    def empty(cls, producer_id: int) -> "ProducerStateEntry":
        return cls(producer_id)

    @property
    def first_seq(self) -> int:
        return RecordBatch.NO_SEQUENCE if self.is_empty() else self.batch_metadata[0].first_seq

    @property
    def last_seq(self) -> int:
        return RecordBatch.NO_SEQUENCE if self.is_empty() else self.batch_metadata[-1].last_seq

    @property
    def last_data_offset(self) -> int:
        return -1 if self.is_empty() else self.batch_metadata[-1].last_offset

    def is_empty(self) -> bool:
        return not self.batch_metadata

    # Kafka: ProducerStateEntry.addBatch
    def add_batch(self, producer_epoch: int, last_seq: int, last_offset: int, offset_delta: int, timestamp: int) -> None:
        self.maybe_update_epoch(producer_epoch)
        self.add_batch_metadata(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        self.last_timestamp = timestamp

    # Kafka: ProducerStateEntry.maybeUpdateEpoch
    def maybe_update_epoch(self, producer_epoch: int) -> bool:
        if self.producer_epoch != producer_epoch:
            self.batch_metadata.clear()
            self.producer_epoch = producer_epoch
            return True
        return False

    # Kafka: ProducerStateEntry.addBatchMetadata
    def add_batch_metadata(self, batch: BatchMetadata) -> None:
        if len(self.batch_metadata) == self.NUM_BATCHES_TO_RETAIN:
            self.batch_metadata.popleft()
        self.batch_metadata.append(batch)

    # Kafka: ProducerStateEntry.update
    def update(self, next_entry: "ProducerStateEntry") -> None:
        self.maybe_update_epoch(next_entry.producer_epoch)
        while next_entry.batch_metadata:
            self.add_batch_metadata(next_entry.batch_metadata.popleft())
        self.coordinator_epoch = next_entry.coordinator_epoch
        self.current_txn_first_offset = next_entry.current_txn_first_offset
        self.last_timestamp = next_entry.last_timestamp

    # Kafka: ProducerStateEntry.findDuplicateBatch
    def find_duplicate_batch(self, batch) -> BatchMetadata | None:
        if batch.producer_epoch != self.producer_epoch:
            return None
        return self.batch_with_sequence_range(batch.base_sequence, batch.last_sequence)

    # Kafka: ProducerStateEntry.batchWithSequenceRange
    def batch_with_sequence_range(self, first_seq: int, last_seq: int) -> BatchMetadata | None:
        for m in self.batch_metadata:
            if m.first_seq == first_seq and m.last_seq == last_seq:
                return m
        return None

    def __repr__(self) -> str:
        return (f"ProducerStateEntry(producerId={self.producer_id}, producerEpoch={self.producer_epoch}, "
                f"batchMetadata={list(self.batch_metadata)})")


def _in_sequence(last_seq: int, next_seq: int) -> bool:
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT_MAX)


class ProducerAppendInfo:
    """Kafka: ProducerAppendInfo -- validates one producer's batches in an append, then records them."""

    # Kafka: ProducerAppendInfo.<init>
    def __init__(self, topic_partition, producer_id: int, current_entry: ProducerStateEntry, origin: AppendOrigin):
        self.topic_partition = topic_partition
        self.producer_id = producer_id
        self.current_entry = current_entry
        self.origin = origin
        self.updated_entry = ProducerStateEntry(
            producer_id, current_entry.producer_epoch, current_entry.coordinator_epoch,
            current_entry.last_timestamp, current_entry.current_txn_first_offset)

    # Kafka: ProducerAppendInfo.checkProducerEpoch
    def _check_producer_epoch(self, producer_epoch: int, offset: int) -> None:
        if producer_epoch < self.updated_entry.producer_epoch:
            raise Errors.INVALID_PRODUCER_EPOCH.exception(
                f"Producer's epoch at offset {offset} in {self.topic_partition} is {producer_epoch}, which is "
                f"smaller than the last seen epoch {self.updated_entry.producer_epoch}")

    # Kafka: ProducerAppendInfo.checkSequence
    def _check_sequence(self, producer_epoch: int, append_first_seq: int, offset: int) -> None:
        if producer_epoch != self.updated_entry.producer_epoch:
            if append_first_seq != 0:
                if self.updated_entry.producer_epoch != RecordBatch.NO_PRODUCER_EPOCH:
                    raise Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.exception(
                        f"Invalid sequence number for new epoch at offset {offset} in partition "
                        f"{self.topic_partition}: {producer_epoch} (request epoch), {append_first_seq} (seq. number)")
                raise Errors.UNKNOWN_PRODUCER_ID.exception(
                    f"Found no record of producerId={self.producer_id} on the broker at offset {offset} in "
                    f"partition {self.topic_partition}. It is possible that the last message with the "
                    f"producerId={self.producer_id} has been removed due to hitting the retention limit.")
            return
        if not self.updated_entry.is_empty():
            current_last_seq = self.updated_entry.last_seq
        elif producer_epoch == self.current_entry.producer_epoch:
            current_last_seq = self.current_entry.last_seq
        else:
            current_last_seq = RecordBatch.NO_SEQUENCE
        if current_last_seq == RecordBatch.NO_SEQUENCE and append_first_seq != 0:
            raise Errors.UNKNOWN_PRODUCER_ID.exception(
                f"Local producer state matches expected epoch {producer_epoch} for producerId={self.producer_id} "
                f"at offset {offset} in partition {self.topic_partition}, but the next expected sequence number "
                "is not known.")
        if not _in_sequence(current_last_seq, append_first_seq):
            raise Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.exception(
                f"Out of order sequence number for producerId {self.producer_id} at offset {offset} in partition "
                f"{self.topic_partition}: {append_first_seq} (incoming seq. number), {current_last_seq} "
                "(current end sequence number)")

    # Kafka: ProducerAppendInfo.append(batch)
    def append(self, batch) -> None:
        if batch.is_control_batch:
            # Transaction markers: kafkalite has no transactions; only the epoch is taken.
            self._check_producer_epoch(batch.producer_epoch, batch.base_offset)
            self.updated_entry.maybe_update_epoch(batch.producer_epoch)
            return
        self.append_data_batch(batch.producer_epoch, batch.base_sequence, batch.last_sequence, batch.max_timestamp,
                               batch.base_offset, batch.last_offset, batch.is_transactional)

    # Kafka: ProducerAppendInfo.append (a data batch)
    def append_data_batch(self, epoch: int, first_seq: int, last_seq: int, last_timestamp: int,
                          first_offset: int, last_offset: int, is_transactional: bool) -> None:
        self._check_producer_epoch(epoch, first_offset)
        if self.origin is AppendOrigin.CLIENT:
            self._check_sequence(epoch, first_seq, first_offset)
        self.updated_entry.add_batch(epoch, last_seq, last_offset, last_offset - first_offset, last_timestamp)


class ProducerStateManager(Logging):
    """Kafka: ProducerStateManager -- producer id -> ProducerStateEntry for one partition."""

    # Kafka: ProducerStateManager.<init>
    def __init__(self, topic_partition, log_dir: str, max_producer_id_expiration_ms: int = 7 * 24 * 3600 * 1000):
        self.topic_partition = topic_partition
        self.log_dir = log_dir
        self.max_producer_id_expiration_ms = max_producer_id_expiration_ms
        self.producers: dict[int, ProducerStateEntry] = {}
        self.last_map_offset = 0
        self.log_ident = f"[ProducerStateManager partition={topic_partition}] "

    # Kafka: ProducerStateManager.mapEndOffset
    @property
    def map_end_offset(self) -> int:
        return self.last_map_offset

    def is_empty(self) -> bool:
        return not self.producers

    # Kafka: ProducerStateManager.activeProducers
    def active_producers(self) -> dict[int, ProducerStateEntry]:
        return dict(self.producers)

    # Kafka: ProducerStateManager.lastEntry
    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self.producers.get(producer_id)

    # Kafka: ProducerStateManager.prepareUpdate
    def prepare_update(self, producer_id: int, origin: AppendOrigin) -> ProducerAppendInfo:
        current = self.last_entry(producer_id) or ProducerStateEntry.empty(producer_id)
        return ProducerAppendInfo(self.topic_partition, producer_id, current, origin)

    # Kafka: ProducerStateManager.update
    def update(self, append_info: ProducerAppendInfo) -> None:
        if append_info.producer_id == RecordBatch.NO_PRODUCER_ID:
            raise ValueError(f"Invalid producer id {append_info.producer_id} passed to update for partition "
                             f"{self.topic_partition}")
        entry = self.producers.get(append_info.producer_id)
        if entry is None:
            self.producers[append_info.producer_id] = append_info.updated_entry
        else:
            entry.update(append_info.updated_entry)

    # Kafka: ProducerStateManager.updateMapEndOffset
    def update_map_end_offset(self, last_offset: int) -> None:
        self.last_map_offset = last_offset

    def load_batch(self, batch) -> None:
        """Replay one batch from the log (Kafka: Log.loadProducersFromLog / updateProducers)."""
        info = self.prepare_update(batch.producer_id, AppendOrigin.REPLICATION)
        info.append(batch)
        self.update(info)

    # Kafka: ProducerStateManager.isProducerExpired (no transactions: no open-transaction guard)
    def is_producer_expired(self, current_time_ms: int, producer_state: ProducerStateEntry) -> bool:
        return current_time_ms - producer_state.last_timestamp >= self.max_producer_id_expiration_ms

    # Kafka: ProducerStateManager.removeExpiredProducers (Log's PeriodicProducerExpirationCheck calls it)
    def remove_expired_producers(self, current_time_ms: int) -> None:
        expired = [pid for pid, e in self.producers.items() if self.is_producer_expired(current_time_ms, e)]
        for pid in expired:
            del self.producers[pid]

    # Kafka: ProducerStateManager.truncate
    def truncate(self) -> None:
        self.producers.clear()
        self.last_map_offset = 0
