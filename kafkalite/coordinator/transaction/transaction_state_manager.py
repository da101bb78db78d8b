"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala

Classes: TransactionConfig, TransactionStateManager and the small value classes of Kafka's file
(TxnMetadataCacheEntry, CoordinatorEpochAndTxnMetadata, TransactionalIdAndProducerIdEpoch,
TransactionPartitionAndLeaderEpoch, TransactionalIdCoordinatorEpochAndMetadata,
TransactionalIdCoordinatorEpochAndTransitMetadata); ReentrantReadWriteLock (Java's, for ``stateLock``).

The manager keeps, per ``__transaction_state`` partition this broker leads, the TransactionMetadata of
every transactional id hashed there, tagged with the coordinator epoch (the partition's leader epoch when
this broker became its leader). When the broker becomes leader (``load_transactions_for_txn_topic_partition``)
the "transaction-log-manager-0" scheduler thread replays the partition -- meanwhile requests get
COORDINATOR_LOAD_IN_PROGRESS -- and transactions found half-way (PrepareCommit/PrepareAbort) are finished by
sending their markers again. When it stops leading (``remove_transactions_for_txn_topic_partition``) the cache
entry goes and requests get NOT_COORDINATOR. ``append_transaction_to_log`` writes a TxnTransitMetadata with
acks=-1 and, once acknowledged, completes the transition in memory, unless the coordinator epoch changed
meanwhile. ``timed_out_transactions`` lists Ongoing transactions past their timeout;
the "transactionalId-expiration" job writes tombstones for ids idle longer than
``transactional.id.expiration.ms``.

Era notes: transaction.abort.timed.out.transaction.cleanup.interval.ms defaults to 10 s, as from Kafka 2.5
(2.4: 60 s), so that a transaction left open is aborted soon after its timeout. ``replica_manager.append_records``
has no ``delayedProduceLock`` argument in kafkalite; the state read lock is held across the append as Kafka does,
and ReentrantReadWriteLock below lets the same thread (or another reader, e.g. the thread that completes a
DelayedProduce) take the read lock again.
Left out: the partition-load-time sensor (transaction-coordinator-metrics).
"""
from __future__ import annotations

import contextlib
import threading
from typing import Callable

import attrs

from kafkalite.common.topic import TRANSACTION_STATE_TOPIC_NAME
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.common.utils import java_string_hashcode, utils_abs
from kafkalite.coordinator.transaction import transaction_log as TransactionLog
from kafkalite.coordinator.transaction.transaction_metadata import (CompleteAbort, CompleteCommit, Dead, Empty,
                                                                    Ongoing, PrepareAbort, PrepareCommit,
                                                                    TransactionMetadata, TransactionState,
                                                                    TxnTransitMetadata)
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.record.memory_records import MemoryRecordsBuilder
from kafkalite.utils.kafka_scheduler import KafkaScheduler
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM

DEFAULT_TRANSACTIONS_MAX_TIMEOUT_MS = 15 * 60 * 1000
DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS = 7 * 24 * 3600 * 1000
DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS = 10_000   # Kafka 2.5's default (2.4: one minute)
DEFAULT_REMOVE_EXPIRED_TRANSACTIONAL_IDS_INTERVAL_MS = 3600 * 1000


@attrs.frozen
class TransactionConfig:
    """Kafka: TransactionConfig -- the transaction.* settings (Kafka's defaults)."""

    transactional_id_expiration_ms: int = DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS
    transaction_max_timeout_ms: int = DEFAULT_TRANSACTIONS_MAX_TIMEOUT_MS
    transaction_log_num_partitions: int = TransactionLog.DEFAULT_NUM_PARTITIONS
    transaction_log_replication_factor: int = TransactionLog.DEFAULT_REPLICATION_FACTOR
    transaction_log_segment_bytes: int = TransactionLog.DEFAULT_SEGMENT_BYTES
    transaction_log_load_buffer_size: int = TransactionLog.DEFAULT_LOAD_BUFFER_SIZE
    transaction_log_min_insync_replicas: int = TransactionLog.DEFAULT_MIN_IN_SYNC_REPLICAS
    abort_timed_out_transactions_interval_ms: int = DEFAULT_ABORT_TIMED_OUT_TRANSACTIONS_INTERVAL_MS
    remove_expired_transactional_ids_interval_ms: int = DEFAULT_REMOVE_EXPIRED_TRANSACTIONAL_IDS_INTERVAL_MS
    request_timeout_ms: int = 30000

    # Kafka: TransactionCoordinator.apply builds it from KafkaConfig
    @classmethod
    def from_kafka_config(cls, config) -> "TransactionConfig":
        get = config.get
        return cls(transactional_id_expiration_ms=get("transactional.id.expiration.ms"),
                   transaction_max_timeout_ms=get("transaction.max.timeout.ms"),
                   transaction_log_num_partitions=get("transaction.state.log.num.partitions"),
                   transaction_log_replication_factor=get("transaction.state.log.replication.factor"),
                   transaction_log_segment_bytes=get("transaction.state.log.segment.bytes"),
                   transaction_log_load_buffer_size=get("transaction.state.log.load.buffer.size"),
                   transaction_log_min_insync_replicas=get("transaction.state.log.min.isr"),
                   abort_timed_out_transactions_interval_ms=get(
                       "transaction.abort.timed.out.transaction.cleanup.interval.ms"),
                   remove_expired_transactional_ids_interval_ms=get(
                       "transaction.remove.expired.transaction.cleanup.interval.ms"),
                   request_timeout_ms=get("request.timeout.ms"))


@attrs.frozen
class TxnMetadataCacheEntry:
    coordinator_epoch: int
    metadata_per_transactional_id: dict   # transactional id -> TransactionMetadata (Kafka: Pool)


@attrs.frozen
class CoordinatorEpochAndTxnMetadata:
    coordinator_epoch: int
    transaction_metadata: TransactionMetadata


@attrs.frozen
class TransactionalIdAndProducerIdEpoch:
    transactional_id: str
    producer_id: int
    producer_epoch: int


@attrs.frozen
class TransactionPartitionAndLeaderEpoch:
    txn_partition_id: int
    coordinator_epoch: int


@attrs.frozen
class TransactionalIdCoordinatorEpochAndMetadata:
    transactional_id: str
    coordinator_epoch: int
    transit_metadata: TxnTransitMetadata


@attrs.frozen
class TransactionalIdCoordinatorEpochAndTransitMetadata:
    transactional_id: str
    coordinator_epoch: int
    result: TransactionResult
    txn_metadata: TransactionMetadata
    transit_metadata: TxnTransitMetadata


class ReentrantReadWriteLock:
    """No Kafka counterpart: java.util.concurrent.locks.ReentrantReadWriteLock (CoreUtils.inReadLock /
    inWriteLock). Readers share; a writer is alone; the writing thread may also read. No writer preference,
    so a thread already reading can always read again."""

    def __init__(self):
        self._cond = threading.Condition(threading.Lock())
        self._readers: dict[int, int] = {}
        self._writer: int | None = None
        self._writes = 0

    @contextlib.contextmanager
    def read_lock(self):
        me = threading.get_ident()
        with self._cond:
            while self._writer is not None and self._writer != me:
                self._cond.wait()
            self._readers[me] = self._readers.get(me, 0) + 1
        try:
            yield
        finally:
            with self._cond:
                self._readers[me] -= 1
                if not self._readers[me]:
                    del self._readers[me]
                self._cond.notify_all()

    @contextlib.contextmanager
    def write_lock(self):
        me = threading.get_ident()
        with self._cond:
            while (self._writer not in (None, me)) or any(t != me for t in self._readers):
                self._cond.wait()
            self._writer = me
            self._writes += 1
        try:
            yield
        finally:
            with self._cond:
                self._writes -= 1
                if not self._writes:
                    self._writer = None
                self._cond.notify_all()


SendTxnMarkersCallback = Callable[[str, int, TransactionResult, TransactionMetadata, TxnTransitMetadata], None]


class TransactionStateManager(Logging):
    """Kafka: TransactionStateManager(brokerId, zkClient, scheduler, replicaManager, config, time, metrics)."""

    def __init__(self, broker_id: int, zk_client, scheduler, replica_manager, config: TransactionConfig,
                 time=SYSTEM):
        self.broker_id = broker_id
        self.zk_client = zk_client
        self.scheduler = scheduler if scheduler is not None else KafkaScheduler(1, "transaction-log-manager-")
        self.replica_manager = replica_manager
        self.config = config
        self.time = time
        self.log_ident = f"[Transaction State Manager {broker_id}]: "
        self.shutting_down = threading.Event()
        self.state_lock = ReentrantReadWriteLock()
        self.loading_partitions: set[TransactionPartitionAndLeaderEpoch] = set()
        self.leaving_partitions: set[TransactionPartitionAndLeaderEpoch] = set()
        self.transaction_metadata_cache: dict[int, TxnMetadataCacheEntry] = {}
        self.transaction_topic_partition_count = self.get_transaction_topic_partition_count()

    # Kafka: TransactionStateManager.addLoadingPartition (visible for testing)
    def add_loading_partition(self, partition_id: int, coordinator_epoch: int) -> None:
        key = TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch)
        with self.state_lock.write_lock():
            self.leaving_partitions.discard(key)
            self.loading_partitions.add(key)

    # Kafka: TransactionStateManager.timedOutTransactions -- best effort, no metadata lock needed
    def timed_out_transactions(self) -> list[TransactionalIdAndProducerIdEpoch]:
        now = self.time.milliseconds()
        out = []
        with self.state_lock.read_lock():
            leaving = {p.txn_partition_id for p in self.leaving_partitions}
            for partition_id, entry in self.transaction_metadata_cache.items():
                if partition_id in leaving:
                    continue
                for txn_id, m in list(entry.metadata_per_transactional_id.items()):
                    if (not m.pending_transition_in_progress() and m.state is Ongoing
                            and m.txn_start_timestamp + m.txn_timeout_ms < now):
                        out.append(TransactionalIdAndProducerIdEpoch(txn_id, m.producer_id, m.producer_epoch))
        return out

    # Kafka: TransactionStateManager.enableTransactionalIdExpiration
    def enable_transactional_id_expiration(self) -> None:
        interval = self.config.remove_expired_transactional_ids_interval_ms
        self.scheduler.schedule("transactionalId-expiration", self.remove_expired_transactional_ids,
                                delay_ms=interval, period_ms=interval)

    # Kafka: the body of enableTransactionalIdExpiration's job -- tombstones for ids idle too long
    def remove_expired_transactional_ids(self) -> None:
        now = self.time.milliseconds()
        with self.state_lock.read_lock():
            by_partition: dict[int, list[TransactionalIdCoordinatorEpochAndMetadata]] = {}
            for entry in self.transaction_metadata_cache.values():
                for txn_id, m in list(entry.metadata_per_transactional_id.items()):
                    with m.lock:
                        if (m.state in (Empty, CompleteCommit, CompleteAbort) and not m.pending_transition_in_progress()
                                and m.txn_last_update_timestamp <= now - self.config.transactional_id_expiration_ms):
                            by_partition.setdefault(self.partition_for(txn_id), []).append(
                                TransactionalIdCoordinatorEpochAndMetadata(txn_id, entry.coordinator_epoch,
                                                                           m.prepare_dead()))
            if not by_partition:
                return
            records = {}
            for partition, expired in by_partition.items():
                builder = MemoryRecordsBuilder()
                for e in expired:
                    builder.append(now, TransactionLog.key_to_bytes(e.transactional_id), None)
                records[TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition)] = builder.build()

            # Kafka: enableTransactionalIdExpiration.removeFromCacheCallback
            def remove_from_cache_callback(responses) -> None:
                for tp, response in responses.items():
                    with self.state_lock.read_lock():
                        entry = self.transaction_metadata_cache.get(tp.partition)
                        if entry is None:
                            continue
                        for e in by_partition.get(tp.partition, []):
                            m = entry.metadata_per_transactional_id.get(e.transactional_id)
                            if m is None:
                                continue
                            with m.lock:
                                if (entry.coordinator_epoch == e.coordinator_epoch and m.pending_state is Dead
                                        and m.producer_epoch == e.transit_metadata.producer_epoch
                                        and response.error is Errors.NONE):
                                    entry.metadata_per_transactional_id.pop(e.transactional_id, None)
                                    self.info(f"Removed expired transactionalId {e.transactional_id}")
                                else:
                                    self.warn(f"Failed to remove expired transactionalId: {e.transactional_id} from "
                                              f"cache. Tombstone append error code: {response.error.name}, "
                                              f"pendingState: {m.pending_state}, producerEpoch: {m.producer_epoch}")
                                    m.pending_state = None

            self.replica_manager.append_records(self.config.request_timeout_ms, TransactionLog.ENFORCED_REQUIRED_ACKS,
                                                True, False, records, remove_from_cache_callback)

    # Kafka: TransactionStateManager.getTransactionState -> (error, CoordinatorEpochAndTxnMetadata or None)
    def get_transaction_state(self, transactional_id: str):
        return self.get_and_maybe_add_transaction_state(transactional_id, None)

    # Kafka: TransactionStateManager.putTransactionStateIfNotExists
    def put_transaction_state_if_not_exists(self, txn_metadata: TransactionMetadata):
        error, found = self.get_and_maybe_add_transaction_state(txn_metadata.transactional_id, txn_metadata)
        if error is Errors.NONE and found is None:
            raise RuntimeError(f"Unexpected empty transaction metadata returned while putting {txn_metadata}")
        return error, found

    # Kafka: TransactionStateManager.getAndMaybeAddTransactionState
    def get_and_maybe_add_transaction_state(self, transactional_id: str, created: TransactionMetadata | None):
        with self.state_lock.read_lock():
            partition_id = self.partition_for(transactional_id)
            if any(p.txn_partition_id == partition_id for p in self.loading_partitions):
                return Errors.COORDINATOR_LOAD_IN_PROGRESS, None
            if any(p.txn_partition_id == partition_id for p in self.leaving_partitions):
                return Errors.NOT_COORDINATOR, None
            entry = self.transaction_metadata_cache.get(partition_id)
            if entry is None:
                return Errors.NOT_COORDINATOR, None
            metadata = entry.metadata_per_transactional_id.get(transactional_id)
            if metadata is None and created is not None:
                metadata = entry.metadata_per_transactional_id.setdefault(transactional_id, created)
            if metadata is None:
                return Errors.NONE, None
            return Errors.NONE, CoordinatorEpochAndTxnMetadata(entry.coordinator_epoch, metadata)

    # Kafka 3.0: TransactionStateManager.listTransactionStates (KIP-664; KIP-994's duration filter is 3.8's)
    def list_transaction_states(self, filter_producer_ids: set[int], filter_state_names: set[str],
                                duration_filter_ms: int = -1):
        from kafkalite.coordinator.transaction.transaction_coordinator import ListTransactionsResult
        with self.state_lock.read_lock():
            if self.loading_partitions:
                return ListTransactionsResult(Errors.COORDINATOR_LOAD_IN_PROGRESS)
            known = {s.name for s in TransactionState}
            unknown = tuple(n for n in filter_state_names if n not in known)
            wanted = {n for n in filter_state_names if n in known}
            now = self.time.milliseconds()
            states = []
            for entry in self.transaction_metadata_cache.values():
                for txn_id, m in list(entry.metadata_per_transactional_id.items()):
                    with m.lock:
                        if filter_producer_ids and m.producer_id not in filter_producer_ids:
                            continue
                        if wanted and m.state.name not in wanted:
                            continue
                        if duration_filter_ms >= 0 and (m.txn_start_timestamp < 0
                                                        or now - m.txn_start_timestamp < duration_filter_ms):
                            continue
                        states.append((txn_id, m.producer_id, m.state.name))
            return ListTransactionsResult(Errors.NONE, unknown, tuple(states))

    # Kafka: TransactionStateManager.validateTransactionTimeoutMs
    def validate_transaction_timeout_ms(self, txn_timeout_ms: int) -> bool:
        return 0 < txn_timeout_ms <= self.config.transaction_max_timeout_ms

    # Kafka: TransactionStateManager.transactionTopicConfigs -- compacted, uncompressed, no unclean election
    def transaction_topic_configs(self) -> dict[str, str]:
        return {"unclean.leader.election.enable": "false", "compression.type": "uncompressed",
                "cleanup.policy": "compact",
                "min.insync.replicas": str(self.config.transaction_log_min_insync_replicas),
                "segment.bytes": str(self.config.transaction_log_segment_bytes)}

    # Kafka: TransactionStateManager.partitionFor
    def partition_for(self, transactional_id: str) -> int:
        return utils_abs(java_string_hashcode(transactional_id)) % self.transaction_topic_partition_count

    # Kafka: TransactionStateManager.getTransactionTopicPartitionCount
    def get_transaction_topic_partition_count(self) -> int:
        if self.zk_client is not None:
            assignment = self.zk_client.get_partition_assignment_for_topics([TRANSACTION_STATE_TOPIC_NAME])
            if assignment.get(TRANSACTION_STATE_TOPIC_NAME):
                return len(assignment[TRANSACTION_STATE_TOPIC_NAME])
        return self.config.transaction_log_num_partitions

    # Kafka: TransactionStateManager.loadTransactionMetadata -- replay one partition; the last record wins
    def load_transaction_metadata(self, tp: TopicPartition, coordinator_epoch: int) -> dict[str, TransactionMetadata]:
        start_ms = self.time.milliseconds()
        loaded: dict[str, TransactionMetadata] = {}
        log = self.replica_manager.get_log(tp)
        if log is None:
            self.warn(f"Attempted to load transaction metadata from {tp}, but found no log")
            return loaded
        key = TransactionPartitionAndLeaderEpoch(tp.partition, coordinator_epoch)

        def still_loading() -> bool:
            with self.state_lock.read_lock():
                return key in self.loading_partitions

        curr_offset = log.log_start_offset
        try:
            while curr_offset < log.log_end_offset and not self.shutting_down.is_set() and still_loading():
                fetch_data_info = log.read(curr_offset, self.config.transaction_log_load_buffer_size, None, True)
                read_any = False
                for batch in fetch_data_info.records.batches():
                    read_any = True
                    if not batch.is_control_batch:
                        for record in batch:
                            if record.key is None:
                                raise RuntimeError("Transaction state log's key should not be null")
                            txn_id = TransactionLog.read_txn_record_key(bytes(record.key)).transactional_id
                            if record.value is None:
                                loaded.pop(txn_id, None)
                            else:
                                loaded[txn_id] = TransactionLog.read_txn_record_value(txn_id, bytes(record.value))
                    curr_offset = batch.next_offset
                if not read_any:
                    break
            self.info(f"Finished loading {len(loaded)} transaction metadata from {tp} in "
                      f"{self.time.milliseconds() - start_ms} milliseconds")
        except Exception:   # noqa: BLE001 -- Kafka logs and goes on with what it read
            self.error(f"Error loading transactions from transaction log {tp}", exc_info=True)
        return loaded

    # Kafka: TransactionStateManager.addLoadedTransactionsToCache
    def add_loaded_transactions_to_cache(self, txn_topic_partition: int, coordinator_epoch: int,
                                         metadata_per_transactional_id: dict) -> None:
        current = self.transaction_metadata_cache.get(txn_topic_partition)
        self.transaction_metadata_cache[txn_topic_partition] = TxnMetadataCacheEntry(coordinator_epoch,
                                                                                     metadata_per_transactional_id)
        if current is not None:
            raise RuntimeError(f"The metadata cache for txn partition {txn_topic_partition} has already exist with "
                               f"epoch {current.coordinator_epoch} and {len(current.metadata_per_transactional_id)} "
                               f"entries while trying to add to it; this should not happen")

    # Kafka: TransactionStateManager.loadTransactionsForTxnTopicPartition -- this broker now leads the partition
    def load_transactions_for_txn_topic_partition(self, partition_id: int, coordinator_epoch: int,
                                                  send_txn_markers: SendTxnMarkersCallback) -> None:
        self.validate_transaction_topic_partition_count_is_stable()
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
        key = TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch)
        with self.state_lock.write_lock():
            self.leaving_partitions.discard(key)
            self.loading_partitions.add(key)

        # Kafka: loadTransactionsForTxnTopicPartition.loadTransactions
        def load_transactions() -> None:
            self.info(f"Loading transaction metadata from {tp}")
            loaded = self.load_transaction_metadata(tp, coordinator_epoch)
            with self.state_lock.write_lock():
                if key not in self.loading_partitions:
                    return
                # a partition left and came back before the removal job ran: the old entry is stale
                stale = self.transaction_metadata_cache.get(partition_id)
                if stale is not None and stale.coordinator_epoch < coordinator_epoch:
                    del self.transaction_metadata_cache[partition_id]
                self.add_loaded_transactions_to_cache(partition_id, coordinator_epoch, loaded)
                pending = []
                for txn_id, m in loaded.items():
                    with m.lock:
                        if m.state is PrepareAbort:
                            pending.append(TransactionalIdCoordinatorEpochAndTransitMetadata(
                                txn_id, coordinator_epoch, TransactionResult.ABORT, m,
                                m.prepare_complete(self.time.milliseconds())))
                        elif m.state is PrepareCommit:
                            pending.append(TransactionalIdCoordinatorEpochAndTransitMetadata(
                                txn_id, coordinator_epoch, TransactionResult.COMMIT, m,
                                m.prepare_complete(self.time.milliseconds())))
                # out of "loading" first, so the CompleteCommit/Abort append is not refused as loading
                self.loading_partitions.discard(key)
                for p in pending:
                    send_txn_markers(p.transactional_id, p.coordinator_epoch, p.result, p.txn_metadata,
                                     p.transit_metadata)

        self.scheduler.schedule(f"load-txns-for-partition-{tp}", load_transactions)

    # Kafka: TransactionStateManager.removeTransactionsForTxnTopicPartition -- this broker stopped leading it.
    # coordinator_epoch None (a StopReplica, which carries no leader epoch) removes whatever epoch is cached.
    def remove_transactions_for_txn_topic_partition(self, partition_id: int, coordinator_epoch: int | None) -> None:
        self.validate_transaction_topic_partition_count_is_stable()
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition_id)
        with self.state_lock.write_lock():
            if coordinator_epoch is None:
                entry = self.transaction_metadata_cache.get(partition_id)
                epochs = {p.coordinator_epoch for p in self.loading_partitions if p.txn_partition_id == partition_id}
                coordinator_epoch = max(epochs | ({entry.coordinator_epoch} if entry else set()), default=-1)
            key = TransactionPartitionAndLeaderEpoch(partition_id, coordinator_epoch)
            # any load of this partition under an older epoch is stale too (Kafka 2.4 dropped only the same epoch)
            self.loading_partitions = {p for p in self.loading_partitions if p.txn_partition_id != partition_id}
            self.leaving_partitions.add(key)

        # Kafka: removeTransactionsForTxnTopicPartition.removeTransactions
        def remove_transactions() -> None:
            with self.state_lock.write_lock():
                if key not in self.leaving_partitions:
                    return
                entry = self.transaction_metadata_cache.get(partition_id)
                if entry is not None and entry.coordinator_epoch <= coordinator_epoch:
                    del self.transaction_metadata_cache[partition_id]
                    self.info(f"Removed {len(entry.metadata_per_transactional_id)} cached transaction metadata for "
                              f"{tp} on follower transition")
                else:
                    self.info(f"Trying to remove cached transaction metadata for {tp} on follower transition but "
                              f"there is no entries remaining; it is likely that another process for removing the "
                              f"cached entries has just executed earlier before")
                self.leaving_partitions.discard(key)

        self.scheduler.schedule(f"remove-txns-for-partition-{tp}", remove_transactions)

    # Kafka: TransactionStateManager.validateTransactionTopicPartitionCountIsStable
    def validate_transaction_topic_partition_count_is_stable(self) -> None:
        current = self.get_transaction_topic_partition_count()
        if current != self.transaction_topic_partition_count:
            raise RuntimeError(f"Transaction topic number of partitions has changed from "
                               f"{self.transaction_topic_partition_count} to {current}")

    # Kafka: TransactionStateManager.appendTransactionToLog
    def append_transaction_to_log(self, transactional_id: str, coordinator_epoch: int, new_metadata: TxnTransitMetadata,
                                  response_callback: Callable[[Errors], None],
                                  retry_on_error: Callable[[Errors], bool] = lambda e: False) -> None:
        builder = MemoryRecordsBuilder()
        builder.append(self.time.milliseconds(), TransactionLog.key_to_bytes(transactional_id),
                       TransactionLog.value_to_bytes(new_metadata))
        tp = TopicPartition(TRANSACTION_STATE_TOPIC_NAME, self.partition_for(transactional_id))
        records_per_partition = {tp: builder.build()}

        # Kafka: appendTransactionToLog.updateCacheCallback
        def update_cache_callback(response_status) -> None:
            if len(response_status) != 1 or tp not in response_status:
                raise RuntimeError(f"Append status {response_status} should only have one partition {tp}")
            status = response_status[tp]
            response_error = status.error
            if response_error is not Errors.NONE:
                self.debug(f"Appending {transactional_id}'s new metadata {new_metadata} failed due to "
                           f"{response_error.name}")
                if response_error in (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_ENOUGH_REPLICAS,
                                      Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.REQUEST_TIMED_OUT):
                    response_error = Errors.COORDINATOR_NOT_AVAILABLE
                elif response_error in (Errors.NOT_LEADER_FOR_PARTITION, Errors.KAFKA_STORAGE_ERROR):
                    response_error = Errors.NOT_COORDINATOR
                elif response_error in (Errors.MESSAGE_TOO_LARGE, Errors.RECORD_LIST_TOO_LARGE):
                    response_error = Errors.UNKNOWN_SERVER_ERROR
            if response_error is Errors.NONE:
                err, found = self.get_transaction_state(transactional_id)
                if err is not Errors.NONE:
                    self.info(f"Accessing the cached transaction metadata for {transactional_id} returns {err.name} "
                              f"error; aborting transition to the new metadata and setting the error in the callback")
                    response_error = err
                elif found is None:
                    self.info(f"The cached coordinator metadata does not exist in the cache anymore for "
                              f"{transactional_id} after appended its new metadata {new_metadata} to the transaction "
                              f"log; returning NOT_COORDINATOR")
                    response_error = Errors.NOT_COORDINATOR
                else:
                    with found.transaction_metadata.lock:
                        if found.coordinator_epoch != coordinator_epoch:
                            self.info(f"The cached coordinator epoch for {transactional_id} has changed to "
                                      f"{found.coordinator_epoch} after appended its new metadata {new_metadata} to "
                                      f"the transaction log while it was {coordinator_epoch} before appending; "
                                      f"returning NOT_COORDINATOR")
                            response_error = Errors.NOT_COORDINATOR
                        else:
                            found.transaction_metadata.complete_transition_to(new_metadata)
                            self.debug(f"Updating {transactional_id}'s transaction state to {new_metadata} with "
                                       f"coordinator epoch {coordinator_epoch} succeeded")
            else:
                # no transition happened: clear the pending state (unless the caller retries the same write)
                err, found = self.get_transaction_state(transactional_id)
                if err is Errors.NONE and found is not None:
                    m = found.transaction_metadata
                    with m.lock:
                        if found.coordinator_epoch == coordinator_epoch and not retry_on_error(response_error):
                            self.info(f"TransactionalId {transactional_id} append transaction log for {new_metadata} "
                                      f"transition failed due to {response_error.name}, resetting pending state "
                                      f"from {m.pending_state}, aborting state transition")
                            m.pending_state = None
            response_callback(response_error)

        with self.state_lock.read_lock():
            err, found = self.get_transaction_state(transactional_id)
            if err is not Errors.NONE:
                response_callback(err)
                return
            if found is None:
                response_callback(Errors.NOT_COORDINATOR)
                return
            with found.transaction_metadata.lock:
                same_epoch = found.coordinator_epoch == coordinator_epoch
            if not same_epoch:
                response_callback(Errors.NOT_COORDINATOR)
                return
            self.replica_manager.append_records(new_metadata.txn_timeout_ms, TransactionLog.ENFORCED_REQUIRED_ACKS,
                                                True, False, records_per_partition, update_cache_callback)
            self.trace(f"Appending new metadata {new_metadata} for transaction id {transactional_id} with "
                       f"coordinator epoch {coordinator_epoch} to the local transaction log")

    # Kafka: TransactionStateManager.shutdown
    def shutdown(self) -> None:
        self.shutting_down.set()
        with self.state_lock.write_lock():
            self.loading_partitions.clear()
            self.transaction_metadata_cache.clear()
        self.info("Shutdown complete")
