"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/cluster/PartitionTest.scala (with ReplicaTest's
``lastCaughtUpTimeMs`` rule): a Partition is built with a LogManager, its DelayedOperations and a state
store; as leader it records each follower's fetch, moves the high watermark to the smallest log end offset
over the ISR and the caught-up replicas, adds followers to the ISR once they reached the high watermark and
the leader epoch's start offset (KAFKA-7128), drops followers that lag longer than replica.lag.time.max.ms,
and completes delayed requests after the high watermark moved (S32, S33, S38). A replica moving to another
log dir (KIP-113) has a future log that replaces the current one once it caught up."""
import os

import pytest

from kafkalite.cluster.partition import DelayedOperations, Partition
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_manager import LogManager
from kafkalite.log.log_offset_metadata import LogOffsetMetadata
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime
from support import with_and_without_fix

TP = TopicPartition("orders", 0)
LAG_MS = 10_000


class RecordingPurgatory:
    def __init__(self, name, calls, delayed=0):
        self.name, self.calls, self.delayed = name, calls, delayed

    def num_delayed(self):
        return self.delayed

    def check_and_complete(self, key):
        self.calls.append((self.name, key))
        return 0


class RecordingStateStore:
    """What the partition writes to ZooKeeper; ``accept=False`` plays a znode whose version moved."""

    def __init__(self, config=None):
        self.writes, self.accept, self.config = [], True, config or LogConfig()

    def fetch_topic_config(self):
        return self.config

    def _write(self, kind, lai):
        self.writes.append((kind, sorted(lai.isr), lai.zk_version))
        return lai.zk_version + 1 if self.accept else None

    def shrink_isr(self, controller_epoch, lai):
        return self._write("shrink", lai)

    def expand_isr(self, controller_epoch, lai):
        return self._write("expand", lai)


def leader_state(isr, replicas=None, leader_epoch=1, leader=0):
    return LeaderAndIsrPartitionState(topic_name="orders", partition_index=0, controller_epoch=1, leader=leader,
                                      leader_epoch=leader_epoch, isr=list(isr), zk_version=1,
                                      replicas=list(replicas or sorted(set(isr) | {0})))


def make_partition(tmp_path, isr, replicas=None, disabled_fixes=frozenset(), min_isr=1):
    calls = []
    ops = DelayedOperations(TP, RecordingPurgatory("produce", calls), RecordingPurgatory("fetch", calls),
                            RecordingPurgatory("delete-records", calls))
    mock_time = MockTime()
    log_manager = LogManager([str(tmp_path)], LogConfig(), time=mock_time)
    store = RecordingStateStore(LogConfig({"min.insync.replicas": min_isr}))
    partition = Partition(TP, LAG_MS, 0, mock_time, store, ops, None, log_manager, disabled_fixes)
    partition.make_leader(0, leader_state(isr, replicas), 1)
    return partition, calls, log_manager


def append(partition, n=1, acks=1):
    for _ in range(n):
        records = MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, None, b"v"))
        partition.append_records_to_leader(records, True, acks)


def follower_fetch(partition, follower_id, offset):
    """What ReplicaManager.update_follower_fetch_state passes for one follower fetch at ``offset``."""
    log = partition.log
    return partition.update_follower_fetch_state(follower_id, LogOffsetMetadata(offset), 0,
                                                 partition.time.milliseconds(), log.log_end_offset,
                                                 log.high_watermark)


def test_log_comes_from_the_log_manager(tmp_path):
    partition, _, log_manager = make_partition(tmp_path, [0])
    assert partition.log is log_manager.get_log(TP)


def test_append_that_moves_the_hw_checks_every_purgatory(tmp_path):
    partition, calls, _ = make_partition(tmp_path, [0])
    calls.clear()
    append(partition)
    assert partition.log.high_watermark == 1
    assert [name for name, _ in calls] == ["fetch", "produce", "delete-records"]


def test_append_that_leaves_the_hw_checks_delayed_fetches_only(tmp_path):
    partition, calls, _ = make_partition(tmp_path, [0, 1])   # broker 1 is in the ISR and has fetched nothing
    calls.clear()
    append(partition)
    assert partition.log.high_watermark == 0 and partition.log.log_end_offset == 1
    assert [name for name, _ in calls] == ["fetch"]


# ---- the high watermark (controller.md §5.2)

def test_high_watermark_is_the_smallest_log_end_offset_in_the_isr(tmp_path):
    partition, calls, _ = make_partition(tmp_path, [0, 1, 2])
    append(partition, 5)
    follower_fetch(partition, 1, 5)
    assert partition.log.high_watermark == 0          # broker 2 has fetched nothing yet
    calls.clear()
    follower_fetch(partition, 2, 3)
    assert partition.log.high_watermark == 3
    assert [name for name, _ in calls] == ["fetch", "produce", "delete-records"]   # completes waiting acks=-1
    follower_fetch(partition, 2, 5)
    assert partition.log.high_watermark == 5


def test_a_lagging_isr_member_holds_the_high_watermark_until_it_is_removed(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1, 2])
    append(partition, 5)
    follower_fetch(partition, 2, 2)
    partition.time.sleep(LAG_MS + 1)                  # broker 2 is no longer caught up, but still in the ISR
    follower_fetch(partition, 1, 5)
    assert partition.log.high_watermark == 2
    partition.maybe_shrink_isr(LAG_MS)
    assert partition.in_sync_replica_ids == {0, 1} and partition.log.high_watermark == 5


def test_high_watermark_never_moves_back(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 4)
    follower_fetch(partition, 1, 4)
    assert partition.log.high_watermark == 4
    follower_fetch(partition, 1, 2)                   # a follower that truncated fetches from lower down
    assert partition.log.high_watermark == 4


def test_high_watermark_waits_for_a_caught_up_follower_outside_the_isr(tmp_path):
    # 2.4's maybeIncrementLeaderHW: a replica caught up within replica.lag.time.max.ms counts, ISR or not,
    # so that a follower about to rejoin is not overtaken by the leader's appends forever
    partition, _, _ = make_partition(tmp_path, [0], replicas=[0, 1])
    append(partition, 3)
    assert partition.log.high_watermark == 3
    follower_fetch(partition, 1, 3)                   # caught up: joins the ISR
    assert partition.in_sync_replica_ids == {0, 1}
    partition.shrink_isr({0})                          # out of the ISR again, but caught up a moment ago
    append(partition, 2)
    assert partition.log.high_watermark == 3          # waits for broker 1 although it is not in the ISR
    partition.time.sleep(LAG_MS + 1)
    append(partition)
    assert partition.log.high_watermark == 6          # no longer caught up: the leader alone decides


def test_follower_high_watermark_is_sent_and_recorded(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 2)
    follower_fetch(partition, 1, 2)
    assert partition.get_replica(1).last_sent_high_watermark == 0   # what this fetch's answer carried


# ---- lastCaughtUpTimeMs (controller.md §5.1; Kafka's ReplicaTest)

def test_follower_at_the_leader_end_is_caught_up_now(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 2)
    partition.time.sleep(500)
    follower_fetch(partition, 1, 2)
    assert partition.get_replica(1).last_caught_up_time_ms == partition.time.milliseconds()


def test_follower_one_produce_behind_was_caught_up_at_its_previous_fetch(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 2)
    partition.time.sleep(500)
    follower_fetch(partition, 1, 1)                   # behind: the leader's end was 2 at this fetch
    first_fetch_ms = partition.time.milliseconds()
    partition.time.sleep(1000)
    append(partition)                                 # a steady trickle: the leader is always one ahead
    follower_fetch(partition, 1, 2)                   # reached what the leader had at the previous fetch
    replica = partition.get_replica(1)
    assert replica.log_end_offset == 2 and partition.log.log_end_offset == 3
    assert replica.last_caught_up_time_ms == first_fetch_ms


def test_follower_still_behind_the_previous_leader_end_is_not_caught_up(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 5)
    follower_fetch(partition, 1, 1)
    before = partition.get_replica(1).last_caught_up_time_ms
    partition.time.sleep(1000)
    follower_fetch(partition, 1, 3)                   # below 5, the leader's end at its previous fetch
    assert partition.get_replica(1).last_caught_up_time_ms == before


# ---- ISR expansion (controller.md §5.4, KAFKA-7128)

def test_isr_expand_requires_the_high_watermark(tmp_path):
    partition, calls, _ = make_partition(tmp_path, [0], replicas=[0, 1])
    append(partition, 3)
    follower_fetch(partition, 1, 2)
    assert partition.in_sync_replica_ids == {0}
    follower_fetch(partition, 1, 3)
    assert partition.in_sync_replica_ids == {0, 1}
    assert partition.state_store.writes == [("expand", [0, 1], 1)]


def _leader_with_lagging_hw(tmp_path, disabled_fixes=frozenset()):
    """A new leader whose HW (2) lags the offset its epoch starts at (4): at epoch 1 it had 4 records with
    broker 2 stuck at 2; it followed broker 1 at epoch 2 and leads again at epoch 3 with ISR {0, 1} (broker 1
    has not fetched yet, so the HW cannot move) and broker 2 outside the ISR."""
    partition, calls, log_manager = make_partition(tmp_path, [0, 1, 2], disabled_fixes=disabled_fixes)
    append(partition, 4)
    follower_fetch(partition, 1, 4)
    follower_fetch(partition, 2, 2)
    partition.make_follower(0, leader_state([1], replicas=[0, 1, 2], leader_epoch=2, leader=1), 2)
    partition.make_leader(0, leader_state([0, 1], replicas=[0, 1, 2], leader_epoch=3), 3)
    assert partition.leader_epoch_start_offset_opt == 4 and partition.log.high_watermark == 2
    return partition


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-7128"))
def test_isr_expand_requires_leader_epoch_start_offset(tmp_path, disabled_fixes):
    # KAFKA-7128: a follower at the (lagging) HW but below the epoch's start offset must not join the ISR,
    # or a failover to it right after would lose the committed records between the two
    partition = _leader_with_lagging_hw(tmp_path, disabled_fixes)
    follower_fetch(partition, 2, 3)                   # at the HW, below the epoch start
    assert partition.in_sync_replica_ids == {0, 1}
    follower_fetch(partition, 2, 4)
    assert partition.in_sync_replica_ids == {0, 1, 2}


def test_isr_write_refused_by_zookeeper_leaves_the_isr_as_it_was(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0], replicas=[0, 1])
    partition.state_store.accept = False              # the controller changed the partition meanwhile
    follower_fetch(partition, 1, 0)
    assert partition.in_sync_replica_ids == {0} and partition.zk_version == 1


# ---- leader epochs (KAFKA-7415)

@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-7415"))
def test_make_leader_records_epoch_and_log_end_offset_before_any_append(tmp_path, disabled_fixes):
    partition, _, _ = make_partition(tmp_path, [0], disabled_fixes=disabled_fixes)
    append(partition, 3)
    partition.make_leader(0, leader_state([0], leader_epoch=5), 2)
    entries = [(e.epoch, e.start_offset) for e in partition.log.leader_epoch_cache.epochs]
    assert entries == [(1, 0), (5, 3)]
    assert partition.log.end_offset_for_epoch(1) == (1, 3)   # a follower at epoch 1 keeps offsets 0-2


# ---- ISR shrink (controller.md §5.3)

def test_stuck_follower_leaves_the_isr_after_the_lag_time(tmp_path):
    partition, calls, _ = make_partition(tmp_path, [0, 1, 2])
    append(partition, 4)
    follower_fetch(partition, 1, 4)
    follower_fetch(partition, 2, 2)
    partition.time.sleep(LAG_MS // 2)
    partition.maybe_shrink_isr(LAG_MS)
    assert partition.in_sync_replica_ids == {0, 1, 2}
    follower_fetch(partition, 1, 4)                   # broker 1 keeps fetching, broker 2 is stuck
    partition.time.sleep(LAG_MS // 2 + 1)
    calls.clear()
    partition.maybe_shrink_isr(LAG_MS)
    assert partition.in_sync_replica_ids == {0, 1}
    assert partition.state_store.writes[-1] == ("shrink", [0, 1], 1)
    assert partition.log.high_watermark == 4          # no longer held back by broker 2
    assert [name for name, _ in calls] == ["fetch", "produce", "delete-records"]


def test_follower_at_the_leader_end_stays_in_the_isr_however_long_it_was_quiet(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 2)
    follower_fetch(partition, 1, 2)
    partition.time.sleep(10 * LAG_MS)
    partition.maybe_shrink_isr(LAG_MS)
    assert partition.in_sync_replica_ids == {0, 1}


# ---- min.insync.replicas and acks=-1 (controller.md §5.5)

def test_acks_all_refused_before_the_append_when_the_isr_is_below_min_isr(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0], replicas=[0, 1], min_isr=2)
    with pytest.raises(Errors.NOT_ENOUGH_REPLICAS.exception_class):
        append(partition, acks=-1)
    assert partition.log.log_end_offset == 0
    append(partition, acks=1)                          # acks=1 does not care
    assert partition.log.log_end_offset == 1


def test_enough_replicas_reach_offset_once_the_hw_passes_it(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1], min_isr=2)
    append(partition, 2, acks=-1)
    assert partition.check_enough_replicas_reach_offset(2) == (False, Errors.NONE)
    follower_fetch(partition, 1, 2)
    assert partition.check_enough_replicas_reach_offset(2) == (True, Errors.NONE)


def test_isr_shrunk_below_min_isr_while_waiting_is_not_enough_replicas_after_append(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1], min_isr=2)
    append(partition, 2, acks=-1)
    partition.time.sleep(LAG_MS + 1)
    partition.maybe_shrink_isr(LAG_MS)                # broker 1 never fetched: out, and the HW moves to 2
    assert partition.check_enough_replicas_reach_offset(2) == (True, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND)


def test_a_follower_answers_not_leader_to_a_waiting_produce(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    partition.make_follower(0, leader_state([1], replicas=[0, 1], leader_epoch=2, leader=1), 2)
    assert partition.check_enough_replicas_reach_offset(1) == (False, Errors.NOT_LEADER_FOR_PARTITION)


def test_fetch_from_a_broker_that_is_not_a_replica_is_not_recorded(tmp_path):
    partition, _, _ = make_partition(tmp_path, [0, 1])
    assert follower_fetch(partition, 7, 0) is False


def test_high_watermark_starts_from_the_checkpoint(tmp_path):
    # Kafka: Partition.createLog reads the log dir's replication-offset-checkpoint
    from kafkalite.log.checkpoint_file import LazyOffsetCheckpoints, OffsetCheckpointFile
    partition, _, log_manager = make_partition(tmp_path, [0, 1])
    append(partition, 4)
    log_manager.shutdown()
    checkpoint = OffsetCheckpointFile(str(tmp_path / "replication-offset-checkpoint"))
    checkpoint.write({TP: 2})
    mock_time = MockTime()
    reopened = Partition(TP, LAG_MS, 0, mock_time, RecordingStateStore(), partition.delayed_operations, None,
                         LogManager([str(tmp_path)], LogConfig(), time=mock_time))
    reopened.make_follower(0, leader_state([1], replicas=[0, 1], leader_epoch=2, leader=1), 2,
                           LazyOffsetCheckpoints({str(tmp_path): checkpoint}))
    assert reopened.log.log_end_offset == 4 and reopened.log.high_watermark == 2


def test_list_offsets_earliest_and_latest(tmp_path):
    # Kafka: Partition.fetchOffsetForTimestamp -- -2 the log start, -1 the high watermark for a consumer and the
    # log end for a follower
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 3)
    follower_fetch(partition, 1, 1)
    partition.log.maybe_increment_log_start_offset(1)
    assert partition.fetch_offset_for_timestamp(-2, -1, True, True).offset == 1
    assert partition.fetch_offset_for_timestamp(-1, -1, True, True).offset == 1     # HW: broker 1 has 1 record
    assert partition.fetch_offset_for_timestamp(-1, -1, True, False).offset == 3    # a follower asks: the log end


def test_list_offsets_while_the_high_watermark_lags_behind_the_epoch_start(tmp_path):
    # Kafka: Partition.fetchOffsetForTimestamp -- a new leader whose high watermark is below the start offset of
    # its epoch answers a consumer's "latest", and a timestamp found nothing for below the high watermark,
    # OFFSET_NOT_AVAILABLE; a follower still gets the log end, "earliest" its log start
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 3)                                    # broker 1 fetched nothing: HW 0
    partition.make_leader(0, leader_state([0, 1], leader_epoch=2), 2)   # epoch 2 starts at offset 3
    assert partition.leader_epoch_start_offset_opt == 3 and partition.log.high_watermark == 0
    for timestamp in (-1, 1_600_000_000_000):
        with pytest.raises(ApiException) as e:
            partition.fetch_offset_for_timestamp(timestamp, 2, True, True)
        assert e.value.error is Errors.OFFSET_NOT_AVAILABLE
        assert "high watermark (0) is lagging behind the start offset from the beginning of this epoch (3)" in \
            str(e.value)
    assert partition.fetch_offset_for_timestamp(-1, 2, True, False).offset == 3
    assert partition.fetch_offset_for_timestamp(-2, 2, True, True).offset == 0
    follower_fetch(partition, 1, 3)
    assert partition.fetch_offset_for_timestamp(-1, 2, True, True).offset == 3


def test_list_offsets_timestamps_below_minus_3_are_looked_up(tmp_path):
    # Kafka 2.4: any timestamp but -1 and -2 is a lookup (kafkalite reads -3 as KIP-734's max timestamp); the
    # first record whose timestamp is at least -5 is offset 0
    partition, _, _ = make_partition(tmp_path, [0])
    append(partition, 2)
    found = partition.fetch_offset_for_timestamp(-5, -1, True, True)
    assert (found.timestamp, found.offset) == (1_600_000_000_000, 0)


def test_under_and_at_min_isr(tmp_path):
    # Kafka: Partition.isUnderMinIsr / isAtMinIsr / isUnderReplicated (the ReplicaManager gauges)
    partition, _, _ = make_partition(tmp_path, [0, 1], replicas=[0, 1, 2], min_isr=2)
    assert partition.is_at_min_isr() and not partition.is_under_min_isr() and partition.is_under_replicated()
    partition.shrink_isr({0})
    assert partition.is_under_min_isr() and not partition.is_at_min_isr()
    partition.expand_isr({0, 1, 2})
    assert not partition.is_under_min_isr() and not partition.is_at_min_isr() and not partition.is_under_replicated()


# ---- moving the replica to another log dir (the future-replica cases of Kafka's PartitionTest)

def make_partition_on_two_dirs(tmp_path):
    calls = []
    ops = DelayedOperations(TP, RecordingPurgatory("produce", calls), RecordingPurgatory("fetch", calls),
                            RecordingPurgatory("delete-records", calls))
    mock_time = MockTime()
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    log_manager = LogManager(dirs, LogConfig({"segment.bytes": 300}), time=mock_time)
    partition = Partition(TP, LAG_MS, 0, mock_time, RecordingStateStore(LogConfig({"segment.bytes": 300})), ops,
                          None, log_manager)
    partition.make_leader(0, leader_state([0]), 1)
    return partition, log_manager, dirs


def copy_to_future(partition):
    """One round of the ReplicaAlterLogDirsThread: what the current log holds past the future log's end."""
    data = partition.log.read(partition.future_log.log_end_offset, 1 << 20, None, True)
    partition.append_records_to_follower_or_future_replica(
        MemoryRecords.readable_records(data.records.read_bytes()), is_future=True)


