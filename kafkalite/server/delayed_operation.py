"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DelayedOperation.scala

Classes: DelayedOperation (a request that waits, at most ``delay_ms``, for a condition),
DelayedOperationPurgatory (where such operations wait, filed under keys), and its inner classes
Watchers (the operations filed under one key), WatcherList (one shard of keys) and
ExpiredOperationReaper (the ``ExpirationReaper-<brokerId>-<purgatoryName>`` thread).

The life of a delayed operation (a produce with acks=-1, a fetch below fetch.min.bytes, a join
or heartbeat waiting on a group):

1. ``try_complete_else_watch(op, keys)``: try to complete it now; if not, watch it under every
   key, try once more (an event may have slipped in between), and if it still waits, add it to
   the timer so it expires after ``delay_ms``.
2. An event on a key (an append to the partition, a member rejoining, ...) calls
   ``check_and_complete(key)``, which retries ``try_complete`` on every operation under that key.
3. Whichever comes first -- ``try_complete`` succeeding or the timer expiring -- wins
   ``force_complete()``, which runs ``on_complete`` exactly once and cancels the timer task. On
   expiry the timer's executor thread calls ``run()``, which adds ``on_expiration()``.
4. Completed operations may linger in other keys' watcher lists; ``check_and_complete`` drops
   them as it passes, and the reaper purges all lists once more than ``purge_interval``
   completed operations may be lying around.

