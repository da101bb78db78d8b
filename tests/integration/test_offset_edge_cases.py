"""No Kafka counterpart (Kafka's are DeleteRecordsRequestTest, ListOffsetsRequestTest and
OffsetsForLeaderEpochRequestTest): the offset requests' edge cases answered as Kafka 2.4 answers them, on
the wire (raw frames where the clients would not send the case, confluent-kafka where it does).

- DeleteRecords: -1 means the high watermark; past the high watermark and other negative offsets are
  OFFSET_OUT_OF_RANGE; an unknown partition UNKNOWN_TOPIC_OR_PARTITION; an internal topic's records are not
  deleted (INVALID_TOPIC_EXCEPTION, ReplicaManager.deleteRecordsOnLocalLog).
"""
from __future__ import annotations

import pytest
from clients import create_topic, make_records, produce_confluent, raw_request
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import AdminClient
from harness import RawConnection
from support import wait_until

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import (delete_records as DR, find_coordinator as FC, list_offsets as LO,
                                         offset_for_leader_epoch as OFLE)

pytestmark = pytest.mark.timeout(90)

DELETE_RECORDS, FIND_COORDINATOR = 21, 10


@pytest.fixture
def conn(broker):
    c = RawConnection(broker.port)
    yield c
    c.close()


@pytest.fixture
def five_records(broker, unique_topic):
    """A one-partition topic holding offsets 0-4 (high watermark 5)."""
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    produce_confluent(broker.bootstrap, unique_topic, make_records(5))
    return unique_topic


def delete_records(conn, offsets: dict, timeout_ms: int = 10000, version: int = 1) -> dict:
    """``offsets``: {(topic, partition): offset}; returns {(topic, partition): (Errors, low watermark)}."""
    by_topic: dict[str, list] = {}
    for (topic, partition), offset in offsets.items():
        by_topic.setdefault(topic, []).append(DR.DeleteRecordsPartition(partition_index=partition, offset=offset))
    r = raw_request(conn, DELETE_RECORDS, version, DR.DeleteRecordsRequest(topics=[
        DR.DeleteRecordsTopic(name=t, partitions=ps) for t, ps in by_topic.items()], timeout_ms=timeout_ms))
    return {(t.name, p.partition_index): (Errors.for_code(p.error_code), p.low_watermark)
            for t in r.topics for p in t.partitions}


def test_delete_records_offsets(conn, five_records):
    t = five_records
    assert delete_records(conn, {(t, 0): 6}) == {(t, 0): (Errors.OFFSET_OUT_OF_RANGE, -1)}   # past the HW
    assert delete_records(conn, {(t, 0): -2}) == {(t, 0): (Errors.OFFSET_OUT_OF_RANGE, -1)}
    assert delete_records(conn, {(t, 0): 2}) == {(t, 0): (Errors.NONE, 2)}
    assert delete_records(conn, {(t, 0): 1}) == {(t, 0): (Errors.NONE, 2)}   # never backwards
    assert delete_records(conn, {(t, 0): -1}) == {(t, 0): (Errors.NONE, 5)}   # -1: the high watermark
    assert delete_records(conn, {(t, 0): 5}) == {(t, 0): (Errors.NONE, 5)}


def test_delete_records_unknown_partitions(conn, five_records):
    t = five_records
    assert delete_records(conn, {(t, 3): 1, (t + "-none", 0): 1}) == {
        (t, 3): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1), (t + "-none", 0): (Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)}


def test_delete_records_through_confluent_admin(broker, five_records):
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    deleted = admin.delete_records([CTopicPartition(five_records, 0, -1)])   # OFFSET_END: the high watermark
    assert next(iter(deleted.values())).result(15).low_watermark == 5


def test_delete_records_of_an_internal_topic_is_refused(broker_factory):
    b = broker_factory({"offsets.topic.num.partitions": "1"})
    conn = RawConnection(b.port)
    try:
        # FindCoordinator creates __consumer_offsets; once a coordinator is named, partition 0 has a leader here
        wait_until(lambda: raw_request(conn, FIND_COORDINATOR, 1, FC.FindCoordinatorRequest(
            key="g", key_type=0)).error_code == 0, 20, "a group coordinator")
        assert delete_records(conn, {("__consumer_offsets", 0): -1}) == {
            ("__consumer_offsets", 0): (Errors.INVALID_TOPIC_EXCEPTION, -1)}
    finally:
        conn.close()


# ---------------------------------------------------------------- ListOffsets

LIST_OFFSETS = 2


