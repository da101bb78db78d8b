"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/timer/TimerTask.scala

Classes: TimerTask -- something to run once its delay has passed. ``DelayedOperation`` is one.

A task is held by at most one ``TimerTaskEntry`` at a time (the entry that sits in a timing-wheel
bucket). ``cancel()`` unlinks that entry from its bucket in O(1); a cancelled task never runs.
Re-adding a task to a timer moves it to a fresh entry and the old entry counts as cancelled.

Era notes: Kafka's TimerTask is a Scala trait with an abstract ``delayMs``; here it is a base
class whose constructor takes ``delay_ms``.
Omitted: nothing.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafkalite.utils.timer.timer_task_list import TimerTaskEntry


class TimerTask:
    """Kafka: kafka.utils.timer.TimerTask -- a Runnable with a delay, cancellable in O(1)."""

    def __init__(self, delay_ms: int):
        self.delay_ms = delay_ms  # relative to the moment the task is added to a timer
        self._timer_task_entry: TimerTaskEntry | None = None
        self._task_lock = threading.Lock()  # Kafka: `synchronized` on the task

    # Kafka: TimerTask (a Runnable: run) -- what the timer's executor thread calls on expiry
    def run(self) -> None:
        raise NotImplementedError

    # Kafka: TimerTask.cancel
    def cancel(self) -> None:
        with self._task_lock:
            if self._timer_task_entry is not None:
                self._timer_task_entry.remove()
            self._timer_task_entry = None

    # Kafka: TimerTask.setTimerTaskEntry
    def set_timer_task_entry(self, entry: TimerTaskEntry) -> None:
        with self._task_lock:
            # A task held by an older entry leaves that entry's bucket first.
            if self._timer_task_entry is not None and self._timer_task_entry is not entry:
                self._timer_task_entry.remove()
            self._timer_task_entry = entry

    # Kafka: TimerTask.getTimerTaskEntry
    def get_timer_task_entry(self) -> TimerTaskEntry | None:
        return self._timer_task_entry