Era notes: ``maybe_try_complete`` is the Kafka 2.0-2.4 form (``lock.tryLock`` plus the
``tryCompletePending`` flag, so a thread that finds the lock busy leaves the retry to the holder
instead of blocking); Kafka 2.5 replaced it. The operation's lock defaults to an ``RLock``
(Kafka's ``ReentrantLock``), so a caller already holding a group's lock can complete that
group's operations. ``Watchers`` keeps a list under a small lock where Kafka uses a
``ConcurrentLinkedQueue``; ``try_complete`` runs with that lock released, as in Kafka. The
2.4 sharding of keys into 512 ``WatcherList``s is kept. ``shutdown()`` stops the reaper, then the
timer wakes it, then waits for it (Kafka waits out the reaper's 200 ms poll).
Omitted: the PurgatorySize and NumDelayedOperations gauges (metrics live elsewhere); the
``DelayedOperationPurgatory.apply`` factory is folded into the constructor (``timeout_timer=None``
builds a ``SystemTimer(purgatory_name)``).
"""
from __future__ import annotations

import threading
from typing import Any, Hashable, Iterable

from kafkalite.utils.logging import Logging
from kafkalite.utils.shutdownable_thread import ShutdownableThread
from kafkalite.utils.timer.timer import SystemTimer, Timer
from kafkalite.utils.timer.timer_task import TimerTask


class _AtomicBoolean:
    """No Kafka counterpart: java.util.concurrent.atomic.AtomicBoolean (CAS and getAndSet)."""

    __slots__ = ("_value", "_lock")

    def __init__(self, value: bool):
        self._value = value
        self._lock = threading.Lock()

    def get(self) -> bool:
        return self._value

    def set(self, value: bool) -> None:
        self._value = value

    def get_and_set(self, value: bool) -> bool:
        with self._lock:
            old, self._value = self._value, value
            return old

    def compare_and_set(self, expect: bool, update: bool) -> bool:
        with self._lock:
            if self._value != expect:
                return False
            self._value = update
            return True


class DelayedOperation(TimerTask, Logging):
    """Kafka: kafka.server.DelayedOperation -- completed exactly once, by an event or by expiry.

    Subclasses implement ``try_complete`` (check the condition; if met, call ``force_complete``
    and return its result), ``on_complete`` (send the response) and ``on_expiration``.
    """

    def __init__(self, delay_ms: int, lock: Any = None):
        super().__init__(delay_ms)
        self._completed = _AtomicBoolean(False)
        self._try_complete_pending = _AtomicBoolean(False)
        self.lock = lock if lock is not None else threading.RLock()

    # Kafka: DelayedOperation.forceComplete -- True only for the one caller that completes it
    def force_complete(self) -> bool:
        if self._completed.compare_and_set(False, True):
            self.cancel()  # leave the timer: it must not expire a completed operation
            self.on_complete()
            return True
        return False

    # Kafka: DelayedOperation.isCompleted
    @property
    def is_completed(self) -> bool:
        return self._completed.get()

    # Kafka: DelayedOperation.onExpiration
    def on_expiration(self) -> None:
        raise NotImplementedError

    # Kafka: DelayedOperation.onComplete -- called exactly once, from force_complete
    def on_complete(self) -> None:
        raise NotImplementedError

    # Kafka: DelayedOperation.tryComplete
    def try_complete(self) -> bool:
        raise NotImplementedError

    # Kafka: DelayedOperation.maybeTryComplete -- try_complete under the lock, never blocking on it
    def maybe_try_complete(self) -> bool:
        done = False
        while True:
            if self.lock.acquire(blocking=False):
                try:
                    self._try_complete_pending.set(False)
                    done = self.try_complete()
                finally:
                    self.lock.release()
                # Someone may have asked for another try while we held the lock.
                retry = self._try_complete_pending.get()
            else:
                # The lock is busy. If the flag was already set, the holder is sure to see it and
                # retry; otherwise set it and loop, since the holder may be gone by now.
                retry = not self._try_complete_pending.get_and_set(True)
            if self.is_completed or not retry:
                return done

    # Kafka: DelayedOperation.run -- the timer's executor thread calls this on expiry
    def run(self) -> None:
        if self.force_complete():
            self.on_expiration()


class DelayedOperationPurgatory(Logging):
    """Kafka: kafka.server.DelayedOperationPurgatory."""

    Shards = 512  # Kafka: DelayedOperationPurgatory.Shards -- watcher lists, to spread lock contention

    def __init__(self, purgatory_name: str, timeout_timer: Timer | None = None, broker_id: int = 0,
                 purge_interval: int = 1000, reaper_enabled: bool = True, timer_enabled: bool = True):
        self.purgatory_name = purgatory_name
        self.timeout_timer = timeout_timer if timeout_timer is not None else SystemTimer(purgatory_name)
        self.broker_id = broker_id
        self.purge_interval = purge_interval
        self.reaper_enabled = reaper_enabled
        self.timer_enabled = timer_enabled
        self.watcher_lists = [WatcherList() for _ in range(self.Shards)]
        # the number of operations ever watched, minus those purged: an estimate
        self._estimated_total_operations = 0
        self._estimate_lock = threading.Lock()
        self.expiration_reaper = ExpiredOperationReaper(self)
        if reaper_enabled:
            self.expiration_reaper.start()

    def _watcher_list(self, key: Hashable) -> WatcherList:
        return self.watcher_lists[hash(key) % len(self.watcher_lists)]

    # Kafka: DelayedOperationPurgatory.tryCompleteElseWatch -- True if completed here and now
    def try_complete_else_watch(self, operation: DelayedOperation, watch_keys: Iterable[Hashable]) -> bool:
        watch_keys = list(watch_keys)
        assert watch_keys, "The watch key list can't be empty"
        # Only this thread knows the operation yet, so try_complete needs no lock. Trying once
        # per key would cost more; instead try, watch under every key, and try once more.
        if operation.try_complete():
            return True
        watch_created = False
        for key in watch_keys:
            # Completed by another thread meanwhile: don't file it under the remaining keys.
            if operation.is_completed:
                return False
            self._watch_for_operation(key, operation)
            if not watch_created:
                watch_created = True
                with self._estimate_lock:
                    self._estimated_total_operations += 1
        if operation.maybe_try_complete():
            return True
        # Still waiting: it expires through the timer unless an event completes it first.
        if not operation.is_completed:
            if self.timer_enabled:
                self.timeout_timer.add(operation)
            if operation.is_completed:
                operation.cancel()  # completed while being added: take it out of the timer again
        return False

    # Kafka: DelayedOperationPurgatory.checkAndComplete -- the number of operations completed now
    def check_and_complete(self, key: Hashable) -> int:
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            watchers = wl.watchers_by_key.get(key)
        num_completed = 0 if watchers is None else watchers.try_complete_watched()
        if self.is_debug_enabled():
            self.debug(f"Request key {key} unblocked {num_completed} {self.purgatory_name} operations")
        return num_completed

    # Kafka: DelayedOperationPurgatory.watched -- entries in all watcher lists (an op may count twice)
    def watched(self) -> int:
        return sum(w.count_watched() for wl in self.watcher_lists for w in wl.all_watchers())

    # Kafka: DelayedOperationPurgatory.numDelayed -- operations waiting in the timer
    def num_delayed(self) -> int:
        return self.timeout_timer.size()

    # Kafka: DelayedOperationPurgatory.cancelForKey -- stop watching a key; its operations are not completed
    def cancel_for_key(self, key: Hashable) -> list[DelayedOperation]:
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            watchers = wl.watchers_by_key.pop(key, None)
            return watchers.cancel() if watchers is not None else []

    # Kafka: DelayedOperationPurgatory.watchForOperation -- under the shard lock, so an empty
    # Watchers can't be removed between being looked up and being added to
    def _watch_for_operation(self, key: Hashable, operation: DelayedOperation) -> None:
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            watchers = wl.watchers_by_key.get(key)
            if watchers is None:
                watchers = wl.watchers_by_key[key] = Watchers(self, key)
            watchers.watch(operation)

    # Kafka: DelayedOperationPurgatory.removeKeyIfEmpty
    def remove_key_if_empty(self, key: Hashable, watchers: Watchers) -> None:
        wl = self._watcher_list(key)
        with wl.watchers_lock:
            if wl.watchers_by_key.get(key) is not watchers:
                return  # the key now belongs to a newer Watchers
            if watchers.is_empty():
                del wl.watchers_by_key[key]

    # Kafka: DelayedOperationPurgatory.shutdown
    def shutdown(self) -> None:
        if self.reaper_enabled:
            self.expiration_reaper.initiate_shutdown()
        self.timeout_timer.shutdown()  # also wakes the reaper if it is waiting in advance_clock
        if self.reaper_enabled:
            self.expiration_reaper.await_shutdown()

    # Kafka: DelayedOperationPurgatory.advanceClock -- expire due operations, purge if worthwhile
    def advance_clock(self, timeout_ms: int) -> None:
        self.timeout_timer.advance_clock(timeout_ms)
        # Operations counted in the estimate but no longer in the timer are completed ones that
        # may still sit in watcher lists. Purge once there are more than purge_interval of them.
        num_delayed = self.num_delayed()
        with self._estimate_lock:
            if self._estimated_total_operations - num_delayed <= self.purge_interval:
                return
            self._estimated_total_operations = num_delayed
        self.debug("Begin purging watch lists")
        purged = sum(w.purge_completed() for wl in self.watcher_lists for w in wl.all_watchers())
        self.debug(f"Purged {purged} elements from watch lists.")


class WatcherList:
    """Kafka: DelayedOperationPurgatory.WatcherList -- one shard: keys to Watchers, and its lock."""

    __slots__ = ("watchers_by_key", "watchers_lock")

    def __init__(self) -> None:
        self.watchers_by_key: dict[Hashable, Watchers] = {}
        self.watchers_lock = threading.Lock()

    # Kafka: WatcherList.allWatchers
    def all_watchers(self) -> list[Watchers]:
        with self.watchers_lock:
            return list(self.watchers_by_key.values())


class Watchers:
    """Kafka: DelayedOperationPurgatory.Watchers -- the operations watched under one key."""

    def __init__(self, purgatory: DelayedOperationPurgatory, key: Hashable):
        self.purgatory = purgatory
        self.key = key
        self.operations: list[DelayedOperation] = []
        self._lock = threading.Lock()

    # Kafka: Watchers.countWatched
    def count_watched(self) -> int:
        return len(self.operations)

    # Kafka: Watchers.isEmpty
    def is_empty(self) -> bool:
        return not self.operations

    # Kafka: Watchers.watch
    def watch(self, t: DelayedOperation) -> None:
        with self._lock:
            self.operations.append(t)

    # Kafka: Watchers.tryCompleteWatched -- try every operation; drop the completed ones
    def try_complete_watched(self) -> int:
        with self._lock:
            snapshot = list(self.operations)
        completed = 0
        for op in snapshot:  # without our lock: try_complete may take other locks
            if not op.is_completed and op.maybe_try_complete():
                completed += 1
        self._remove_completed()
        if self.is_empty():
            self.purgatory.remove_key_if_empty(self.key, self)
        return completed

    # Kafka: Watchers.cancel -- empty the list, taking every operation out of the timer
    def cancel(self) -> list[DelayedOperation]:
        with self._lock:
            cancelled, self.operations = self.operations, []
        for op in cancelled:
            op.cancel()
        return cancelled

    # Kafka: Watchers.purgeCompleted -- drop operations completed elsewhere
    def purge_completed(self) -> int:
        purged = self._remove_completed()
        if self.is_empty():
            self.purgatory.remove_key_if_empty(self.key, self)
        return purged

    def _remove_completed(self) -> int:
        with self._lock:
            before = len(self.operations)
            self.operations = [op for op in self.operations if not op.is_completed]
            return before - len(self.operations)


class ExpiredOperationReaper(ShutdownableThread):
    """Kafka: DelayedOperationPurgatory.ExpiredOperationReaper -- drives the purgatory's timer."""

    def __init__(self, purgatory: DelayedOperationPurgatory):
        super().__init__(f"ExpirationReaper-{purgatory.broker_id}-{purgatory.purgatory_name}", is_interruptible=False)
        self.purgatory = purgatory

    # Kafka: ExpiredOperationReaper.doWork -- blocks up to 200 ms for the next due bucket
    def do_work(self) -> None:
        self.purgatory.advance_clock(200)


# Kafka nests these inside DelayedOperationPurgatory; they are module-level here, reachable by the same names.
DelayedOperationPurgatory.Watchers = Watchers
DelayedOperationPurgatory.WatcherList = WatcherList
DelayedOperationPurgatory.ExpiredOperationReaper = ExpiredOperationReaper
