"""Mirrors Kafka's core/src/test/scala/unit/kafka/server/DelayedOperationTest.scala: request
satisfaction, expiration, purging, cancel_for_key, the operation lock; plus the keys of
DelayedOperationKey.scala. MockTime drives expiry; every wait is a bounded Event wait."""
import threading

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.server.delayed_operation import DelayedOperation, DelayedOperationPurgatory
from kafkalite.server.delayed_operation_key import GroupKey, MemberKey, TopicKey, TopicPartitionOperationKey
from kafkalite.utils.time import MockTime
from kafkalite.utils.timer.timer import SystemTimer

WAIT_S = 5.0


class MockDelayedOperation(DelayedOperation):
    def __init__(self, delay_ms, lock=None):
        super().__init__(delay_ms, lock)
        self.completable = False
        self.events = []
        self.try_complete_calls = 0
        self.lock_held_in_try_complete = []
        self.finished = threading.Event()

    def try_complete(self):
        self.try_complete_calls += 1
        if self.completable:
            return self.force_complete()
        return False

    def on_complete(self):
        self.events.append("complete")

    def on_expiration(self):
        self.events.append("expire")
        self.finished.set()


@pytest.fixture
def env():
    mock_time = MockTime()
    timer = SystemTimer("mock", time=mock_time)
    purgatory = DelayedOperationPurgatory("mock", timer, reaper_enabled=False)
    yield mock_time, purgatory
    purgatory.shutdown()


def test_request_satisfaction(env):
    _, purgatory = env
    r1, r2 = MockDelayedOperation(100_000), MockDelayedOperation(100_000)
    assert purgatory.check_and_complete("test1") == 0
    assert not purgatory.try_complete_else_watch(r1, ["test1"])
    assert purgatory.check_and_complete("test1") == 0
    assert not purgatory.try_complete_else_watch(r2, ["test2"])
    assert purgatory.check_and_complete("test2") == 0
    r1.completable = True
    assert purgatory.check_and_complete("test1") == 1
    assert purgatory.check_and_complete("test1") == 0
    r2.completable = True
    assert purgatory.check_and_complete("test2") == 1
    assert purgatory.check_and_complete("test2") == 0
    assert r1.events == ["complete"] and r2.events == ["complete"]
    assert purgatory.num_delayed() == 0 and purgatory.watched() == 0


def test_try_complete_else_watch_completes_at_once(env):
    _, purgatory = env
    op = MockDelayedOperation(100_000)
    op.completable = True
    assert purgatory.try_complete_else_watch(op, ["key"])
    assert op.is_completed and op.events == ["complete"]
    assert purgatory.watched() == 0 and purgatory.num_delayed() == 0


def test_request_expiry_calls_on_complete_then_on_expiration_once(env):
    mock_time, purgatory = env
    r1, r2 = MockDelayedOperation(10), MockDelayedOperation(200)
    assert not purgatory.try_complete_else_watch(r1, ["test1"])
    assert not purgatory.try_complete_else_watch(r2, ["test1", "test2"])
    assert purgatory.num_delayed() == 2
    mock_time.sleep(9)
    purgatory.advance_clock(0)
    assert not r1.finished.wait(0.05) and not r1.is_completed
    mock_time.sleep(1)
    purgatory.advance_clock(0)
    assert r1.finished.wait(WAIT_S)
    assert r1.events == ["complete", "expire"]  # Kafka: run() = forceComplete() (onComplete) then onExpiration
    assert not r2.is_completed and purgatory.num_delayed() == 1
    mock_time.sleep(190)
    purgatory.advance_clock(0)
    assert r2.finished.wait(WAIT_S)
    assert r2.events == ["complete", "expire"]
    assert not r1.force_complete() and r1.events == ["complete", "expire"]
    r1.run()  # a second expiry (or a late event) changes nothing
    assert r1.events == ["complete", "expire"]
    assert purgatory.num_delayed() == 0


def test_completed_operation_never_expires(env):
    mock_time, purgatory = env
    op = MockDelayedOperation(10)
    purgatory.try_complete_else_watch(op, ["k"])
    op.completable = True
    assert purgatory.check_and_complete("k") == 1
    assert purgatory.num_delayed() == 0  # force_complete cancelled the timer task
    mock_time.sleep(50)
    purgatory.advance_clock(0)
    assert not op.finished.wait(0.05)
    assert op.events == ["complete"]


