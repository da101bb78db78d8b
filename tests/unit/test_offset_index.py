"""Mirrors Kafka's OffsetIndexTest."""
import random

import pytest

from kafkalite.log.abstract_index import InvalidOffsetException
from kafkalite.log.offset_index import OffsetIndex, OffsetPosition


@pytest.fixture
def index(tmp_path):
    idx = OffsetIndex(str(tmp_path / "00000000000000000045.index"), 45, 30 * 8)
    yield idx
    idx.close_handler()


def test_empty_lookup_returns_base(index):
    assert index.lookup(92) == OffsetPosition(45, 0)


def test_lookup_is_largest_lower_bound(index):
    offsets = sorted(random.Random(1).sample(range(46, 2000), 30))
    for i, off in enumerate(offsets):
        index.append(off, i * 10)
    for target in range(40, 2010, 7):
        le = [i for i, off in enumerate(offsets) if off <= target]
        expected = OffsetPosition(offsets[le[-1]], le[-1] * 10) if le else OffsetPosition(45, 0)
        assert index.lookup(target) == expected


def test_warm_section_binary_search_over_many_entries(tmp_path):
    idx = OffsetIndex(str(tmp_path / "0.index"), 0, 5000 * 8)
    for i in range(5000):
        idx.append(i * 2, i * 100)
    assert idx.lookup(9001) == OffsetPosition(9000, 450000)  # in the warm tail
    assert idx.lookup(11) == OffsetPosition(10, 500)          # in the cold head
    idx.close_handler()


def test_append_out_of_order_and_full(index):
    index.append(50, 0)
    with pytest.raises(InvalidOffsetException):
        index.append(50, 10)
    for i in range(29):
        index.append(51 + i, i)
    assert index.is_full()
    with pytest.raises(ValueError):
        index.append(100, 1)


def test_truncate_to(index):
    for i in range(10):
        index.append(46 + i * 2, i * 10)
    index.truncate_to(50)   # removes 50 and above
    assert index.entries == 2 and index.last_offset == 48
    index.truncate_to(51)
    assert index.entries == 2
    index.truncate_to(0)
    assert index.entries == 0 and index.lookup(100) == OffsetPosition(45, 0)


def test_entry_and_reopen_after_close_trims_file(tmp_path):
    path = str(tmp_path / "00000000000000000000.index")
    idx = OffsetIndex(path, 0, 1024)
    idx.append(3, 100)
    idx.append(7, 250)
    idx.close()
    import os
    assert os.path.getsize(path) == 16
    again = OffsetIndex(path, 0, 1024)
    assert again.entries == 2 and again.entry(1) == OffsetPosition(7, 250)
    again.sanity_check()
    again.close_handler()
