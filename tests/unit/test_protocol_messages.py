"""Tests for the cluster-metadata messages (Kafka: RequestResponseTest, MessageTest): hand-built golden
bytes for a non-flexible and a flexible version, and round trips over every valid version."""
from __future__ import annotations

import struct
import uuid

import attrs
import pytest

from kafkalite.protocol import schema
from kafkalite.protocol.errors import UnsupportedVersionException
from kafkalite.protocol.messages import (
    api_versions, create_topics, delete_topics, describe_cluster, leader_and_isr, metadata, stop_replica,
    update_metadata)
from kafkalite.protocol.schema import ArrayOf, FixedType, RecordsType, StringType, BytesType, UuidType

MODULES = [api_versions, metadata, create_topics, delete_topics, describe_cluster, leader_and_isr,
           update_metadata, stop_replica]
CLASSES = [getattr(m, n) for m in MODULES for n in dir(m)
           if n.endswith(("Request", "Response")) and hasattr(getattr(m, n), "SPEC")]
UID = uuid.UUID("0123456789abcdef0123456789abcdef")


def populate(cls, version, seed=1):
    """An instance with a non-default value in every field that ``version`` carries."""
    kw = {}
    for a in attrs.fields(cls):
        fs = a.metadata.get("kafka")
        if fs is None or version not in fs.versions:
            continue
        kw[a.name] = sample(fs.type, version, seed)
        seed += 1
    return cls(**kw)


def sample(t, version, seed):
    if isinstance(t, FixedType):
        return {"bool": True, "float64": 1.5}.get(t.name, 7 + seed)
    if isinstance(t, UuidType):
        return UID
    if isinstance(t, StringType):
        return f"s{seed}-é"
    if isinstance(t, (BytesType, RecordsType)):
        return bytes([seed]) * 3
    if isinstance(t, ArrayOf):
        return [sample(t.element, version, seed), sample(t.element, version, seed + 1)]
    return populate(t, version, seed)


def test_all_messages_found():
    assert len(CLASSES) == 16


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_round_trip_every_version(cls):
    spec = cls.SPEC
    for version in range(spec.valid.lo, spec.valid.hi + 1):
        obj = populate(cls, version)
        data = schema.write(obj, version)
        back, end = schema.read(cls, version, data)
        assert end == len(data), version
        assert back == obj, version
        assert schema.write(back, version) == data
        assert schema.read(cls, version, schema.write(cls(), version))[0] == cls()


# --- hand-built bytes -------------------------------------------------------------------------

def i8(v): return struct.pack(">b", v)
def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def i64(v): return struct.pack(">q", v)
def s16(v): return b"\xff\xff" if v is None else i16(len(v.encode())) + v.encode()
def cs(v): return b"\x00" if v is None else bytes([len(v.encode()) + 1]) + v.encode()   # short compact string
def arr(items): return i32(len(items)) + b"".join(items)
def carr(items): return bytes([len(items) + 1]) + b"".join(items)   # short compact array
TAGS0 = b"\x00"


def test_api_versions_golden():
    req = api_versions.ApiVersionsRequest(client_software_name="kp", client_software_version="3.0")
    assert schema.write(api_versions.ApiVersionsRequest(), 0) == b""
    assert schema.write(req, 3) == cs("kp") + cs("3.0") + TAGS0
    resp = api_versions.ApiVersionsResponse(
        error_code=0, throttle_time_ms=5,
        api_keys=[api_versions.ApiVersion(api_key=3, min_version=0, max_version=12)])
    assert schema.write(resp, 2) == i16(0) + arr([i16(3) + i16(0) + i16(12)]) + i32(5)
    resp.finalized_features_epoch = 4
    assert schema.write(resp, 3) == (i16(0) + carr([i16(3) + i16(0) + i16(12) + TAGS0]) + i32(5)
                                     + b"\x01" + b"\x01" + b"\x08" + i64(4))


def test_metadata_request_golden():
    assert schema.write(metadata.MetadataRequest(topics=None), 1) == i32(-1)
    req = metadata.MetadataRequest(topics=[metadata.MetadataRequestTopic(name="t")],
                                   allow_auto_topic_creation=False)
    assert schema.write(req, 4) == arr([s16("t")]) + b"\x00"
    assert schema.write(req, 9) == carr([cs("t") + TAGS0]) + b"\x00" + b"\x00" + b"\x00" + TAGS0
    assert schema.write(req, 10) == carr([bytes(16) + cs("t") + TAGS0]) + b"\x00\x00\x00" + TAGS0


