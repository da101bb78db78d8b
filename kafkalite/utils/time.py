"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/utils/Time.java (and MockTime)

Classes: Time, SystemTime, MockTime. Code that waits or stamps takes a ``Time`` so tests can
drive the clock, as Kafka's tests do with MockTime.
"""
from __future__ import annotations

import threading
import time as _time


class Time:
    """Kafka: Time -- milliseconds, nanoseconds and sleep behind one interface."""

    def milliseconds(self) -> int:
        raise NotImplementedError

    def nanoseconds(self) -> int:
        raise NotImplementedError

    def hi_res_clock_ms(self) -> int:
        return self.nanoseconds() // 1_000_000

    def sleep(self, ms: float) -> None:
        raise NotImplementedError


class SystemTime(Time):
    """Kafka: SystemTime -- wall clock for timestamps, monotonic clock for durations."""

    def milliseconds(self) -> int:
        return _time.time_ns() // 1_000_000

    def nanoseconds(self) -> int:
        return _time.monotonic_ns()

    def sleep(self, ms: float) -> None:
        _time.sleep(ms / 1000.0)


class MockTime(Time):
    """Kafka: MockTime -- a clock that moves only when a test calls sleep()."""

    def __init__(self, now_ms: int = 1_600_000_000_000, nanos: int = 0):
        self._lock = threading.Lock()
        self._ms = now_ms
        self._nanos = nanos

    def milliseconds(self) -> int:
        with self._lock:
            return self._ms

    def nanoseconds(self) -> int:
        with self._lock:
            return self._nanos

    def sleep(self, ms: float) -> None:
        with self._lock:
            self._ms += int(ms)
            self._nanos += int(ms * 1_000_000)


SYSTEM = SystemTime()
