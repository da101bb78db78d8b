"""Kafka: GroupMetadataManagerTest -- what storeGroup/storeOffsets write to a real __consumer_offsets
Log loads back as the same groups and offsets; tombstones delete them; partitionFor is Java's.
Transactional offset commits stay pending until their producer's marker (at run time through
handle_txn_completion, at load time through the control batches in the log)."""
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.group.group_metadata import (Empty, GroupMetadata, OffsetAndMetadata,
                                                        PreparingRebalance, Stable)
from kafkalite.common.utils import java_string_hashcode, utils_abs
from kafkalite.coordinator.group.group_metadata_manager import (GroupMetadataManager, OffsetConfig,
                                                                offset_commit_value, read_offset_message_value)
from kafkalite.coordinator.group.member_metadata import MemberMetadata
from kafkalite.log.log import Log
from kafkalite.log.log_config import LogConfig
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import group_metadata_records as R
from kafkalite.record.control_record_type import ControlRecordType
from kafkalite.record.end_transaction_marker import EndTransactionMarker
from kafkalite.record.memory_records import MemoryRecordsBuilder
from kafkalite.utils.time import MockTime

from group_test_support import FakeReplicaManager, ImmediateScheduler, PartitionResponse

OFFSETS_TP = TopicPartition("__consumer_offsets", 0)


class LogReplicaManager:
    """append_records/get_log over one real Log (the ReplicaManager contract, leader-local append)."""

    def __init__(self, log):
        self.log = log

    def get_log(self, tp):
        return self.log if tp == OFFSETS_TP else None

    def append_records(self, timeout_ms, required_acks, internal_topics_allowed, is_from_client, entries, callback):
        out = {}
        for tp, records in entries.items():
            info = self.log.append_as_leader(records, leader_epoch=0, is_from_client=is_from_client)
            out[tp] = PartitionResponse(Errors.NONE, info.first_offset)
        callback(out)


@pytest.fixture
def log(tmp_path):
    lg = Log(str(tmp_path / "__consumer_offsets-0"), LogConfig({"cleanup.policy": "compact"}), time=MockTime())
    yield lg
    lg.close()


def manager_over(log, mock_time=None):
    return GroupMetadataManager(0, OffsetConfig(offsets_topic_num_partitions=1), LogReplicaManager(log),
                                mock_time or MockTime(), ImmediateScheduler())


def load(log):
    """A fresh manager (a restarted broker) loading partition 0; returns (manager, loaded groups)."""
    m = manager_over(log)
    loaded = []
    m.schedule_load_group_and_offsets(0, loaded.append)
    assert m.is_partition_owned(0) and not m.is_partition_loading(0)
    return m, loaded


def stable_group(mock_time, group_id="g"):
    g = GroupMetadata(group_id, Empty, mock_time)
    for mid, inst in (("m1", None), ("m2", "instance-2")):
        g.add(MemberMetadata(mid, group_id, inst, "client-" + mid, "/10.0.0.1", 60000, 10000, "consumer",
                             [("range", b"sub-" + mid.encode())]), callback=lambda r: None)
    g.transition_to(PreparingRebalance)
    g.init_next_generation()
    return g


def store(manager, group, assignment):
    out = []
    manager.store_group(group, assignment, out.append)
    assert out == [Errors.NONE]


def commit(manager, group, offsets):
    out = []
    manager.store_offsets(group, "m1", offsets, out.append)
    return out[0]


def test_partition_for_uses_java_string_hashcode():
    assert java_string_hashcode("") == 0
    assert java_string_hashcode("hello") == 99162322
    assert java_string_hashcode("polygenelubricants") == -2147483648   # Integer.MIN_VALUE
    assert utils_abs(-2147483648) == 0 and utils_abs(-5) == 5
    # U+1F600 is the surrogate pair D83D DE00 in UTF-16: 0xD83D * 31 + 0xDE00
    assert java_string_hashcode("\U0001F600") == 0xD83D * 31 + 0xDE00 == 1772899
    m = GroupMetadataManager(0, OffsetConfig(offsets_topic_num_partitions=50), None, MockTime(), ImmediateScheduler())
    assert m.partition_for("hello") == 99162322 % 50
    assert m.partition_for("polygenelubricants") == 0


