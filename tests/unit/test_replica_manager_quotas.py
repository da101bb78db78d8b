"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/ReplicaManagerQuotasTest.scala -- the leader's read
path under a replication quota, on a real in-process broker leading two partitions whose replicas are itself
and broker 1 (never started): a follower fetch reads no records for a throttled partition of a follower not
in the ISR once the quota is exceeded (``ReplicaManager.should_leader_throttle``), while an in-sync follower,
or a quota not exceeded, reads them; a DelayedFetch neither counts nor completes on a throttled partition.
The quota is a stand-in whose ``is_quota_exceeded`` answers as scripted (Kafka's test mocks it the same way).
"""
import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.log.fetch_data_info import FetchIsolation
from kafkalite.protocol.messages.fetch import FetchPartition
from kafkalite.protocol.messages.leader_and_isr import LeaderAndIsrPartitionState, LeaderAndIsrRequest
from kafkalite.server.delayed_fetch import DelayedFetch, FetchMetadata, FetchPartitionStatus
from kafkalite.server.replication_quota_manager import ReplicaQuota
from kafkalite.testing.embedded_kafka import EmbeddedKafka
from test_replica_manager import create_topic, produce

FOLLOWER = 1
TP1, TP2 = TopicPartition("t1", 0), TopicPartition("t2", 0)


class ScriptedQuota(ReplicaQuota):
    """Every partition throttled; ``is_quota_exceeded`` answers the script in turn, then its last answer."""

    def __init__(self, *exceeded: bool):
        self.exceeded = list(exceeded)
        self.recorded = []

    def record(self, value: int) -> None:
        self.recorded.append(value)

    def is_throttled(self, topic_partition) -> bool:
        return True

    def is_quota_exceeded(self) -> bool:
        return self.exceeded.pop(0) if len(self.exceeded) > 1 else self.exceeded[0]


@pytest.fixture
def broker(tmp_path):
    b = EmbeddedKafka(log_dir=str(tmp_path / "logs")).start()
    yield b
    b.stop()


def lead_with_follower(rm, topic, isr):
    """This broker leads ``topic``-0; broker 1 is a replica, in the ISR or not."""
    partition = rm.get_partition(TopicPartition(topic, 0))
    state = LeaderAndIsrPartitionState(topic_name=topic, partition_index=0, controller_epoch=rm.controller_epoch,
                                       leader=0, leader_epoch=partition.leader_epoch + 1, isr=list(isr),
                                       zk_version=partition.leader_epoch + 1, replicas=[0, FOLLOWER])
    request = LeaderAndIsrRequest.build(2, [state], controller_id=rm.active_controller_id,
                                        controller_epoch=rm.controller_epoch, live_leaders=[])
    rm.become_leader_or_follower(1, request, lambda leaders, followers: None)
    return partition


def set_up(broker, follower_in_sync=False):
    rm = broker.server.replica_manager
    for tp in (TP1, TP2):
        create_topic(broker.server, tp.topic)
        lead_with_follower(rm, tp.topic, [0, FOLLOWER] if follower_in_sync else [0])
        produce(rm, tp.topic, 1)
    return rm


def fetch_info(offset=0):
    return FetchPartition(partition=0, fetch_offset=offset, log_start_offset=0, partition_max_bytes=1 << 20)


def read(rm, quota):
    results = rm.read_from_local_log(FOLLOWER, True, FetchIsolation.FETCH_LOG_END, 2 ** 31 - 1, False,
                                     [(TP1, fetch_info()), (TP2, fetch_info())], quota)
    return [len(list(r.info.records.batches())) for _, r in results]


def test_should_exclude_subsequent_throttled_partitions(broker):
    rm = set_up(broker)
    # given two partitions, with only the first read before the quota is exceeded: the first, not the second
    assert read(rm, ScriptedQuota(False, True)) == [1, 0]


def test_should_get_no_messages_if_quotas_exceeded_on_subsequent_partitions(broker):
    rm = set_up(broker)
    assert read(rm, ScriptedQuota(True)) == [0, 0]


def test_should_get_both_messages_if_quotas_allow(broker):
    rm = set_up(broker)
    assert read(rm, ScriptedQuota(False)) == [1, 1]


def test_should_include_in_sync_throttled_replicas(broker):
    rm = set_up(broker, follower_in_sync=True)
    # an in-sync follower is never held back, over the quota or not
    assert read(rm, ScriptedQuota(True)) == [1, 1]


def test_fetch_messages_passes_the_quota_to_the_read(broker):
    rm = set_up(broker)
    answers = []
    rm.fetch_messages(0, FOLLOWER, 1, 1 << 20, False, [(TP1, fetch_info())], answers.append, quota=ScriptedQuota(True))
    [[(_, data)]] = answers
    assert data.records.size_in_bytes() == 0
    # a consumer's fetch (no quota given) reads the records
    answers.clear()
    rm.fetch_messages(0, -1, 1, 1 << 20, False, [(TP1, fetch_info())], answers.append)
    assert answers[0][0][1].records.size_in_bytes() > 0


@pytest.mark.parametrize("follower_in_sync", [False, True])
def test_complete_in_delayed_fetch_with_replica_throttling(broker, follower_in_sync):
    rm = set_up(broker, follower_in_sync)
    partition = rm.get_partition(TP1)
    start = partition.log.log_end_offset_metadata
    produce(rm, TP1.topic, 1)                   # a batch to read past the follower's offset
    partition.get_replica(FOLLOWER).last_sent_high_watermark = partition.log.high_watermark   # no case H
    metadata = FetchMetadata(1, 1 << 20, False, True, FetchIsolation.FETCH_LOG_END, True, FOLLOWER,
                             [(TP1, FetchPartitionStatus(start, fetch_info(start.message_offset)))],
                             [(TP1, fetch_info(start.message_offset))])
    delayed = DelayedFetch(60_000, metadata, rm, lambda result: None, ScriptedQuota(True))
    # Kafka: an out-of-sync throttled replica does not complete the fetch; an in-sync one does
    assert delayed.try_complete() is follower_in_sync
