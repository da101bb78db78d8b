"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/epoch/LeaderEpochFileCacheTest.scala -- the
(epoch -> start offset) entries every replica keeps (``leader-epoch-checkpoint``) and ``endOffsetFor``, the
answer to OffsetsForLeaderEpoch that tells a follower where to truncate (controller.md §5.7): the log end
for the latest epoch, else (the largest epoch at or below the one asked, the start of the next epoch)."""
import os

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.leader_epoch_file_cache import EpochEntry, LeaderEpochFileCache
from support import HeldScheduler

UNDEFINED = (-1, -1)


@pytest.fixture
def cache():
    return LeaderEpochFileCache(TopicPartition("t", 0), None)


def entries(cache):
    return [(e.epoch, e.start_offset) for e in cache.epochs]


def assign_all(cache, pairs):
    for epoch, offset in pairs:
        cache.assign(epoch, offset)


# (assignments, requested epoch, log end offset, expected (epoch, end offset)) -- Kafka's test names
END_OFFSET_FOR = {
    "shouldAddEpochAndMessageOffsetToCache": ([(2, 10)], 2, 11, (2, 11)),
    "shouldReturnLogEndOffsetIfLatestEpochRequested": ([(2, 11), (2, 12)], 2, 14, (2, 14)),
    "shouldReturnUndefinedOffsetIfUndefinedEpochRequested": ([(2, 11), (3, 12)], -1, 14, UNDEFINED),
    "shouldReturnUnsupportedIfNoEpochRecorded": ([], 0, 0, UNDEFINED),
    "shouldReturnFirstEpochIfRequestedEpochLessThanFirstEpoch": ([(5, 11), (6, 12), (7, 13)], 4, 14, (4, 11)),
    "shouldTruncateIfMatchingEpochButEarlierStartingOffset": ([(5, 11), (6, 12), (7, 13), (7, 12)], 6, 14, (5, 12)),
    "shouldGetFirstOffsetOfSubsequentEpochWhenOffsetRequestedForPreviousEpoch":
        ([(1, 11), (1, 12), (2, 13), (2, 14), (3, 15), (3, 16)], 2, 17, (2, 15)),
    "shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested-1": ([(0, 10), (2, 13), (4, 17)], 1, 20, (0, 13)),
    "shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested-3": ([(0, 10), (2, 13), (4, 17)], 3, 20, (2, 17)),
    "shouldReturnInvalidOffsetIfEpochIsRequestedWhichIsNotCurrentlyTracked": ([(2, 100)], 3, 100, UNDEFINED),
    "shouldEnforceMonotonicallyIncreasingEpochs": ([(1, 5), (2, 6), (1, 7)], 2, 8, UNDEFINED),
    "shouldIncreaseAndTrackEpochsAsLeadersChangeManyTimes": ([(0, 0), (1, 0), (2, 5)], 1, 10, (1, 5)),
}


@pytest.mark.parametrize("name", sorted(END_OFFSET_FOR))
def test_end_offset_for(cache, name):
    assignments, requested, log_end_offset, expected = END_OFFSET_FOR[name]
    assign_all(cache, assignments)
    assert cache.end_offset_for(requested, log_end_offset) == expected


# (assignments, expected entries)
ASSIGN = {
    "shouldNotOverwriteLogEndOffsetForALeaderEpochOnceItHasBeenAssigned": ([(2, 9), (2, 10)], [(2, 9)]),
    "shouldEnforceMonotonicallyIncreasingStartOffsets": ([(2, 9), (3, 9)], [(3, 9)]),
    "shouldNotUpdateEpochAndStartOffsetIfItDidNotChange": ([(2, 6), (2, 7)], [(2, 6)]),
    "shouldEnforceMonotonicallyIncreasingEpochs": ([(1, 5), (2, 6), (1, 7)], [(1, 7)]),
    "shouldEnforceOffsetsIncreaseMonotonically": ([(2, 6), (3, 5)], [(3, 5)]),
    "shouldTruncateIfMatchingEpochButEarlierStartingOffset": ([(5, 11), (6, 12), (7, 13), (7, 12)], [(5, 11), (7, 12)]),
}


@pytest.mark.parametrize("name", sorted(ASSIGN))
def test_assign(cache, name):
    assignments, expected = ASSIGN[name]
    assign_all(cache, assignments)
    assert entries(cache) == expected


def test_should_drop_entries_on_epoch_boundary_when_removing_latest_entries(cache):
    assign_all(cache, [(2, 6), (3, 8), (4, 11)])
    cache.truncate_from_end_async_flush(8)
    assert entries(cache) == [(2, 6)]


def test_should_not_clear_anything_if_offset_to_clear_is_after_the_latest_start(cache):
    assign_all(cache, [(2, 6), (3, 8), (4, 11)])
    cache.truncate_from_end_async_flush(12)
    assert entries(cache) == [(2, 6), (3, 8), (4, 11)]


def test_should_update_saved_offset_when_offset_to_clear_to_is_between_epochs(cache):
    assign_all(cache, [(2, 6), (3, 8), (4, 11)])
    cache.truncate_from_start_async_flush(9)
    assert entries(cache) == [(3, 9), (4, 11)]


def test_should_not_clear_anything_if_offset_to_clear_is_before_the_first_start(cache):
    assign_all(cache, [(2, 6), (3, 8), (4, 11)])
    cache.truncate_from_start_async_flush(5)
    assert entries(cache) == [(2, 6), (3, 8), (4, 11)]


def test_should_persist_epochs_between_instances(tmp_path):
    path = str(tmp_path / "leader-epoch-checkpoint")
    LeaderEpochFileCache(TopicPartition("t", 0), path).assign(2, 6)
    assert LeaderEpochFileCache(TopicPartition("t", 0), path).epochs == [EpochEntry(2, 6)]


def test_clear_and_flush(tmp_path):
    path = str(tmp_path / "leader-epoch-checkpoint")
    cache = LeaderEpochFileCache(TopicPartition("t", 0), path)
    assign_all(cache, [(2, 6), (3, 8)])
    cache.clear_and_flush()
    assert LeaderEpochFileCache(TopicPartition("t", 0), path).epochs == []


def test_a_truncation_writes_the_file_in_the_background_and_an_assign_at_once(tmp_path):
    # Kafka 3.8 (KAFKA-16541): truncations flush on the scheduler, assign at once
    path = str(tmp_path / "leader-epoch-checkpoint")
    scheduler = HeldScheduler()
    cache = LeaderEpochFileCache(TopicPartition("t", 0), path, scheduler)
    assign_all(cache, [(2, 6), (3, 8), (4, 11)])
    on_disk = lambda: LeaderEpochFileCache(TopicPartition("t", 0), path).epochs   # noqa: E731
    cache.truncate_from_end_async_flush(8)
    cache.truncate_from_start_async_flush(7)
    assert entries(cache) == [(2, 7)]
    assert [(e.epoch, e.start_offset) for e in on_disk()] == [(2, 6), (3, 8), (4, 11)]
    assert scheduler.names() == ["leader-epoch-cache-flush-t-0"] * 2
    scheduler.run()
    assert on_disk() == [EpochEntry(2, 7)]
    cache.truncate_from_end_async_flush(7)
    cache.assign(5, 7)   # written at once, with what the truncation left
    assert on_disk() == [EpochEntry(5, 7)]
    os.remove(path)
    os.rmdir(tmp_path)   # the log is gone before the background write: nothing is written, nothing raised
    scheduler.run()
    assert not os.path.exists(tmp_path)


def test_nothing_to_truncate_schedules_nothing(tmp_path):
    scheduler = HeldScheduler()
    cache = LeaderEpochFileCache(TopicPartition("t", 0), str(tmp_path / "leader-epoch-checkpoint"), scheduler)
    assign_all(cache, [(2, 6), (3, 8)])
    cache.truncate_from_end_async_flush(9)
    cache.truncate_from_start_async_flush(6)   # Kafka 2.4: only an earliest entry starting before it moves
    assert scheduler.names() == [] and entries(cache) == [(2, 6), (3, 8)]


def test_a_deleted_logs_pending_background_write_writes_nothing(tmp_path):
    # Kafka's Log.delete clears the cache before deleting the directory: a write the truncation scheduled must
    # not put a file back into a directory being removed
    path = str(tmp_path / "leader-epoch-checkpoint")
    scheduler = HeldScheduler()
    cache = LeaderEpochFileCache(TopicPartition("t", 0), path, scheduler)
    assign_all(cache, [(2, 6), (3, 8)])
    cache.truncate_from_end_async_flush(8)
    cache.clear()
    os.remove(path)
    scheduler.run()
    assert os.listdir(tmp_path) == []
