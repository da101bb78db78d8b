"""Mirrors Kafka 2.4: clients/src/test/java/org/apache/kafka/common/message/MessageTest.java
(the group, transaction and group-record messages), with the record cases of
core/src/test/scala/unit/kafka/coordinator/group/GroupMetadataManagerTest.scala and
clients/src/test/java/org/apache/kafka/clients/consumer/internals/ConsumerProtocolTest.java.

Round trips every valid version of every group and transaction message, of the
``__consumer_offsets`` key/value records and of the consumer protocol, and checks hand-built
wire bytes (written out field by field from the encoding rules) for JoinGroup v5/v6,
OffsetCommit v8, FindCoordinator v0/v3 and the offset-commit key and value records.
"""
import struct

import pytest

from kafkalite.protocol.errors import UnsupportedVersionException
from kafkalite.protocol.messages import (
    add_offsets_to_txn, add_partitions_to_txn, consumer_group_describe, consumer_group_heartbeat, consumer_protocol,
    delete_groups, describe_groups,
    end_txn, find_coordinator, group_metadata_records, heartbeat, join_group, leave_group,
    list_groups, offset_commit, offset_delete, offset_fetch, sync_group, txn_offset_commit,
)
from kafkalite.protocol.messages.consumer_protocol import (
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, ConsumerProtocolTopicPartition,
    deserialize_assignment, deserialize_subscription, serialize_assignment, serialize_subscription,
)
from kafkalite.protocol.messages.find_coordinator import FindCoordinatorRequest, FindCoordinatorResponse
from kafkalite.protocol.messages.group_metadata_records import (
    GroupMetadataKey, GroupMetadataValue, MemberMetadata, OffsetCommitKey, OffsetCommitValue,
    deserialize, read_message_key, serialize,
)
from kafkalite.protocol.messages.join_group import JoinGroupRequest, JoinGroupRequestProtocol
from kafkalite.protocol.messages.leave_group import LeaveGroupRequest, MemberIdentity
from kafkalite.protocol.messages.offset_commit import (
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic,
)
from kafkalite.protocol.schema import read, write
from protocol_message_samples import (all_versions, check_request_and_response_agree, check_round_trip,
                                      message_classes)

MODULES = [find_coordinator, join_group, sync_group, heartbeat, leave_group, offset_commit,
           offset_fetch, list_groups, describe_groups, delete_groups, offset_delete,
           add_partitions_to_txn, add_offsets_to_txn, end_txn, txn_offset_commit,
           group_metadata_records, consumer_protocol, consumer_group_heartbeat, consumer_group_describe]
CASES = [(cls, v) for m in MODULES for cls in message_classes(m) for v in all_versions(cls)]

EXPECTED = {
    "FindCoordinatorRequest": (10, "0-3", "3+"), "JoinGroupRequest": (11, "0-7", "6+"),
    "SyncGroupRequest": (14, "0-5", "4+"), "HeartbeatRequest": (12, "0-4", "4+"),
    "LeaveGroupRequest": (13, "0-5", "4+"), "OffsetCommitRequest": (8, "0-9", "8+"),
    "OffsetFetchRequest": (9, "0-7", "6+"), "ListGroupsRequest": (16, "0-4", "3+"),
    "DescribeGroupsRequest": (15, "0-5", "5+"), "DeleteGroupsRequest": (42, "0-2", "2+"),
    "OffsetDeleteRequest": (47, "0", "none"), "AddPartitionsToTxnRequest": (24, "0-3", "3+"),
    "AddOffsetsToTxnRequest": (25, "0-3", "3+"), "EndTxnRequest": (26, "0-3", "3+"),
    "TxnOffsetCommitRequest": (28, "0-3", "3+"),
    "ConsumerGroupHeartbeatRequest": (68, "0-1", "0+"), "ConsumerGroupDescribeRequest": (69, "0", "0+"),
}


@pytest.mark.parametrize("nulls", [False, True], ids=["values", "nulls"])
@pytest.mark.parametrize("cls,version", CASES, ids=[f"{c.__name__}-v{v}" for c, v in CASES])
def test_round_trip_every_version(cls, version, nulls):
    check_round_trip(cls, version, nulls)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_request_and_response_agree_on_key_and_versions(name):
    request, response = check_request_and_response_agree(MODULES, EXPECTED, name)


# ---- golden bytes: requests and responses ---------------------------------------------------

def _join(version, instance):
    return JoinGroupRequest(group_id="g", session_timeout_ms=10000, rebalance_timeout_ms=30000,
                            member_id="", group_instance_id=instance, protocol_type="consumer",
                            protocols=[JoinGroupRequestProtocol(name="range", metadata=b"\x00\x01")])


