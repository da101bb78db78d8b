"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/KafkaScheduler.scala

Classes: Scheduler (the interface), KafkaScheduler (a pool of ``kafka-scheduler-<n>`` threads
running one-shot and fixed-rate background jobs: log retention, log flush, recovery-point
checkpoints, offsets expiry, ISR shrink checks), and ScheduledFuture (the handle ``schedule``
returns; Java's ``ScheduledFuture``, no Kafka counterpart).

Behaviour kept from Kafka: threads are created on demand up to ``threads`` and named
``<prefix><n>`` counting from 0; an exception in a job is logged as "Uncaught exception in
scheduled task '<name>'" and a periodic job keeps its schedule; ``period_ms >= 0`` means fixed
rate (the next run is due ``period_ms`` after the previous one was *due*, and one job never runs
twice at once); ``shutdown()`` drops delayed and periodic jobs not yet started, waits for running
ones, and allows a later ``startup()``.

Era notes: Java's ``ScheduledThreadPoolExecutor`` is a ``heapq`` of due times + one
``threading.Condition``; a cancelled job is skipped when it reaches the head of the heap rather
than removed at once (``setRemoveOnCancelPolicy``). Delays use the monotonic clock.
Omitted: the ``TimeUnit`` parameter (everything is milliseconds).
"""
from __future__ import annotations

import heapq
import itertools
import threading
import time as _time
from typing import Callable

from kafkalite.utils.logging import Logging


class ScheduledFuture:
    """No Kafka counterpart: java.util.concurrent.ScheduledFuture -- a handle on one scheduled job.

    Every Log schedules a periodic job (its producer-id expiration check), so the futures share one
    Condition (``_DONE``) rather than holding an Event each (a lock pair, ~0.75 KiB a partition)."""

    __slots__ = ("name", "fun", "due", "period_ms", "_cancelled", "_is_done")
    _DONE = threading.Condition()

    def __init__(self, name: str, fun: Callable[[], None], due: float, period_ms: int):
        self.name = name
        self.fun = fun
        self.due = due  # time.monotonic() seconds
        self.period_ms = period_ms
        self._cancelled = False
        self._is_done = False

    def _set_done(self) -> None:
        with ScheduledFuture._DONE:
            self._is_done = True
            ScheduledFuture._DONE.notify_all()

    def cancel(self) -> bool:
        if self._is_done:
            return False
        self._cancelled = True
        self._set_done()
        return True

    def is_cancelled(self) -> bool:
        return self._cancelled

    def is_done(self) -> bool:
        return self._is_done

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until a one-shot job has run (or any job is cancelled)."""
        with ScheduledFuture._DONE:
            return ScheduledFuture._DONE.wait_for(lambda: self._is_done, timeout)


class Scheduler:
    """Kafka: kafka.utils.Scheduler."""

    def startup(self) -> None:
        raise NotImplementedError

    def shutdown(self) -> None:
        raise NotImplementedError

    @property
    def is_started(self) -> bool:
        raise NotImplementedError

    def schedule(self, name: str, fun: Callable[[], None], delay_ms: int = 0, period_ms: int = -1) -> ScheduledFuture:
        raise NotImplementedError


class KafkaScheduler(Scheduler, Logging):
    """Kafka: kafka.utils.KafkaScheduler."""

    def __init__(self, threads: int, thread_name_prefix: str = "kafka-scheduler-", daemon: bool = True):
        self.threads = threads
        self.thread_name_prefix = thread_name_prefix
        self.daemon = daemon
        self._lock = threading.Lock()  # Kafka: this synchronized
        self._cond = threading.Condition(self._lock)
        self._queue: list[tuple[float, int, ScheduledFuture]] | None = None  # None: not started
        self._seq = itertools.count()
        self._workers: list[threading.Thread] = []
        self._pool_size = threads
        self._scheduler_thread_id = itertools.count()

    # Kafka: KafkaScheduler.startup
    def startup(self) -> None:
        self.debug("Initializing task scheduler.")
        with self._lock:
            if self._queue is not None:
                raise RuntimeError("This scheduler has already been started!")
            self._queue = []
            self._workers = []

    # Kafka: KafkaScheduler.shutdown -- drop jobs not yet started, wait for running ones
    def shutdown(self) -> None:
        self.debug("Shutting down task scheduler.")
        with self._lock:
            if self._queue is None:
                return
            for _, _, future in self._queue:
                future.cancel()
            self._queue = None
            workers = self._workers
            self._workers = []
            self._cond.notify_all()
        for worker in workers:
            if worker is not threading.current_thread():
                worker.join()

    # Kafka: KafkaScheduler.isStarted
    @property
    def is_started(self) -> bool:
        with self._lock:
            return self._queue is not None

    # Kafka: KafkaScheduler.scheduleOnce
    def schedule_once(self, name: str, fun: Callable[[], None]) -> ScheduledFuture:
        return self.schedule(name, fun, delay_ms=0, period_ms=-1)

    # Kafka: KafkaScheduler.schedule -- period_ms >= 0 means "again every period_ms"
    def schedule(self, name: str, fun: Callable[[], None], delay_ms: int = 0, period_ms: int = -1) -> ScheduledFuture:
        self.debug(f"Scheduling task {name} with initial delay {delay_ms} ms and period {period_ms} ms.")
        with self._lock:
            if self._queue is None:  # Kafka: ensureRunning
                raise RuntimeError("Kafka scheduler is not running.")
            future = ScheduledFuture(name, fun, _time.monotonic() + max(delay_ms, 0) / 1000.0, period_ms)
            self._enqueue(future)
            if len(self._workers) < self._pool_size:
                self._add_worker()
            return future

    # Kafka: KafkaScheduler.resizeThreadPool
    def resize_thread_pool(self, new_size: int) -> None:
        with self._lock:
            self._pool_size = new_size
            self._cond.notify_all()  # extra workers notice and leave

    def _enqueue(self, future: ScheduledFuture) -> None:
        item = (future.due, next(self._seq), future)
        queue = self._queue
        assert queue is not None, "the scheduler is not running"
        heapq.heappush(queue, item)
        if queue[0] is item:
            self._cond.notify()

    def _add_worker(self) -> None:
        name = self.thread_name_prefix + str(next(self._scheduler_thread_id))
        worker = threading.Thread(target=self._work, args=(self._queue,), name=name, daemon=self.daemon)
        self._workers.append(worker)
        worker.start()

    def _take(self, queue: list) -> ScheduledFuture | None:
        """Block until a job is due; None when this scheduler run has shut down or shrunk."""
        with self._lock:
            while True:
                if self._queue is not queue:
                    return None
                if len(self._workers) > self._pool_size:
                    self._workers.remove(threading.current_thread())
                    return None
                if queue:
                    wait_s = queue[0][0] - _time.monotonic()
                    if wait_s <= 0:
                        future = heapq.heappop(queue)[2]
                        if future.is_cancelled():
                            continue
                        return future
                    self._cond.wait(wait_s)
                else:
                    self._cond.wait()

    def _work(self, queue: list) -> None:
        while (future := self._take(queue)) is not None:
            self._run_task(future)
            if future.period_ms >= 0:
                with self._lock:
                    if self._queue is queue and not future.is_cancelled():
                        future.due += future.period_ms / 1000.0  # fixed rate: from the last due time
                        self._enqueue(future)
            else:
                future._set_done()

    # Kafka: the runnable built in KafkaScheduler.schedule
    def _run_task(self, future: ScheduledFuture) -> None:
        try:
            self.trace(f"Beginning execution of scheduled task '{future.name}'.")
            future.fun()
        except Exception:
            self.error(f"Uncaught exception in scheduled task '{future.name}'", exc_info=True)
        finally:
            self.trace(f"Completed execution of scheduled task '{future.name}'.")
