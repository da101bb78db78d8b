"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/timer/TimingWheel.scala

Classes: TimingWheel -- one level of a hierarchical timing wheel.

How it works (Kafka's class comment tells the same story with a worked example):

* A wheel has ``wheel_size`` buckets, each ``tick_ms`` wide, so it covers
  ``interval = tick_ms * wheel_size`` milliseconds starting at ``current_time``.
* A task due before ``current_time + tick_ms`` is already expired: ``add`` returns False and the
  timer runs it at once. A task due within the interval goes into bucket
  ``(expiration // tick_ms) % wheel_size``; the bucket's expiration becomes the start of its range.
* A task due further out goes to the *overflow wheel*, created on demand, whose tick is this
  wheel's whole interval (20 ms, 400 ms, 8 s, ... with Kafka's tick 1 ms and size 20).
* Only buckets go into the timer's delay queue. When a bucket expires, the timer moves the
  wheels' clocks forward and re-adds the bucket's tasks: those now close enough drop into a
  finer wheel, the rest run.

Example with u = 1 ms and n = 3 starting at time c: level 1 buckets cover [c], [c+1], [c+2];
level 2 covers [c..c+2], [c+3..c+5], [c+6..c+8]; level 3 [c..c+8], [c+9..c+17], [c+18..c+26].
A task due at c+7 sits in level 2's third bucket; when that bucket expires at c+6 the task is
re-added and lands in level 1's bucket for c+7.

Insert costs O(number of levels), cancel O(1); a priority queue of tasks would cost O(log n)
for both. Not thread-safe on its own: ``SystemTimer`` lets many threads ``add`` at once (read
lock) but ``advance_clock`` alone (write lock).

Era notes: Kafka's ``queue`` is a ``java.util.concurrent.DelayQueue``; here any object with
``offer(bucket)`` (``kafkalite.utils.timer.timer.DelayQueue``).
Omitted: nothing.
"""
from __future__ import annotations

import threading

from kafkalite.utils.timer.timer_task_list import TaskCounter, TimerTaskEntry, TimerTaskList


class TimingWheel:
    """Kafka: kafka.utils.timer.TimingWheel."""

    def __init__(self, tick_ms: int, wheel_size: int, start_ms: int, task_counter: TaskCounter, queue):
        self.tick_ms = tick_ms
        self.wheel_size = wheel_size
        self.task_counter = task_counter
        self.queue = queue
        self.interval = tick_ms * wheel_size
        self.buckets = [TimerTaskList(task_counter) for _ in range(wheel_size)]
        self.current_time = start_ms - (start_ms % tick_ms)  # round down to a multiple of tick_ms
        self.overflow_wheel: TimingWheel | None = None
        self._overflow_lock = threading.Lock()

    # Kafka: TimingWheel.addOverflowWheel -- double-checked, since adds run concurrently
    def add_overflow_wheel(self) -> None:
        with self._overflow_lock:
            if self.overflow_wheel is None:
                self.overflow_wheel = TimingWheel(
                    tick_ms=self.interval,
                    wheel_size=self.wheel_size,
                    start_ms=self.current_time,
                    task_counter=self.task_counter,
                    queue=self.queue,
                )

    # Kafka: TimingWheel.add -- False if the entry is already expired or cancelled
    def add(self, timer_task_entry: TimerTaskEntry) -> bool:
        expiration = timer_task_entry.expiration_ms
        if timer_task_entry.cancelled:
            return False
        if expiration < self.current_time + self.tick_ms:
            return False  # already expired: the caller runs it now
        if expiration < self.current_time + self.interval:
            virtual_id = expiration // self.tick_ms
            bucket = self.buckets[virtual_id % self.wheel_size]
            bucket.add(timer_task_entry)
            # A bucket goes into the delay queue only when its expiration changes, i.e. when a slot
            # is reused for a new round; later adds in the same round see the same value.
            if bucket.set_expiration(virtual_id * self.tick_ms):
                self.queue.offer(bucket)
            return True
        # Beyond this wheel's interval: hand it to the coarser wheel above.
        if self.overflow_wheel is None:
            self.add_overflow_wheel()
        overflow = self.overflow_wheel
        assert overflow is not None
        return overflow.add(timer_task_entry)

    # Kafka: TimingWheel.advanceClock -- move to time_ms (rounded down to a tick), then the wheel above
    def advance_clock(self, time_ms: int) -> None:
        if time_ms >= self.current_time + self.tick_ms:
            self.current_time = time_ms - (time_ms % self.tick_ms)
            if self.overflow_wheel is not None:
                self.overflow_wheel.advance_clock(self.current_time)
