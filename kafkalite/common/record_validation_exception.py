"""Mirrors Kafka 2.4: core/src/main/scala/kafka/common/RecordValidationException.scala

Classes: RecordValidationException -- what LogValidator raises when one record of a produced batch fails a
per-record check (a compacted topic's record without a key, a timestamp out of range, a producer's
LogAppendTime, an inner record out of order); RecordError -- which record, by its index in its batch (Kafka's
``ProduceResponse.RecordError``, KIP-467).

ReplicaManager.append_to_local_log answers such a partition with the invalid exception's error and, from
Produce v8 on, the record errors and the exception's message (``record_errors``, ``error_message``).
As in Kafka, this is not an ApiException: it carries one.
"""
from __future__ import annotations

import attrs

from kafkalite.protocol.errors import ApiException


@attrs.frozen
class RecordError:
    """Kafka: ProduceResponse.RecordError(batchIndex, message) -- the message is null in all of 2.4's uses."""

    batch_index: int
    message: str | None = None


class RecordValidationException(RuntimeError):
    """Kafka: RecordValidationException(invalidException, recordErrors)."""

    def __init__(self, invalid_exception: ApiException, record_errors: list[RecordError]):
        super().__init__(str(invalid_exception))
        self.invalid_exception = invalid_exception
        self.record_errors = record_errors
