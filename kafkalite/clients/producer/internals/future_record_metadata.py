"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/FutureRecordMetadata.java

Classes: FutureRecordMetadata -- the future ``KafkaProducer.send`` returns. It points at its batch's
``ProduceRequestResult`` and knows the record's place in the batch (``relative_offset``), so the
record's offset is ``base_offset + relative_offset`` once the broker answered.

Python note: besides Kafka's ``get(timeout)`` and ``is_done()`` it offers ``result(timeout)`` and
``done()`` like ``concurrent.futures.Future``; timeouts are in seconds there, as in Python.
Left out: ``chain`` (used when a too-large batch is split and re-sent).
"""
from __future__ import annotations

from kafkalite.clients.producer.internals.produce_request_result import ProduceRequestResult
from kafkalite.clients.producer.record_metadata import RecordMetadata
from kafkalite.protocol.errors import Errors


class FutureRecordMetadata:
    """Kafka: FutureRecordMetadata."""

    def __init__(self, result: ProduceRequestResult, relative_offset: int, create_timestamp: int,
                 serialized_key_size: int, serialized_value_size: int):
        self.result_ = result
        self.relative_offset = relative_offset
        self.create_timestamp = create_timestamp
        self.serialized_key_size = serialized_key_size
        self.serialized_value_size = serialized_value_size

    # Kafka: FutureRecordMetadata.get(long, TimeUnit) -- timeout in seconds (None = forever)
    def get(self, timeout: float | None = None) -> RecordMetadata:
        if not self.result_.await_(None if timeout is None else timeout * 1000.0):
            raise Errors.REQUEST_TIMED_OUT.exception(f"Timeout after waiting for {timeout} s.")
        return self.value_or_error()

    result = get

    # Kafka: FutureRecordMetadata.valueOrError
    def value_or_error(self) -> RecordMetadata:
        if self.result_.error is not None:
            raise self.result_.error
        return self.value()

    # Kafka: FutureRecordMetadata.value
    def value(self) -> RecordMetadata:
        tp = self.result_.topic_partition
        base = self.result_.base_offset
        offset = -1 if base == -1 else base + self.relative_offset
        timestamp = self.create_timestamp if self.result_.log_append_time == -1 else self.result_.log_append_time
        return RecordMetadata(tp.topic, tp.partition, offset, timestamp, self.serialized_key_size,
                              self.serialized_value_size)

    # Kafka: FutureRecordMetadata.isDone
    def is_done(self) -> bool:
        return self.result_.completed()

    done = is_done

    def exception(self) -> BaseException | None:
        return self.result_.error if self.is_done() else None