def test_offset_commit_value_versions():
    with_expire = OffsetAndMetadata(5, None, "meta", 100, 200)
    assert R.deserialize(R.OffsetCommitValue, offset_commit_value(with_expire))[0] == 1
    plain = OffsetAndMetadata(5, 3, "meta", 100, None)
    assert R.deserialize(R.OffsetCommitValue, offset_commit_value(plain))[0] == 3
    assert read_offset_message_value(offset_commit_value(with_expire)) == with_expire
    assert read_offset_message_value(offset_commit_value(plain)) == plain


def test_store_group_and_offsets_then_load_back_from_log(log):
    mock_time = MockTime()
    m = manager_over(log, mock_time)
    group = m.add_group(stable_group(mock_time))
    store(m, group, {"m1": b"assign-1", "m2": b"assign-2"})
    offsets = {TopicPartition("foo", 0): OffsetAndMetadata(10, 2, "x", mock_time.milliseconds(), None),
               TopicPartition("foo", 1): OffsetAndMetadata(20, None, "", mock_time.milliseconds(), mock_time.milliseconds() + 1000)}
    assert commit(m, group, offsets) == {tp: Errors.NONE for tp in offsets}
    assert group.all_offsets() == offsets
    simple = m.add_group(GroupMetadata("simple", Empty, mock_time))
    commit(m, simple, {TopicPartition("bar", 3): OffsetAndMetadata(7, None, "", 1, None)})
    assert log.log_end_offset == 4

    m2, loaded = load(log)
    assert sorted(g.group_id for g in loaded) == ["g", "simple"]
    g = m2.get_group("g")
    assert g.is_(Stable) and g.generation_id == 1 and g.protocol_type == "consumer" and g.protocol_name == "range"
    assert g.leader_id == group.leader_id
    assert {mid: (mm.assignment, mm.metadata("range"), mm.group_instance_id, mm.client_id, mm.rebalance_timeout_ms)
            for mid, mm in g.members.items()} == {
        "m1": (b"assign-1", b"sub-m1", None, "client-m1", 60000),
        "m2": (b"assign-2", b"sub-m2", "instance-2", "client-m2", 60000)}
    assert g.get_static_member_id("instance-2") == "m2"
    assert g.all_offsets() == offsets
    s = m2.get_group("simple")
    assert s.is_(Empty) and s.protocol_type is None and s.offset(TopicPartition("bar", 3)).offset == 7
    assert m2.get_offsets("simple", [TopicPartition("bar", 3)])[TopicPartition("bar", 3)].offset == 7


def test_later_commit_wins_and_tombstones_delete_on_load(log):
    mock_time = MockTime()
    m = manager_over(log, mock_time)
    group = m.add_group(GroupMetadata("g", Empty, mock_time))
    tp0, tp1 = TopicPartition("foo", 0), TopicPartition("foo", 1)
    commit(m, group, {tp0: OffsetAndMetadata(1, None, "", 1, None), tp1: OffsetAndMetadata(1, None, "", 1, None)})
    commit(m, group, {tp0: OffsetAndMetadata(5, None, "", 2, None)})
    # expire tp1 only: a tombstone for its key
    assert m.cleanup_group_metadata([group], lambda g: g.remove_offsets([tp1])) == 1
    _, loaded = load(log)
    assert [g.group_id for g in loaded] == ["g"]
    assert loaded[0].all_offsets() == {tp0: OffsetAndMetadata(5, None, "", 2, None)}


def test_deleted_group_is_gone_after_load(log):
    mock_time = MockTime()
    m = manager_over(log, mock_time)
    group = m.add_group(stable_group(mock_time))
    store(m, group, {"m1": b"", "m2": b""})
    commit(m, group, {TopicPartition("foo", 0): OffsetAndMetadata(3, None, "", 1, None)})
    # the members leave: an empty generation is written, then the group is deleted
    group.transition_to(Stable)
    group.transition_to(PreparingRebalance)
    group.remove("m1")
    group.remove("m2")
    group.init_next_generation()
    store(m, group, {})
    assert m.cleanup_group_metadata([group], lambda g: g.remove_all_offsets()) == 1
    assert m.get_group("g") is None            # Empty without offsets -> Dead -> out of the cache
    m2, loaded = load(log)
    assert loaded == [] and m2.get_group("g") is None
    assert m2.get_offsets("g", [TopicPartition("foo", 0)])[TopicPartition("foo", 0)].offset == -1