def _metadata_response():
    return metadata.MetadataResponse(
        throttle_time_ms=0,
        brokers=[metadata.MetadataResponseBroker(node_id=1, host="h", port=9092, rack=None)],
        cluster_id="c", controller_id=1,
        topics=[metadata.MetadataResponseTopic(
            error_code=0, name="t", topic_id=UID, partitions=[metadata.MetadataResponsePartition(
                partition_index=0, leader_id=1, leader_epoch=3, replica_nodes=[1], isr_nodes=[1])])])


def test_metadata_response_golden():
    resp = _metadata_response()
    v0 = (arr([i32(1) + s16("h") + i32(9092)])
          + arr([i16(0) + s16("t") + arr([i16(0) + i32(0) + i32(1) + arr([i32(1)]) + arr([i32(1)])])]))
    assert schema.write(resp, 0) == v0
    v12 = (i32(0) + carr([i32(1) + cs("h") + i32(9092) + cs(None) + TAGS0]) + cs("c") + i32(1)
           + carr([i16(0) + cs("t") + UID.bytes + b"\x00"
                   + carr([i16(0) + i32(0) + i32(1) + i32(3) + carr([i32(1)]) + carr([i32(1)]) + carr([]) + TAGS0])
                   + i32(-2147483648) + TAGS0])
           + TAGS0)
    assert schema.write(resp, 12) == v12
    assert schema.read(metadata.MetadataResponse, 12, v12)[0] == resp


def test_create_topics_golden():
    req = create_topics.CreateTopicsRequest(
        topics=[create_topics.CreatableTopic(
            name="t", num_partitions=3, replication_factor=1,
            configs=[create_topics.CreatableTopicConfig(name="k", value=None)])],
        timeout_ms=1000, validate_only=True)
    topic16 = s16("t") + i32(3) + i16(1) + arr([]) + arr([s16("k") + s16(None)])
    assert schema.write(req, 4) == arr([topic16]) + i32(1000) + b"\x01"
    topic_c = cs("t") + i32(3) + i16(1) + carr([]) + carr([cs("k") + cs(None) + TAGS0]) + TAGS0
    assert schema.write(req, 5) == carr([topic_c]) + i32(1000) + b"\x01" + TAGS0
    resp = create_topics.CreateTopicsResponse(topics=[create_topics.CreatableTopicResult(
        name="t", error_code=36, error_message=None, topic_config_error_code=29, configs=None)])
    assert schema.write(resp, 4) == i32(0) + arr([s16("t") + i16(36) + s16(None)])
    assert schema.write(resp, 5) == (i32(0) + carr([cs("t") + i16(36) + cs(None) + i32(-1) + i16(-1) + cs(None)
                                                    + b"\x01" + b"\x00" + b"\x02" + i16(29)]) + TAGS0)


def test_delete_topics_golden():
    req = delete_topics.DeleteTopicsRequest(topic_names=["a", "b"], timeout_ms=10)
    assert schema.write(req, 3) == arr([s16("a"), s16("b")]) + i32(10)
    assert schema.write(req, 4) == carr([cs("a"), cs("b")]) + i32(10) + TAGS0
    by_id = delete_topics.DeleteTopicsRequest(topics=[delete_topics.DeleteTopicState(name=None, topic_id=UID)])
    assert schema.write(by_id, 6) == carr([cs(None) + UID.bytes + TAGS0]) + i32(0) + TAGS0


def test_describe_cluster_golden():
    resp = describe_cluster.DescribeClusterResponse(
        cluster_id="c", controller_id=1,
        brokers=[describe_cluster.DescribeClusterBroker(broker_id=1, host="h", port=9, rack=None)])
    assert schema.write(resp, 0) == (i32(0) + i16(0) + cs(None) + cs("c") + i32(1)
                                     + carr([i32(1) + cs("h") + i32(9) + cs(None) + TAGS0]) + i32(-2147483648) + TAGS0)
    assert schema.write(describe_cluster.DescribeClusterRequest(), 1) == b"\x00" + i8(1) + TAGS0


def _partition_state(cls, **extra):
    return cls(topic_name="t", partition_index=0, controller_epoch=1, leader=2, leader_epoch=3, isr=[2],
               zk_version=4, replicas=[2], **extra)