def test_future_replica_is_created_once_and_only_in_another_dir(tmp_path):
    partition, log_manager, (a, b) = make_partition_on_two_dirs(tmp_path)
    assert partition.log.parent_dir == a
    log_manager.maybe_update_preferred_log_dir(TP, b)
    assert not partition.maybe_create_future_replica(a)          # already there
    assert partition.future_log is None
    assert partition.maybe_create_future_replica(b)
    future = partition.future_log
    assert future is log_manager.get_log(TP, is_future=True) and future.parent_dir == b
    assert partition.future_local_log_or_exception() is future
    assert not partition.maybe_create_future_replica(b)          # in progress already
    assert partition.future_replica_dir_changed(a) and not partition.future_replica_dir_changed(b)
    with pytest.raises(RuntimeError, match="different from the requested log dir"):
        partition.maybe_create_future_replica(str(tmp_path / "c"))


def test_current_replica_is_replaced_once_the_future_one_caught_up(tmp_path):
    partition, log_manager, (a, b) = make_partition_on_two_dirs(tmp_path)
    append(partition, 5)
    log_manager.maybe_update_preferred_log_dir(TP, b)
    partition.maybe_create_future_replica(b)
    current, future = partition.log, partition.future_log
    assert not partition.maybe_replace_current_with_future_replica()   # empty: behind
    copy_to_future(partition)                                         # one segment of the current log
    assert 0 < future.log_end_offset < current.log_end_offset
    assert not partition.maybe_replace_current_with_future_replica()
    while future.log_end_offset < current.log_end_offset:
        copy_to_future(partition)
    append(partition, 2)                                              # the producer goes on meanwhile
    assert not partition.maybe_replace_current_with_future_replica()
    while future.log_end_offset < current.log_end_offset:
        copy_to_future(partition)
    assert partition.maybe_replace_current_with_future_replica()
    assert partition.log is future and partition.future_log is None and log_manager.get_log(TP) is future
    assert future.parent_dir == b and future.dir.endswith("orders-0") and future.high_watermark == 7
    assert not [n for n in os.listdir(a) if n == "orders-0"]
    append(partition, 1)                                              # the leader appends to the moved log
    assert future.log_end_offset == 8
    with pytest.raises(Errors.REPLICA_NOT_AVAILABLE.exception_class):
        partition.future_local_log_or_exception()


