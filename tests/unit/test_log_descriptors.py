"""File descriptors like Kafka (issue 18): a segment holds one descriptor (its ``.log``); indexes are mapped
and hold none, and are mapped only when first used (LazyIndex); the transaction index opens its file only
to append. Counted in /proc/self/fd before and after.

- N partitions of several segments hold about one descriptor per segment, and again after a restart, where
  only the last segment's indexes are mapped;
- the indexes work after a restart: lookups, appends, truncation, rolls, trims;
- out of descriptors (EMFILE injected), creating a log fails alone: KAFKA_STORAGE_ERROR, the dir stays
  online, nothing is left open or on disk, and the next attempt works;
- on an in-process broker, such a partition answers produce with KAFKA_STORAGE_ERROR until the next
  LeaderAndIsr naming it creates its log;
- a full filesystem (a small tmpfs; skipped where none can be mounted) makes an index append raise
  OSError(ENOSPC) and never SIGBUS, also over the hole tail an index has after a crash. These run in a
  child process, so a SIGBUS shows as a failed test instead of killing pytest.
"""
import errno
import os
import subprocess
import sys
from unittest import mock

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_dir_failure_channel import LogDirFailureChannel
from kafkalite.log.log_manager import LogManager
from kafkalite.log.offset_index import OffsetIndex
from kafkalite.log.transaction_index import AbortedTxn, TransactionIndex
from kafkalite.protocol.errors import Errors
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime
from support import mounted_tmpfs

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARTITIONS = 40
# ~100-byte batches; a segment takes about 5 of them, the index an entry every other batch
CONFIG = LogConfig({"segment.bytes": 600, "index.interval.bytes": 150})


def open_fds(root) -> int:
    """Descriptors this process holds on files under ``root`` (the test's own directory): the suite's other
    threads (brokers and clients left by earlier tests in the same process) open and close descriptors of
    their own at any moment, so a count of all of /proc/self/fd is not this test's to assert on."""
    held = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            held += os.readlink(f"/proc/self/fd/{fd}").startswith(str(root))
        except OSError:   # closed meanwhile
            pass
    return held


def recs(i: int):
    return MemoryRecords.with_records(SimpleRecord(1_600_000_000_000 + i, None, b"value-%04d" % i + b"x" * 20))


def values(log, start=0):
    """Every value from ``start`` to the log end (a read returns one segment's data at most)."""
    out = []
    while start < log.log_end_offset:
        for batch in log.read(start, 1 << 20).records.batches():
            out += [bytes(r.value)[:10] for r in batch if r.offset >= start]
            start = batch.next_offset
    return out


def fill(log_manager, count: int = 20):
    for p in range(PARTITIONS):
        log = log_manager.get_or_create_log(TopicPartition("t", p))
        for i in range(count):
            log.append_as_leader(recs(i), 0)


def segments(log_manager) -> int:
    return sum(log.num_segments for log in log_manager.all_logs())


def test_a_segment_holds_one_descriptor_also_after_restart(tmp_path):
    before = open_fds(tmp_path)
    lm = LogManager([str(tmp_path)], CONFIG, time=MockTime())
    fill(lm)
    held, segs = open_fds(tmp_path) - before, segments(lm)
    print(f"{PARTITIONS} partitions, {segs} segments: {held} descriptors")
    assert segs >= 3 * PARTITIONS
    assert held <= segs + 2, f"{held} descriptors for {segs} segments"   # + the dir's .lock
    lm.shutdown()
    assert open_fds(tmp_path) == before

    lm = LogManager([str(tmp_path)], CONFIG, time=MockTime())
    held = open_fds(tmp_path) - before
    assert segments(lm) == segs and held <= segs + 2, f"{held} descriptors for {segs} segments after restart"
    loaded = [(seg.lazy_offset_index.is_loaded(), seg is log.active_segment)
              for log in lm.all_logs() for seg in log.log_segments()]
    assert all(is_loaded == active for is_loaded, active in loaded), "only the active segments' indexes are mapped"
    lm.shutdown()
    assert open_fds(tmp_path) == before