def test_leader_and_isr_golden_and_grouping():
    state = _partition_state(leader_and_isr.LeaderAndIsrPartitionState, is_new=True)
    leaders = [leader_and_isr.LeaderAndIsrLiveLeader(broker_id=2, host_name="h", port=9)]
    v1 = leader_and_isr.LeaderAndIsrRequest.build(1, [state], controller_id=2, controller_epoch=1, live_leaders=leaders)
    ps16 = i32(0) + i32(1) + i32(2) + i32(3) + arr([i32(2)]) + i32(4) + arr([i32(2)])
    assert schema.write(v1, 1) == i32(2) + i32(1) + arr([s16("t") + ps16 + b"\x01"]) + arr([i32(2) + s16("h") + i32(9)])
    v4 = leader_and_isr.LeaderAndIsrRequest.build(4, [state], controller_id=2, controller_epoch=1, broker_epoch=5,
                                                 live_leaders=leaders)
    psc = i32(0) + i32(1) + i32(2) + i32(3) + carr([i32(2)]) + i32(4) + carr([i32(2)]) + carr([]) + carr([]) + b"\x01" + TAGS0
    data = schema.write(v4, 4)
    assert data == (i32(2) + i32(1) + i64(5) + carr([cs("t") + carr([psc]) + TAGS0])
                    + carr([i32(2) + cs("h") + i32(9) + TAGS0]) + TAGS0)
    back = schema.read(leader_and_isr.LeaderAndIsrRequest, 4, data)[0]
    assert [(s.topic_name, s.leader) for s in back.partition_states()] == [("t", 2)]
    resp = leader_and_isr.LeaderAndIsrResponse(partition_errors=[
        leader_and_isr.LeaderAndIsrPartitionError(topic_name="t", partition_index=0, error_code=6)])
    assert schema.write(resp, 0) == i16(0) + arr([s16("t") + i32(0) + i16(6)])


def test_update_metadata_golden():
    state = _partition_state(update_metadata.UpdateMetadataPartitionState)
    v0 = update_metadata.UpdateMetadataRequest.build(
        0, [state], controller_id=2, controller_epoch=1,
        live_brokers=[update_metadata.UpdateMetadataBroker(id=2, v0_host="h", v0_port=9)])
    ps16 = s16("t") + i32(0) + i32(1) + i32(2) + i32(3) + arr([i32(2)]) + i32(4) + arr([i32(2)])
    assert schema.write(v0, 0) == i32(2) + i32(1) + arr([ps16]) + arr([i32(2) + s16("h") + i32(9)])
    broker = update_metadata.UpdateMetadataBroker(id=2, endpoints=[update_metadata.UpdateMetadataEndpoint(
        port=9, host="h", listener="PLAINTEXT", security_protocol=0)], rack="r")
    v6 = update_metadata.UpdateMetadataRequest.build(6, [state], controller_id=2, controller_epoch=1,
                                                     live_brokers=[broker])
    psc = i32(0) + i32(1) + i32(2) + i32(3) + carr([i32(2)]) + i32(4) + carr([i32(2)]) + carr([]) + TAGS0
    data = schema.write(v6, 6)
    assert data == (i32(2) + i32(1) + i64(-1) + carr([cs("t") + carr([psc]) + TAGS0])
                    + carr([i32(2) + carr([i32(9) + cs("h") + cs("PLAINTEXT") + i16(0) + TAGS0]) + cs("r") + TAGS0])
                    + TAGS0)
    assert schema.read(update_metadata.UpdateMetadataRequest, 6, data)[0].partition_states()[0].topic_name == "t"


def test_stop_replica_golden():
    v0 = stop_replica.StopReplicaRequest(controller_id=1, controller_epoch=2, delete_partitions=True,
                                         ungrouped_partitions=[stop_replica.StopReplicaPartitionV0(
                                             topic_name="t", partition_index=3)])
    assert schema.write(v0, 0) == i32(1) + i32(2) + b"\x01" + arr([s16("t") + i32(3)])
    v2 = stop_replica.StopReplicaRequest(controller_id=1, controller_epoch=2, broker_epoch=7,
                                         topics=[stop_replica.StopReplicaTopic(name="t", partition_indexes=[3, 4])])
    data = schema.write(v2, 2)
    assert data == i32(1) + i32(2) + i64(7) + b"\x00" + carr([cs("t") + carr([i32(3), i32(4)]) + TAGS0]) + TAGS0
    assert schema.read(stop_replica.StopReplicaRequest, 2, data)[0].partitions() == [("t", 3), ("t", 4)]
    with pytest.raises(UnsupportedVersionException):
        schema.write(v2, 0)  # topics is not in v0