def test_request_purge(env):
    _, purgatory = env
    r1, r2, r3 = (MockDelayedOperation(100_000) for _ in range(3))
    purgatory.try_complete_else_watch(r1, ["test1"])
    purgatory.try_complete_else_watch(r2, ["test1", "test2"])
    purgatory.try_complete_else_watch(r3, ["test1", "test2", "test3"])
    assert purgatory.num_delayed() == 3
    assert purgatory.watched() == 6
    # completing an operation takes it out of the timer at once...
    r2.completable = True
    r2.try_complete()
    assert purgatory.num_delayed() == 2
    r3.completable = True
    r3.try_complete()
    assert purgatory.num_delayed() == 1
    # ...and checking a key purges that key's list
    purgatory.check_and_complete("test1")
    assert purgatory.watched() == 4
    purgatory.check_and_complete("test2")
    assert purgatory.watched() == 2
    purgatory.check_and_complete("test3")
    assert purgatory.watched() == 1  # r1 still waits under test1
    assert r1.events == [] and r2.events == ["complete"] and r3.events == ["complete"]


def test_advance_clock_purges_once_enough_completed_operations_linger():
    mock_time = MockTime()
    purgatory = DelayedOperationPurgatory("purge", SystemTimer("purge", time=mock_time), purge_interval=2,
                                          reaper_enabled=False)
    try:
        ops = [MockDelayedOperation(100_000) for _ in range(5)]
        for i, op in enumerate(ops):
            purgatory.try_complete_else_watch(op, [f"k{i}", "shared"])
        assert purgatory.watched() == 10
        ops[0].force_complete()
        ops[1].force_complete()
        purgatory.advance_clock(0)
        assert purgatory.watched() == 10  # 2 lingering: not more than purge_interval
        ops[2].force_complete()
        purgatory.advance_clock(0)
        assert purgatory.watched() == 4  # purged: only ops 3 and 4 remain, under two keys each
    finally:
        purgatory.shutdown()


def test_operation_watched_under_several_keys_completes_once(env):
    _, purgatory = env
    op = MockDelayedOperation(100_000)
    keys = [TopicPartitionOperationKey("t", p) for p in range(3)]
    assert not purgatory.try_complete_else_watch(op, keys)
    op.completable = True
    results = []
    threads = [threading.Thread(target=lambda k=k: results.append(purgatory.check_and_complete(k)))
               for k in keys * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT_S)
    assert sum(results) == 1
    assert op.events == ["complete"]
    assert purgatory.watched() == 0


def test_racing_expiry_and_completion_complete_once(env):
    mock_time, purgatory = env
    for _ in range(50):
        op = MockDelayedOperation(5)
        purgatory.try_complete_else_watch(op, ["race"])
        op.completable = True
        mock_time.sleep(5)
        t = threading.Thread(target=purgatory.check_and_complete, args=("race",))
        t.start()
        purgatory.advance_clock(0)
        t.join(WAIT_S)
        assert op.is_completed
        assert op.events.count("complete") == 1


def test_should_cancel_for_key_returning_cancelled_operations(env):
    mock_time, purgatory = env
    a, b, c = MockDelayedOperation(10_000), MockDelayedOperation(10_000), MockDelayedOperation(10_000)
    purgatory.try_complete_else_watch(a, ["key"])
    purgatory.try_complete_else_watch(b, ["key"])
    purgatory.try_complete_else_watch(c, ["key2"])
    cancelled = purgatory.cancel_for_key("key")
    assert cancelled == [a, b]
    assert not a.is_completed and not b.is_completed  # cancelled, not completed
    assert purgatory.watched() == 1
    assert purgatory.num_delayed() == 1  # also out of the timer
    mock_time.sleep(10_000)
    purgatory.advance_clock(0)
    assert c.finished.wait(WAIT_S)
    assert a.events == [] and b.events == []


def test_should_return_empty_on_cancel_for_key_when_key_doesnt_exist(env):
    _, purgatory = env
    assert purgatory.cancel_for_key("key") == []


def test_delayed_operation_lock_is_held_in_check_and_complete(env):
    _, purgatory = env

    class LockCheckingOperation(MockDelayedOperation):
        def try_complete(self):
            # another thread must not be able to take the lock while we are in try_complete
            got = []

            def probe():
                acquired = self.lock.acquire(blocking=False)
                got.append(acquired)
                if acquired:
                    self.lock.release()

            t = threading.Thread(target=probe)
            t.start()
            t.join(WAIT_S)
            self.lock_held_in_try_complete.append(got == [False])
            return super().try_complete()

    op = LockCheckingOperation(100_000)
    purgatory.try_complete_else_watch(op, ["key"])
    op.completable = True
    assert purgatory.check_and_complete("key") == 1
    # first try in try_complete_else_watch: no lock (only this thread knows the operation);
    # the second try and check_and_complete: under the lock
    assert op.lock_held_in_try_complete == [False, True, True]


def test_delayed_operation_lock_override_is_reentrant(env):
    """Kafka's testDelayedOperationLockOverride: a shared (group) lock the caller already holds."""
    _, purgatory = env
    group_lock = threading.RLock()
    op = MockDelayedOperation(100_000, lock=group_lock)
    assert op.lock is group_lock
    with group_lock:
        purgatory.try_complete_else_watch(op, [GroupKey("g")])
        op.completable = True
        assert purgatory.check_and_complete(GroupKey("g")) == 1
    assert op.events == ["complete"]