def test_store_offsets_with_too_large_metadata(log):
    m = GroupMetadataManager(0, OffsetConfig(offsets_topic_num_partitions=1, max_metadata_size=4),
                             LogReplicaManager(log), MockTime(), ImmediateScheduler())
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    ok, big = TopicPartition("foo", 0), TopicPartition("foo", 1)
    result = commit(m, group, {ok: OffsetAndMetadata(1, None, "abc", 1, None),
                               big: OffsetAndMetadata(1, None, "abcdef", 1, None)})
    assert result == {ok: Errors.NONE, big: Errors.OFFSET_METADATA_TOO_LARGE}
    assert group.offset(big) is None and group.offset(ok).offset == 1


def test_unload_partition_removes_groups(log):
    m, _ = load(log)
    m.add_group(GroupMetadata("g", Empty, MockTime()))
    unloaded = []
    m.remove_groups_for_partition(0, unloaded.append)
    assert [g.group_id for g in unloaded] == ["g"] and m.get_group("g") is None
    assert not m.is_partition_owned(0)


def test_offsets_expire_after_retention_in_empty_group(log):
    mock_time = MockTime()
    m = GroupMetadataManager(0, OffsetConfig(offsets_topic_num_partitions=1, offsets_retention_ms=1000),
                             LogReplicaManager(log), mock_time, ImmediateScheduler())
    group = m.add_group(GroupMetadata("simple", Empty, mock_time))
    commit(m, group, {TopicPartition("foo", 0): OffsetAndMetadata(1, None, "", mock_time.milliseconds(), None)})
    assert m.cleanup_group_metadata() == 0 and m.get_group("simple") is not None
    mock_time.sleep(1000)
    assert m.cleanup_group_metadata() == 1
    assert m.get_group("simple") is None
    _, loaded = load(log)
    assert loaded == []


# ---------------------------------------------------------------- transactional offset commits
PRODUCER_ID, PRODUCER_EPOCH = 1000, 2
FOO0, FOO1 = TopicPartition("foo", 0), TopicPartition("foo", 1)


def txn_commit(manager, group, offsets, producer_id=PRODUCER_ID):
    out = []
    manager.store_offsets(group, "", offsets, out.append, producer_id, PRODUCER_EPOCH)
    return out[0]


def write_marker(log, producer_id, control_type, epoch=PRODUCER_EPOCH):
    """What the log's WriteTxnMarkers path appends: one control batch holding an EndTransactionMarker."""
    marker = EndTransactionMarker(control_type, 0)
    builder = MemoryRecordsBuilder(producer_id=producer_id, producer_epoch=epoch, is_transactional=True,
                                   is_control_batch=True)
    builder.append(1, marker.record_key(), marker.serialize_value())
    log.append_as_leader(builder.build(), leader_epoch=0, is_from_client=False)


def fetch(manager, group_id, tps, require_stable=False):
    return {tp: (d.offset, d.error) for tp, d in manager.get_offsets(group_id, tps, require_stable).items()}


def test_transactional_commit_is_a_transactional_batch_and_invisible_until_commit(log):
    # Kafka: GroupMetadataManagerTest.testTransactionalCommitOffsetCommitted
    m = manager_over(log)
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    assert txn_commit(m, group, {FOO0: OffsetAndMetadata(37, None, "", 1, None)}) == {FOO0: Errors.NONE}
    batch = next(log.read(0, 10000, None, True).records.batches())
    assert (batch.is_transactional, batch.producer_id, batch.producer_epoch) == (True, PRODUCER_ID, PRODUCER_EPOCH)
    assert group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert m.is_group_open_for_producer(PRODUCER_ID, "g")
    assert fetch(m, "g", [FOO0]) == {FOO0: (-1, Errors.NONE)}
    assert fetch(m, "g", [FOO0], require_stable=True) == {FOO0: (-1, Errors.UNSTABLE_OFFSET_COMMIT)}
    m.handle_txn_completion(PRODUCER_ID, {0}, is_commit=True)
    assert fetch(m, "g", [FOO0], require_stable=True) == {FOO0: (37, Errors.NONE)}
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert not m.is_group_open_for_producer(PRODUCER_ID, "g")


