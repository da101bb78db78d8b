"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala

Classes: TransactionCoordinator, InitProducerIdResult; plus the KIP-664 answers of Kafka 3.0
(ListTransactionsResult, DescribedTransaction).

The coordinator owns the transactions whose transactional ids hash to the ``__transaction_state``
partitions this broker leads. Every request is checked against the TransactionMetadata (producer id,
epoch, pending transition, state), turned into a TxnTransitMetadata, written to the log by the
TransactionStateManager and answered once acknowledged:
- ``handle_init_producer_id``: a new producer id (no transactional id: just an id, epoch 0); otherwise
  bump the epoch, fencing older instances -- an Ongoing transaction is first aborted (PrepareEpochFence ->
  PrepareAbort) and the client told CONCURRENT_TRANSACTIONS so that it retries;
- ``handle_add_partitions_to_transaction``: Empty/Complete* -> Ongoing, partitions added;
- ``handle_end_transaction``: Ongoing -> PrepareCommit/PrepareAbort; the client is answered as soon as
  that is written, then the TransactionMarkerChannelManager sends the markers and finally writes
  CompleteCommit/CompleteAbort;
- ``abort_timed_out_transactions`` runs every transaction.abort.timed.out.transaction.cleanup.interval.ms
  on the "transaction-log-manager-0" scheduler thread ("transaction-abort");
