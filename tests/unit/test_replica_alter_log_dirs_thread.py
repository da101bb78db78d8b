"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/ReplicaAlterLogDirsThreadTest.scala and the log-dir
cases of ReplicaManagerTest (alterReplicaLogDirs, describeLogDirs), on a ReplicaManager with several log dirs:

- AlterReplicaLogDirs creates the future log in the destination dir and hands the partition to the
  ReplicaAlterLogDirsManager; the thread reads the current log as replica -3 and appends to the future log,
  several rounds when the copy is larger than ``replica.fetch.max.bytes``, and swaps the logs once the future
  one caught up (not before, however the producer goes on);
- DescribeLogDirs reports each dir with its current and future logs (size, lag, future or not);
- a dir not in log.dirs is LOG_DIR_NOT_FOUND; a partition not hosted yet is REPLICA_NOT_AVAILABLE and will be
  created in that dir; moving to the current dir does nothing; a new destination cancels the move in progress;
- a LeaderAndIsr with a new leader epoch hands a move its thread dropped (fenced) back to it (KAFKA-9654, 2.6);
- a move the broker did not finish resumes after a restart, with a real ``ReplicaAlterLogDirsThread-<id>``, from
  the future log's high watermark (KAFKA-9087, Kafka 3.5; with 2.4's current-log HW it fails, a strict xfail).
"""
import os
import re
import threading

import pytest

from kafkalite.cluster.broker_end_point import BrokerEndPoint
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_manager import LogManager
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.describe_log_dirs import ReplicaInfo
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState, LeaderAndIsrRequest
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.server.abstract_fetcher_manager import BrokerIdAndFetcherId, FailedPartitions
from kafkalite.server.abstract_fetcher_thread import OffsetAndEpoch, ReplicaState
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.replica_alter_log_dirs_thread import ReplicaAlterLogDirsThread
from kafkalite.server.replica_manager import ReplicaManager
from kafkalite.utils.time import SYSTEM
from support import wait_until, with_and_without_fix

TP = TopicPartition("t", 0)
LOG_CONFIG = {"segment.bytes": 1024}


class Metadata:
    """The cluster's metadata knows partition u-0 (not hosted here until ``lead("u")``)."""

    def get_alive_broker(self, broker_id):
        return None

    def get_partition_info(self, topic, partition):
        return object() if (topic, partition) == ("u", 0) else None


class NoScheduler:
    def schedule(self, name, fn, delay_ms, period_ms):
        pass


class RecordingFetcherManager:
    def __init__(self):
        self.added, self.removed = {}, []

    def add_fetcher_for_partitions(self, states):
        self.added.update(states)

    def remove_fetcher_for_partitions(self, partitions):
        self.removed.append(set(partitions))

    def shutdown_idle_fetcher_threads(self):
        pass

    def shutdown(self):
        pass


class Broker:
    """A ReplicaManager and LogManager over ``dirs``; ``restart()`` builds them again on the same dirs."""

    def __init__(self, tmp_path, dirs=("a", "b"), **props):
        self.dirs = [str(tmp_path / d) for d in dirs]
        self.props = {"broker.id": "0", "log.dirs": ",".join(self.dirs), "zookeeper.connect": "embedded:x",
                      **props}
        self.start()

    def start(self):
        self.config = KafkaConfig(self.props)
        self.log_manager = LogManager(self.dirs, LogConfig(LOG_CONFIG), time=SYSTEM)
        self.rm = ReplicaManager(self.config, SYSTEM, None, NoScheduler(), self.log_manager, Metadata(),
                                 lambda topic: LogConfig(LOG_CONFIG))
        self.controller_epoch = 1

    def stop(self):
        self.rm.shutdown()
        self.log_manager.shutdown()

    def restart(self):
        self.stop()
        self.start()

    def lead(self, topic="t", leader_epoch=0):
        state = LeaderAndIsrPartitionState(topic_name=topic, partition_index=0, controller_epoch=1, leader=0,
                                           leader_epoch=leader_epoch, isr=[0], zk_version=0, replicas=[0])
        request = LeaderAndIsrRequest.build(2, [state], controller_id=0, controller_epoch=1, live_leaders=[])
        response = self.rm.become_leader_or_follower(1, request, lambda leaders, followers: None)
        assert [e.error_code for e in response.partition_errors] == [0]
        return self.rm.get_partition(TopicPartition(topic, 0))

    def produce(self, n, topic="t"):
        partition = self.rm.get_partition(TopicPartition(topic, 0))
        for i in range(n):
            partition.append_records_to_leader(
                MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, None, f"v{i:04}".encode() * 10)), True, 1)


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path)
    yield b
    b.stop()


