"""Kafka 2.4: clients/src/test/java/org/apache/kafka/common/message/MessageTest.java for the KIP-848 messages
(Kafka 3.7+): hand-built bytes of ConsumerGroupHeartbeat v0-1 and ConsumerGroupDescribe v0 (written out from the
flexible encoding rules) match. Their round trips of every version and their ApiKeys entries are checked with the
other group messages in test_protocol_messages_group.py."""
import uuid

from kafkalite.protocol.messages.consumer_group_heartbeat import (
    ConsumerGroupHeartbeatAssignment, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
    ConsumerGroupHeartbeatTopicPartitions,
)
from kafkalite.protocol.schema import read, write


def test_heartbeat_request_v1_bytes():
    r = ConsumerGroupHeartbeatRequest(group_id="g", member_id="m", member_epoch=0, rebalance_timeout_ms=30000,
                                      subscribed_topic_names=["t"], topic_partitions=[])
    expected = (b"\x02g" + b"\x02m" + b"\x00\x00\x00\x00"      # group id, member id, epoch 0
                + b"\x00" + b"\x00"                             # instance id, rack id: null
                + b"\x00\x00\x75\x30"                           # rebalance timeout 30000
                + b"\x02" + b"\x02t"                            # one subscribed topic
                + b"\x00" + b"\x00"                             # regex (v1), server assignor: null
                + b"\x01" + b"\x00")                            # no owned partitions; no tagged fields
    assert bytes(write(r, 1)) == expected
    assert bytes(write(r, 0)) == expected.replace(b"\x02t" + b"\x00\x00", b"\x02t" + b"\x00", 1)   # no regex in v0
    assert read(ConsumerGroupHeartbeatRequest, 1, expected)[0] == r


def test_heartbeat_response_with_assignment_bytes():
    tid = uuid.UUID(int=5)
    r = ConsumerGroupHeartbeatResponse(member_id="m", member_epoch=1, heartbeat_interval_ms=5000,
                                       assignment=ConsumerGroupHeartbeatAssignment(topic_partitions=[
                                           ConsumerGroupHeartbeatTopicPartitions(topic_id=tid, partitions=[0, 1])]))
    expected = (b"\x00\x00\x00\x00" + b"\x00\x00" + b"\x00"      # throttle, error, error message null
                + b"\x02m" + b"\x00\x00\x00\x01" + b"\x00\x00\x13\x88"
                + b"\x01"                                        # the assignment is there
                + b"\x02" + tid.bytes + b"\x03\x00\x00\x00\x00\x00\x00\x00\x01" + b"\x00"   # one topic
                + b"\x00" + b"\x00")                             # tagged fields: assignment, response
    assert bytes(write(r, 1)) == expected
    assert read(ConsumerGroupHeartbeatResponse, 0, expected)[0] == r
    none = ConsumerGroupHeartbeatResponse(member_id=None, member_epoch=-1, heartbeat_interval_ms=0, error_code=25)
    assert bytes(write(none, 0))[6:8] == b"\x00\x00" and bytes(write(none, 0))[-2:] == b"\xff\x00"