- ``handle_txn_immigration`` / ``handle_txn_emigration`` follow leadership of ``__transaction_state``
  (Kafka 2.4's names; Kafka 2.5 renamed them onElection/onResignation, kept as aliases).

Era notes: KIP-360 (Kafka 2.5): InitProducerId v3+ names the producer's id and epoch so that a producer
whose transaction failed can bump its own epoch; a retry of the same bump gets the same answer. Fenced
producers get PRODUCER_FENCED (Kafka 2.7, KIP-588) and KafkaApis maps it to INVALID_PRODUCER_EPOCH for older
request versions. ``handle_list_transactions`` / ``handle_describe_transactions`` are Kafka 3.0's (KIP-664).
Left out: the ``isActive`` flag's use by nothing else; the ProducerIdManager's shutdown (it holds nothing).
"""
from __future__ import annotations

import threading
from typing import Callable

import attrs

from kafkalite.common.topic import TRANSACTION_STATE_TOPIC_NAME
from kafkalite.coordinator.transaction.transaction_metadata import (NO_PRODUCER_EPOCH, NO_PRODUCER_ID,
                                                                    CompleteAbort, CompleteCommit, Dead, Empty,
                                                                    Ongoing, PrepareAbort, PrepareCommit,
                                                                    PrepareEpochFence, TransactionMetadata,
                                                                    TransactionState, is_epoch_exhausted)
from kafkalite.coordinator.transaction.transaction_state_manager import TransactionConfig, TransactionStateManager
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.utils.kafka_scheduler import KafkaScheduler
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM


@attrs.frozen
class InitProducerIdResult:
    """Kafka: InitProducerIdResult(producerId, producerEpoch, error)."""

    producer_id: int
    producer_epoch: int
    error: Errors


@attrs.frozen
class DescribedTransaction:
    """Kafka 3.0: one DescribeTransactionsResponseData.TransactionState, before it is put on the wire."""

    error: Errors
    transactional_id: str
    state: str = ""
    txn_timeout_ms: int = 0
    txn_start_timestamp: int = -1
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    topic_partitions: tuple = ()


@attrs.frozen
class ListTransactionsResult:
    """Kafka 3.0: ListTransactionsResponseData, before it is put on the wire."""

    error: Errors
    unknown_state_filters: tuple = ()
    transactions: tuple = ()   # (transactional id, producer id, state name)


def _init_transaction_error(error: Errors) -> InitProducerIdResult:   # Kafka: initTransactionError
    return InitProducerIdResult(NO_PRODUCER_ID, NO_PRODUCER_EPOCH, error)


class TransactionCoordinator(Logging):
    """Kafka: TransactionCoordinator(brokerId, txnConfig, scheduler, producerIdManager, txnManager,
    txnMarkerChannelManager, time, logContext)."""

    def __init__(self, broker_id: int, txn_config: TransactionConfig, scheduler, producer_id_manager,
                 txn_manager: TransactionStateManager, txn_marker_channel_manager, time=SYSTEM):
        self.broker_id = broker_id
        self.txn_config = txn_config
        self.scheduler = scheduler
        self.producer_id_manager = producer_id_manager
        self.txn_manager = txn_manager
        self.txn_marker_channel_manager = txn_marker_channel_manager
        self.time = time
        self.log_ident = f"[TransactionCoordinator id={broker_id}] "
        self.is_active = threading.Event()

    # Kafka: TransactionCoordinator.apply -- the coordinator and everything it owns, from the broker's config
    @classmethod
    def create(cls, config, replica_manager, zk_client, metadata_cache, time=SYSTEM, producer_id_manager=None,
               scheduler=None) -> "TransactionCoordinator":
        from kafkalite.coordinator.transaction.producer_id_manager import ProducerIdManager
        from kafkalite.coordinator.transaction.transaction_marker_channel_manager import \
            TransactionMarkerChannelManager
        from kafkalite.server.delayed_operation import DelayedOperationPurgatory
        txn_config = TransactionConfig.from_kafka_config(config)
        if producer_id_manager is None:
            producer_id_manager = ProducerIdManager(config.broker_id, zk_client)
        if scheduler is None:   # Kafka: new KafkaScheduler(threads = 1, threadNamePrefix = "transaction-log-manager-")
            scheduler = KafkaScheduler(1, "transaction-log-manager-")
        # no reaper and no timer: nothing in it ever expires
        txn_marker_purgatory = DelayedOperationPurgatory("txn-marker-purgatory", broker_id=config.broker_id,
                                                         reaper_enabled=False, timer_enabled=False)
        txn_state_manager = TransactionStateManager(config.broker_id, zk_client, scheduler, replica_manager,
                                                    txn_config, time)
        channel_manager = TransactionMarkerChannelManager.create(
            config, metadata_cache, txn_state_manager, txn_marker_purgatory, time,
            topic_exists=zk_client.topic_exists if zk_client is not None else None)
        return cls(config.broker_id, txn_config, scheduler, producer_id_manager, txn_state_manager,
                   channel_manager, time)

    # ------------------------------------------------------------------ InitProducerId
    # Kafka: TransactionCoordinator.handleInitProducerId (2.5's signature: expectedProducerIdAndEpoch, KIP-360)
    def handle_init_producer_id(self, transactional_id: str | None, transaction_timeout_ms: int,
                                expected_producer_id_and_epoch: tuple[int, int] | None,
                                response_callback: Callable[[InitProducerIdResult], None]) -> None:
        if transactional_id is None:
            # an idempotent producer: a fresh id every time
            response_callback(InitProducerIdResult(self.producer_id_manager.generate_producer_id(), 0, Errors.NONE))
            return
        if transactional_id == "":
            response_callback(_init_transaction_error(Errors.INVALID_REQUEST))
            return
        if not self.txn_manager.validate_transaction_timeout_ms(transaction_timeout_ms):
            response_callback(_init_transaction_error(Errors.INVALID_TRANSACTION_TIMEOUT))
            return
        error, existing = self.txn_manager.get_transaction_state(transactional_id)
        if error is Errors.NONE and existing is None:
            created = TransactionMetadata(transactional_id, self.producer_id_manager.generate_producer_id(),
                                          NO_PRODUCER_EPOCH, transaction_timeout_ms, Empty, set(), -1,
                                          self.time.milliseconds())
            error, existing = self.txn_manager.put_transaction_state_if_not_exists(created)
        if error is not Errors.NONE:
            response_callback(_init_transaction_error(error))
            return
        coordinator_epoch = existing.coordinator_epoch
        txn_metadata = existing.transaction_metadata
        with txn_metadata.lock:
            error, new_metadata = self.prepare_init_producer_id_transit(
                transactional_id, transaction_timeout_ms, coordinator_epoch, txn_metadata,
                expected_producer_id_and_epoch)
        if error is not Errors.NONE:
            response_callback(_init_transaction_error(error))
            return
        if new_metadata.txn_state is PrepareEpochFence:
            # abort the ongoing transaction, then let the client retry (and bump the epoch a second time)
            def send_retriable_error_callback(err: Errors) -> None:
                response_callback(_init_transaction_error(Errors.CONCURRENT_TRANSACTIONS if err is Errors.NONE
                                                          else err))
            self.handle_end_transaction(transactional_id, new_metadata.producer_id, new_metadata.producer_epoch,
                                        TransactionResult.ABORT, send_retriable_error_callback)
            return

        # Kafka: handleInitProducerId.sendPidResponseCallback
        def send_pid_response_callback(err: Errors) -> None:
            if err is Errors.NONE:
                self.info(f"Initialized transactionalId {transactional_id} with producerId {new_metadata.producer_id} "
                          f"and producer epoch {new_metadata.producer_epoch} on partition "
                          f"{TRANSACTION_STATE_TOPIC_NAME}-{self.txn_manager.partition_for(transactional_id)}")
                response_callback(InitProducerIdResult(new_metadata.producer_id, new_metadata.producer_epoch,
                                                       Errors.NONE))
            else:
                self.info(f"Returning {err.name} error code to client for {transactional_id}'s InitProducerId request")
                response_callback(_init_transaction_error(err))

        self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                   send_pid_response_callback)

    # Kafka: TransactionCoordinator.prepareInitProduceIdTransit -> (error, TxnTransitMetadata)
    def prepare_init_producer_id_transit(self, transactional_id: str, transaction_timeout_ms: int,
                                         coordinator_epoch: int, txn_metadata: TransactionMetadata,
                                         expected: tuple[int, int] | None):
        # Kafka 2.5: isValidProducerId -- a bump must name the current id (or the one just rotated away)
        def is_valid_producer_id(producer_id: int, epoch: int) -> bool:
            return (txn_metadata.producer_epoch == NO_PRODUCER_EPOCH or producer_id == txn_metadata.producer_id
                    or (producer_id == txn_metadata.last_producer_id and is_epoch_exhausted(epoch)))

        if txn_metadata.pending_transition_in_progress():
            return Errors.CONCURRENT_TRANSACTIONS, None
        if expected is not None and not is_valid_producer_id(*expected):
            return Errors.PRODUCER_FENCED, None
        state = txn_metadata.state
        if state in (PrepareAbort, PrepareCommit):
            return Errors.CONCURRENT_TRANSACTIONS, None
        if state in (CompleteAbort, CompleteCommit, Empty):
            if txn_metadata.is_producer_epoch_exhausted() and (expected is None
                                                               or expected[1] == txn_metadata.producer_epoch):
                return Errors.NONE, txn_metadata.prepare_producer_id_rotation(
                    self.producer_id_manager.generate_producer_id(), transaction_timeout_ms,
                    self.time.milliseconds(), expected is not None)
            return txn_metadata.prepare_increment_producer_epoch(
                transaction_timeout_ms, None if expected is None else expected[1], self.time.milliseconds())
        if state is Ongoing:
            return Errors.NONE, txn_metadata.prepare_fence_producer_epoch()
        message = (f"Found transactionalId {transactional_id} with state {state}. This is illegal as we should never "
                   f"have transitioned to this state.")
        self.error(message)
        raise RuntimeError(message)

    # ------------------------------------------------------------------ AddPartitionsToTxn / AddOffsetsToTxn
    # Kafka: TransactionCoordinator.handleAddPartitionsToTransaction
    def handle_add_partitions_to_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                                             partitions, response_callback: Callable[[Errors], None]) -> None:
        if not transactional_id:
            response_callback(Errors.INVALID_REQUEST)
            return
        partitions = frozenset(partitions)
        error, found = self.txn_manager.get_transaction_state(transactional_id)
        new_metadata = None
        if error is Errors.NONE:
            if found is None:
                error = Errors.INVALID_PRODUCER_ID_MAPPING
            else:
                m = found.transaction_metadata
                with m.lock:
                    if m.producer_id != producer_id:
                        error = Errors.INVALID_PRODUCER_ID_MAPPING
                    elif m.producer_epoch != producer_epoch:
                        error = Errors.PRODUCER_FENCED
                    elif m.pending_transition_in_progress() or m.state in (PrepareCommit, PrepareAbort):
                        error = Errors.CONCURRENT_TRANSACTIONS
                    elif m.state is Ongoing and partitions <= m.topic_partitions:
                        response_callback(Errors.NONE)   # nothing new: answer at once
                        return
                    else:
                        new_metadata = m.prepare_add_partitions(partitions, self.time.milliseconds())
        if new_metadata is None:
            self.debug(f"Returning {error.name} error code to client for {transactional_id}'s AddPartitions request")
            response_callback(error)
            return
        self.txn_manager.append_transaction_to_log(transactional_id, found.coordinator_epoch, new_metadata,
                                                   response_callback)

    # ------------------------------------------------------------------ leadership of __transaction_state
    # Kafka: TransactionCoordinator.handleTxnImmigration
    def handle_txn_immigration(self, txn_topic_partition_id: int, coordinator_epoch: int) -> None:
        self.txn_manager.load_transactions_for_txn_topic_partition(
            txn_topic_partition_id, coordinator_epoch, self.txn_marker_channel_manager.add_txn_markers_to_send)

    # Kafka: TransactionCoordinator.handleTxnEmigration
    def handle_txn_emigration(self, txn_topic_partition_id: int, coordinator_epoch: int | None) -> None:
        self.txn_manager.remove_transactions_for_txn_topic_partition(txn_topic_partition_id, coordinator_epoch)
        self.txn_marker_channel_manager.remove_markers_for_txn_topic_partition(txn_topic_partition_id)

    on_election = handle_txn_immigration     # Kafka 2.5's names
    on_resignation = handle_txn_emigration

    # ------------------------------------------------------------------ EndTxn
    # Kafka: TransactionCoordinator.logInvalidStateTransitionAndReturnError
    def log_invalid_state_transition_and_return_error(self, transactional_id: str, state: TransactionState,
                                                      result: TransactionResult) -> Errors:
        self.debug(f"TransactionalId: {transactional_id}'s state is {state}, but received transaction marker "
                   f"result to send: {result}")
        return Errors.INVALID_TXN_STATE

    # Kafka: TransactionCoordinator.handleEndTransaction
    def handle_end_transaction(self, transactional_id: str, producer_id: int, producer_epoch: int,
                               txn_marker_result: TransactionResult,
                               response_callback: Callable[[Errors], None]) -> None:
        if not transactional_id:
            response_callback(Errors.INVALID_REQUEST)
            return
        error, found = self.txn_manager.get_transaction_state(transactional_id)
        new_metadata = None
        if error is Errors.NONE:
            if found is None:
                error = Errors.INVALID_PRODUCER_ID_MAPPING
            else:
                m = found.transaction_metadata
                with m.lock:
                    error, new_metadata = self._pre_append_end_txn(transactional_id, producer_id, producer_epoch,
                                                                   txn_marker_result, m)
        if new_metadata is None:
            self.debug(f"Aborting append of {txn_marker_result} to transaction log with coordinator and returning "
                       f"{error.name} error to client for {transactional_id}'s EndTransaction request")
            response_callback(error)
            return
        coordinator_epoch = found.coordinator_epoch

        # Kafka: handleEndTransaction.sendTxnMarkersCallback -- PrepareCommit/PrepareAbort is in the log
        def send_txn_markers_callback(err: Errors) -> None:
            if err is not Errors.NONE:
                self.info(f"Aborting sending of transaction markers and returning {err.name} error to client for "
                          f"{transactional_id}'s EndTransaction request of {txn_marker_result}, since appending "
                          f"{new_metadata} to transaction log with coordinator epoch {coordinator_epoch} failed")
                response_callback(err)
                return
            err2, current = self.txn_manager.get_transaction_state(transactional_id)
            pre_send = None
            if err2 is Errors.NONE:
                if current is None:
                    raise RuntimeError(f"The coordinator still owns the transaction partition for {transactional_id}, "
                                       f"but there is no metadata in the cache; this is not expected")
                if current.coordinator_epoch != coordinator_epoch:
                    err2 = Errors.NOT_COORDINATOR
                else:
                    m = current.transaction_metadata
                    with m.lock:
                        err2, pre_send = self._pre_send_markers(transactional_id, producer_id, producer_epoch,
                                                                txn_marker_result, m)
            if pre_send is None:
                self.info(f"Aborting sending of transaction markers after appended {txn_marker_result} to transaction "
                          f"log and returning {err2.name} error to client for {transactional_id}'s EndTransaction "
                          f"request")
                response_callback(err2)
                return
            # the decision is durable: answer now, the markers follow
            response_callback(Errors.NONE)
            self.txn_marker_channel_manager.add_txn_markers_to_send(transactional_id, coordinator_epoch,
                                                                    txn_marker_result, current.transaction_metadata,
                                                                    pre_send)

        self.txn_manager.append_transaction_to_log(transactional_id, coordinator_epoch, new_metadata,
                                                   send_txn_markers_callback)

    def _pre_append_end_txn(self, transactional_id, producer_id, producer_epoch, result, m: TransactionMetadata):
        """Kafka: handleEndTransaction's preAppendResult, under the metadata's lock."""
        if m.producer_id != producer_id:
            return Errors.INVALID_PRODUCER_ID_MAPPING, None
        if producer_epoch < m.producer_epoch:
            return Errors.PRODUCER_FENCED, None
        if m.pending_transition_in_progress() and m.pending_state is not PrepareEpochFence:
            return Errors.CONCURRENT_TRANSACTIONS, None
        state = m.state
        if state is Ongoing:
            next_state = PrepareCommit if result is TransactionResult.COMMIT else PrepareAbort
            if next_state is PrepareAbort and m.pending_state is PrepareEpochFence:
                # the fence's epoch bump goes into the PrepareAbort record
                m.pending_state = None
                m.producer_epoch = producer_epoch
            return Errors.NONE, m.prepare_abort_or_commit(next_state, self.time.milliseconds())
        if state is CompleteCommit:
            return (Errors.NONE if result is TransactionResult.COMMIT else
                    self.log_invalid_state_transition_and_return_error(transactional_id, state, result)), None
        if state is CompleteAbort:
            return (Errors.NONE if result is TransactionResult.ABORT else
                    self.log_invalid_state_transition_and_return_error(transactional_id, state, result)), None
        if state is PrepareCommit:
            return (Errors.CONCURRENT_TRANSACTIONS if result is TransactionResult.COMMIT else
                    self.log_invalid_state_transition_and_return_error(transactional_id, state, result)), None
        if state is PrepareAbort:
            return (Errors.CONCURRENT_TRANSACTIONS if result is TransactionResult.ABORT else
                    self.log_invalid_state_transition_and_return_error(transactional_id, state, result)), None
        if state is Empty:
            return self.log_invalid_state_transition_and_return_error(transactional_id, state, result), None
        message = (f"Found transactionalId {transactional_id} with state {state}. This is illegal as we should never "
                   f"have transitioned to this state.")
        self.error(message)
        raise RuntimeError(message)

    def _pre_send_markers(self, transactional_id, producer_id, producer_epoch, result, m: TransactionMetadata):
        """Kafka: sendTxnMarkersCallback's preSendResult, under the metadata's lock."""
        if m.producer_id != producer_id:
            return Errors.INVALID_PRODUCER_ID_MAPPING, None
        if m.producer_epoch != producer_epoch:
            return Errors.PRODUCER_FENCED, None
        if m.pending_transition_in_progress():
            return Errors.CONCURRENT_TRANSACTIONS, None
        state = m.state
        if state is PrepareCommit and result is TransactionResult.COMMIT:
            return Errors.NONE, m.prepare_complete(self.time.milliseconds())
        if state is PrepareAbort and result is TransactionResult.ABORT:
            return Errors.NONE, m.prepare_complete(self.time.milliseconds())
        if state in (Dead, PrepareEpochFence):
            raise RuntimeError(f"Found transactionalId {transactional_id} with state {state}. This is illegal as we "
                               f"should never have transitioned to this state.")
        return self.log_invalid_state_transition_and_return_error(transactional_id, state, result), None

    # ------------------------------------------------------------------ KIP-664 (Kafka 3.0)
    # Kafka 3.0: TransactionCoordinator.handleListTransactions
    def handle_list_transactions(self, filtered_producer_ids: set[int], filtered_states: set[str],
                                 duration_filter_ms: int = -1) -> ListTransactionsResult:
        if not self.is_active.is_set():
            return ListTransactionsResult(Errors.COORDINATOR_NOT_AVAILABLE)
        return self.txn_manager.list_transaction_states(filtered_producer_ids, filtered_states, duration_filter_ms)

    # Kafka 3.0: TransactionCoordinator.handleDescribeTransactions
    def handle_describe_transactions(self, transactional_id: str) -> DescribedTransaction:
        if not transactional_id:
            return DescribedTransaction(Errors.INVALID_REQUEST, transactional_id or "")
        if not self.is_active.is_set():
            return DescribedTransaction(Errors.COORDINATOR_NOT_AVAILABLE, transactional_id)
        error, found = self.txn_manager.get_transaction_state(transactional_id)
        if error is not Errors.NONE:
            return DescribedTransaction(error, transactional_id)
        if found is None:
            return DescribedTransaction(Errors.TRANSACTIONAL_ID_NOT_FOUND, transactional_id)
        m = found.transaction_metadata
        with m.lock:
            return DescribedTransaction(Errors.NONE, transactional_id, m.state.name, m.txn_timeout_ms,
                                        m.txn_start_timestamp, m.producer_id, m.producer_epoch,
                                        tuple(sorted(m.topic_partitions)))

    # ------------------------------------------------------------------ timeouts and lifecycle
    # Kafka: TransactionCoordinator.abortTimedOutTransactions -- fence and abort what ran past its timeout
    def abort_timed_out_transactions(self) -> None:
        for t in self.txn_manager.timed_out_transactions():
            error, found = self.txn_manager.get_transaction_state(t.transactional_id)
            if error is not Errors.NONE:
                continue
            if found is None:
                self.error(f"Could not find transaction metadata when trying to timeout transaction with "
                           f"transactionalId {t.transactional_id}. ProducerId: {t.producer_id}. ProducerEpoch: "
                           f"{t.producer_epoch}")
                continue
            m = found.transaction_metadata
            with m.lock:
                if m.producer_id != t.producer_id:
                    self.error(f"Found incorrect producerId when expiring transactionalId: {t.transactional_id}. "
                               f"Expected producerId: {t.producer_id}. Found producerId: {m.producer_id}")
                    continue
                if m.pending_transition_in_progress():
                    continue
                transit = m.prepare_fence_producer_epoch()

            def on_abort(err: Errors, txn_id=t.transactional_id) -> None:
                if err is Errors.NONE:
                    self.info(f"Completed rollback ongoing transaction of transactionalId: {txn_id} due to timeout")
                elif err in (Errors.INVALID_PRODUCER_ID_MAPPING, Errors.PRODUCER_FENCED,
                             Errors.CONCURRENT_TRANSACTIONS):
                    self.debug(f"Rolling back ongoing transaction of transactionalId: {txn_id} has aborted due to "
                               f"{err.name}")
                else:
                    self.warn(f"Rolling back ongoing transaction of transactionalId: {txn_id} failed due to "
                              f"{err.name}")

            self.handle_end_transaction(m.transactional_id, transit.producer_id, transit.producer_epoch,
                                        TransactionResult.ABORT, on_abort)

    # Kafka: TransactionCoordinator.transactionTopicConfigs
    def transaction_topic_configs(self) -> dict[str, str]:
        return self.txn_manager.transaction_topic_configs()

    # Kafka: TransactionCoordinator.partitionFor
    def partition_for(self, transactional_id: str) -> int:
        return self.txn_manager.partition_for(transactional_id)

    # Kafka: TransactionCoordinator.startup
    def startup(self, enable_transactional_id_expiration: bool = True) -> None:
        self.info("Starting up.")
        self.scheduler.startup()
        interval = self.txn_config.abort_timed_out_transactions_interval_ms
        self.scheduler.schedule("transaction-abort", self.abort_timed_out_transactions, delay_ms=interval,
                                period_ms=interval)
        if enable_transactional_id_expiration:
            self.txn_manager.enable_transactional_id_expiration()
        self.txn_marker_channel_manager.start()
        self.is_active.set()
        self.info("Startup complete.")

    # Kafka: TransactionCoordinator.shutdown
    def shutdown(self) -> None:
        self.info("Shutting down.")
        self.is_active.clear()
        self.scheduler.shutdown()
        self.txn_manager.shutdown()
        self.txn_marker_channel_manager.shutdown()
        self.info("Shutdown complete.")