def test_transactional_commit_aborted(log):
    # Kafka: GroupMetadataManagerTest.testTransactionalCommitOffsetAborted
    m = manager_over(log)
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    commit(m, group, {FOO0: OffsetAndMetadata(5, None, "", 1, None)})
    txn_commit(m, group, {FOO0: OffsetAndMetadata(37, None, "", 1, None)})
    m.handle_txn_completion(PRODUCER_ID, {0}, is_commit=False)
    assert fetch(m, "g", [FOO0], require_stable=True) == {FOO0: (5, Errors.NONE)}
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert not m.is_group_open_for_producer(PRODUCER_ID, "g")


def test_transactional_commit_append_failure():
    # Kafka: GroupMetadataManagerTest.testTransactionalCommitOffsetAppendFailure
    rm = FakeReplicaManager(partitions=[0])
    rm.fail_with = Errors.NOT_ENOUGH_REPLICAS
    m = GroupMetadataManager(0, OffsetConfig(offsets_topic_num_partitions=1), rm, MockTime(), ImmediateScheduler())
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    assert txn_commit(m, group, {FOO0: OffsetAndMetadata(37, None, "", 1, None)}) == {FOO0: Errors.COORDINATOR_NOT_AVAILABLE}
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert not m.is_group_open_for_producer(PRODUCER_ID, "g")


def test_marker_from_unrelated_producer_or_partition_does_nothing(log):
    m = manager_over(log)
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    txn_commit(m, group, {FOO0: OffsetAndMetadata(37, None, "", 1, None)})
    m.handle_txn_completion(PRODUCER_ID + 1, {0}, is_commit=True)     # another producer's transaction
    m.handle_txn_completion(PRODUCER_ID, {7}, is_commit=True)         # a partition "g" does not live in
    assert group.offset(FOO0) is None and group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert m.is_group_open_for_producer(PRODUCER_ID, "g")


def test_pending_offsets_of_one_producer_do_not_affect_another(log):
    m = manager_over(log)
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    other = PRODUCER_ID + 1
    txn_commit(m, group, {FOO0: OffsetAndMetadata(10, None, "", 1, None)})
    txn_commit(m, group, {FOO1: OffsetAndMetadata(20, None, "", 1, None)}, producer_id=other)
    m.handle_txn_completion(other, {0}, is_commit=True)
    assert fetch(m, "g", [FOO0, FOO1], require_stable=True) == {
        FOO0: (-1, Errors.UNSTABLE_OFFSET_COMMIT), FOO1: (20, Errors.NONE)}
    m.handle_txn_completion(PRODUCER_ID, {0}, is_commit=False)
    assert fetch(m, "g", [FOO0, FOO1], require_stable=True) == {FOO0: (-1, Errors.NONE), FOO1: (20, Errors.NONE)}


def test_load_with_committed_aborted_and_pending_transactional_offset_commits(log):
    # Kafka: GroupMetadataManagerTest.testLoadWithCommittedAndAbortedAndPendingTransactionalOffsetCommits
    mock_time = MockTime()
    m = manager_over(log, mock_time)
    group = m.add_group(stable_group(mock_time))
    store(m, group, {"m1": b"", "m2": b""})
    foo2, foo3 = TopicPartition("foo", 2), TopicPartition("foo", 3)
    commit(m, group, {FOO0: OffsetAndMetadata(1, None, "", 1, None), FOO1: OffsetAndMetadata(1, None, "", 1, None)})
    committed, aborted, pending = 2000, 3000, 4000
    txn_commit(m, group, {FOO0: OffsetAndMetadata(10, None, "", 1, None), foo2: OffsetAndMetadata(12, None, "", 1, None)},
               committed)
    txn_commit(m, group, {FOO1: OffsetAndMetadata(21, None, "", 1, None)}, aborted)
    txn_commit(m, group, {foo3: OffsetAndMetadata(33, None, "", 1, None)}, pending)
    write_marker(log, committed, ControlRecordType.COMMIT)
    write_marker(log, aborted, ControlRecordType.ABORT)
    write_marker(log, 9999, ControlRecordType.COMMIT)        # a marker of a producer with no offsets here

    m2, loaded = load(log)
    g = m2.get_group("g")
    assert loaded == [g] and g.is_(Stable)
    assert fetch(m2, "g", [FOO0, FOO1, foo2, foo3]) == {
        FOO0: (10, Errors.NONE), FOO1: (1, Errors.NONE), foo2: (12, Errors.NONE), foo3: (-1, Errors.NONE)}
    # no marker yet for `pending`: its offsets wait, and its marker still completes them
    assert g.active_producers() == {pending} and m2.is_group_open_for_producer(pending, "g")
    assert not m2.is_group_open_for_producer(committed, "g") and not m2.is_group_open_for_producer(aborted, "g")
    m2.handle_txn_completion(pending, {0}, is_commit=True)
    assert fetch(m2, "g", [foo3]) == {foo3: (33, Errors.NONE)}