def test_a_cancelled_move_deletes_the_future_log_and_ignores_late_appends(tmp_path):
    partition, log_manager, (a, b) = make_partition_on_two_dirs(tmp_path)
    append(partition, 3)
    log_manager.maybe_update_preferred_log_dir(TP, b)
    partition.maybe_create_future_replica(b)
    future = partition.future_log
    partition.remove_future_local_replica()
    assert partition.future_log is None and log_manager.get_log(TP, is_future=True) is None
    assert future.dir.endswith("-delete")
    data = partition.log.read(0, 1 << 20, None, True)
    assert partition.append_records_to_follower_or_future_replica(
        MemoryRecords.readable_records(data.records.read_bytes()), is_future=True) is None
    assert not partition.maybe_replace_current_with_future_replica()


def test_low_watermark_counts_the_future_log(tmp_path):
    partition, log_manager, (a, b) = make_partition_on_two_dirs(tmp_path)
    append(partition, 4)
    log_manager.maybe_update_preferred_log_dir(TP, b)
    partition.maybe_create_future_replica(b)
    copy_to_future(partition)
    partition.log.maybe_increment_log_start_offset(2)
    assert partition.low_watermark_if_leader() == 0                   # the future log still starts at 0
    partition.future_log.update_high_watermark(4)
    partition.future_log.maybe_increment_log_start_offset(3)
    assert partition.low_watermark_if_leader() == 2