def list_offsets(conn, partitions: list[tuple], version: int, replica_id: int = -1, isolation_level: int = 0):
    """``partitions``: [(topic, partition, timestamp)] or [(topic, partition, timestamp, max_num_offsets)]; returns
    the answers in order, one per distinct partition: [(topic, partition, Errors, offset or v0 offsets)]."""
    by_topic: dict[str, list] = {}
    for topic, partition, timestamp, *max_num in partitions:
        by_topic.setdefault(topic, []).append(LO.ListOffsetsPartition(
            partition_index=partition, timestamp=timestamp, max_num_offsets=max_num[0] if max_num else 1))
    r = raw_request(conn, LIST_OFFSETS, version, LO.ListOffsetsRequest(
        replica_id=replica_id, isolation_level=isolation_level,
        topics=[LO.ListOffsetsTopic(name=t, partitions=ps) for t, ps in by_topic.items()]))
    return [(t.name, p.partition_index, Errors.for_code(p.error_code),
             p.old_style_offsets if version == 0 else p.offset) for t in r.topics for p in t.partitions]


@pytest.mark.parametrize("version", [1, 2, 5, 7])
def test_list_offsets_duplicate_partitions_are_invalid_request(conn, five_records, version):
    # Kafka 2.4: ListOffsetRequest.duplicatePartitions -- one answer for the partition, INVALID_REQUEST
    t = five_records
    assert list_offsets(conn, [(t, 0, -1), (t, 0, -2), (t, 1, -1)], version) == [
        (t, 0, Errors.INVALID_REQUEST, -1), (t, 1, Errors.UNKNOWN_TOPIC_OR_PARTITION, -1)]


def test_list_offsets_v0_duplicate_partition_answers_the_last_entry(conn, five_records):
    t = five_records
    assert list_offsets(conn, [(t, 0, -1, 1), (t, 0, -2, 1)], 0) == [(t, 0, Errors.NONE, [0])]


def test_list_offsets_v0_max_num_offsets(conn, five_records):
    t = five_records   # one segment: its base offset 0, and the log end 5
    assert list_offsets(conn, [(t, 0, -1, 10)], 0) == [(t, 0, Errors.NONE, [5, 0])]
    assert list_offsets(conn, [(t, 0, -1, 1)], 0) == [(t, 0, Errors.NONE, [5])]
    assert list_offsets(conn, [(t, 0, -1, 0)], 0) == [(t, 0, Errors.NONE, [])]
    assert list_offsets(conn, [(t, 0, -2, 10)], 0) == [(t, 0, Errors.NONE, [0])]


@pytest.mark.parametrize("version", [1, 5])
def test_list_offsets_timestamps(conn, broker, unique_topic, version):
    create_topic(broker.bootstrap, unique_topic, partitions=1)
    produce_confluent(broker.bootstrap, unique_topic, make_records(3, timestamp_base=1_600_000_000_000))
    t = unique_topic
    assert list_offsets(conn, [(t, 0, -1)], version) == [(t, 0, Errors.NONE, 3)]
    assert list_offsets(conn, [(t, 0, -2)], version) == [(t, 0, Errors.NONE, 0)]
    assert list_offsets(conn, [(t, 0, 1_600_000_000_001)], version) == [(t, 0, Errors.NONE, 1)]
    assert list_offsets(conn, [(t, 0, 1_700_000_000_000)], version) == [(t, 0, Errors.NONE, -1)]
    # Kafka 2.4: any other timestamp, negative too, is a lookup: the first record with a timestamp >= -5
    assert list_offsets(conn, [(t, 0, -5)], version) == [(t, 0, Errors.NONE, 0)]
    # a follower's or a debugging replica's id reads up to the log end (the high watermark here)
    assert list_offsets(conn, [(t, 0, -1)], version, replica_id=-2) == [(t, 0, Errors.NONE, 3)]


def test_list_offsets_read_committed_stops_at_the_open_transaction(broker_factory, unique_topic):
    from confluent_kafka import Producer
    b = broker_factory({"transaction.state.log.num.partitions": "1", "transaction.state.log.replication.factor": "1",
                        "transaction.state.log.min.isr": "1"})
    create_topic(b.bootstrap, unique_topic, partitions=1)
    produce_confluent(b.bootstrap, unique_topic, make_records(2))
    producer = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "lo-open"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(unique_topic, b"open", partition=0)
    assert producer.flush(15) == 0
    conn = RawConnection(b.port)
    try:
        t = unique_topic
        assert list_offsets(conn, [(t, 0, -1)], 2, isolation_level=1) == [(t, 0, Errors.NONE, 2)]   # the LSO
        assert list_offsets(conn, [(t, 0, -1)], 2, isolation_level=0) == [(t, 0, Errors.NONE, 3)]   # the HW
        assert list_offsets(conn, [(t, 0, -1)], 1) == [(t, 0, Errors.NONE, 3)]   # v1 has no isolation level
        producer.abort_transaction(15)
        wait_until(lambda: list_offsets(conn, [(t, 0, -1)], 2, isolation_level=1)[0][3] == 4, 15,
                   "the LSO to pass the abort marker")
    finally:
        conn.close()


