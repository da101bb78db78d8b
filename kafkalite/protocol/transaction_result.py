"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/TransactionResult.java

Classes: TransactionResult -- how a transaction ended, COMMIT or ABORT.

It travels as a boolean (EndTxn's ``committed``, WriteTxnMarkers' ``transaction_result``:
True is COMMIT) and becomes a control record type in the log (see
``kafkalite.record.control_record_type``).
"""
from __future__ import annotations

import enum


class TransactionResult(enum.Enum):
    """Kafka: TransactionResult."""

    ABORT = False
    COMMIT = True

    # Kafka: TransactionResult.forId
    @classmethod
    def for_id(cls, committed: bool) -> "TransactionResult":
        return cls.COMMIT if committed else cls.ABORT

    @property
    def id(self) -> bool:
        return self.value