# ---- DeleteRecords waits for the low watermark (Kafka's DelayedDeleteRecords, ReplicaManagerTest's cases)

class OnePartitionReplicaManager:
    def __init__(self, partition):
        self.partition, self.offline_partitions = partition, set()

    def get_partition(self, tp):
        return self.partition if tp == TP else None


def follower_fetch_with_start(partition, follower_id, offset, log_start_offset):
    log = partition.log
    return partition.update_follower_fetch_state(follower_id, LogOffsetMetadata(offset), log_start_offset,
                                                 partition.time.milliseconds(), log.log_end_offset,
                                                 log.high_watermark)


def test_delete_records_waits_until_every_live_replica_moved_its_log_start_offset(tmp_path):
    from kafkalite.server.delayed_delete_records import DeleteRecordsPartitionStatus, DelayedDeleteRecords
    from kafkalite.server.delayed_operation import DelayedOperationPurgatory
    from kafkalite.server.delayed_operation_key import TopicPartitionOperationKey
    partition, calls, _ = make_partition(tmp_path, [0, 1])
    purgatory = DelayedOperationPurgatory("DeleteRecords")
    partition.delayed_operations.delete_records = purgatory
    append(partition, 10)
    follower_fetch(partition, 1, 10)                        # the follower has everything: HW 10
    assert partition.log.high_watermark == 10
    requested, low_watermark = partition.delete_records_on_leader(6)
    assert (requested, low_watermark, partition.log.log_start_offset) == (6, 0, 6)   # the follower still starts at 0
    answers = []
    op = DelayedDeleteRecords(30_000, {TP: DeleteRecordsPartitionStatus(requested, low_watermark, Errors.NONE)},
                              OnePartitionReplicaManager(partition), answers.append)
    try:
        assert not purgatory.try_complete_else_watch(op, [TopicPartitionOperationKey.from_topic_partition(TP)])
        follower_fetch_with_start(partition, 1, 10, 3)     # moved, but not far enough
        assert answers == []
        follower_fetch_with_start(partition, 1, 10, 6)     # the follower's next fetch reports the new start
        assert answers == [{TP: (6, Errors.NONE)}]
    finally:
        purgatory.shutdown()


