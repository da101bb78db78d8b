"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/KafkaRequestHandler.scala

Classes: KafkaRequestHandler, KafkaRequestHandlerPool.

The I/O threads (S5): each takes a request from the RequestChannel (waiting at most 300 ms so it
notices shutdown) and lets ``KafkaApis.handle`` process it. Threads are named
``data-plane-kafka-request-handler-<n>`` (``control-plane-...`` for the control plane's single
handler). The time spent waiting is the idle time behind ``RequestHandlerAvgIdlePercent`` (S7).
Omitted: resizing the pool while running.
"""
from __future__ import annotations

import threading

from kafkalite.network.request_channel import Request, ShutdownRequest
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM


class KafkaRequestHandler(Logging):
    """Kafka: KafkaRequestHandler(id, brokerId, aggregateIdleMeter, totalHandlerThreads, requestChannel, apis, time)."""

    def __init__(self, handler_id: int, broker_id: int, pool: "KafkaRequestHandlerPool", request_channel, apis,
                 time=SYSTEM):
        self.id = handler_id
        self.broker_id = broker_id
        self.pool = pool
        self.request_channel = request_channel
        self.apis = apis
        self.time = time
        self.log_ident = f"[Kafka Request Handler {handler_id} on Broker {broker_id}], "
        self._stopped = False
        self._shutdown_complete = threading.Event()
        # this thread's share of the pool's idle time, written by this thread only (Kafka marks one shared,
        # thread-safe Meter; a lock taken per request cost more than the sum it protects)
        self.idle_nanos = 0

    # Kafka: KafkaRequestHandler.run
    def run(self) -> None:
        thread_name = threading.current_thread().name
        try:
            while not self._stopped:
                start = self.time.nanoseconds()
                req = self.request_channel.receive_request(300)
                end = self.time.nanoseconds()
                self.idle_nanos += end - start   # Kafka: aggregateIdleMeter.mark(idleTime / totalHandlerThreads)
                if isinstance(req, ShutdownRequest):
                    self.debug(f"Kafka request handler {self.id} on broker {self.broker_id} received shut down command")
                    return
                if isinstance(req, Request):
                    try:
                        req.request_dequeue_time_nanos = end
                        req.handler_thread = thread_name
                        if req.trace.enabled:
                            req.trace.hop("dequeued", f"waited {(end - req.start_time_nanos) / 1e6:.3f}ms since read",
                                          at_nanos=end)
                            req.trace.hop("handler", f"KafkaApis.handle {req.api_key.name}")
                        if self.is_trace_enabled():
                            self.trace(f"Kafka request handler {self.id} on broker {self.broker_id} handling "
                                       f"request {req.request_desc()}")
                        self.apis.handle(req)
                    except Exception as e:  # noqa: BLE001 -- never let a handler thread die
                        self.error(f"Exception when handling request: {e}", exc_info=True)
                    finally:
                        req.release_buffer()
                req = None   # its produce records are views of a buffer that can be reused once they are gone
        finally:
            self._shutdown_complete.set()

    # Kafka: KafkaRequestHandler.stop / initiateShutdown / awaitShutdown
    def stop(self) -> None:
        self._stopped = True

    def initiate_shutdown(self) -> None:
        self.request_channel.send_shutdown_request()

    def await_shutdown(self, timeout: float = 30.0) -> None:
        self._shutdown_complete.wait(timeout)


class KafkaRequestHandlerPool(Logging):
    """Kafka: KafkaRequestHandlerPool(brokerId, requestChannel, apis, time, numThreads, requestHandlerAvgIdleMetricName, logAndThreadNamePrefix)."""

    def __init__(self, broker_id: int, request_channel, apis, time, num_threads: int,
                 request_handler_avg_idle_metric_name: str = "RequestHandlerAvgIdlePercent",
                 log_and_thread_name_prefix: str = "data-plane"):
        self.broker_id = broker_id
        self.request_channel = request_channel
        self.apis = apis
        self.time = time
        self.metric_name = request_handler_avg_idle_metric_name
        self.prefix = log_and_thread_name_prefix
        self.log_ident = f"[{log_and_thread_name_prefix} Kafka Request Handler on Broker {broker_id}], "
        self.runnables: list[KafkaRequestHandler] = []
        self.threads: list[threading.Thread] = []
        self.started_nanos = time.nanoseconds()
        for i in range(num_threads):
            self.create_handler(i)

    # Kafka: KafkaRequestHandlerPool.createHandler
    def create_handler(self, handler_id: int) -> None:
        handler = KafkaRequestHandler(handler_id, self.broker_id, self, self.request_channel, self.apis, self.time)
        self.runnables.append(handler)
        t = threading.Thread(target=handler.run, name=f"{self.prefix}-kafka-request-handler-{handler_id}", daemon=True)
        self.threads.append(t)
        t.start()

    # the handlers' idle time summed (what broker_metrics' RequestHandlerAvgIdlePercent gauge reads)
    @property
    def _idle_nanos(self) -> int:
        return sum(h.idle_nanos for h in self.runnables)

    def avg_idle_percent(self) -> float:
        """Share of handler-thread time spent waiting for requests, since start-up (0..1)."""
        elapsed = max(1, (self.time.nanoseconds() - self.started_nanos) * len(self.runnables))
        return min(1.0, self._idle_nanos / elapsed)

    # Kafka: KafkaRequestHandlerPool.shutdown
    def shutdown(self) -> None:
        self.info("shutting down")
        for h in self.runnables:
            h.initiate_shutdown()
        for h in self.runnables:
            h.await_shutdown()
        self.info("shut down completely")
