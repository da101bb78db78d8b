"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/timer/TimerTaskList.scala

Classes: TimerTaskList (one bucket of a timing wheel), TimerTaskEntry (a task's place in a bucket).

A bucket is a circular doubly linked list with a dummy ``root`` entry (``root.next`` is the head,
``root.prev`` the tail), so adding at the tail and unlinking any entry are O(1) -- that is what
makes cancelling a delayed operation cheap. Each bucket also carries an expiration time: the
start of the time range it covers. Buckets, not tasks, go into the timer's delay queue, so the
queue holds at most a few dozen items however many tasks are waiting.

Locking follows Kafka: the bucket's lock, then the entry's lock. An entry may move between
buckets (an overflow wheel hands it down), so ``TimerTaskEntry.remove`` retries until the entry
belongs to no bucket.

Era notes: Kafka's bucket implements ``java.util.concurrent.Delayed`` (``getDelay``/``compareTo``)
for the DelayQueue; here ``get_delay(now_ms)`` and ``__lt__`` play that part.
Omitted: nothing.
"""
from __future__ import annotations

import threading
from typing import Callable

from kafkalite.utils.timer.timer_task import TimerTask


class TaskCounter:
    """No Kafka counterpart: stands in for the ``AtomicInteger`` shared by a timer's buckets."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    def increment_and_get(self) -> int:
        with self._lock:
            self._value += 1
            return self._value

    def decrement_and_get(self) -> int:
        with self._lock:
            self._value -= 1
            return self._value

    def get(self) -> int:
        return self._value


class TimerTaskList:
    """Kafka: kafka.utils.timer.TimerTaskList -- a bucket: linked list of entries + an expiration."""

    def __init__(self, task_counter: TaskCounter):
        self.task_counter = task_counter
        self._lock = threading.RLock()  # Kafka: `synchronized` on the list; flush() re-enters via remove()
        self.root = TimerTaskEntry(None, -1)
        self.root.next = self.root
        self.root.prev = self.root
        self._expiration = -1

    # Kafka: TimerTaskList.setExpiration -- True if the value changed (the bucket must be queued again)
    def set_expiration(self, expiration_ms: int) -> bool:
        with self._lock:
            previous, self._expiration = self._expiration, expiration_ms
            return previous != expiration_ms

    # Kafka: TimerTaskList.getExpiration
    def get_expiration(self) -> int:
        return self._expiration

    # Kafka: TimerTaskList.foreach -- apply f to every task that is still live
    def foreach(self, f: Callable[[TimerTask], None]) -> None:
        with self._lock:
            entry = self.root.next
            while entry is not None and entry is not self.root:
                next_entry = entry.next
                task = entry.timer_task
                if task is not None and not entry.cancelled:
                    f(task)
                entry = next_entry

    # Kafka: TimerTaskList.add -- append at the tail, leaving any bucket the entry was in
    def add(self, timer_task_entry: TimerTaskEntry) -> None:
        done = False
        while not done:
            # Leave the old bucket outside our lock (taking two bucket locks could deadlock).
            timer_task_entry.remove()
            with self._lock, timer_task_entry._lock:
                if timer_task_entry.list is None:
                    tail = self.root.prev
                    assert tail is not None   # the root is always linked (to itself when empty)
                    timer_task_entry.next = self.root
                    timer_task_entry.prev = tail
                    timer_task_entry.list = self
                    tail.next = timer_task_entry
                    self.root.prev = timer_task_entry
                    self.task_counter.increment_and_get()
                    done = True

    # Kafka: TimerTaskList.remove -- unlink in O(1) if the entry is still ours
    def remove(self, timer_task_entry: TimerTaskEntry) -> None:
        with self._lock, timer_task_entry._lock:
            nxt, prv = timer_task_entry.next, timer_task_entry.prev
            if timer_task_entry.list is self and nxt is not None and prv is not None:
                nxt.prev = prv
                prv.next = nxt
                timer_task_entry.next = None
                timer_task_entry.prev = None
                timer_task_entry.list = None
                self.task_counter.decrement_and_get()

    # Kafka: TimerTaskList.flush -- empty the bucket, handing every entry to f (reinsert or run)
    def flush(self, f: Callable[[TimerTaskEntry], None]) -> None:
        with self._lock:
            head = self.root.next
            while head is not None and head is not self.root:
                self.remove(head)
                f(head)
                head = self.root.next
            self._expiration = -1

    # Kafka: TimerTaskList.getDelay
    def get_delay(self, now_ms: int) -> int:
        return max(self._expiration - now_ms, 0)

    # Kafka: TimerTaskList.compareTo
    def __lt__(self, other: TimerTaskList) -> bool:
        return self._expiration < other._expiration

    def __repr__(self) -> str:
        return f"TimerTaskList(expiration={self._expiration})"


class TimerTaskEntry:
    """Kafka: kafka.utils.timer.TimerTaskEntry -- a task's node in one bucket's linked list."""

    __slots__ = ("timer_task", "expiration_ms", "list", "next", "prev", "_lock")

    def __init__(self, timer_task: TimerTask | None, expiration_ms: int):
        self.timer_task = timer_task
        self.expiration_ms = expiration_ms  # absolute, on the timer's clock
        self.list: TimerTaskList | None = None
        self.next: TimerTaskEntry | None = None
        self.prev: TimerTaskEntry | None = None
        self._lock = threading.Lock()
        # A task already held by another entry is taken away from it (the old entry is now cancelled).
        if timer_task is not None:
            timer_task.set_timer_task_entry(self)

    # Kafka: TimerTaskEntry.cancelled -- the task has been cancelled or moved to a newer entry
    @property
    def cancelled(self) -> bool:
        task = self.timer_task
        return task is None or task.get_timer_task_entry() is not self

    # Kafka: TimerTaskEntry.remove -- retry while another thread moves us between buckets
    def remove(self) -> None:
        current_list = self.list
        while current_list is not None:
            current_list.remove(self)
            current_list = self.list

    # Kafka: TimerTaskEntry.compare
    def __lt__(self, other: TimerTaskEntry) -> bool:
        return self.expiration_ms < other.expiration_ms