def test_delayed_delete_records_fails_a_partition_that_lost_leadership(tmp_path):
    from kafkalite.server.delayed_delete_records import DeleteRecordsPartitionStatus, DelayedDeleteRecords
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 4)
    follower_fetch(partition, 1, 4)
    answers = []
    op = DelayedDeleteRecords(30_000, {TP: DeleteRecordsPartitionStatus(2, 0, Errors.NONE)},
                              OnePartitionReplicaManager(partition), answers.append)
    assert not op.try_complete() and answers == []
    partition.make_follower(0, leader_state([0, 1], leader=1, leader_epoch=2), 2)
    assert op.try_complete()
    assert answers == [{TP: (-1, Errors.NOT_LEADER_FOR_PARTITION)}]


@pytest.mark.parametrize("offline,error", [(False, Errors.UNKNOWN_TOPIC_OR_PARTITION), (True, Errors.KAFKA_STORAGE_ERROR)])
def test_delayed_delete_records_fails_a_partition_no_longer_hosted(tmp_path, offline, error):
    # Kafka: DelayedDeleteRecords.tryComplete -- HostedPartition.None is UNKNOWN_TOPIC_OR_PARTITION (a replica
    # reassigned away while the request waited), HostedPartition.Offline KAFKA_STORAGE_ERROR
    from kafkalite.server.delayed_delete_records import DeleteRecordsPartitionStatus, DelayedDeleteRecords
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 4)
    follower_fetch(partition, 1, 4)
    answers = []
    rm = OnePartitionReplicaManager(partition)
    op = DelayedDeleteRecords(30_000, {TP: DeleteRecordsPartitionStatus(2, 0, Errors.NONE)}, rm, answers.append)
    assert not op.try_complete()
    rm.partition = None
    if offline:
        rm.offline_partitions.add(TP)
    assert op.try_complete()
    assert answers == [{TP: (-1, error)}]