def test_join_group_v5_request_golden():
    golden = bytes.fromhex(
        "000167"                        # group_id "g"
        "00002710"                      # session_timeout_ms 10000
        "00007530"                      # rebalance_timeout_ms 30000
        "0000"                          # member_id "" (first join)
        "ffff"                          # group_instance_id: null
        "0008" + b"consumer".hex() +    # protocol_type
        "00000001"                      # protocols: 1 entry
        "0005" + b"range".hex() +       # name "range"
        "000000020001"                  # metadata: int32 length 2
    )
    assert write(_join(5, None), 5) == golden
    assert read(JoinGroupRequest, 5, golden)[0] == _join(5, None)


def test_join_group_v6_request_golden():
    golden = bytes.fromhex(
        "0267"                          # group_id "g": uvarint(1 + 1)
        "00002710" "00007530"           # session and rebalance timeouts
        "01"                            # member_id "": uvarint(0 + 1)
        "04" + b"i-1".hex() +           # group_instance_id "i-1"
        "09" + b"consumer".hex() +      # protocol_type
        "02"                            # protocols: uvarint(1 + 1)
        "06" + b"range".hex() +         # name
        "030001"                        # metadata: compact bytes, 2 bytes
        "00"                            # protocol tagged fields
        "00"                            # request tagged fields
    )
    assert write(_join(6, "i-1"), 6) == golden
    assert read(JoinGroupRequest, 6, golden)[0] == _join(6, "i-1")


def test_join_group_static_membership_needs_v5():
    with pytest.raises(UnsupportedVersionException):
        write(_join(4, "i-1"), 4)


def test_offset_commit_v8_request_golden():
    req = OffsetCommitRequest(group_id="g", generation_id=3, member_id="m", topics=[
        OffsetCommitRequestTopic(name="t", partitions=[OffsetCommitRequestPartition(
            partition_index=0, committed_offset=42, committed_leader_epoch=1, committed_metadata="")])])
    golden = bytes.fromhex(
        "0267"                          # group_id "g"
        "00000003"                      # generation_id 3
        "026d"                          # member_id "m"
        "00"                            # group_instance_id: null (compact)
        "02" "0274"                     # topics: 1 entry, name "t"
        "02"                            # partitions: 1 entry
        "00000000"                      # partition_index 0
        "000000000000002a"              # committed_offset 42
        "00000001"                      # committed_leader_epoch 1
        "01"                            # committed_metadata ""
        "00" "00" "00"                  # partition, topic and request tagged fields
    )
    assert write(req, 8) == golden
    assert read(OffsetCommitRequest, 8, golden)[0] == req


def test_offset_commit_retention_time_only_in_v2_to_v4():
    req = OffsetCommitRequest(group_id="g", retention_time_ms=1000)
    v4 = write(req, 4)
    assert v4 == bytes.fromhex("000167" "ffffffff" "0000" "00000000000003e8" "00000000")
    # retention_time_ms is ignorable: v5 silently drops it, as Kafka's generated code does.
    assert write(req, 5) == bytes.fromhex("000167" "ffffffff" "0000" "00000000")


def test_find_coordinator_v0_golden():
    assert write(FindCoordinatorRequest(key="g"), 0) == bytes.fromhex("000167")
    resp = FindCoordinatorResponse(error_code=0, node_id=1, host="h", port=9092)
    golden = bytes.fromhex("0000" "00000001" "000168" "00002384")   # error, node_id, host, port
    assert write(resp, 0) == golden
    assert read(FindCoordinatorResponse, 0, golden)[0] == resp
    with pytest.raises(UnsupportedVersionException):
        write(FindCoordinatorRequest(key="tx", key_type=1), 0)       # transactions need v1+


def test_find_coordinator_v3_golden():
    req = FindCoordinatorRequest(key="tx", key_type=1)
    assert write(req, 3) == bytes.fromhex("037478" "01" "00")        # key, key_type, tags
    resp = FindCoordinatorResponse(error_code=0, node_id=1, host="h", port=9092)
    golden = bytes.fromhex(
        "00000000"                      # throttle_time_ms
        "0000"                          # error_code
        "00"                            # error_message: null
        "00000001" "0268" "00002384"    # node_id 1, host "h", port 9092
        "00"                            # tagged fields
    )
    assert write(resp, 3) == golden
    assert read(FindCoordinatorResponse, 3, golden)[0] == resp


