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

Transactions (KIP-98): a transactional data batch from a producer with no open transaction opens
one (``current_txn_first_offset``, a TxnMetadata in ``ongoing_txns``, ordered by first offset); a
control batch (COMMIT/ABORT marker, written by the transaction coordinator through WriteTxnMarkers)
closes it: the marker's producer epoch must not be older than the producer's (else
INVALID_PRODUCER_EPOCH, Kafka 2.4's ProducerFencedException) and its coordinator epoch not older than
the last marker's (else TRANSACTION_COORDINATOR_FENCED). The closed transaction (CompletedTxn) moves
to ``unreplicated_txns`` until the high watermark passes its marker; the first offset of the oldest
ongoing or unreplicated transaction is the log's first unstable offset, which bounds the last stable
offset. A non-transactional write while a transaction is open is INVALID_TXN_STATE.

Snapshots: ``<offset>.snapshot`` in the partition directory holds the state of every producer as of
``offset`` (exclusive): version (int16, 1), CRC-32C (uint32) of everything after it, then an array of
entries (producer id int64, epoch int16, last sequence int32, last offset int64, offset delta int32,
timestamp int64, coordinator epoch int32, current transaction's first offset int64 or -1). Log takes one
when it rolls a segment, when it closes and after rebuilding; at load it reads the latest one and replays
only the batches after it. A snapshot that fails its version or CRC check is deleted (with a warning) and
the next older one is tried, down to the log start offset. An open transaction survives through its
entry's current transaction first offset; completed transactions above the high watermark do not (2.4
keeps the log end offset at or below the high watermark when it reloads).

Era notes / left out: as in 2.4 a snapshot keeps only the last batch of each producer, so after a restart
a retry of an older one of its last five batches is no longer recognised as a duplicate; an entry saved
without any batch (last offset -1) loads with none (2.4 loads a batch of sequence -1, which checks the
same). Validation follows the ``AppendOrigin`` of
Kafka 2.5+ (2.4 passes ``isFromClient``): client appends get the full sequence check (epoch only on
``__consumer_offsets``, as 2.4's ValidationType.EpochOnly), coordinator and replication appends the
epoch check; markers always get the epoch and coordinator-epoch checks.
"""
from __future__ import annotations

import collections
import enum
import os
import struct

import attrs

from kafkalite.common.topic import GROUP_METADATA_TOPIC_NAME
from kafkalite.log.log_file_utils import (
    PRODUCER_SNAPSHOT_FILE_SUFFIX, offset_from_file_name, producer_snapshot_file)
from kafkalite.log.log_offset_metadata import LogOffsetMetadata
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
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


@attrs.define
class TxnMetadata:
    """Kafka: TxnMetadata -- an open (or completed but not yet replicated) transaction of one producer."""

    producer_id: int
    first_offset: LogOffsetMetadata
    last_offset: int | None = None


@attrs.frozen
class CompletedTxn:
    """Kafka: CompletedTxn(producerId, firstOffset, lastOffset, isAborted) -- Kafka 2.4 has it in Log.scala."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


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

    @property
    def last_offset_delta(self) -> int:
        return 0 if self.is_empty() else self.batch_metadata[-1].offset_delta

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
        self.transactions: list[TxnMetadata] = []
        self.updated_entry = ProducerStateEntry(
            producer_id, current_entry.producer_epoch, current_entry.coordinator_epoch,
            current_entry.last_timestamp, current_entry.current_txn_first_offset)

    # Kafka: ProducerAppendInfo.maybeValidateAppend -- 2.4's ValidationType: Full for clients, EpochOnly for
    # clients writing to __consumer_offsets; kafkalite keeps the epoch check for the other origins too.
    def _maybe_validate_append(self, producer_epoch: int, first_seq: int, offset: int) -> None:
        self._check_producer_epoch(producer_epoch, offset)
        if self.origin is AppendOrigin.CLIENT and \
                getattr(self.topic_partition, "topic", None) != GROUP_METADATA_TOPIC_NAME:
            self._check_sequence(producer_epoch, first_seq, offset)

    # Kafka: ProducerAppendInfo.checkProducerEpoch
    def _check_producer_epoch(self, producer_epoch: int, offset: int) -> None:
        if producer_epoch < self.updated_entry.producer_epoch:
            raise Errors.INVALID_PRODUCER_EPOCH.exception(
                f"Producer's epoch at offset {offset} is no longer valid in partition {self.topic_partition}: "
                f"{producer_epoch} (request epoch), {self.updated_entry.producer_epoch} (current epoch)")

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

    # Kafka: ProducerAppendInfo.append(batch, firstOffsetMetadataOpt) -- a control batch completes the open
    # transaction (returns the CompletedTxn); a data batch is checked and remembered.
    def append(self, batch, first_offset_metadata: LogOffsetMetadata | None = None) -> CompletedTxn | None:
        if batch.is_control_batch:
            record = next(iter(batch), None)
            if record is None:
                # an empty control batch: the whole transaction was cleaned from the log
                return None
            marker = EndTransactionMarker.deserialize(record.key, record.value)
            return self.append_end_txn_marker(marker, batch.producer_epoch, batch.base_offset, record.timestamp)
        if first_offset_metadata is None:
            first_offset_metadata = LogOffsetMetadata(batch.base_offset)
        self.append_data_batch(batch.producer_epoch, batch.base_sequence, batch.last_sequence, batch.max_timestamp,
                               first_offset_metadata, batch.last_offset, batch.is_transactional)
        return None

    # Kafka: ProducerAppendInfo.append (a data batch)
    def append_data_batch(self, epoch: int, first_seq: int, last_seq: int, last_timestamp: int,
                          first_offset_metadata, last_offset: int, is_transactional: bool) -> None:
        if not isinstance(first_offset_metadata, LogOffsetMetadata):
            first_offset_metadata = LogOffsetMetadata(first_offset_metadata)
        first_offset = first_offset_metadata.message_offset
        self._maybe_validate_append(epoch, first_seq, first_offset)
        self.updated_entry.add_batch(epoch, last_seq, last_offset, last_offset - first_offset, last_timestamp)
        if self.updated_entry.current_txn_first_offset is not None and not is_transactional:
            raise Errors.INVALID_TXN_STATE.exception(
                f"Expected transactional write from producer {self.producer_id} at offset {first_offset} in "
                f"partition {self.topic_partition}")
        if self.updated_entry.current_txn_first_offset is None and is_transactional:
            # a new transaction begins
            self.updated_entry.current_txn_first_offset = first_offset
            self.transactions.append(TxnMetadata(self.producer_id, first_offset_metadata))

    # Kafka: ProducerAppendInfo.appendEndTxnMarker
    def append_end_txn_marker(self, end_txn_marker: EndTransactionMarker, producer_epoch: int, offset: int,
                              timestamp: int) -> CompletedTxn:
        self._check_producer_epoch(producer_epoch, offset)
        if self.updated_entry.coordinator_epoch > end_txn_marker.coordinator_epoch:
            raise Errors.TRANSACTION_COORDINATOR_FENCED.exception(
                f"Invalid coordinator epoch for producerId {self.producer_id} at offset {offset} in partition "
                f"{self.topic_partition}: {end_txn_marker.coordinator_epoch} (zombie), "
                f"{self.updated_entry.coordinator_epoch} (current)")
        self.updated_entry.maybe_update_epoch(producer_epoch)
        first_offset = self.updated_entry.current_txn_first_offset
        if first_offset is None:
            # a marker with no data before it here (the data was deleted, or never came): a one-offset transaction
            self.transactions.append(TxnMetadata(self.producer_id, LogOffsetMetadata(offset)))
            first_offset = offset
        self.updated_entry.current_txn_first_offset = None
        self.updated_entry.coordinator_epoch = end_txn_marker.coordinator_epoch
        self.updated_entry.last_timestamp = timestamp
        return CompletedTxn(self.producer_id, first_offset, offset,
                            end_txn_marker.control_type is ControlRecordType.ABORT)

    # Kafka: ProducerAppendInfo.startedTransactions
    def started_transactions(self) -> list[TxnMetadata]:
        return list(self.transactions)

    def __repr__(self) -> str:
        e = self.updated_entry
        return (f"ProducerAppendInfo(producerId={self.producer_id}, producerEpoch={e.producer_epoch}, "
                f"firstSequence={e.first_seq}, lastSequence={e.last_seq}, "
                f"currentTxnFirstOffset={e.current_txn_first_offset}, coordinatorEpoch={e.coordinator_epoch}, "
                f"startedTransactions={self.transactions})")


class CorruptSnapshotException(Exception):
    """Kafka: CorruptSnapshotException -- a snapshot file with an unknown version, a bad CRC or a bad layout."""


# Kafka: ProducerStateManager.ProducerSnapshotVersion and the offsets of the snapshot's fields
PRODUCER_SNAPSHOT_VERSION = 1
CRC_OFFSET = 2
PRODUCER_ENTRIES_OFFSET = CRC_OFFSET + 4
_SNAPSHOT_HEADER = struct.Struct(">hIi")            # version, crc, number of entries
# producer id, epoch, last sequence, last offset, offset delta, timestamp, coordinator epoch, txn first offset
_SNAPSHOT_ENTRY = struct.Struct(">qhiqiqiq")


# Kafka: ProducerStateManager.readSnapshot
def read_snapshot(path: str) -> list[ProducerStateEntry]:
    with open(path, "rb") as f:
        buffer = f.read()
    try:
        version, crc, count = _SNAPSHOT_HEADER.unpack_from(buffer, 0)
    except struct.error as e:
        raise CorruptSnapshotException(f"Snapshot failed schema validation: {e}") from None
    if version != PRODUCER_SNAPSHOT_VERSION:
        raise CorruptSnapshotException(f"Snapshot contained an unknown file version {version}")
    if count < 0 or _SNAPSHOT_HEADER.size + count * _SNAPSHOT_ENTRY.size != len(buffer):
        raise CorruptSnapshotException(f"Snapshot failed schema validation: {count} entries do not fill "
                                       f"{len(buffer)} bytes")
    import crc32c   # loaded on first use, as in DefaultRecordBatch
    computed = crc32c.crc32c(buffer[PRODUCER_ENTRIES_OFFSET:])
    if crc != computed:
        raise CorruptSnapshotException(f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. "
                                       f"Computed crc: {computed}")
    entries = []
    for (producer_id, epoch, last_seq, last_offset, offset_delta, timestamp, coordinator_epoch,
         txn_first_offset) in _SNAPSHOT_ENTRY.iter_unpack(buffer[_SNAPSHOT_HEADER.size:]):
        entry = ProducerStateEntry(producer_id, epoch, coordinator_epoch, timestamp,
                                   txn_first_offset if txn_first_offset >= 0 else None)
        if last_offset >= 0:
            entry.add_batch_metadata(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        entries.append(entry)
    return entries


# Kafka: ProducerStateManager.writeSnapshot -- the CRC covers everything after its own field
def write_snapshot(path: str, entries: dict[int, ProducerStateEntry]) -> None:
    buffer = bytearray(_SNAPSHOT_HEADER.pack(PRODUCER_SNAPSHOT_VERSION, 0, len(entries)))
    for producer_id, entry in entries.items():
        first_offset = entry.current_txn_first_offset
        buffer += _SNAPSHOT_ENTRY.pack(producer_id, entry.producer_epoch, entry.last_seq, entry.last_data_offset,
                                       entry.last_offset_delta, entry.last_timestamp, entry.coordinator_epoch,
                                       -1 if first_offset is None else first_offset)
    import crc32c   # loaded on first use, as in DefaultRecordBatch
    struct.pack_into(">I", buffer, CRC_OFFSET, crc32c.crc32c(bytes(buffer[PRODUCER_ENTRIES_OFFSET:])))
    with open(path, "wb") as f:
        f.write(buffer)


# Kafka: ProducerStateManager.listSnapshotFiles
def list_snapshot_files(dir_: str) -> list[str]:
    if not os.path.isdir(dir_):
        return []
    return [os.path.join(dir_, name) for name in os.listdir(dir_)
            if name.endswith(PRODUCER_SNAPSHOT_FILE_SUFFIX) and os.path.isfile(os.path.join(dir_, name))]


# Kafka: ProducerStateManager.deleteSnapshotFiles
def delete_snapshot_files(dir_: str, predicate=lambda offset: True) -> None:
    for path in list_snapshot_files(dir_):
        if predicate(offset_from_file_name(path)):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


# Kafka: ProducerStateManager.deleteSnapshotsBefore
def delete_snapshots_before(dir_: str, offset: int) -> None:
    delete_snapshot_files(dir_, lambda snapshot_offset: snapshot_offset < offset)


class ProducerStateManager(Logging):
    """Kafka: ProducerStateManager -- producer id -> ProducerStateEntry for one partition, and its transactions."""

    # one per partition: no __dict__ per object (docs/benchmarks.md, memory per partition)
    __slots__ = (
        'topic_partition', 'log_dir', 'max_producer_id_expiration_ms', 'producers', 'ongoing_txns', 'unreplicated_txns',
        'last_map_offset', 'last_snap_offset'
    )

    # Kafka: Logging.logIdent -- Kafka builds this string in the constructor; it is built when a line is
    # logged instead: a broker holds one such object per partition, and the string costs ~100 B
    @property
    def log_ident(self) -> str:  # type: ignore[override]
        return f"[ProducerStateManager partition={self.topic_partition}] "

    # Kafka: ProducerStateManager.<init>
    def __init__(self, topic_partition, log_dir: str, max_producer_id_expiration_ms: int = 7 * 24 * 3600 * 1000):
        self.topic_partition = topic_partition
        self.log_dir = log_dir
        self.max_producer_id_expiration_ms = max_producer_id_expiration_ms
        self.producers: dict[int, ProducerStateEntry] = {}
        self.last_map_offset = 0
        self.last_snap_offset = 0
        # ongoing transactions by first offset; completed ones whose marker is not below the HW yet
        self.ongoing_txns: dict[int, TxnMetadata] = {}
        self.unreplicated_txns: dict[int, TxnMetadata] = {}

    # Kafka: ProducerStateManager.firstUnstableOffset -- the first offset of the oldest transaction that is
    # undecided or decided above the high watermark (None: nothing is unstable)
    def first_unstable_offset(self) -> LogOffsetMetadata | None:
        candidates = []
        if self.unreplicated_txns:
            candidates.append(self.unreplicated_txns[min(self.unreplicated_txns)].first_offset)
        if self.ongoing_txns:
            candidates.append(self.ongoing_txns[min(self.ongoing_txns)].first_offset)
        if not candidates:
            return None
        return min(candidates, key=lambda m: m.message_offset)

    # Kafka: ProducerStateManager.firstUndecidedOffset
    def first_undecided_offset(self) -> int | None:
        return min(self.ongoing_txns) if self.ongoing_txns else None

    # Kafka: ProducerStateManager.onHighWatermarkUpdated
    def on_high_watermark_updated(self, high_watermark: int) -> None:
        self._remove_unreplicated_transactions(high_watermark)

    # Kafka: ProducerStateManager.mapEndOffset
    @property
    def map_end_offset(self) -> int:
        return self.last_map_offset

    # Kafka: ProducerStateManager.isEmpty
    def is_empty(self) -> bool:
        return not self.producers and not self.unreplicated_txns

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
        for txn in append_info.started_transactions():
            self.ongoing_txns[txn.first_offset.message_offset] = txn

    # Kafka: ProducerStateManager.updateMapEndOffset
    def update_map_end_offset(self, last_offset: int) -> None:
        self.last_map_offset = last_offset

    # Kafka: ProducerStateManager.lastStableOffset(completedTxn) -- the LSO once ``completed_txn`` is
    # decided: the first offset of the oldest other open transaction, else just past the marker
    def last_stable_offset(self, completed_txn: CompletedTxn) -> int:
        for first_offset in sorted(self.ongoing_txns):
            if self.ongoing_txns[first_offset].producer_id != completed_txn.producer_id:
                return first_offset
        return completed_txn.last_offset + 1

    # Kafka: ProducerStateManager.completeTxn
    def complete_txn(self, completed_txn: CompletedTxn) -> None:
        txn = self.ongoing_txns.pop(completed_txn.first_offset, None)
        if txn is None:
            raise ValueError(f"Attempted to complete transaction {completed_txn} on partition {self.topic_partition} "
                             "which was not started")
        txn.last_offset = completed_txn.last_offset
        self.unreplicated_txns[completed_txn.first_offset] = txn

    # Kafka: ProducerStateManager.removeUnreplicatedTransactions
    def _remove_unreplicated_transactions(self, offset: int) -> None:
        for first_offset in [f for f, t in self.unreplicated_txns.items()
                             if t.last_offset is not None and t.last_offset < offset]:
            del self.unreplicated_txns[first_offset]

    # Kafka: ProducerStateManager.truncateHead -- the log start offset moved (retention, DeleteRecords)
    def truncate_head(self, log_start_offset: int) -> None:
        self._remove_unreplicated_transactions(log_start_offset)
        if self.last_map_offset < log_start_offset:
            self.last_map_offset = log_start_offset
        self.delete_snapshots_before(log_start_offset)
        latest = self.latest_snapshot_offset()
        self.last_snap_offset = log_start_offset if latest is None else latest

    def load_batch(self, batch) -> CompletedTxn | None:
        """Replay one batch from the log (Kafka: Log.loadProducersFromLog): open and complete transactions as
        the append did; the caller writes an aborted one to the transaction index if it rebuilds that."""
        info = self.prepare_update(batch.producer_id, AppendOrigin.REPLICATION)
        try:
            completed = info.append(batch)
        except ApiException as e:
            # No Kafka counterpart: a batch the log holds but the producer state refuses (it could only get
            # there around this check) is skipped with a warning rather than keeping the log from loading.
            self.warn("Skipping batch at offset %d of producer %d while loading producer state: %s",
                      batch.base_offset, batch.producer_id, e)
            return None
        self.update(info)
        if completed is not None:
            self.complete_txn(completed)
        return completed

    # Kafka: ProducerStateManager.isProducerExpired -- a producer with an open transaction never expires
    def is_producer_expired(self, current_time_ms: int, producer_state: ProducerStateEntry) -> bool:
        return (producer_state.current_txn_first_offset is None
                and current_time_ms - producer_state.last_timestamp >= self.max_producer_id_expiration_ms)

    # Kafka: ProducerStateManager.removeExpiredProducers (Log's PeriodicProducerExpirationCheck calls it)
    def remove_expired_producers(self, current_time_ms: int) -> None:
        expired = [pid for pid, e in self.producers.items() if self.is_producer_expired(current_time_ms, e)]
        for pid in expired:
            del self.producers[pid]

    # Kafka: ProducerStateManager.truncate -- forget everything, snapshots included
    def truncate(self) -> None:
        self.producers.clear()
        self.ongoing_txns.clear()
        self.unreplicated_txns.clear()
        delete_snapshot_files(self.log_dir)
        self.last_snap_offset = 0
        self.last_map_offset = 0

    # ---- snapshots ----
    # Kafka: ProducerStateManager.takeSnapshot -- only when the state moved past the last snapshot
    def take_snapshot(self) -> None:
        if self.last_map_offset > self.last_snap_offset:
            self.info("Writing producer snapshot at offset %d", self.last_map_offset)
            write_snapshot(producer_snapshot_file(self.log_dir, self.last_map_offset), self.producers)
            self.last_snap_offset = self.last_map_offset

    # Kafka: ProducerStateManager.latestSnapshotOffset
    def latest_snapshot_offset(self) -> int | None:
        offsets = self._snapshot_offsets()
        return max(offsets) if offsets else None

    # Kafka: ProducerStateManager.oldestSnapshotOffset
    def oldest_snapshot_offset(self) -> int | None:
        offsets = self._snapshot_offsets()
        return min(offsets) if offsets else None

    def _snapshot_offsets(self) -> list[int]:
        return [offset_from_file_name(path) for path in list_snapshot_files(self.log_dir)]

    # Kafka: ProducerStateManager.deleteSnapshotsBefore
    def delete_snapshots_before(self, offset: int) -> None:
        delete_snapshots_before(self.log_dir, offset)

    # Kafka: ProducerStateManager.truncateAndReload -- keep the snapshots inside (log start, log end], and
    # unless the state already ends at the log end, start again from the latest of them. The caller replays
    # the log from ``map_end_offset`` on.
    def truncate_and_reload(self, log_start_offset: int, log_end_offset: int, current_time_ms: int) -> None:
        delete_snapshot_files(self.log_dir, lambda offset: offset > log_end_offset or offset <= log_start_offset)
        if log_end_offset != self.map_end_offset:
            self.producers.clear()
            self.ongoing_txns.clear()
            # the log end offset is at or below the high watermark here, so nothing is unreplicated
            self.unreplicated_txns.clear()
            self._load_from_snapshot(log_start_offset, current_time_ms)
        else:
            self.truncate_head(log_start_offset)

    # Kafka: ProducerStateManager.loadFromSnapshot -- the latest readable snapshot; a corrupt one is deleted
    def _load_from_snapshot(self, log_start_offset: int, current_time_ms: int) -> None:
        while True:
            offset = self.latest_snapshot_offset()
            if offset is None:
                self.last_snap_offset = self.last_map_offset = log_start_offset
                return
            path = producer_snapshot_file(self.log_dir, offset)
            try:
                self.info("Loading producer state from snapshot file '%s'", path)
                entries = read_snapshot(path)
            except CorruptSnapshotException as e:
                self.warn("Failed to load producer snapshot from '%s': %s", path, e)
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
                continue
            for entry in entries:
                if not self.is_producer_expired(current_time_ms, entry):
                    self.load_producer_entry(entry)
            self.last_snap_offset = self.last_map_offset = offset
            return

    # Kafka: ProducerStateManager.loadProducerEntry -- an open transaction comes back as ongoing
    def load_producer_entry(self, entry: ProducerStateEntry) -> None:
        self.producers[entry.producer_id] = entry
        if entry.current_txn_first_offset is not None:
            self.ongoing_txns[entry.current_txn_first_offset] = TxnMetadata(
                entry.producer_id, LogOffsetMetadata(entry.current_txn_first_offset))
