"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/RequestFuture.java

Classes: RequestFuture -- the result of one asynchronous request of the consumer or the admin client:
it is completed with a value or failed with an exception, and listeners run when it finishes.
Kafka's futures are completed by the thread that polls the ConsumerNetworkClient; so are these.

Left out: ``compose``/``chain`` adapters (callers add listeners instead), ``voidSuccess``.
"""
from __future__ import annotations

import threading
from typing import Any, Callable


class RequestFuture:
    """Kafka: RequestFuture."""

    def __init__(self):
        self._done = threading.Event()
        self._value: Any = None
        self._exception: BaseException | None = None
        self._listeners: list[tuple[Callable, Callable]] = []

    # Kafka: RequestFuture.isDone
    def is_done(self) -> bool:
        return self._done.is_set()

    # Kafka: RequestFuture.succeeded
    def succeeded(self) -> bool:
        return self.is_done() and self._exception is None

    # Kafka: RequestFuture.failed
    def failed(self) -> bool:
        return self.is_done() and self._exception is not None

    # Kafka: RequestFuture.isRetriable
    def is_retriable(self) -> bool:
        from kafkalite.protocol.errors import RetriableException
        return isinstance(self._exception, RetriableException)

    # Kafka: RequestFuture.value
    def value(self):
        if not self.succeeded():
            raise RuntimeError("Attempt to retrieve value from future which has not succeeded")
        return self._value

    # Kafka: RequestFuture.exception
    def exception(self) -> BaseException | None:
        return self._exception

    # Kafka: RequestFuture.complete
    def complete(self, value=None) -> None:
        if self.is_done():
            raise RuntimeError("Invalid attempt to complete a request future which is already complete")
        self._value = value
        self._done.set()
        for on_success, _ in self._listeners:
            on_success(value)

    # Kafka: RequestFuture.raise
    def raise_(self, exception: BaseException) -> None:
        if self.is_done():
            raise RuntimeError("Invalid attempt to complete a request future which is already complete")
        self._exception = exception
        self._done.set()
        for _, on_failure in self._listeners:
            on_failure(exception)

    # Kafka: RequestFuture.addListener
    def add_listener(self, on_success: Callable, on_failure: Callable) -> "RequestFuture":
        if self.succeeded():
            on_success(self._value)
        elif self.failed():
            on_failure(self._exception)
        else:
            self._listeners.append((on_success, on_failure))
        return self

    # Kafka: RequestFuture.failure
    @staticmethod
    def failure(exception: BaseException) -> "RequestFuture":
        future = RequestFuture()
        future.raise_(exception)
        return future
