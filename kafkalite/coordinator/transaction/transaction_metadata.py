"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/TransactionMetadata.scala

Classes: TransactionState (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort,
Dead, PrepareEpochFence -- each with the byte the transaction log stores), TxnTransitMetadata (the
immutable target of one transition) and TransactionMetadata (one transactional id as its coordinator
holds it).

Every change happens in two steps. ``prepare_*`` checks that the move is legal (``valid_previous_states``),
sets ``pending_state`` and returns a TxnTransitMetadata; the coordinator writes that to
``__transaction_state``; only once the write is acknowledged does ``complete_transition_to`` make it the
current state. While a transition is pending, a second one is refused (CONCURRENT_TRANSACTIONS).

Era notes: ``last_producer_id`` / ``last_producer_epoch`` and the ``expected_producer_epoch`` argument of
``prepare_increment_producer_epoch`` are KIP-360's (Kafka 2.5): an InitProducerId v3+ that names the
producer's current id and epoch bumps it, and a retry of that same bump gets the same answer. As in 2.5
they live in memory only (the v0 log value has no field for them). A stale epoch is answered with
PRODUCER_FENCED (Kafka 2.7, KIP-588); KafkaApis turns it back into 2.4's INVALID_PRODUCER_EPOCH for
request versions that predate it.
Left out: ``@nonthreadsafe`` annotations; the caller holds ``lock`` (Kafka: ``inLock``).
"""
from __future__ import annotations

import enum
import threading

import attrs

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.utils.logging import Logging

NO_PRODUCER_ID = -1      # Kafka: RecordBatch.NO_PRODUCER_ID
NO_PRODUCER_EPOCH = -1   # Kafka: RecordBatch.NO_PRODUCER_EPOCH
SHORT_MAX = 32767


class TransactionState(enum.Enum):
    """Kafka: sealed trait TransactionState -- the value is the byte written to the log."""

    Empty = 0
    Ongoing = 1
    PrepareCommit = 2
    PrepareAbort = 3
    CompleteCommit = 4
    CompleteAbort = 5
    Dead = 6
    PrepareEpochFence = 7

    @property
    def byte(self) -> int:
        return self.value

    # Kafka: TransactionMetadata.byteToState
    @classmethod
    def byte_to_state(cls, b: int) -> "TransactionState":
        try:
            return cls(b)
        except ValueError:
            raise RuntimeError(f"Unknown transaction state byte {b} from the transaction status message") from None

    def __str__(self) -> str:
        return self.name


Empty = TransactionState.Empty
Ongoing = TransactionState.Ongoing
PrepareCommit = TransactionState.PrepareCommit
PrepareAbort = TransactionState.PrepareAbort
CompleteCommit = TransactionState.CompleteCommit
CompleteAbort = TransactionState.CompleteAbort
Dead = TransactionState.Dead
PrepareEpochFence = TransactionState.PrepareEpochFence

# Kafka: TransactionMetadata.validPreviousStates -- the states a transition into the key may start from
VALID_PREVIOUS_STATES: dict[TransactionState, frozenset] = {
    Empty: frozenset({Empty, CompleteCommit, CompleteAbort}),
    Ongoing: frozenset({Ongoing, Empty, CompleteCommit, CompleteAbort}),
    PrepareCommit: frozenset({Ongoing}),
    PrepareAbort: frozenset({Ongoing, PrepareEpochFence}),
    CompleteCommit: frozenset({PrepareCommit}),
    CompleteAbort: frozenset({PrepareAbort}),
    Dead: frozenset({Empty, CompleteAbort, CompleteCommit}),
    PrepareEpochFence: frozenset({Ongoing}),
}


# Kafka: TransactionMetadata.isValidTransition
def is_valid_transition(old_state: TransactionState, new_state: TransactionState) -> bool:
    return old_state in VALID_PREVIOUS_STATES[new_state]


# Kafka 2.5: TransactionMetadata.isEpochExhausted
def is_epoch_exhausted(producer_epoch: int) -> bool:
    return producer_epoch >= SHORT_MAX - 1


@attrs.frozen
class TxnTransitMetadata:
    """Kafka: TxnTransitMetadata -- what the transaction will look like once the log write succeeds."""

    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    txn_timeout_ms: int
    txn_state: TransactionState
    topic_partitions: frozenset
    txn_start_timestamp: int
    txn_last_update_timestamp: int


class TransactionMetadata(Logging):
    """Kafka: TransactionMetadata(transactionalId, producerId, lastProducerId, producerEpoch, lastProducerEpoch,
    txnTimeoutMs, state, topicPartitions, txnStartTimestamp, txnLastUpdateTimestamp)."""

    def __init__(self, transactional_id: str, producer_id: int, producer_epoch: int, txn_timeout_ms: int,
                 state: TransactionState = Empty, topic_partitions=None, txn_start_timestamp: int = -1,
                 txn_last_update_timestamp: int = -1, last_producer_id: int = NO_PRODUCER_ID,
                 last_producer_epoch: int = NO_PRODUCER_EPOCH):
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.last_producer_id = last_producer_id
        self.producer_epoch = producer_epoch
        self.last_producer_epoch = last_producer_epoch
        self.txn_timeout_ms = txn_timeout_ms
        self.state = state
        self.topic_partitions: set[TopicPartition] = set(topic_partitions or ())
        self.txn_start_timestamp = txn_start_timestamp
        self.txn_last_update_timestamp = txn_last_update_timestamp
        self.pending_state: TransactionState | None = None
        self.lock = threading.RLock()   # Java's ReentrantLock, taken through Kafka's inLock
        self.log_ident = f"[TransactionMetadata {transactional_id}] "

    # Kafka: TransactionMetadata.addPartitions
    def add_partitions(self, partitions) -> None:
        self.topic_partitions.update(partitions)

    # Kafka: TransactionMetadata.removePartition -- a marker for this partition has been written
    def remove_partition(self, topic_partition: TopicPartition) -> None:
        if self.state not in (PrepareCommit, PrepareAbort):
            raise RuntimeError(f"Transaction metadata's current state is {self.state}, and its pending state is "
                               f"{self.pending_state} while trying to remove partitions whose txn marker has been "
                               f"sent, this is not expected")
        self.topic_partitions.discard(topic_partition)

    # Kafka: TransactionMetadata.prepareNoTransit
    def prepare_no_transit(self) -> TxnTransitMetadata:
        return TxnTransitMetadata(self.producer_id, self.last_producer_id, self.producer_epoch,
                                  self.last_producer_epoch, self.txn_timeout_ms, self.state,
                                  frozenset(self.topic_partitions), self.txn_start_timestamp,
                                  self.txn_last_update_timestamp)

    # Kafka: TransactionMetadata.prepareFenceProducerEpoch -- bump the epoch so the old producer is fenced
    def prepare_fence_producer_epoch(self) -> TxnTransitMetadata:
        if self.producer_epoch == SHORT_MAX:
            raise RuntimeError("Cannot fence producer with epoch equal to Short.MaxValue since this would overflow")
        return self.prepare_transition_to(PrepareEpochFence, self.producer_id, self.producer_epoch + 1,
                                          NO_PRODUCER_EPOCH,
                                          self.txn_timeout_ms, frozenset(self.topic_partitions),
                                          self.txn_start_timestamp, self.txn_last_update_timestamp)

    # Kafka: TransactionMetadata.prepareIncrementProducerEpoch (with KIP-360's expectedProducerEpoch, 2.5)
    # -> (error, transit): error is Errors.NONE or PRODUCER_FENCED for an epoch that is neither current nor the
    # one just replaced
    def prepare_increment_producer_epoch(self, new_txn_timeout_ms: int, expected_producer_epoch: int | None,
                                         update_timestamp: int) -> tuple[Errors, TxnTransitMetadata | None]:
        if self.is_producer_epoch_exhausted():
            raise RuntimeError(f"Cannot allocate any more producer epochs for producerId {self.producer_id}")
        bumped = 0 if self.producer_epoch == NO_PRODUCER_EPOCH else self.producer_epoch + 1
        if expected_producer_epoch is None:           # a new producer instance: no epoch to compare
            epoch, last_epoch = bumped, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_producer_epoch == self.producer_epoch:
            epoch, last_epoch = bumped, self.producer_epoch
        elif expected_producer_epoch == self.last_producer_epoch:   # the retry of a bump that already happened
            epoch, last_epoch = self.producer_epoch, self.last_producer_epoch
        else:
            self.info(f"Expected producer epoch {expected_producer_epoch} does not match current producer epoch "
                      f"{self.producer_epoch} or previous producer epoch {self.last_producer_epoch}")
            return Errors.PRODUCER_FENCED, None
        return Errors.NONE, self.prepare_transition_to(Empty, self.producer_id, epoch, last_epoch, new_txn_timeout_ms,
                                                       frozenset(), -1, update_timestamp)

    # Kafka: TransactionMetadata.prepareProducerIdRotation -- the epoch ran out: a new id, epoch 0
    def prepare_producer_id_rotation(self, new_producer_id: int, new_txn_timeout_ms: int, update_timestamp: int,
                                     record_last_epoch: bool = False) -> TxnTransitMetadata:
        if self.has_pending_transaction():
            raise RuntimeError("Cannot rotate producer ids while a transaction is still pending")
        return self.prepare_transition_to(Empty, new_producer_id, 0,
                                          self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
                                          new_txn_timeout_ms, frozenset(), -1, update_timestamp,
                                          last_producer_id=self.producer_id)

    # Kafka: TransactionMetadata.prepareAddPartitions -- the first partition starts the transaction's clock
    def prepare_add_partitions(self, added, update_timestamp: int) -> TxnTransitMetadata:
        start = update_timestamp if self.state in (Empty, CompleteAbort, CompleteCommit) else self.txn_start_timestamp
        return self.prepare_transition_to(Ongoing, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                          self.txn_timeout_ms, frozenset(self.topic_partitions | set(added)), start,
                                          update_timestamp)

    # Kafka: TransactionMetadata.prepareAbortOrCommit
    def prepare_abort_or_commit(self, new_state: TransactionState, update_timestamp: int) -> TxnTransitMetadata:
        return self.prepare_transition_to(new_state, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                          self.txn_timeout_ms, frozenset(self.topic_partitions),
                                          self.txn_start_timestamp, update_timestamp)

    # Kafka: TransactionMetadata.prepareComplete -- every marker is written
    def prepare_complete(self, update_timestamp: int) -> TxnTransitMetadata:
        new_state = CompleteCommit if self.state is PrepareCommit else CompleteAbort
        return self.prepare_transition_to(new_state, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                          self.txn_timeout_ms, frozenset(), self.txn_start_timestamp,
                                          update_timestamp)

    # Kafka: TransactionMetadata.prepareDead -- transactional.id.expiration.ms passed
    def prepare_dead(self) -> TxnTransitMetadata:
        return self.prepare_transition_to(Dead, self.producer_id, self.producer_epoch, self.last_producer_epoch,
                                          self.txn_timeout_ms, frozenset(), self.txn_start_timestamp,
                                          self.txn_last_update_timestamp)

    # Kafka: TransactionMetadata.isProducerEpochExhausted
    def is_producer_epoch_exhausted(self) -> bool:
        return is_epoch_exhausted(self.producer_epoch)

    # Kafka: TransactionMetadata.hasPendingTransaction
    def has_pending_transaction(self) -> bool:
        return self.state in (Ongoing, PrepareAbort, PrepareCommit)

    # Kafka: TransactionMetadata.prepareTransitionTo
    def prepare_transition_to(self, new_state: TransactionState, new_producer_id: int, new_epoch: int,
                              new_last_epoch: int, new_txn_timeout_ms: int, new_topic_partitions: frozenset,
                              new_txn_start_timestamp: int, update_timestamp: int,
                              last_producer_id: int | None = None) -> TxnTransitMetadata:
        if self.pending_state is not None:
            raise RuntimeError(f"Preparing transaction state transition to {new_state} while it already a pending "
                               f"state {self.pending_state}")
        if new_producer_id < 0:
            raise ValueError(f"Illegal new producer id {new_producer_id}")
        if new_epoch < 0:
            raise ValueError(f"Illegal new producer epoch {new_epoch}")
        if not is_valid_transition(self.state, new_state):
            raise RuntimeError(f"Preparing transaction state transition to {new_state} failed since the target state "
                               f"{new_state} is not a valid previous state of the current state {self.state}")
        transit = TxnTransitMetadata(
            new_producer_id, self.last_producer_id if last_producer_id is None else last_producer_id, new_epoch,
            new_last_epoch, new_txn_timeout_ms, new_state, frozenset(new_topic_partitions), new_txn_start_timestamp,
            update_timestamp)
        self.debug(f"TransactionalId {self.transactional_id} prepare transition from {self.state} to {transit}")
        self.pending_state = new_state
        return transit

    # Kafka: TransactionMetadata.completeTransitionTo -- called once the log write of ``transit`` succeeded
    def complete_transition_to(self, transit: TxnTransitMetadata) -> None:
        to_state = self.pending_state
        if to_state is None:
            raise RuntimeError(f"TransactionalId {self.transactional_id} completing transaction state transition "
                               f"while it does not have a pending state")
        if to_state is not transit.txn_state:
            self.throw_state_transition_failure(transit)
        if to_state is Empty:   # from InitProducerId
            if ((self.producer_epoch != transit.producer_epoch and not self.valid_producer_epoch_bump(transit))
                    or transit.topic_partitions or transit.txn_start_timestamp != -1):
                self.throw_state_transition_failure(transit)
            self.txn_timeout_ms = transit.txn_timeout_ms
            self.producer_epoch = transit.producer_epoch
            self.last_producer_epoch = transit.last_producer_epoch
            self.producer_id = transit.producer_id
            self.last_producer_id = transit.last_producer_id
        elif to_state is Ongoing:   # from AddPartitionsToTxn / AddOffsetsToTxn
            if (not self.valid_producer_epoch(transit) or not self.topic_partitions <= transit.topic_partitions
                    or self.txn_timeout_ms != transit.txn_timeout_ms
                    or self.txn_start_timestamp > transit.txn_start_timestamp):
                self.throw_state_transition_failure(transit)
            self.txn_start_timestamp = transit.txn_start_timestamp
            self.add_partitions(transit.topic_partitions)
        elif to_state in (PrepareAbort, PrepareCommit):   # from EndTxn
            if (not self.valid_producer_epoch(transit) or set(self.topic_partitions) != set(transit.topic_partitions)
                    or self.txn_timeout_ms != transit.txn_timeout_ms
                    or self.txn_start_timestamp != transit.txn_start_timestamp):
                self.throw_state_transition_failure(transit)
        elif to_state in (CompleteAbort, CompleteCommit):   # from the markers
            if (not self.valid_producer_epoch(transit) or self.txn_timeout_ms != transit.txn_timeout_ms
                    or transit.txn_start_timestamp == -1):
                self.throw_state_transition_failure(transit)
            self.txn_start_timestamp = transit.txn_start_timestamp
            self.topic_partitions.clear()
        elif to_state is PrepareEpochFence:
            # never completed: the fence is immediately followed by the transition to PrepareAbort
            self.throw_state_transition_failure(transit)
        else:   # Dead
            raise RuntimeError(f"TransactionalId {self.transactional_id} is trying to complete a transition to "
                               f"{to_state}. This means that the transactionalId was being expired, and the only "
                               f"acceptable completion of this operation is to remove the transaction metadata from "
                               f"the cache, not to persist the {to_state} in the log.")
        self.debug(f"TransactionalId {self.transactional_id} complete transition from {self.state} to {transit}")
        self.txn_last_update_timestamp = transit.txn_last_update_timestamp
        self.pending_state = None
        self.state = to_state

    # Kafka: TransactionMetadata.validProducerEpoch
    def valid_producer_epoch(self, transit: TxnTransitMetadata) -> bool:
        return transit.producer_epoch == self.producer_epoch and transit.producer_id == self.producer_id

    # Kafka: TransactionMetadata.validProducerEpochBump
    def valid_producer_epoch_bump(self, transit: TxnTransitMetadata) -> bool:
        return (transit.producer_epoch == self.producer_epoch + 1
                or (transit.producer_epoch == 0 and transit.producer_id != self.producer_id))

    # Kafka: TransactionMetadata.throwStateTransitionFailure
    def throw_state_transition_failure(self, transit: TxnTransitMetadata) -> None:
        self.error(f"{self}'s transition to {transit} failed: this should not happen")
        raise RuntimeError(f"TransactionalId {self.transactional_id} failed transition to state {transit} due to "
                           f"unexpected metadata")

    # Kafka: TransactionMetadata.pendingTransitionInProgress
    def pending_transition_in_progress(self) -> bool:
        return self.pending_state is not None

    def __repr__(self) -> str:
        return (f"TransactionMetadata(transactionalId={self.transactional_id}, producerId={self.producer_id}, "
                f"producerEpoch={self.producer_epoch}, txnTimeoutMs={self.txn_timeout_ms}, state={self.state}, "
                f"pendingState={self.pending_state}, topicPartitions={sorted(map(str, self.topic_partitions))}, "
                f"txnStartTimestamp={self.txn_start_timestamp}, "
                f"txnLastUpdateTimestamp={self.txn_last_update_timestamp})")
