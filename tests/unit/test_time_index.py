"""Mirrors Kafka's TimeIndexTest."""
import pytest

from kafkalite.log.abstract_index import InvalidOffsetException
from kafkalite.log.time_index import TimeIndex, TimestampOffset


@pytest.fixture
def index(tmp_path):
    idx = TimeIndex(str(tmp_path / "00000000000000000045.timeindex"), 45, 30 * 12)
    yield idx
    idx.close_handler()


def test_lookup(index):
    assert index.lookup(100) == TimestampOffset(-1, 45)
    for i in range(1, 10):
        index.maybe_append(i * 10, i * 10 + 45)
    assert index.lookup(5) == TimestampOffset(-1, 45)
    assert index.lookup(10) == TimestampOffset(10, 55)
    assert index.lookup(49) == TimestampOffset(40, 85)
    assert index.lookup(1000) == TimestampOffset(90, 135)


def test_only_larger_timestamps_are_appended(index):
    index.maybe_append(10, 50)
    index.maybe_append(10, 51)
    assert index.entries == 1
    with pytest.raises(ValueError):
        index.maybe_append(5, 60)
    with pytest.raises(InvalidOffsetException):
        index.maybe_append(20, 49)


def test_is_full_reserves_last_slot(index):
    for i in range(29):
        index.maybe_append(i + 1, 45 + i)
    assert index.is_full() and index.entries == 29
    index.maybe_append(100, 200, skip_full_check=True)
    assert index.entries == 30 and index.last_entry == TimestampOffset(100, 200)


def test_truncate(index):
    for i in range(1, 10):
        index.maybe_append(i * 10, i * 10 + 45)
    index.truncate_to(85)
    assert index.entries == 3 and index.last_entry == TimestampOffset(30, 75)
    index.truncate()
    assert index.entries == 0 and index.last_entry == TimestampOffset(-1, 45)
