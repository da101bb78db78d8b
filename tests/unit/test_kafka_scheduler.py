"""Mirrors Kafka's core/src/test/scala/unit/kafka/utils/SchedulerTest.scala (the KafkaScheduler parts):
one-shot and periodic jobs, thread names, exceptions do not stop a schedule, shutdown and restart."""
import threading

import pytest

from kafkalite.utils.kafka_scheduler import KafkaScheduler

WAIT_S = 5.0


@pytest.fixture
def scheduler():
    s = KafkaScheduler(threads=2)
    s.startup()
    yield s
    s.shutdown()


def test_schedule_once_runs_on_a_named_scheduler_thread(scheduler):
    seen = {}
    ran = threading.Event()

    def job():
        seen["thread"] = threading.current_thread().name
        ran.set()

    future = scheduler.schedule_once("job", job)
    assert ran.wait(WAIT_S)
    assert seen["thread"] in ("kafka-scheduler-0", "kafka-scheduler-1")
    assert future.wait(WAIT_S) and future.is_done() and not future.is_cancelled()


def test_delayed_jobs_run_in_due_order(scheduler):
    order = []
    done = threading.Event()
    scheduler.schedule("late", lambda: (order.append("late"), done.set()), delay_ms=80)
    scheduler.schedule("early", lambda: order.append("early"), delay_ms=10)
    assert done.wait(WAIT_S)
    assert order == ["early", "late"]


def test_periodic_job_keeps_running_after_an_exception(scheduler):
    calls = []
    enough = threading.Event()

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first run fails")
        if len(calls) >= 3:
            enough.set()

    future = scheduler.schedule("flaky", flaky, delay_ms=0, period_ms=5)
    assert enough.wait(WAIT_S)
    future.cancel()
    assert future.is_cancelled()


def test_exception_in_job_is_logged(scheduler, caplog):
    ran = threading.Event()

    def bad():
        ran.set()
        raise ValueError("boom")

    with caplog.at_level("ERROR"):
        scheduler.schedule_once("bad-task", bad)
        assert ran.wait(WAIT_S)
        scheduler.shutdown()  # waits for the job, so the log line is there
    assert "Uncaught exception in scheduled task 'bad-task'" in caplog.text


def test_cancelled_job_never_runs(scheduler):
    ran = threading.Event()
    future = scheduler.schedule("cancelled", ran.set, delay_ms=50)
    assert future.cancel()
    marker = threading.Event()
    scheduler.schedule("marker", marker.set, delay_ms=100)
    assert marker.wait(WAIT_S)
    assert not ran.is_set()


def test_periodic_job_never_overlaps_itself(scheduler):
    active = [0]
    max_active = [0]
    runs = [0]
    done = threading.Event()
    lock = threading.Lock()
    gate = threading.Event()

    def slow():
        with lock:
            active[0] += 1
            max_active[0] = max(max_active[0], active[0])
        gate.wait(0.02)  # longer than the period: runs fall behind but must not overlap
        with lock:
            active[0] -= 1
            runs[0] += 1
            if runs[0] >= 4:
                done.set()

    scheduler.schedule("slow", slow, period_ms=1)
    assert done.wait(WAIT_S)
    assert max_active[0] == 1


def test_shutdown_drops_pending_jobs_and_schedule_then_fails():
    others = set(threading.enumerate())   # a broker of another test may run its own kafka-scheduler-0
    s = KafkaScheduler(threads=1)
    s.startup()
    assert s.is_started
    ran = threading.Event()
    future = s.schedule("later", ran.set, delay_ms=60_000)
    s.shutdown()
    assert not s.is_started
    assert future.is_cancelled() and not ran.is_set()
    with pytest.raises(RuntimeError):
        s.schedule("after", ran.set)
    assert not any(t.name == "kafka-scheduler-0" and t.is_alive() for t in set(threading.enumerate()) - others)


def test_startup_twice_is_an_error_and_restart_after_shutdown_works():
    s = KafkaScheduler(threads=1, thread_name_prefix="restart-")
    s.startup()
    with pytest.raises(RuntimeError):
        s.startup()
    s.shutdown()
    s.startup()
    ran = threading.Event()
    names = []
    s.schedule_once("again", lambda: (names.append(threading.current_thread().name), ran.set()))
    assert ran.wait(WAIT_S)
    s.shutdown()
    assert names and names[0].startswith("restart-")


def test_no_more_threads_than_configured():
    s = KafkaScheduler(threads=2, thread_name_prefix="bounded-")
    s.startup()
    try:
        done = [threading.Event() for _ in range(6)]
        for i, ev in enumerate(done):
            s.schedule_once(f"job-{i}", ev.set)
        assert all(ev.wait(WAIT_S) for ev in done)
        names = {t.name for t in threading.enumerate() if t.name.startswith("bounded-")}
        assert names <= {"bounded-0", "bounded-1"}
    finally:
        s.shutdown()