def values(log):
    out, offset = [], log.log_start_offset
    while offset < log.log_end_offset:
        data = log.read(offset, 1 << 20, None, True)
        for batch in MemoryRecords.readable_records(data.records.read_bytes()).batches():
            out += [(r.offset, bytes(r.value)) for r in batch]
            offset = batch.last_offset + 1
    return out


def thread_for(broker, fetch_max_bytes=None):
    config = broker.config if fetch_max_bytes is None else KafkaConfig(
        {**broker.props, "replica.fetch.max.bytes": str(fetch_max_bytes)})
    return ReplicaAlterLogDirsThread("ReplicaAlterLogDirsThread-0", BrokerEndPoint(0, "localhost", -1), config,
                                     FailedPartitions(), broker.rm, SYSTEM)


def start_move(broker, destination):
    broker.rm.replica_alter_log_dirs_manager = recorded = RecordingFetcherManager()
    assert broker.rm.alter_replica_log_dirs({TP: destination}) == {TP: Errors.NONE}
    return recorded


def test_the_thread_copies_the_current_log_then_swaps(broker):
    partition = broker.lead()
    broker.produce(40)
    source, target = broker.dirs
    assert partition.log.parent_dir == source
    recorded = start_move(broker, target)
    future = partition.future_log
    assert future.parent_dir == target and re.fullmatch(r"t-0\.[0-9a-f]{32}-future", os.path.basename(future.dir))
    state = recorded.added[TP]
    assert (state.leader.id, state.leader.port, state.current_leader_epoch, state.init_offset) == (0, -1, 0, 0)
    described = broker.rm.describe_log_dirs({TP})
    assert set(described) == {source, target}
    assert described[source].replica_infos[TP] == ReplicaInfo(partition.log.size, 0, False)
    assert described[target].replica_infos[TP] == ReplicaInfo(0, 40, True)   # 40 offsets behind the current log

    expected = values(partition.log)
    thread = thread_for(broker, fetch_max_bytes=2048)   # several rounds
    thread.add_partitions({TP: OffsetAndEpoch(state.init_offset, state.current_leader_epoch)})
    thread.do_work()
    assert partition.future_log is future and 0 < future.log_end_offset < partition.log.log_end_offset
    broker.produce(5)                                   # the producer goes on while the copy runs
    expected = values(partition.log)
    rounds = 1
    while thread.partition_count() and rounds < 100:
        thread.do_work()
        rounds += 1
    assert thread.partition_count() == 0 and rounds > 2
    assert partition.log is future and partition.future_log is None and future.dir == os.path.join(target, "t-0")
    assert values(future) == expected
    assert not [n for n in os.listdir(source) if n == "t-0"]
    described = broker.rm.describe_log_dirs({TP})
    assert described[source].replica_infos == {}
    assert described[target].replica_infos[TP] == ReplicaInfo(future.size, 0, False)


def test_the_thread_reads_as_the_future_replica_up_to_the_log_end(broker):
    from kafkalite.protocol.messages.fetch import FetchPartition
    partition = broker.lead()
    broker.produce(3)
    assert partition.log.high_watermark == 3
    partition.log.append_as_leader(MemoryRecords.with_records(SimpleRecord(1, None, b"above-hw")), 0)
    answers = []
    info = FetchPartition(partition=0, fetch_offset=0, log_start_offset=0, partition_max_bytes=1 << 20)
    broker.rm.fetch_messages(0, -3, 0, 1 << 20, False, [(TP, info)], answers.append)
    [(tp, data)] = answers[0]
    assert data.error is Errors.NONE
    assert len(list(MemoryRecords.readable_records(data.records.read_bytes()).batches())) == 4


