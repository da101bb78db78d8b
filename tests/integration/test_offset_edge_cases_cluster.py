"""No Kafka counterpart (Kafka's are DeleteRecordsRequestTest, ListOffsetsRequestTest and
OffsetsForLeaderEpochRequestTest against a cluster): the offset requests' answers from a follower and
across leader epochs, on an in-process two-broker cluster.

- A follower answers DeleteRecords, a consumer's ListOffsets and OffsetForLeaderEpoch (whatever its
  replica id) NOT_LEADER_FOR_PARTITION; a debugging ListOffsets (replica id -2) reads its log end.
- Once the leadership moved (epoch 1), OffsetForLeaderEpoch for epoch 0 ends where epoch 1 starts, and a
  current leader epoch of 0 is FENCED_LEADER_EPOCH for OffsetForLeaderEpoch and ListOffsets alike.
"""
from __future__ import annotations

import pytest
from clients import raw_request
from confluent_kafka import Producer
from harness import RawConnection
from support import wait_until

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import (create_topics as CT, delete_records as DR, list_offsets as LO,
                                         offset_for_leader_epoch as OFLE)

pytestmark = pytest.mark.timeout(120)

TOPIC = "edges"
TP = TopicPartition(TOPIC, 0)


def leader_and_epoch(cluster):
    lice = cluster.controller().server.kafka_controller.controller_context.partition_leadership_info.get(TP)
    return None if lice is None else (lice.leader_and_isr.leader, lice.leader_and_isr.leader_epoch,
                                      sorted(lice.leader_and_isr.isr))


def produce(bootstrap, values):
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for v in values:
        producer.produce(TOPIC, v, partition=0)
    assert producer.flush(20) == 0


def delete_records(conn, offset):
    r = raw_request(conn, 21, 1, DR.DeleteRecordsRequest(topics=[DR.DeleteRecordsTopic(
        name=TOPIC, partitions=[DR.DeleteRecordsPartition(partition_index=0, offset=offset)])], timeout_ms=5000))
    p = r.topics[0].partitions[0]
    return Errors.for_code(p.error_code), p.low_watermark


def list_offset(conn, replica_id=-1, current_leader_epoch=-1, version=4):
    r = raw_request(conn, 2, version, LO.ListOffsetsRequest(replica_id=replica_id, topics=[LO.ListOffsetsTopic(
        name=TOPIC, partitions=[LO.ListOffsetsPartition(partition_index=0, timestamp=-1,
                                                        current_leader_epoch=current_leader_epoch)])]))
    p = r.topics[0].partitions[0]
    return Errors.for_code(p.error_code), p.offset


def epoch_end(conn, leader_epoch, current_leader_epoch=-1, replica_id=-1):
    r = raw_request(conn, 23, 3, OFLE.OffsetForLeaderEpochRequest(replica_id=replica_id, topics=[
        OFLE.OffsetForLeaderTopic(topic=TOPIC, partitions=[OFLE.OffsetForLeaderPartition(
            partition=0, current_leader_epoch=current_leader_epoch, leader_epoch=leader_epoch)])]))
    p = r.topics[0].partitions[0]
    return Errors.for_code(p.error_code), p.leader_epoch, p.end_offset


def test_follower_answers_and_epochs_after_a_leader_change(kafka_cluster_factory):
    cluster = kafka_cluster_factory(2, replication_factor=2)
    conn = RawConnection(cluster.controller().port)
    r = raw_request(conn, 19, 5, CT.CreateTopicsRequest(topics=[CT.CreatableTopic(
        name=TOPIC, num_partitions=-1, replication_factor=-1, configs=[],
        assignments=[CT.CreatableReplicaAssignment(partition_index=0, broker_ids=[0, 1])])], timeout_ms=15000))
    conn.close()
    assert r.topics[0].error_code == 0
    wait_until(lambda: leader_and_epoch(cluster) == (0, 0, [0, 1]), 15, "broker 0 to lead with both in the ISR")
    produce(cluster.bootstrap_servers, [b"a", b"b", b"c"])             # epoch 0: offsets 0-2

    follower = RawConnection(cluster.brokers[1].port)
    try:
        wait_until(lambda: list_offset(follower, replica_id=-2) == (Errors.NONE, 3), 15, "the follower to catch up")
        assert delete_records(follower, 1) == (Errors.NOT_LEADER_FOR_PARTITION, -1)
        assert list_offset(follower) == (Errors.NOT_LEADER_FOR_PARTITION, -1)
        for replica_id in (-1, 0):
            assert epoch_end(follower, 0, replica_id=replica_id) == (Errors.NOT_LEADER_FOR_PARTITION, -1, -1)

        cluster.brokers[0].stop()                                        # broker 1 leads, epoch 1
        wait_until(lambda: (leader_and_epoch(cluster) or (None,))[0] == 1, 30, "broker 1 to lead")
        produce(cluster.brokers[1].bootstrap_servers, [b"d", b"e"])      # epoch 1: offsets 3-4
        epoch = leader_and_epoch(cluster)[1]
        assert epoch >= 1
        assert epoch_end(follower, 0) == (Errors.NONE, 0, 3)              # epoch 0 ends where the next starts
        assert epoch_end(follower, epoch) == (Errors.NONE, epoch, 5)     # the current epoch: the log end
        assert epoch_end(follower, 0, current_leader_epoch=0) == (Errors.FENCED_LEADER_EPOCH, -1, -1)
        assert epoch_end(follower, 0, current_leader_epoch=epoch + 1) == (Errors.UNKNOWN_LEADER_EPOCH, -1, -1)
        assert list_offset(follower, current_leader_epoch=0) == (Errors.FENCED_LEADER_EPOCH, -1)
        assert list_offset(follower, current_leader_epoch=epoch) == (Errors.NONE, 5)
    finally:
        follower.close()
