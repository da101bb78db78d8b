"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/producer/internals/ProduceRequestResult.java

Classes: ProduceRequestResult -- the outcome of one batch, shared by the futures of all its records:
the base offset the broker assigned, its LogAppendTime (or -1), or the error; plus a latch that
``flush()`` and ``FutureRecordMetadata.get`` wait on.

Python note: Java's CountDownLatch(1) is a ``threading.Event``.
"""
from __future__ import annotations

import threading

from kafkalite.common.topic_partition import TopicPartition


class ProduceRequestResult:
    """Kafka: ProduceRequestResult."""

    def __init__(self, topic_partition: TopicPartition):
        self.topic_partition = topic_partition
        self.latch = threading.Event()
        self.base_offset = -1
        self.log_append_time = -1
        self.error: BaseException | None = None

    # Kafka: ProduceRequestResult.set
    def set(self, base_offset: int, log_append_time: int, error: BaseException | None) -> None:
        self.base_offset = base_offset
        self.log_append_time = log_append_time
        self.error = error

    # Kafka: ProduceRequestResult.done -- release every waiter
    def done(self) -> None:
        self.latch.set()

    # Kafka: ProduceRequestResult.await(long, TimeUnit) -- True when completed within the timeout
    def await_(self, timeout_ms: float | None = None) -> bool:
        return self.latch.wait(None if timeout_ms is None else timeout_ms / 1000.0)

    # Kafka: ProduceRequestResult.completed
    def completed(self) -> bool:
        return self.latch.is_set()
