"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/transaction/DelayedTxnMarker.scala

Classes: DelayedTxnMarker -- waits in the "txn-marker-purgatory", keyed by transactional id, until every
partition of the transaction has its commit/abort marker (the metadata's partition set is empty); then
its completion callback writes CompleteCommit/CompleteAbort.

Era notes: Kafka passes the TransactionStateManager's read lock as the operation's lock; here each
operation has its own (the metadata's lock is what ``try_complete`` needs).
Left out: nothing (it never expires: the purgatory runs without a timer).
"""
from __future__ import annotations

from typing import Callable

from kafkalite.protocol.errors import Errors
from kafkalite.server.delayed_operation import DelayedOperation

HUNDRED_YEARS_MS = 100 * 365 * 24 * 3600 * 1000


class DelayedTxnMarker(DelayedOperation):
    """Kafka: DelayedTxnMarker(txnMetadata, completionCallback, lock)."""

    def __init__(self, txn_metadata, completion_callback: Callable[[Errors], None], lock=None):
        super().__init__(HUNDRED_YEARS_MS, lock)
        self.txn_metadata = txn_metadata
        self.completion_callback = completion_callback

    # Kafka: DelayedTxnMarker.tryComplete
    def try_complete(self) -> bool:
        with self.txn_metadata.lock:
            if not self.txn_metadata.topic_partitions:
                return self.force_complete()
            return False

    # Kafka: DelayedTxnMarker.onExpiration
    def on_expiration(self) -> None:
        raise RuntimeError(f"Delayed write txn marker operation for metadata {self.txn_metadata} has timed out, "
                           f"this should never happen.")

    # Kafka: DelayedTxnMarker.onComplete
    def on_complete(self) -> None:
        self.completion_callback(Errors.NONE)