def test_alter_replica_log_dirs_errors_and_no_ops(tmp_path):
    broker = Broker(tmp_path, dirs=("a", "b", "c"))
    try:
        a, b, c = broker.dirs
        partition = broker.lead()
        broker.rm.replica_alter_log_dirs_manager = recorded = RecordingFetcherManager()
        assert broker.rm.alter_replica_log_dirs({TP: str(tmp_path / "x")}) == {TP: Errors.LOG_DIR_NOT_FOUND}
        assert broker.rm.alter_replica_log_dirs({TP: a}) == {TP: Errors.NONE}          # where it is already
        assert partition.future_log is None and recorded.added == {}
        # a partition not hosted yet: remembered, and created there when it comes; one the metadata does not
        # know is UNKNOWN_TOPIC_OR_PARTITION (Kafka: getPartitionOrException(expectLeader = false))
        other = TopicPartition("u", 0)
        assert broker.rm.alter_replica_log_dirs({other: c}) == {other: Errors.REPLICA_NOT_AVAILABLE}
        unknown = TopicPartition("nope", 0)
        assert broker.rm.alter_replica_log_dirs({unknown: c}) == {unknown: Errors.UNKNOWN_TOPIC_OR_PARTITION}
        assert broker.lead("u").log.parent_dir == c
        # a new destination cancels the move in progress
        assert broker.rm.alter_replica_log_dirs({TP: b}) == {TP: Errors.NONE}
        first = partition.future_log
        assert broker.rm.alter_replica_log_dirs({TP: c}) == {TP: Errors.NONE}
        assert recorded.removed == [{TP}] and first.dir.endswith("-delete")
        assert partition.future_log.parent_dir == c and set(recorded.added) == {TP}
    finally:
        broker.stop()


@pytest.mark.parametrize("disabled_fixes", with_and_without_fix("KAFKA-9087"))
def test_an_unfinished_move_resumes_after_a_restart(tmp_path, disabled_fixes):
    broker = Broker(tmp_path, **{"kafkalite.test.disable.fixes": ",".join(disabled_fixes)})
    try:
        partition = broker.lead()
        broker.produce(30)
        source, target = broker.dirs
        start_move(broker, target)               # recorded only: no thread copies before the restart
        future_dir = partition.future_log.dir
        broker.restart()
        assert broker.log_manager.get_log(TP, is_future=True).dir == future_dir
        partition = broker.lead()                # the first LeaderAndIsr after the start resumes the move
        failed = broker.rm.replica_alter_log_dirs_manager.failed_partitions
        wait_until(lambda: partition.log.parent_dir == target or failed.contains(TP), 15,
                   "the moved log to replace the current one (or the move to fail)")
        assert partition.log.parent_dir == target, "the thread failed the partition: offset mismatch"
        assert partition.future_log is None and len(values(partition.log)) == 30
        names = [t.name for t in threading.enumerate()]
        assert any(re.fullmatch(r"ReplicaAlterLogDirsThread-\d+", n) for n in names), names
        broker.rm.shutdown_idle_replica_alter_log_dirs_thread()
        assert not broker.rm.replica_alter_log_dirs_manager.fetcher_thread_map
    finally:
        broker.stop()


def test_a_failed_destination_dir_stops_the_move_and_is_described_offline(tmp_path):
    # Kafka: LogDirFailureTest -- the partition stays online in its current dir; the dir answers KAFKA_STORAGE_ERROR
    broker = Broker(tmp_path, dirs=("a", "b", "c"))
    try:
        a, b, c = broker.dirs
        partition = broker.lead()
        broker.produce(5)
        recorded = start_move(broker, b)
        broker.rm.handle_log_dir_failure(b)
        assert recorded.removed == [{TP}] and partition.future_log is None
        assert broker.log_manager.get_log(TP, is_future=True) is None
        assert partition.log.parent_dir == a and broker.rm.get_partition(TP) is partition
        described = broker.rm.describe_log_dirs({TP})
        assert described[b].error is Errors.KAFKA_STORAGE_ERROR and described[b].replica_infos == {}
        assert described[a].error is Errors.NONE and set(described[a].replica_infos) == {TP}
        assert broker.rm.alter_replica_log_dirs({TP: b}) == {TP: Errors.KAFKA_STORAGE_ERROR}
        # Kafka 2.4's LogManager.getOrCreateLog makes no log that is not new (a future log neither) while a dir
        # is offline: the move waits for the broker's restart
        assert broker.rm.alter_replica_log_dirs({TP: c}) == {TP: Errors.KAFKA_STORAGE_ERROR}
        assert partition.future_log is None and partition.log.parent_dir == a
    finally:
        broker.stop()