def test_indexes_work_after_restart(tmp_path):
    lm = LogManager([str(tmp_path)], CONFIG, time=MockTime())
    fill(lm, 30)
    lm.shutdown()
    before = open_fds(tmp_path)
    lm = LogManager([str(tmp_path)], CONFIG, time=MockTime())
    log = lm.get_log(TopicPartition("t", 3))
    # lookups through the (lazily mapped) indexes of every segment
    for offset in range(30):
        assert values(log, offset)[0] == b"value-%04d" % offset
    old = log.log_segments()[1]
    assert old.lazy_offset_index.is_loaded() and old.offset_index.entries > 0
    assert old.offset_index.lookup(old.base_offset + 2).offset <= old.base_offset + 2
    assert old.find_offset_by_timestamp(1_600_000_000_000 + old.base_offset + 1).offset == old.base_offset + 1
    # appends, truncation, rolls, trims
    log.truncate_to(17)
    assert values(log) == [b"value-%04d" % i for i in range(17)]
    for i in range(17, 40):
        log.append_as_leader(recs(i), 0)
    log.roll()
    log.append_as_leader(recs(40), 0)
    assert values(log) == [b"value-%04d" % i for i in range(41)]
    rolled = log.log_segments()[-2]
    assert rolled.offset_index.length == rolled.offset_index.size_in_bytes()   # trimmed when it was rolled
    assert open_fds(tmp_path) - before == segments(lm) + 1
    lm.shutdown()
    lm = LogManager([str(tmp_path)], CONFIG, time=MockTime())
    assert values(lm.get_log(TopicPartition("t", 3))) == [b"value-%04d" % i for i in range(41)]
    lm.shutdown()


def test_an_index_whose_new_map_fails_holds_nothing_and_fails_with_os_errors(tmp_path):
    # mmap(2) fails with ENOMEM once the process reaches vm.max_map_count: the index must not keep counting
    # entries it can no longer read, and what follows must be an OSError (the storage-error path), not a crash
    index = OffsetIndex(str(tmp_path / "0.index"), 0, 4096)
    for i in range(10):
        index.append(i * 3, i * 100)
    with mock.patch("kafkalite.log.abstract_index.MappedFile",
                    side_effect=OSError(errno.ENOMEM, "Cannot allocate memory")):
        with pytest.raises(OSError):
            index.resize(8192)
    assert index.entries == 0 and index.is_full()
    assert index.lookup(20).offset == 0      # as an empty index answers
    index.close()


def test_an_index_holds_no_descriptor_and_a_transaction_index_only_while_appending(tmp_path):
    before = open_fds(tmp_path)
    index = OffsetIndex(str(tmp_path / "0.index"), 0, 4096)
    for i in range(100):
        index.append(i * 3, i * 100)
    index.resize(8000)
    index.trim_to_valid_size()
    assert open_fds(tmp_path) == before
    assert index.lookup(151).offset == 150 and index.entries == 100
    index.close()
    txn = TransactionIndex(0, str(tmp_path / "0.txnindex"))
    txn.append(AbortedTxn(7, 0, 10, 11))
    assert open_fds(tmp_path) == before + 1   # Kafka's channel(), kept for the next append
    txn.close()
    again = TransactionIndex(0, str(tmp_path / "0.txnindex"))
    assert open_fds(tmp_path) == before and again.last_offset == 10
    assert [t.producer_id for t in again.collect_aborted_txns(0, 20).aborted_transactions] == [7]
    assert open_fds(tmp_path) == before


def test_out_of_descriptors_fails_one_log_and_leaves_the_dir_online(tmp_path):
    channel = LogDirFailureChannel(1)
    lm = LogManager([str(tmp_path)], CONFIG, time=MockTime(), log_dir_failure_channel=channel)
    fill(lm, 3)
    before = open_fds(tmp_path)
    real_open = os.open

    def emfile_on_index(path, *args, **kwargs):
        if str(path).endswith(".index"):
            raise OSError(errno.EMFILE, "Too many open files", path)
        return real_open(path, *args, **kwargs)
    with mock.patch("os.open", emfile_on_index):
        with pytest.raises(Errors.KAFKA_STORAGE_ERROR.exception_class, match="Too many open files"):
            lm.get_or_create_log(TopicPartition("new", 0))
    assert open_fds(tmp_path) == before, "the failed log left a descriptor open"
    assert not (tmp_path / "new-0").exists(), "the half-made partition directory is still there"
    assert str(tmp_path) in lm.live_log_dirs and not channel.has_offline_log_dir(str(tmp_path))
    assert lm.get_log(TopicPartition("new", 0)) is None
    log = lm.get_or_create_log(TopicPartition("new", 0))   # descriptors are back
    log.append_as_leader(recs(0), 0)
    assert values(log) == [b"value-0000"]
    lm.get_log(TopicPartition("t", 0)).append_as_leader(recs(3), 0)   # the others never stopped
    lm.shutdown()


