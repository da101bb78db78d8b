"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/timer/Timer.scala

Classes: Timer (the interface), SystemTimer (a hierarchical timing wheel + a delay queue of
buckets + one executor thread), and two JVM stand-ins with no Kafka counterpart: DelayQueue
(``java.util.concurrent.DelayQueue``) and TaskExecutor (``Executors.newFixedThreadPool(1)``).

The division of labour, as in Kafka:
* ``add(task)`` (any thread, e.g. a request handler parking a DelayedProduce) wraps the task in a
  ``TimerTaskEntry`` due at now + ``delay_ms`` and drops it into a wheel bucket: O(1), no wake-up
  unless that bucket is new to the delay queue.
* ``advance_clock(timeout_ms)`` (the purgatory's ExpirationReaper thread) sleeps on the delay
  queue until the earliest bucket is due or the timeout passes -- no work per tick when nothing
  is due -- then moves the wheels' clocks and re-adds that bucket's entries, which either drop
  into a finer wheel or are handed to the executor.
* Expired tasks run on the single thread ``executor-<name>``, never on the reaper.

Clock: Kafka uses ``Time.SYSTEM.hiResClockMs`` (monotonic); here any ``Time`` may be passed, so
tests can drive the timer with ``MockTime`` and ``advance_clock(0)``.

Era notes: Kafka's read/write lock (many concurrent ``add``s, one exclusive ``advance_clock``) is
one ``threading.Lock`` here: under the GIL concurrent adds gain nothing and a plain lock is
cheaper. ``shutdown()`` also wakes a reaper blocked in ``advance_clock`` (Kafka's reaper simply
waits out its 200 ms); tasks that expire after shutdown are dropped (Java would throw
RejectedExecutionException).
Omitted: nothing else.
"""
from __future__ import annotations

import heapq
import itertools
import queue
import threading
import time as _time

from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time
from kafkalite.utils.timer.timer_task import TimerTask
from kafkalite.utils.timer.timer_task_list import TaskCounter, TimerTaskEntry, TimerTaskList
from kafkalite.utils.timer.timing_wheel import TimingWheel


class Timer:
    """Kafka: kafka.utils.timer.Timer."""

    # Kafka: Timer.add -- run the task once its delay (counted from now) has passed
    def add(self, timer_task: TimerTask) -> None:
        raise NotImplementedError

    # Kafka: Timer.advanceClock -- wait up to timeout_ms for an expired bucket; True if one was processed
    def advance_clock(self, timeout_ms: int) -> bool:
        raise NotImplementedError

    # Kafka: Timer.size -- tasks still waiting
    def size(self) -> int:
        raise NotImplementedError

    # Kafka: Timer.shutdown -- pending tasks are left unexecuted
    def shutdown(self) -> None:
        raise NotImplementedError


class DelayQueue:
    """No Kafka counterpart: java.util.concurrent.DelayQueue[TimerTaskList] as heapq + Condition.

    ``poll`` hands out a bucket only once its expiration has passed on ``time``'s clock.
    """

    def __init__(self, time: Time = SYSTEM):
        self.time = time
        self._cond = threading.Condition(threading.Lock())
        self._heap: list[tuple[int, int, TimerTaskList]] = []
        self._seq = itertools.count()  # tie-breaker: buckets with equal expirations never get compared
        self._closed = False

    def offer(self, bucket: TimerTaskList) -> None:
        with self._cond:
            item = (bucket.get_expiration(), next(self._seq), bucket)
            heapq.heappush(self._heap, item)
            if self._heap[0] is item:  # a new earliest bucket: a waiting poller must re-time its sleep
                self._cond.notify()

    def poll(self, timeout_ms: int = 0) -> TimerTaskList | None:
        deadline = _time.monotonic() + max(timeout_ms, 0) / 1000.0
        with self._cond:
            while True:
                wait_s = deadline - _time.monotonic()
                if self._heap:
                    due_in_ms = self._heap[0][0] - self.time.hi_res_clock_ms()
                    if due_in_ms <= 0:
                        return heapq.heappop(self._heap)[2]
                    wait_s = min(wait_s, due_in_ms / 1000.0)
                if self._closed or wait_s <= 0:
                    return None
                self._cond.wait(wait_s)

    def close(self) -> None:
        """Wake every poller; later polls no longer block."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def __len__(self) -> int:
        return len(self._heap)


class TaskExecutor(Logging):
    """No Kafka counterpart: ``Executors.newFixedThreadPool(1, KafkaThread.nonDaemon(name, ...))``.

    One thread, started on the first submit (as Java starts pool threads lazily), runs tasks in
    submission order. ``shutdown`` lets queued tasks finish, then the thread exits.
    """

    _SHUTDOWN = object()

    def __init__(self, thread_name: str):
        self.thread_name = thread_name
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._is_shutdown = False

    def submit(self, task: TimerTask) -> None:
        with self._lock:
            if self._is_shutdown:
                self.debug(f"Dropping expired task {task!r}: executor {self.thread_name} is shut down")
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=False)
                self._thread.start()
            self._queue.put(task)

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            if task is self._SHUTDOWN:
                return
            try:
                task.run()
            except Exception:  # a failing task must not kill the timer's only thread
                self.error(f"Timer task {task!r} failed", exc_info=True)

    def shutdown(self) -> None:
        with self._lock:
            if self._is_shutdown:
                return
            self._is_shutdown = True
            if self._thread is not None:
                self._queue.put(self._SHUTDOWN)

    def await_termination(self, timeout_s: float | None = None) -> bool:
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout_s)
        return not thread.is_alive()