def test_leave_group_single_member_before_v3_batch_after():
    v2 = LeaveGroupRequest(group_id="g", member_id="m")
    assert write(v2, 2) == bytes.fromhex("000167" "00016d")
    v3 = LeaveGroupRequest(group_id="g", members=[MemberIdentity(member_id="m")])
    assert write(v3, 3) == bytes.fromhex("000167" "00000001" "00016d" "ffff")
    with pytest.raises(UnsupportedVersionException):
        write(v3, 2)
    with pytest.raises(UnsupportedVersionException):
        write(v2, 3)


# ---- __consumer_offsets records ------------------------------------------------------------

def test_offset_commit_key_record_golden():
    key = OffsetCommitKey(group="g", topic="t", partition=3)
    golden = bytes.fromhex("0001" "000167" "000174" "00000003")   # version 1, group, topic, partition
    assert serialize(key, 1) == golden
    assert read_message_key(golden) == (1, key)


def test_offset_commit_value_record_golden_v3():
    value = OffsetCommitValue(offset=42, leader_epoch=5, metadata="", commit_timestamp=1_700_000_000_000)
    golden = (bytes.fromhex("0003" "000000000000002a" "00000005" "0000")   # version, offset, epoch, ""
              + struct.pack(">q", 1_700_000_000_000))                        # commit_timestamp
    assert golden == bytes.fromhex("0003" "000000000000002a" "00000005" "0000" "0000018bcfe56800")
    assert serialize(value, 3) == golden
    assert deserialize(OffsetCommitValue, golden) == (3, value)


def test_offset_commit_value_record_golden_v1_has_expire_timestamp():
    value = OffsetCommitValue(offset=1, metadata="m", commit_timestamp=2, expire_timestamp=3)
    golden = bytes.fromhex("0001" "0000000000000001" "00016d" "0000000000000002" "0000000000000003")
    assert serialize(value, 1) == golden
    assert deserialize(OffsetCommitValue, golden) == (1, value)


def test_group_metadata_key_and_value_records():
    assert serialize(GroupMetadataKey(group="g"), 2) == bytes.fromhex("0002" "000167")
    assert read_message_key(bytes.fromhex("0002000167")) == (2, GroupMetadataKey(group="g"))
    value = GroupMetadataValue(protocol_type="consumer", generation=1, protocol="range", leader="m",
                               current_state_timestamp=9, members=[MemberMetadata(
                                   member_id="m", group_instance_id="i", client_id="c", client_host="/h",
                                   rebalance_timeout=300, session_timeout=100, subscription=b"s",
                                   assignment=b"a")])
    v3 = serialize(value, 3)
    assert deserialize(GroupMetadataValue, v3) == (3, value)
    # v0 has no state timestamp, rebalance timeout or instance id; all three are ignorable,
    # so writing v0 drops them and reading it back gives their defaults.
    _, v0 = deserialize(GroupMetadataValue, serialize(value, 0))
    assert v0.current_state_timestamp == -1
    assert (v0.members[0].rebalance_timeout, v0.members[0].group_instance_id) == (-1, None)
    assert (v0.members[0].session_timeout, v0.members[0].subscription) == (100, b"s")


def test_read_message_key_rejects_unknown_versions():
    with pytest.raises(ValueError):
        read_message_key(bytes.fromhex("0003000167"))


# ---- consumer protocol ---------------------------------------------------------------------

def test_consumer_protocol_subscription_v0_golden():
    sub = ConsumerProtocolSubscription(topics=["t"], user_data=None)
    golden = bytes.fromhex("0000" "00000001" "000174" "ffffffff")   # version 0, ["t"], null user data
    assert serialize_subscription(sub, 0) == golden
    assert deserialize_subscription(golden) == sub


def test_consumer_protocol_newer_subscription_is_read_as_v1():
    # A v3 subscription (generation_id and rack_id appended) from a current Java client.
    v3 = bytes.fromhex("0003" "00000001" "000174" "ffffffff"
                       "00000001" "000174" "00000001" "00000000"   # owned partitions: t-0
                       "00000007" "0002" + b"r1".hex())             # generation_id 7, rack_id "r1"
    sub = deserialize_subscription(v3)
    assert sub.topics == ["t"]
    assert sub.owned_partitions == [ConsumerProtocolTopicPartition(topic="t", partitions=[0])]


def test_consumer_protocol_assignment_round_trip():
    a = ConsumerProtocolAssignment(assigned_partitions=[
        ConsumerProtocolTopicPartition(topic="t", partitions=[0, 2])], user_data=b"u")
    data = serialize_assignment(a)
    assert data[:2] == b"\x00\x01"
    assert deserialize_assignment(data) == a
