"""Golden bytes for issue 17's admin messages: DescribeConfigs v3/v4 entries with config_type and documentation
(KIP-569), DescribeTopicPartitions v0 (KIP-966) with its nullable cursor, DescribeCluster v1 (KIP-919's
endpoint_type) and OffsetDelete v0 (KIP-496). The bytes are written out field by field from the protocol rules
(int16/int32 lengths before flexible versions, uvarint(n + 1) after, a tagged-field byte closing every flexible
struct, a nullable struct led by an int8 -1/1), never produced by the writer."""
from __future__ import annotations

import struct
import uuid

import pytest

from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import UnsupportedVersionException
from kafkalite.protocol.messages import describe_cluster as dcl
from kafkalite.protocol.messages import describe_configs as dc
from kafkalite.protocol.messages import describe_topic_partitions as dtp
from kafkalite.protocol.messages import offset_delete as od

from protocol_message_samples import check_round_trip


def i8(v): return struct.pack(">b", v)
def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def s16(v): return b"\xff\xff" if v is None else i16(len(v.encode())) + v.encode()
def cs(v): return b"\x00" if v is None else bytes([len(v.encode()) + 1]) + v.encode()
def carr(items): return bytes([len(items) + 1]) + b"".join(items)
T0 = b"\x00"


def _describe_configs_response():
    return dc.DescribeConfigsResponse(throttle_time_ms=0, results=[dc.DescribeConfigsResult(
        error_code=0, error_message=None, resource_type=2, resource_name="t", configs=[dc.DescribeConfigsResourceResult(
            name="retention.ms", value="1", read_only=False, config_source=1, is_sensitive=False,
            synonyms=[dc.DescribeConfigsSynonym(name="retention.ms", value="1", source=1)],
            config_type=5, documentation="d")])])


def test_describe_configs_v3_v4_carry_type_and_documentation():
    resp = _describe_configs_response()
    v3 = (i32(0) + i32(1) + i16(0) + s16(None) + i8(2) + s16("t") + i32(1)
          + s16("retention.ms") + s16("1") + b"\x00" + i8(1) + b"\x00"
          + i32(1) + s16("retention.ms") + s16("1") + i8(1)
          + i8(5) + s16("d"))
    v4 = (i32(0) + carr([i16(0) + cs(None) + i8(2) + cs("t") + carr([
        cs("retention.ms") + cs("1") + b"\x00" + i8(1) + b"\x00"
        + carr([cs("retention.ms") + cs("1") + i8(1) + T0]) + i8(5) + cs("d") + T0]) + T0]) + T0)
    assert schema.write(resp, 3) == v3
    assert schema.write(resp, 4) == v4
    assert schema.read(dc.DescribeConfigsResponse, 4, v4)[0] == resp
    request = dc.DescribeConfigsRequest(resources=[dc.DescribeConfigsResource(
        resource_type=4, resource_name="0", configuration_keys=None)], include_synonyms=True, include_documentation=True)
    assert schema.write(request, 4) == carr([i8(4) + cs("0") + b"\x00" + T0]) + b"\x01\x01" + T0
    with pytest.raises(UnsupportedVersionException):   # v2 has no include_documentation to carry it
        schema.write(request, 2)
    request.include_documentation = False
    assert schema.write(request, 2) == i32(1) + i8(4) + s16("0") + i32(-1) + b"\x01"


def test_describe_topic_partitions_request_golden():
    assert (ApiKeys.DESCRIBE_TOPIC_PARTITIONS.id, ApiKeys.DESCRIBE_TOPIC_PARTITIONS.max_version) == (75, 0)
    with_cursor = dtp.DescribeTopicPartitionsRequest(
        topics=[dtp.DescribeTopicPartitionsTopicRequest(name="t")], response_partition_limit=2,
        cursor=dtp.Cursor(topic_name="t", partition_index=3))
    assert schema.write(with_cursor, 0) == carr([cs("t") + T0]) + i32(2) + i8(1) + cs("t") + i32(3) + T0 + T0
    no_cursor = dtp.DescribeTopicPartitionsRequest(topics=[])
    assert schema.write(no_cursor, 0) == carr([]) + i32(2000) + i8(-1) + T0
    assert schema.read(dtp.DescribeTopicPartitionsRequest, 0, schema.write(with_cursor, 0))[0] == with_cursor


def test_describe_topic_partitions_response_golden():
    tid = uuid.UUID(int=7)
    resp = dtp.DescribeTopicPartitionsResponse(throttle_time_ms=0, topics=[dtp.DescribeTopicPartitionsResponseTopic(
        error_code=0, name="t", topic_id=tid, is_internal=False, partitions=[dtp.DescribeTopicPartitionsResponsePartition(
            error_code=0, partition_index=0, leader_id=1, leader_epoch=4, replica_nodes=[1, 2], isr_nodes=[1],
            eligible_leader_replicas=None, last_known_elr=None, offline_replicas=[2])],
        topic_authorized_operations=-2147483648)], next_cursor=dtp.Cursor(topic_name="t", partition_index=1))
    partition = (i16(0) + i32(0) + i32(1) + i32(4) + carr([i32(1), i32(2)]) + carr([i32(1)])
                 + b"\x00" + b"\x00" + carr([i32(2)]) + T0)      # null ELR and last known ELR: length 0
    topic = i16(0) + cs("t") + tid.bytes + b"\x00" + carr([partition]) + i32(-2147483648) + T0
    wire = i32(0) + carr([topic]) + i8(1) + cs("t") + i32(1) + T0 + T0
    assert schema.write(resp, 0) == wire
    assert schema.read(dtp.DescribeTopicPartitionsResponse, 0, wire)[0] == resp


def test_describe_cluster_v1_endpoint_type_golden():
    request = dcl.DescribeClusterRequest(include_cluster_authorized_operations=True, endpoint_type=1)
    assert schema.write(request, 1) == b"\x01" + i8(1) + T0
    assert schema.write(request, 0) == b"\x01" + T0
    resp = dcl.DescribeClusterResponse(throttle_time_ms=0, error_code=0, error_message=None, endpoint_type=1,
                                       cluster_id="c", controller_id=0, brokers=[], cluster_authorized_operations=8)
    assert schema.write(resp, 1) == i32(0) + i16(0) + cs(None) + i8(1) + cs("c") + i32(0) + carr([]) + i32(8) + T0


def test_offset_delete_golden():
    request = od.OffsetDeleteRequest(group_id="g", topics=[od.OffsetDeleteRequestTopic(
        name="t", partitions=[od.OffsetDeleteRequestPartition(partition_index=1)])])
    assert schema.write(request, 0) == s16("g") + i32(1) + s16("t") + i32(1) + i32(1)
    resp = od.OffsetDeleteResponse(error_code=0, throttle_time_ms=0, topics=[od.OffsetDeleteResponseTopic(
        name="t", partitions=[od.OffsetDeleteResponsePartition(partition_index=1, error_code=86)])])
    assert schema.write(resp, 0) == i16(0) + i32(0) + i32(1) + s16("t") + i32(1) + i32(1) + i16(86)


@pytest.mark.parametrize("nulls", [False, True])
@pytest.mark.parametrize("cls", [dtp.DescribeTopicPartitionsRequest, dtp.DescribeTopicPartitionsResponse])
def test_describe_topic_partitions_round_trip(cls, nulls):
    check_round_trip(cls, 0, nulls)