def test_a_new_leader_epoch_restarts_a_fenced_move(broker):
    # KAFKA-9654 (Kafka 2.6): the LeaderAndIsr that bumps the epoch hands the partition to the thread again
    partition = broker.lead()
    broker.produce(40)
    source, target = broker.dirs
    recorded = start_move(broker, target)
    thread = thread_for(broker, fetch_max_bytes=2048)
    thread.add_partitions({TP: OffsetAndEpoch(0, 0)})
    thread.do_work()
    copied = partition.future_log.log_end_offset
    assert 0 < copied < 40
    broker.lead(leader_epoch=1)
    thread.do_work()                                   # its fetch carries epoch 0: fenced, the partition fails
    assert thread.partition_count() == 0 and thread.failed_partitions.contains(TP)
    state = recorded.added[TP]
    assert (state.current_leader_epoch, state.init_offset) == (1, partition.future_log.high_watermark)
    thread.failed_partitions.remove_all({TP})          # what the manager's add_fetcher_for_partitions does
    thread.add_partitions({TP: OffsetAndEpoch(state.init_offset, state.current_leader_epoch)})
    rounds = 0
    while thread.partition_count() and rounds < 100:
        thread.do_work()
        rounds += 1
    assert partition.log.parent_dir == target and len(values(partition.log)) == 40


def test_a_truncation_of_the_current_log_reaches_the_future_log(broker):
    # what ReplicaFetcherThread.truncate does for a follower whose replica is moving: markPartitionsForTruncation
    partition = broker.lead()
    broker.produce(40)
    source, target = broker.dirs
    start_move(broker, target)
    thread = thread_for(broker, fetch_max_bytes=2048)
    thread.add_partitions({TP: OffsetAndEpoch(0, 0)})
    thread.do_work()
    thread.do_work()
    assert partition.future_log.log_end_offset > 10
    partition.truncate_to(10)
    broker.rm.replica_alter_log_dirs_manager = broker.rm.create_replica_alter_log_dirs_manager()
    broker.rm.replica_alter_log_dirs_manager.fetcher_thread_map[
        BrokerIdAndFetcherId(0, broker.rm.replica_alter_log_dirs_manager.get_fetcher_id(TP))] = thread
    broker.rm.replica_alter_log_dirs_manager.mark_partitions_for_truncation(0, TP, 10)
    state = thread.fetch_state(TP)
    assert (state.state, state.fetch_offset) == (ReplicaState.TRUNCATING, 10)
    thread.do_work()
    assert partition.future_log is None or partition.future_log.log_end_offset <= 10
    rounds = 0
    while thread.partition_count() and rounds < 100:
        thread.do_work()
        rounds += 1
    assert partition.log.parent_dir == target and [o for o, _ in values(partition.log)] == list(range(10))
    broker.rm.replica_alter_log_dirs_manager.fetcher_thread_map.clear()


def test_the_copy_waits_while_the_alter_log_dirs_quota_is_exceeded(broker):
    # Kafka: ReplicaAlterLogDirsThread.buildFetch (nothing while quota.isQuotaExceeded) and processPartitionData
    # (every byte copied recorded), with a real AlterLogDirsReplication ReplicationQuotaManager at 1 byte/s
    from kafkalite.common.metrics.metrics import Metrics, Quota
    from kafkalite.server.client_quota_manager import QuotaType
    from kafkalite.server.replication_quota_manager import ReplicationQuotaManager, ReplicationQuotaManagerConfig
    from kafkalite.utils.time import MockTime
    time = MockTime()
    quota = ReplicationQuotaManager(ReplicationQuotaManagerConfig(), Metrics(clock=time.milliseconds,
                                                                             yammer_registry=None),
                                    QuotaType.AlterLogDirsReplication, time)
    quota.update_quota(Quota.upper_bound(1))
    partition = broker.lead()
    broker.produce(40)
    state = start_move(broker, broker.dirs[1]).added[TP]
    thread = ReplicaAlterLogDirsThread("ReplicaAlterLogDirsThread-0", BrokerEndPoint(0, "localhost", -1),
                                       KafkaConfig({**broker.props, "replica.fetch.max.bytes": "2048"}),
                                       FailedPartitions(), broker.rm, SYSTEM, quota=quota)
    thread.add_partitions({TP: OffsetAndEpoch(state.init_offset, state.current_leader_epoch)})
    thread.do_work()                                   # one round: its bytes take the rate over 1 byte/s
    copied = partition.future_log.log_end_offset
    assert 0 < copied < partition.log.log_end_offset
    assert quota.is_quota_exceeded()
    assert thread.build_fetch(thread.partition_states.partition_state_map()).result is None
    quota.update_quota(Quota.upper_bound(2 ** 63 - 1))   # the throttle removed: the copy goes on
    assert thread.build_fetch(thread.partition_states.partition_state_map()).result is not None