def test_any_other_error_creating_a_log_still_takes_the_dir_offline(tmp_path):
    channel = LogDirFailureChannel(1)
    lm = LogManager([str(tmp_path)], CONFIG, time=MockTime(), log_dir_failure_channel=channel)
    with mock.patch("os.makedirs", side_effect=OSError(errno.EIO, "Input/output error")):
        with pytest.raises(Errors.KAFKA_STORAGE_ERROR.exception_class):
            lm.get_or_create_log(TopicPartition("new", 0))
    assert channel.has_offline_log_dir(str(tmp_path))   # as Kafka: an IOException is a disk failure


FULL_DISK = r"""
import errno, os, sys
sys.path.insert(0, {repo!r})
from kafkalite.log.offset_index import OffsetIndex
mnt = sys.argv[1]
index = OffsetIndex(os.path.join(mnt, "0.index"), 0, 1 << 20)   # preallocated: a 1 MiB hole
if sys.argv[2] == "crash":   # entries written, then the process dies: the index keeps its length
    for i in range(600):
        index.append(i, i * 10)
    index = None
fd = os.open(os.path.join(mnt, "fill"), os.O_WRONLY | os.O_CREAT)   # the filesystem is full from here on
try:
    while True:
        os.write(fd, b"x" * 4096)
except OSError as e:
    assert e.errno == errno.ENOSPC, e
os.close(fd)
if sys.argv[2] == "crash":
    index = OffsetIndex(os.path.join(mnt, "0.index"), 0, 1 << 20)
    assert index.entries == (1 << 20) // 8
    # the binary search reads the hole tail (zeros: a meaningless answer, as in Kafka before recovery) without
    # touching its unallocated pages
    print("lookup", index.lookup(300).offset, "last", index.last_offset)
    index.truncate_to_entries(600)
    print("after truncation", index.lookup(599).offset)
try:
    for i in range(1 << 17):
        index.append(10_000 + i, i * 10)
    print("no error")
except OSError as e:
    print("OSError", errno.errorcode.get(e.errno), e)
"""


@pytest.fixture
def full_fs(tmp_path):
    with mounted_tmpfs(tmp_path / "small-fs", "64k", "cannot mount a tmpfs here") as mnt:
        yield mnt


@pytest.mark.parametrize("how", ["fresh", "crash"])
def test_a_full_filesystem_is_enospc_not_sigbus(full_fs, how):
    proc = subprocess.run([sys.executable, "-c", FULL_DISK.format(repo=REPO), str(full_fs), how],
                          capture_output=True, text=True, timeout=60)
    print(proc.stdout, proc.stderr)
    assert proc.returncode == 0, f"the index process died with {proc.returncode} (-7: SIGBUS)\n{proc.stderr}"
    assert "OSError ENOSPC" in proc.stdout
    if how == "crash":
        assert "lookup " in proc.stdout and "after truncation 599" in proc.stdout


def test_a_partition_whose_log_could_not_be_created_answers_storage_error_until_created(tmp_path):
    """On an in-process broker: the LeaderAndIsr fails for the partition (EMFILE), produce to it answers
    KAFKA_STORAGE_ERROR naming the cause, and the next LeaderAndIsr naming it creates it."""
    from kafkalite.testing.embedded_kafka import EmbeddedKafka
    from kafkalite.zk.admin_zk_client import AdminZkClient
    from support import wait_until
    from test_replica_manager import leader_and_isr, produce
    broker = EmbeddedKafka(log_dir=str(tmp_path / "logs")).start()
    try:
        rm = broker.server.replica_manager
        real_open = os.open

        def emfile_for_topic(path, *args, **kwargs):
            if "/short-0/" in str(path):
                raise OSError(errno.EMFILE, "Too many open files", path)
            return real_open(path, *args, **kwargs)
        with mock.patch("os.open", emfile_for_topic):
            AdminZkClient(broker.server.zk_client).create_topic("short", 1, 1)
            wait_until(lambda: rm.log_creation_error("short", 0), 10, "the log creation to fail")
        assert "Too many open files" in rm.log_creation_error("short", 0)
        [response] = produce(rm, "short", 1)
        [status] = response.values()
        assert status.error is Errors.KAFKA_STORAGE_ERROR
        assert broker.server.log_manager.live_log_dirs   # the dir is online
        epoch = rm.get_partition(TopicPartition("short", 0)).leader_epoch
        response = leader_and_isr(rm, "short", epoch + 1)
        assert [e.error_code for e in response.partition_errors] == [Errors.NONE.code]
        assert rm.log_creation_error("short", 0) is None
        [response] = produce(rm, "short", 1)
        assert [s.error for s in response.values()] == [Errors.NONE]
    finally:
        broker.stop()