def test_delayed_delete_records_expires_as_request_timed_out(tmp_path):
    from kafkalite.server.delayed_delete_records import DeleteRecordsPartitionStatus, DelayedDeleteRecords
    partition, _, _ = make_partition(tmp_path, [0, 1])
    append(partition, 4)
    answers = []
    op = DelayedDeleteRecords(10, {TP: DeleteRecordsPartitionStatus(2, 0, Errors.NONE),
                                   TopicPartition("orders", 9): DeleteRecordsPartitionStatus(
                                       1, -1, Errors.UNKNOWN_TOPIC_OR_PARTITION)},
                              OnePartitionReplicaManager(partition), answers.append)
    op.run()   # the purgatory's timer firing: force_complete, then on_expiration
    assert answers == [{TP: (0, Errors.REQUEST_TIMED_OUT),
                        TopicPartition("orders", 9): (-1, Errors.UNKNOWN_TOPIC_OR_PARTITION)}]


def test_delete_records_refuses_a_compacted_only_topic(tmp_path):
    partition, _, log_manager = make_partition(tmp_path, [0])
    append(partition, 3)
    partition.log.config = LogConfig({"cleanup.policy": "compact"})
    with pytest.raises(ApiException) as e:
        partition.delete_records_on_leader(1)
    assert e.value.error is Errors.POLICY_VIOLATION and partition.log.log_start_offset == 0


