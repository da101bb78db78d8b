"""No Kafka counterpart: test doubles for the transaction coordinator tests (Kafka's tests use EasyMock for the
same collaborators).

TxnReplicaManager appends to in-memory ``__transaction_state`` logs (group_test_support.MemoryLog), can fail the
next appends with an error, or hold their callbacks until the test releases them. FakeProducerIdManager counts
up. FakeMetadataCache answers leaders from a dict. RecordingMarkerChannel stands in for the
TransactionMarkerChannelManager where a test only wants to see which markers the coordinator asked for.
"""
from __future__ import annotations

from group_test_support import ImmediateScheduler, MemoryLog, PartitionResponse

from kafkalite.common.topic import TRANSACTION_STATE_TOPIC_NAME
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction import transaction_log as TransactionLog
from kafkalite.coordinator.transaction.transaction_state_manager import TransactionConfig, TransactionStateManager
from kafkalite.protocol.errors import Errors
from kafkalite.utils.time import MockTime

NUM_PARTITIONS = 5


class TxnReplicaManager:
    def __init__(self, partitions=range(NUM_PARTITIONS)):
        self.logs = {TopicPartition(TRANSACTION_STATE_TOPIC_NAME, p): MemoryLog() for p in partitions}
        self.fail_with: Errors | None = None
        self.hold = False
        self.held: list = []
        self.appends = []   # (tp, required_acks)

    def get_log(self, tp):
        return self.logs.get(tp)

    def append_records(self, timeout_ms, required_acks, internal_topics_allowed, is_from_client,
                       entries_per_partition, response_callback):
        assert internal_topics_allowed and not is_from_client
        result = {}
        for tp, records in entries_per_partition.items():
            self.appends.append((tp, required_acks))
            if self.fail_with is not None:
                result[tp] = PartitionResponse(self.fail_with)
            else:
                result[tp] = PartitionResponse(Errors.NONE, self.logs[tp].append(records))
        if self.hold:
            self.held.append(lambda: response_callback(result))
        else:
            response_callback(result)

    def release(self):
        held, self.held = self.held, []
        for f in held:
            f()

    def records(self, partition):
        """(transactional id, TransactionMetadata or None) for every record of one partition, in order."""
        out = []
        for batch in self.logs[TopicPartition(TRANSACTION_STATE_TOPIC_NAME, partition)].read(0, 1 << 30).records.batches():
            for r in batch:
                txn_id = TransactionLog.read_txn_record_key(bytes(r.key)).transactional_id
                value = None if r.value is None else TransactionLog.read_txn_record_value(txn_id, bytes(r.value))
                out.append((txn_id, value))
        return out


class FakeProducerIdManager:
    def __init__(self, start=1000):
        self.next_id = start

    def generate_producer_id(self):
        self.next_id += 1
        return self.next_id - 1


class RecordingMarkerChannel:
    def __init__(self):
        self.sent = []      # (transactional id, coordinator epoch, result, metadata, transit)
        self.removed = []

    def add_txn_markers_to_send(self, transactional_id, coordinator_epoch, result, txn_metadata, new_metadata):
        self.sent.append((transactional_id, coordinator_epoch, result, txn_metadata, new_metadata))

    def remove_markers_for_txn_topic_partition(self, partition):
        self.removed.append(partition)

    def start(self):
        pass

    def shutdown(self):
        pass


def new_state_manager(time=None, replica_manager=None, **config):
    config.setdefault("transaction_log_num_partitions", NUM_PARTITIONS)
    return TransactionStateManager(0, None, ImmediateScheduler(), replica_manager or TxnReplicaManager(),
                                   TransactionConfig(**config), time or MockTime())


def partition_of(manager, transactional_id):
    return manager.partition_for(transactional_id)
