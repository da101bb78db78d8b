"""Mirrors Kafka 2.4: core/src/main/scala/kafka/utils/ShutdownableThread.scala

Classes: ShutdownableThread -- a named, non-daemon thread that calls ``do_work()`` until
``initiate_shutdown()``; ``await_shutdown()`` then waits for the loop to finish.

The purgatories' ``ExpirationReaper-<broker>-<name>`` threads, the controller's event thread,
request send threads and replica fetchers are all ShutdownableThreads in Kafka.

Era notes: Kafka's two ``CountDownLatch(1)``s are ``threading.Event``s. Java can ``interrupt()`` a
thread blocked in a wait; Python cannot, so ``initiate_shutdown`` calls the ``interrupt()`` hook
(a no-op here) when ``is_interruptible``; a subclass that blocks on something it can wake (a
queue, a selector, a condition) overrides it. ``is_started`` is set in ``start()`` rather than at
the top of ``run()``, so a shutdown right after ``start()`` still waits for the thread.
A ``FatalExitError`` from ``do_work`` stops the thread and ends the broker (``Exit.exit``, utils/exit.py); any
other exception ends the loop and is logged as "Error due to" unless shutdown was already under way.
"""
from __future__ import annotations

import threading

from kafkalite.utils.exit import Exit, FatalExitError
from kafkalite.utils.logging import Logging


class ShutdownableThread(threading.Thread, Logging):
    """Kafka: kafka.utils.ShutdownableThread."""

    def __init__(self, name: str, is_interruptible: bool = True):
        super().__init__(name=name, daemon=False)
        self.is_interruptible = is_interruptible
        self.log_ident = f"[{name}]: "
        self._shutdown_initiated = threading.Event()
        self._shutdown_complete = threading.Event()
        self._is_started = False
        self._shutdown_lock = threading.Lock()  # Kafka: this.synchronized in initiateShutdown

    # Kafka: ShutdownableThread.doWork -- called over and over until shutdown
    def do_work(self) -> None:
        raise NotImplementedError

    def start(self) -> None:
        self._is_started = True
        super().start()

    # Kafka: ShutdownableThread.run
    def run(self) -> None:
        self._is_started = True
        self.info("Starting")
        try:
            while self.is_running:
                self.do_work()
        except FatalExitError as e:
            self._shutdown_initiated.set()
            self._shutdown_complete.set()
            self.info("Stopped")
            Exit.exit(e.status_code)
            return
        except BaseException:
            if self.is_running:
                self.error("Error due to", exc_info=True)
        finally:
            self._shutdown_complete.set()
        self.info("Stopped")

    # Kafka: ShutdownableThread.shutdown
    def shutdown(self) -> None:
        self.initiate_shutdown()
        self.await_shutdown()

    # Kafka: ShutdownableThread.initiateShutdown -- True if this call started the shutdown
    def initiate_shutdown(self) -> bool:
        with self._shutdown_lock:
            if not self.is_running:
                return False
            self.info("Shutting down")
            self._shutdown_initiated.set()
            if self.is_interruptible:
                self.interrupt()
            return True

    # Kafka: Thread.interrupt -- see "Era notes"; override to wake a blocked do_work()
    def interrupt(self) -> None:
        pass

    # Kafka: ShutdownableThread.awaitShutdown -- True once the loop has ended (False on timeout)
    def await_shutdown(self, timeout: float | None = None) -> bool:
        if not self._shutdown_initiated.is_set():
            raise RuntimeError("initiateShutdown() was not called before awaitShutdown()")
        if self._is_started and threading.current_thread() is not self:
            if not self._shutdown_complete.wait(timeout):
                return False
        self.info("Shutdown completed")
        return True

    # Kafka: ShutdownableThread.pause -- sleep up to timeout_ms, returning early on shutdown
    def pause(self, timeout_ms: float) -> None:
        if self._shutdown_initiated.wait(timeout_ms / 1000.0):
            self.trace("shutdownInitiated latch count reached zero. Shutdown called.")

    # Kafka: ShutdownableThread.isRunning
    @property
    def is_running(self) -> bool:
        return not self._shutdown_initiated.is_set()

    # Kafka: ShutdownableThread.isShutdownComplete
    @property
    def is_shutdown_complete(self) -> bool:
        return self._shutdown_complete.is_set()

    # Kafka: ShutdownableThread.isThreadFailed -- the loop ended without anyone asking it to
    @property
    def is_thread_failed(self) -> bool:
        return self.is_shutdown_complete and not self._shutdown_initiated.is_set()
