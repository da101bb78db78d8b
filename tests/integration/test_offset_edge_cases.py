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
from kafkalite.protocol.messages import delete_records as DR, find_coordinator as FC

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
