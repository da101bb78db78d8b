"""TimingWheel and TimerTaskList on their own (Kafka has no TimingWheelTest; these pin the bucket rules
that Kafka's TimingWheel comment describes)."""
from kafkalite.utils.timer.timer_task import TimerTask
from kafkalite.utils.timer.timer_task_list import TaskCounter, TimerTaskEntry, TimerTaskList
from kafkalite.utils.timer.timing_wheel import TimingWheel


class RecordingQueue:
    def __init__(self):
        self.offered = []

    def offer(self, bucket):
        self.offered.append(bucket)


class NoopTask(TimerTask):
    def run(self):
        pass


def entries(bucket):
    out = []
    bucket.foreach(out.append)
    return out


def make_wheel(tick=1, size=3, start=0):
    counter = TaskCounter()
    q = RecordingQueue()
    return TimingWheel(tick, size, start, counter, q), counter, q


def test_already_expired_and_cancelled_entries_are_refused():
    wheel, counter, q = make_wheel(start=10)
    assert not wheel.add(TimerTaskEntry(NoopTask(0), 10))  # due before current_time + tick
    assert not wheel.add(TimerTaskEntry(NoopTask(0), 3))
    task = NoopTask(0)
    entry = TimerTaskEntry(task, 11)
    task.cancel()
    assert not wheel.add(entry)
    assert counter.get() == 0 and q.offered == []


def test_entry_goes_into_its_bucket_and_bucket_is_queued_once_per_round():
    wheel, counter, q = make_wheel()
    a, b = NoopTask(0), NoopTask(0)
    assert wheel.add(TimerTaskEntry(a, 1))
    assert wheel.add(TimerTaskEntry(b, 1))
    bucket = wheel.buckets[1]
    assert entries(bucket) == [a, b]
    assert bucket.get_expiration() == 1
    assert q.offered == [bucket]  # the second add saw the same expiration: no second offer
    assert counter.get() == 2
    assert wheel.overflow_wheel is None


def test_far_entries_go_to_overflow_wheels_with_coarser_ticks():
    wheel, counter, q = make_wheel()
    task = NoopTask(0)
    assert wheel.add(TimerTaskEntry(task, 7))
    level2 = wheel.overflow_wheel
    assert level2 is not None and level2.tick_ms == 3 and level2.interval == 9
    bucket = level2.buckets[(7 // 3) % 3]
    assert entries(bucket) == [task]
    assert bucket.get_expiration() == 6  # the start of [c+6, c+8]
    assert wheel.add(TimerTaskEntry(NoopTask(0), 20))
    assert level2.overflow_wheel is not None and level2.overflow_wheel.tick_ms == 9
    assert counter.get() == 2


def test_advance_clock_rounds_down_and_moves_overflow_wheel():
    wheel, _, _ = make_wheel(tick=2, size=3, start=5)
    assert wheel.current_time == 4
    wheel.add(TimerTaskEntry(NoopTask(0), 100))
    wheel.advance_clock(5)  # less than one tick ahead: no move
    assert wheel.current_time == 4
    wheel.advance_clock(13)
    assert wheel.current_time == 12
    assert wheel.overflow_wheel.current_time == 12  # tick 6


def test_entry_reinserted_after_overflow_bucket_expires_lands_in_finer_wheel():
    wheel, counter, q = make_wheel()
    task = NoopTask(0)
    wheel.add(TimerTaskEntry(task, 7))
    bucket = wheel.overflow_wheel.buckets[2]
    wheel.advance_clock(bucket.get_expiration())
    bucket.flush(lambda e: wheel.add(e))
    assert entries(wheel.buckets[7 % 3]) == [task]
    assert wheel.buckets[1].get_expiration() == 7
    assert bucket.get_expiration() == -1
    assert counter.get() == 1


def test_task_list_remove_is_constant_time_unlink_and_counts():
    counter = TaskCounter()
    bucket = TimerTaskList(counter)
    tasks = [NoopTask(0) for _ in range(5)]
    es = [TimerTaskEntry(t, 1) for t in tasks]
    for e in es:
        bucket.add(e)
    assert counter.get() == 5
    bucket.remove(es[2])
    tasks[4].cancel()
    assert entries(bucket) == [tasks[0], tasks[1], tasks[3]]
    assert counter.get() == 3
    assert es[2].list is None and es[2].next is None
    flushed = []
    bucket.flush(flushed.append)
    assert [e.timer_task for e in flushed] == [tasks[0], tasks[1], tasks[3]]
    assert counter.get() == 0 and entries(bucket) == []


def test_adding_entry_to_another_list_moves_it():
    counter = TaskCounter()
    first, second = TimerTaskList(counter), TimerTaskList(counter)
    task = NoopTask(0)
    e = TimerTaskEntry(task, 1)
    first.add(e)
    second.add(e)
    assert entries(first) == [] and entries(second) == [task]
    assert e.list is second and counter.get() == 1


def test_new_entry_for_same_task_cancels_the_old_one():
    counter = TaskCounter()
    bucket = TimerTaskList(counter)
    task = NoopTask(0)
    old = TimerTaskEntry(task, 1)
    bucket.add(old)
    new = TimerTaskEntry(task, 2)
    assert old.cancelled and not new.cancelled
    assert old.list is None and counter.get() == 0
