"""Memory per partition (issue 18: <= 10 KiB of broker RSS per partition at 10,000 partitions): structural facts
that keep a partition's Python objects small, each failing when the code regresses. No RSS figure is asserted
(bench/scale.py measures it; docs/benchmarks.md, "Memory per partition").

- the classes a broker holds one (or two) of per partition declare ``__slots__`` all the way up, so their
  instances have no ``__dict__``;
- using an object's logger (Logging) stores nothing on the object (writing ``obj.__dict__`` makes Python 3.11
  build a dict for an object whose attributes otherwise live in a compact array);
- Partition, Log, LogSegment, LeaderEpochFileCache and ProducerStateManager build their log_ident when a line
  is logged (Kafka builds it in the constructor), so they hold no string for it;
- a leaf znode of the embedded ZooKeeper shares one empty children set;
- a new, empty index maps its 10 MiB but has no page resident (its Rss in /proc/self/smaps), and one entry makes one page resident:
  the file is preallocated as a hole, and a page is allocated (MADV_POPULATE_WRITE) only when written.
"""
import mmap

from kafkalite.cluster.partition import DelayedOperations, Partition, ZkPartitionStateStore
from kafkalite.log.abstract_index import AbstractIndex
from kafkalite.log.leader_epoch_file_cache import LeaderEpochFileCache
from kafkalite.log.lazy_index import LazyIndex
from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_offset_metadata import LogOffsetMetadata
from kafkalite.log.log_segment import LogSegment
from kafkalite.log.offset_index import OffsetIndex
from kafkalite.log.producer_state_manager import ProducerStateManager
from kafkalite.log.time_index import TimeIndex
from kafkalite.log.transaction_index import TransactionIndex
from kafkalite.record.file_records import FileRecords
from kafkalite.server.delayed_operation_key import TopicPartitionOperationKey
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import MockTime
from kafkalite.zookeeper.local_zoo_keeper import _Node

PER_PARTITION_CLASSES = [
    Partition, ZkPartitionStateStore, DelayedOperations, TopicPartitionOperationKey, Log, LogSegment, FileRecords,
    LazyIndex, AbstractIndex, OffsetIndex, TimeIndex, TransactionIndex, LeaderEpochFileCache, ProducerStateManager,
    LogOffsetMetadata, _Node,
]


def test_per_partition_classes_have_slots_all_the_way_up():
    for cls in PER_PARTITION_CLASSES:
        without = [c.__qualname__ for c in cls.__mro__ if c is not object and "__slots__" not in c.__dict__]
        assert not without, f"{cls.__qualname__}: no __slots__ in {without}, so its instances carry a __dict__"


def test_a_log_and_what_it_holds_have_no_dict(tmp_path):
    log = Log(str(tmp_path / "topic-0"), LogConfig(), time=MockTime())
    try:
        segment = log.active_segment
        held = [log, segment, segment.log, segment.offset_index, segment.time_index, segment.txn_index,
                log.leader_epoch_cache, log.producer_state_manager, log.next_offset_metadata]
        assert [type(o).__name__ for o in held if hasattr(o, "__dict__")] == []
    finally:
        log.close()


def test_the_logger_is_not_stored_on_the_object():
    class Plain(Logging):   # no __slots__: the logger must still not land in its __dict__
        pass

    class Child(Plain):
        pass

    plain, child = Plain(), Child()
    assert plain.logger.name.endswith(".Plain") and child.logger.name.endswith(".Child")
    assert plain.logger is Plain().logger
    assert "logger" not in vars(plain) and "logger" not in vars(child)


def test_an_instance_logger_name_still_names_its_logger():
    class Named(Logging):
        def __init__(self):
            self.logger_name = "kafka.test.Named"

    assert Named().logger.name == "kafka.test.Named"


def test_a_leaf_znode_shares_one_empty_children_set():
    a, b = _Node(b"", 1, 1, 0, 0), _Node(b"", 2, 2, 0, 0)
    assert a.children is b.children and not a.children
    a.add_child("x")
    assert a.children == {"x"} and not b.children
    a.discard_child("x")
    b.discard_child("y")   # a leaf: nothing to do
    assert not a.children and not b.children


def _resident_kib(addr: int) -> int:
    """The Rss of this process's mapping that starts at ``addr`` (/proc/self/smaps): its pages that count in
    VmRSS. (mincore would answer for the page cache, where the kernel's readahead puts zeroed pages of the
    file's hole that this process never touched.)"""
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            first = line.split(" ", 1)[0]
            if "-" in first and not first.endswith(":"):
                inside = int(first.split("-")[0], 16) == addr
            elif inside and line.startswith("Rss:"):
                return int(line.split()[1])
    raise AssertionError(f"no mapping at {addr:#x}")


def test_a_new_index_has_no_resident_page_and_one_entry_makes_one(tmp_path):
    index = OffsetIndex(str(tmp_path / "00000000000000000000.index"), 0, 10 * 1024 * 1024)
    try:
        mapped = index._mmap
        assert mapped.length == 10 * 1024 * 1024
        page_kib = mmap.PAGESIZE // 1024
        assert _resident_kib(mapped.addr) == 0
        index.append(5, 4096)
        assert _resident_kib(mapped.addr) == page_kib
        index.append(9, 8192)
        assert _resident_kib(mapped.addr) == page_kib
    finally:
        index.close_handler()


def test_log_ident_is_built_when_logged_not_stored_per_partition(tmp_path):
    for cls in (Partition, Log, LogSegment, LeaderEpochFileCache, ProducerStateManager):
        assert isinstance(cls.__dict__.get("log_ident"), property), f"{cls.__qualname__} stores its log_ident"
    log = Log(str(tmp_path / "topic-0"), LogConfig(), time=MockTime())
    try:
        assert log.log_ident == f"[Log partition=topic-0, dir={tmp_path}] "
        assert log.active_segment.log_ident == "[LogSegment baseOffset=0] "
    finally:
        log.close()
