"""Mirrors Kafka's core/src/test/scala/unit/kafka/utils/timer/TimerTest.scala scenarios: tasks fire
once, at or after their deadline, in order; cancelled tasks never fire; overflow wheels carry long
delays; many tasks. MockTime drives the clock; waits on the executor are bounded Event waits."""
import random
import threading

import pytest

from kafkalite.utils.time import MockTime, SystemTime
from kafkalite.utils.timer.timer import SystemTimer
from kafkalite.utils.timer.timer_task import TimerTask

WAIT_S = 5.0


class TestTask(TimerTask):
    __test__ = False

    def __init__(self, delay_ms, id, mock_time, output, lock):
        super().__init__(delay_ms)
        self.id = id
        self.time = mock_time
        self.output = output
        self.lock = lock
        self.runs = 0
        self.fired_at = None
        self.done = threading.Event()

    def run(self):
        with self.lock:
            self.runs += 1
            self.fired_at = self.time.hi_res_clock_ms()
            self.output.append(self.id)
        self.done.set()


class Marker(TimerTask):
    def __init__(self):
        super().__init__(0)
        self.done = threading.Event()

    def run(self):
        self.done.set()


@pytest.fixture
def env():
    mock_time = MockTime()
    timer = SystemTimer("test", tick_ms=1, wheel_size=3, time=mock_time)
    yield mock_time, timer, [], threading.Lock()
    timer.shutdown()
    assert timer.task_executor.await_termination(WAIT_S)


def drain(timer):
    """Process every due bucket, then wait until the executor has run everything submitted so far."""
    while timer.advance_clock(0):
        pass
    marker = Marker()
    timer.task_executor.submit(marker)
    assert marker.done.wait(WAIT_S)


def test_executor_thread_is_named_after_the_timer(env):
    mock_time, timer, output, lock = env
    task = TestTask(0, 0, mock_time, output, lock)
    timer.add(task)
    assert task.done.wait(WAIT_S)
    assert "executor-test" in [t.name for t in threading.enumerate()]


def test_already_expired_task(env):
    mock_time, timer, output, lock = env
    tasks = [TestTask(i - 5, i, mock_time, output, lock) for i in range(5)]
    for t in tasks:
        timer.add(t)
    timer.advance_clock(0)
    for t in tasks:
        assert t.done.wait(WAIT_S)
    assert output == [0, 1, 2, 3, 4]  # run at once, in the order they were added
    assert timer.size() == 0


def test_task_expiration_fires_at_deadline_in_order(env):
    mock_time, timer, output, lock = env
    tasks = []
    for i in range(10):  # delays 0..9, then the same delays again, then 10..19
        tasks.append(TestTask(i, i, mock_time, output, lock))
        tasks.append(TestTask(i, i, mock_time, output, lock))
    for i in range(10, 20):
        tasks.append(TestTask(i, i, mock_time, output, lock))
    for t in tasks:
        timer.add(t)
    for now in range(0, 21):
        drain(timer)
        with lock:
            for t in tasks:
                if t.delay_ms <= now:
                    assert t.runs == 1, f"task due at {t.delay_ms} not run by {now}"
                    assert t.fired_at >= t.delay_ms
                else:
                    assert t.runs == 0, f"task due at {t.delay_ms} ran early at {now}"
        mock_time.sleep(1)
    assert output == sorted(output)
    assert timer.size() == 0


def test_cancelled_tasks_never_fire(env):
    mock_time, timer, output, lock = env
    tasks = [TestTask(1 + i % 10, i, mock_time, output, lock) for i in range(40)]
    for t in tasks:
        timer.add(t)
    assert timer.size() == 40
    for t in tasks[::2]:
        t.cancel()
    assert timer.size() == 20  # cancel unlinks at once
    mock_time.sleep(30)
    drain(timer)
    assert sorted(output) == [t.id for t in tasks[1::2]]
    assert all(t.runs == 0 for t in tasks[::2])
    assert timer.size() == 0


def test_long_delay_uses_overflow_wheels_and_fires_on_time():
    mock_time = MockTime()
    timer = SystemTimer("overflow", time=mock_time)  # Kafka's defaults: tick 1 ms, 20 buckets
    output, lock = [], threading.Lock()
    try:
        task = TestTask(10_000, 1, mock_time, output, lock)
        timer.add(task)
        assert timer.timing_wheel.overflow_wheel.overflow_wheel.overflow_wheel is not None  # 20, 400, 8000, 160000
        mock_time.sleep(9_999)
        drain(timer)
        assert task.runs == 0 and timer.size() == 1
        mock_time.sleep(1)
        drain(timer)
        assert task.runs == 1 and task.fired_at == 10_000
        assert timer.size() == 0
    finally:
        timer.shutdown()


def test_re_adding_a_task_replaces_its_earlier_deadline(env):
    mock_time, timer, output, lock = env
    task = TestTask(5, 1, mock_time, output, lock)
    timer.add(task)
    task.delay_ms = 50
    timer.add(task)
    assert timer.size() == 1
    mock_time.sleep(10)
    drain(timer)
    assert task.runs == 0
    mock_time.sleep(40)
    drain(timer)
    assert task.runs == 1


def test_many_tasks_each_fire_once_never_early():
    mock_time = MockTime()
    timer = SystemTimer("many", time=mock_time)
    output, lock = [], threading.Lock()
    rnd = random.Random(42)
    tasks = [TestTask(rnd.randrange(0, 3000), i, mock_time, output, lock) for i in range(2000)]
    try:
        for t in tasks:
            timer.add(t)
        now = 0
        while now <= 3000:
            step = rnd.randrange(1, 97)
            mock_time.sleep(step)
            now += step
            drain(timer)
            with lock:
                for t in tasks:
                    assert t.runs == (1 if t.delay_ms <= now else 0)
        assert all(t.fired_at >= t.delay_ms for t in tasks)
        assert timer.size() == 0
    finally:
        timer.shutdown()


def test_advance_clock_waits_for_the_next_bucket_with_the_real_clock():
    mock_time = SystemTime()
    timer = SystemTimer("real", time=mock_time)
    output, lock = [], threading.Lock()
    try:
        added = mock_time.hi_res_clock_ms()
        task = TestTask(30, 1, mock_time, output, lock)
        timer.add(task)
        assert not timer.advance_clock(0)  # nothing due yet, and no blocking
        deadline = added + 2000
        while not task.done.is_set() and mock_time.hi_res_clock_ms() < deadline:
            timer.advance_clock(200)  # blocks until the bucket is due, as the reaper does
        assert task.done.wait(WAIT_S)
        assert task.fired_at >= added + 30
    finally:
        timer.shutdown()


def test_shutdown_wakes_a_blocked_advance_clock():
    timer = SystemTimer("wake")
    far = Marker()
    far.delay_ms = 60_000
    timer.add(far)  # the only bucket is a minute away: advance_clock would block
    result = {}
    started = threading.Event()

    def reaper():
        started.set()
        result["r"] = timer.advance_clock(60_000)

    t = threading.Thread(target=reaper)
    t.start()
    assert started.wait(WAIT_S)
    timer.shutdown()
    t.join(WAIT_S)
    assert not t.is_alive() and result["r"] is False