def test_load_transactional_offsets_without_group(log):
    # Kafka: GroupMetadataManagerTest.testLoadTransactionalOffsetsWithoutGroup
    m = manager_over(log)
    group = m.add_group(GroupMetadata("simple", Empty, MockTime()))
    txn_commit(m, group, {FOO0: OffsetAndMetadata(10, None, "", 1, None)})
    write_marker(log, PRODUCER_ID, ControlRecordType.COMMIT)
    m2, loaded = load(log)
    assert [g.group_id for g in loaded] == ["simple"] and loaded[0].is_(Empty)
    assert fetch(m2, "simple", [FOO0]) == {FOO0: (10, Errors.NONE)}


def test_load_pending_transactional_offsets_without_group(log):
    # Kafka: GroupMetadataManagerTest.testGroupLoadedWithPendingCommits
    m = manager_over(log)
    txn_commit(m, m.add_group(GroupMetadata("simple", Empty, MockTime())), {FOO0: OffsetAndMetadata(10, None, "", 1, None)})
    m2, loaded = load(log)
    assert [g.group_id for g in loaded] == ["simple"]
    assert loaded[0].has_pending_offset_commits_from_producer(PRODUCER_ID) and loaded[0].offset(FOO0) is None
    assert fetch(m2, "simple", [FOO0], require_stable=True) == {FOO0: (-1, Errors.UNSTABLE_OFFSET_COMMIT)}


def test_load_later_plain_commit_beats_earlier_committed_transaction(log):
    # Kafka: GroupMetadataManagerTest.testLoadOffsetsWithTombstones' sibling for transactions: the record
    # later in the log wins, whenever its transaction's marker comes
    m = manager_over(log)
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    txn_commit(m, group, {FOO0: OffsetAndMetadata(10, None, "", 1, None)})
    commit(m, group, {FOO0: OffsetAndMetadata(15, None, "", 1, None)})
    write_marker(log, PRODUCER_ID, ControlRecordType.COMMIT)
    m2, _ = load(log)
    assert fetch(m2, "g", [FOO0]) == {FOO0: (15, Errors.NONE)}


def test_unloading_forgets_the_groups_of_producers(log):
    m = manager_over(log)
    txn_commit(m, m.add_group(GroupMetadata("g", Empty, MockTime())), {FOO0: OffsetAndMetadata(10, None, "", 1, None)})
    m.remove_groups_for_partition(0, lambda g: None)
    assert not m.is_group_open_for_producer(PRODUCER_ID, "g")



def test_transactional_commit_with_too_large_metadata_leaves_nothing_pending_for_it(log):
    # Era note: 2.4 staged every requested offset (refused ones stayed pending until the marker); only
    # written offsets are pending here
    m = GroupMetadataManager(0, OffsetConfig(offsets_topic_num_partitions=1, max_metadata_size=4),
                             LogReplicaManager(log), MockTime(), ImmediateScheduler())
    group = m.add_group(GroupMetadata("g", Empty, MockTime()))
    result = txn_commit(m, group, {FOO0: OffsetAndMetadata(1, None, "abc", 1, None),
                                   FOO1: OffsetAndMetadata(2, None, "abcdef", 1, None)})
    assert result == {FOO0: Errors.NONE, FOO1: Errors.OFFSET_METADATA_TOO_LARGE}
    assert group.has_pending_offset_commits_for_topic_partition(FOO0)
    assert not group.has_pending_offset_commits_for_topic_partition(FOO1)
    m.handle_txn_completion(PRODUCER_ID, {0}, is_commit=True)
    assert group.all_offsets() == {FOO0: OffsetAndMetadata(1, None, "abc", 1, None)}