def test_busy_lock_leaves_the_retry_to_the_holder():
    """maybe_try_complete never blocks: a caller that finds the lock busy sets try_complete_pending,
    and the holder tries once more before it returns."""
    entered, release = threading.Event(), threading.Event()

    class Slow(MockDelayedOperation):
        def try_complete(self):
            self.try_complete_calls += 1
            can_complete = self.completable  # decided on entry
            if self.try_complete_calls == 1:
                entered.set()
                release.wait(WAIT_S)
            return self.force_complete() if can_complete else False

    op = Slow(100_000)
    result = {}
    holder = threading.Thread(target=lambda: result.setdefault("holder", op.maybe_try_complete()))
    holder.start()
    assert entered.wait(WAIT_S)
    other = []
    t = threading.Thread(target=lambda: other.append(op.maybe_try_complete()))
    t.start()
    t.join(WAIT_S)
    assert not t.is_alive() and other == [False]  # returned at once, did not block on the lock
    # a second caller finds the retry already asked for: it returns at once too, without spinning
    t2 = threading.Thread(target=lambda: other.append(op.maybe_try_complete()))
    t2.start()
    t2.join(1.0)
    assert not t2.is_alive() and other == [False, False]
    op.completable = True
    release.set()
    holder.join(WAIT_S)
    assert result["holder"] is True  # the holder's retry completed it
    assert op.try_complete_calls == 2 and op.events == ["complete"]


def test_reaper_thread_name_and_real_clock_expiry():
    purgatory = DelayedOperationPurgatory("Produce", broker_id=3)
    try:
        names = [t.name for t in threading.enumerate()]
        assert "ExpirationReaper-3-Produce" in names
        op = MockDelayedOperation(20)
        assert not purgatory.try_complete_else_watch(op, [TopicPartitionOperationKey("t", 0)])
        assert op.finished.wait(WAIT_S)  # the reaper advanced the clock; executor-Produce ran it
        assert op.events == ["complete", "expire"]
    finally:
        purgatory.shutdown()
    assert not purgatory.expiration_reaper.is_alive()
    assert purgatory.expiration_reaper.is_shutdown_complete


def test_shutdown_does_not_wait_out_the_reaper_poll():
    purgatory = DelayedOperationPurgatory("Fetch", broker_id=1)
    purgatory.try_complete_else_watch(MockDelayedOperation(60_000), ["k"])
    done = threading.Event()
    t = threading.Thread(target=lambda: (purgatory.shutdown(), done.set()))
    t.start()
    assert done.wait(WAIT_S)


def test_timer_disabled_operations_only_complete_by_events():
    mock_time = MockTime()
    purgatory = DelayedOperationPurgatory("nt", SystemTimer("nt", time=mock_time), reaper_enabled=False,
                                          timer_enabled=False)
    try:
        op = MockDelayedOperation(1)
        purgatory.try_complete_else_watch(op, ["k"])
        assert purgatory.num_delayed() == 0
        mock_time.sleep(100)
        purgatory.advance_clock(0)
        assert not op.is_completed
        op.completable = True
        assert purgatory.check_and_complete("k") == 1
    finally:
        purgatory.shutdown()


def test_delayed_operation_keys():
    tp_key = TopicPartitionOperationKey.from_topic_partition(TopicPartition("topic", 3))
    assert tp_key == TopicPartitionOperationKey("topic", 3)
    assert hash(tp_key) == hash(TopicPartitionOperationKey("topic", 3))
    assert tp_key.key_label == "topic-3"
    assert MemberKey("g", "c-1").key_label == "g-c-1"
    assert GroupKey("g").key_label == "g"
    assert TopicKey("t").key_label == "t"
    assert len({GroupKey("g"), GroupKey("g"), MemberKey("g", "m")}) == 2
    assert GroupKey("x") != TopicKey("x")


def test_watchers_of_a_key_go_once_their_operations_completed(env):
    # Kafka: DelayedOperationPurgatory.removeKeyIfEmpty -- one watcher list per key ever seen would be a leak
    mock_time, purgatory = env
    op = MockDelayedOperation(100_000)
    purgatory.try_complete_else_watch(op, ["key"])
    assert "key" in purgatory._watcher_list("key").watchers_by_key
    op.completable = True
    assert purgatory.check_and_complete("key") == 1
    assert "key" not in purgatory._watcher_list("key").watchers_by_key


def test_an_operation_watched_under_several_keys_counts_once_towards_the_purge(env):
    # Kafka: DelayedOperationPurgatory.tryCompleteElseWatch increments estimatedTotalOperations once per operation
    mock_time, purgatory = env
    purgatory.try_complete_else_watch(MockDelayedOperation(100_000), ["a", "b", "c"])
    assert purgatory._estimated_total_operations == 1