class SystemTimer(Timer):
    """Kafka: kafka.utils.timer.SystemTimer -- tick 1 ms, 20 buckets per wheel by default."""

    def __init__(self, executor_name: str, tick_ms: int = 1, wheel_size: int = 20,
                 start_ms: int | None = None, time: Time = SYSTEM):
        self.time = time
        if start_ms is None:
            start_ms = time.hi_res_clock_ms()
        self.task_executor = TaskExecutor("executor-" + executor_name)
        self.delay_queue = DelayQueue(time)
        self.task_counter = TaskCounter()
        self.timing_wheel = TimingWheel(tick_ms=tick_ms, wheel_size=wheel_size, start_ms=start_ms,
                                        task_counter=self.task_counter, queue=self.delay_queue)
        # Kafka: readWriteLock -- see "Era notes"
        self._lock = threading.Lock()
        self._is_shutdown = False

    # Kafka: SystemTimer.add
    def add(self, timer_task: TimerTask) -> None:
        with self._lock:
            self.add_timer_task_entry(TimerTaskEntry(timer_task, timer_task.delay_ms + self.time.hi_res_clock_ms()))

    # Kafka: SystemTimer.addTimerTaskEntry -- into the wheel, or straight to the executor if already due
    def add_timer_task_entry(self, timer_task_entry: TimerTaskEntry) -> None:
        if not self.timing_wheel.add(timer_task_entry):
            task = timer_task_entry.timer_task
            if task is not None and not timer_task_entry.cancelled:
                self.task_executor.submit(task)

    # Kafka: SystemTimer.advanceClock
    def advance_clock(self, timeout_ms: int) -> bool:
        if self._is_shutdown:
            return False
        bucket = self.delay_queue.poll(timeout_ms)
        if bucket is None:
            return False
        with self._lock:
            while bucket is not None:
                self.timing_wheel.advance_clock(bucket.get_expiration())
                bucket.flush(self.add_timer_task_entry)  # Kafka: reinsert
                bucket = self.delay_queue.poll(0)
        return True

    # Kafka: SystemTimer.size
    def size(self) -> int:
        return self.task_counter.get()

    # Kafka: SystemTimer.shutdown
    def shutdown(self) -> None:
        self._is_shutdown = True
        self.delay_queue.close()
        self.task_executor.shutdown()