# ---------------------------------------------------------------- OffsetForLeaderEpoch

OFFSET_FOR_LEADER_EPOCH = 23


def epoch_end_offsets(conn, partitions: list[tuple], version: int = 3, replica_id: int = -1):
    """``partitions``: [(topic, partition, current leader epoch, leader epoch)]; returns
    [(topic, partition, Errors, epoch, end offset)] in answer order."""
    by_topic: dict[str, list] = {}
    for topic, partition, current, epoch in partitions:
        by_topic.setdefault(topic, []).append(OFLE.OffsetForLeaderPartition(
            partition=partition, current_leader_epoch=current, leader_epoch=epoch))
    r = raw_request(conn, OFFSET_FOR_LEADER_EPOCH, version, OFLE.OffsetForLeaderEpochRequest(
        replica_id=replica_id, topics=[OFLE.OffsetForLeaderTopic(topic=t, partitions=ps) for t, ps in by_topic.items()]))
    return [(t.topic, p.partition, Errors.for_code(p.error_code), p.leader_epoch, p.end_offset)
            for t in r.topics for p in t.partitions]


def test_offset_for_leader_epoch_cases(conn, five_records):
    t = five_records   # epoch 0 (a single broker keeps its first leader epoch): offsets 0-4
    for replica_id in (-1, 1):   # a consumer or a follower: the same answers (2.4 reads no replica id)
        assert epoch_end_offsets(conn, [(t, 0, 0, 0)], replica_id=replica_id) == [(t, 0, Errors.NONE, 0, 5)]
    assert epoch_end_offsets(conn, [(t, 0, -1, 7)]) == [(t, 0, Errors.NONE, -1, -1)]   # unknown, newer
    assert epoch_end_offsets(conn, [(t, 0, -1, -1)]) == [(t, 0, Errors.NONE, -1, -1)]  # undefined epoch
    # KIP-320's current leader epoch: -1 is "not given"; any other older one is fenced, a newer one unknown
    assert epoch_end_offsets(conn, [(t, 0, -2, 0)]) == [(t, 0, Errors.FENCED_LEADER_EPOCH, -1, -1)]
    assert epoch_end_offsets(conn, [(t, 0, 1, 0)]) == [(t, 0, Errors.UNKNOWN_LEADER_EPOCH, -1, -1)]
    assert epoch_end_offsets(conn, [(t, 3, -1, 0), (t + "-none", 0, -1, 0)]) == [
        (t, 3, Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1), (t + "-none", 0, Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1)]


def test_offset_for_leader_epoch_duplicate_partition(conn, five_records):
    # Kafka 2.4's request is a map: one answer for a partition named twice, the last entry's
    t = five_records
    assert epoch_end_offsets(conn, [(t, 0, -1, 7), (t, 0, -1, 0)]) == [(t, 0, Errors.NONE, 0, 5)]


def test_list_offsets_current_leader_epoch(conn, five_records):
    t = five_records   # v4+: -1 is "not given"; any other older epoch is fenced (RequestUtils.getLeaderEpoch)
    r = raw_request(conn, LIST_OFFSETS, 4, LO.ListOffsetsRequest(replica_id=-1, topics=[LO.ListOffsetsTopic(
        name=t, partitions=[LO.ListOffsetsPartition(partition_index=0, timestamp=-1, current_leader_epoch=e)
                            for e in (-2,)])]))
    assert Errors.for_code(r.topics[0].partitions[0].error_code) is Errors.FENCED_LEADER_EPOCH
    for epoch, error in ((0, Errors.NONE), (1, Errors.UNKNOWN_LEADER_EPOCH), (-1, Errors.NONE)):
        r = raw_request(conn, LIST_OFFSETS, 4, LO.ListOffsetsRequest(replica_id=-1, topics=[LO.ListOffsetsTopic(
            name=t, partitions=[LO.ListOffsetsPartition(partition_index=0, timestamp=-1, current_leader_epoch=epoch)])]))
        assert Errors.for_code(r.topics[0].partitions[0].error_code) is error
