"""Mirrors Kafka's core/src/test/scala/unit/kafka/utils/ShutdownableThreadTest.scala, plus the
lifecycle rules of ShutdownableThread (named non-daemon thread, do_work loop, shutdown latches)."""
import threading

import pytest

from kafkalite.utils.shutdownable_thread import ShutdownableThread

WAIT_S = 5.0


class CountingThread(ShutdownableThread):
    def __init__(self, name="counting-thread", is_interruptible=True):
        super().__init__(name, is_interruptible)
        self.iterations = 0
        self.worked = threading.Event()
        self.interrupted = threading.Event()

    def do_work(self):
        self.iterations += 1
        self.worked.set()
        self.pause(10)

    def interrupt(self):
        self.interrupted.set()


def test_thread_carries_the_exact_name_and_is_not_a_daemon():
    t = CountingThread("ExpirationReaper-0-Produce")
    assert t.name == "ExpirationReaper-0-Produce"
    assert not t.daemon
    assert t.log_ident == "[ExpirationReaper-0-Produce]: "


def test_do_work_loops_until_shutdown():
    t = CountingThread()
    t.start()
    assert t.worked.wait(WAIT_S)
    assert t.is_running
    t.shutdown()
    assert t.is_shutdown_complete and not t.is_running
    assert t.iterations >= 1
    assert not t.is_thread_failed
    t.join(WAIT_S)
    assert not t.is_alive()


def test_initiate_shutdown_only_once_and_interrupts_if_interruptible():
    t = CountingThread(is_interruptible=True)
    t.start()
    assert t.initiate_shutdown() is True
    assert t.initiate_shutdown() is False
    assert t.interrupted.is_set()
    assert t.await_shutdown(WAIT_S)

    u = CountingThread(is_interruptible=False)
    u.start()
    u.shutdown()
    assert not u.interrupted.is_set()


def test_await_shutdown_before_initiate_is_an_error():
    t = CountingThread()
    with pytest.raises(RuntimeError):
        t.await_shutdown(0.1)


def test_shutdown_of_a_thread_never_started_returns_at_once():
    t = CountingThread()
    t.shutdown()
    assert not t.is_running


def test_await_shutdown_times_out_while_do_work_is_busy():
    release = threading.Event()
    entered = threading.Event()

    class Busy(ShutdownableThread):
        def do_work(self):
            entered.set()
            release.wait(WAIT_S)

    t = Busy("busy", is_interruptible=False)
    t.start()
    assert entered.wait(WAIT_S)
    t.initiate_shutdown()
    assert t.await_shutdown(0.05) is False
    release.set()
    assert t.await_shutdown(WAIT_S) is True


def test_exception_in_do_work_stops_the_thread_and_marks_it_failed():
    class Failing(ShutdownableThread):
        def do_work(self):
            raise ValueError("boom")

    t = Failing("failing")
    t.start()
    t.join(WAIT_S)
    assert not t.is_alive()
    assert t.is_shutdown_complete and t.is_thread_failed


# ---- FatalExitError: the thread stops and the broker exits (Kafka: ShutdownableThread.run, Exit.exit)

@pytest.fixture
def exits():
    from kafkalite.utils.exit import Exit
    calls = []
    Exit.set_exit_procedure(lambda status, message: calls.append(status))
    yield calls
    Exit.reset_exit_procedure()


def test_fatal_exit_error_stops_the_thread_and_exits_with_its_status(exits):
    from kafkalite.utils.exit import FatalExitError

    class Fatal(ShutdownableThread):
        def do_work(self):
            raise FatalExitError(3)
    t = Fatal("fatal-thread")
    t.start()
    t.join(WAIT_S)
    assert not t.is_alive() and exits == [3]
    assert t.is_shutdown_complete and not t.is_running


def test_an_unexpected_error_in_the_inter_broker_send_thread_ends_the_broker(exits):
    from kafkalite.common.inter_broker_send_thread import InterBrokerSendThread
    from kafkalite.utils.time import SYSTEM

    class BrokenClient:
        def poll(self, timeout, now):
            raise RuntimeError("a bug")

        def wakeup(self):
            pass

    class Sender(InterBrokerSendThread):
        request_timeout_ms = 1000

        def generate_requests(self):
            return []
    t = Sender("TxnMarkerSenderThread-0", BrokenClient(), SYSTEM)
    t.start()
    t.join(WAIT_S)
    assert not t.is_alive() and exits == [1]


def test_other_errors_only_end_the_thread(exits):
    class Failing(ShutdownableThread):
        def do_work(self):
            raise RuntimeError("boom")
    t = Failing("failing-thread")
    t.start()
    t.join(WAIT_S)
    assert not t.is_alive() and exits == [] and t.is_thread_failed


def test_the_default_exit_procedure_asks_main_for_an_orderly_shutdown_with_the_status():
    """Exit.exit sends SIGTERM to this process (kafka.py's main shuts the server down on it) and leaves the status
    for main to return: Java's System.exit runs Kafka's shutdown hook the same way."""
    import subprocess
    import sys
    code = ("import signal, threading\n"
            "from kafkalite.utils.exit import Exit\n"
            "got = threading.Event()\n"
            "signal.signal(signal.SIGTERM, lambda *a: got.set())\n"
            "Exit.exit(5)\n"
            "assert got.wait(5)\n"
            "print(Exit.requested_status)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout.strip() == "5", out.stderr
