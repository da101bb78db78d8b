"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/cluster/PartitionTest.scala (the parts that apply
before replication): a Partition is built with a LogManager and its DelayedOperations, creates its log
through the LogManager, and after an append completes delayed requests as 2.4 does -- every purgatory
(fetch, produce, delete-records) when the high watermark moved, only the fetch purgatory when just the
log end did."""
from kafkalite.cluster.partition import DelayedOperations, Partition
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.log_config import LogConfig
from kafkalite.log.log_manager import LogManager
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState
from kafkalite.record.memory_records import MemoryRecords, SimpleRecord
from kafkalite.utils.time import MockTime

TP = TopicPartition("orders", 0)


class RecordingPurgatory:
    def __init__(self, name, calls):
        self.name, self.calls = name, calls

    def check_and_complete(self, key):
        self.calls.append((self.name, key))
        return 0


def make_partition(tmp_path, isr):
    calls = []
    ops = DelayedOperations(TP, RecordingPurgatory("produce", calls), RecordingPurgatory("fetch", calls),
                            RecordingPurgatory("delete-records", calls))
    mock_time = MockTime()
    log_manager = LogManager([str(tmp_path)], LogConfig(), time=mock_time)
    partition = Partition(TP, 0, mock_time, log_manager, ops, lambda topic: LogConfig())
    state = LeaderAndIsrPartitionState(topic_name="orders", partition_index=0, controller_epoch=1, leader=0,
                                       leader_epoch=1, isr=isr, zk_version=1, replicas=sorted(set(isr) | {0}))
    partition.make_leader(0, state, 1)
    return partition, calls, log_manager


def append(partition):
    records = MemoryRecords.with_records(SimpleRecord(1_600_000_000_000, None, b"v"))
    partition.append_records_to_leader(records, True, 1)


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