class CountingStateStore(RecordingStateStore):
    def __init__(self, config=None):
        super().__init__(config)
        self.config_reads = 0

    def fetch_topic_config(self):
        self.config_reads += 1
        return super().fetch_topic_config()


def test_becoming_leader_of_a_loaded_log_reads_no_topic_config(tmp_path):
    """Kafka 2.6 (KAFKA-9932): after a restart the LogManager has loaded every log, and the first LeaderAndIsr
    must not read each partition's topic config from ZooKeeper again; a log created here reads it once."""
    mock_time = MockTime()
    log_manager = LogManager([str(tmp_path)], LogConfig(), time=mock_time)
    loaded = log_manager.get_or_create_log(TP)
    ops = DelayedOperations(TP, *(RecordingPurgatory(n, []) for n in ("produce", "fetch", "delete-records")))
    store = CountingStateStore()
    partition = Partition(TP, LAG_MS, 0, mock_time, store, ops, None, log_manager, frozenset())
    partition.make_leader(0, leader_state([0]), 1)
    assert partition.log is loaded and store.config_reads == 0
    other = TopicPartition("orders", 1)
    store = CountingStateStore(LogConfig({"segment.bytes": 4096}))
    partition = Partition(other, LAG_MS, 0, mock_time, store, ops, None, log_manager, frozenset())
    partition.make_leader(0, LeaderAndIsrPartitionState(
        topic_name="orders", partition_index=1, controller_epoch=1, leader=0, leader_epoch=1, isr=[0],
        zk_version=1, replicas=[0]), 1)
    assert store.config_reads == 1 and partition.log.config.segment_size == 4096


def test_a_timestamp_lookup_does_not_hold_the_partition_lock(tmp_path, monkeypatch):
    # Kafka takes leaderIsrUpdateLock's read lock, which appends share; kafkalite's lock is exclusive, so the
    # lookup (which may load time indexes) runs outside it and an append is never held up behind it
    import threading
    from kafkalite.log.log import Log
    partition, _calls, _log_manager = make_partition(tmp_path, isr=[0])
    append(partition, 3)
    seen = {}
    real = Log.fetch_offset_by_timestamp

    def lookup(log, timestamp):
        def try_lock():
            seen["free"] = partition.leader_isr_update_lock.acquire(blocking=False)
            if seen["free"]:
                partition.leader_isr_update_lock.release()
        t = threading.Thread(target=try_lock)
        t.start()
        t.join(5)
        return real(log, timestamp)

    monkeypatch.setattr(Log, "fetch_offset_by_timestamp", lookup)
    assert partition.fetch_offset_for_timestamp(0, -1, True, True) is not None
    assert seen == {"free": True}
