"""Mirrors Kafka 2.4: clients/src/test/java/org/apache/kafka/common/message/MessageTest.java
(the versions Kafka 4.0 dropped with KIP-896 and Kafka 2.4 through 3.9 accept: issue 19).

Hand-built wire bytes, written out field by field from the encoding rules and the field
versions of Kafka 3.9's JSON specs, for the oldest version of each API whose minimum was
lowered: OffsetCommit v0/v1, OffsetFetch v0, ListOffsets v0, OffsetForLeaderEpoch v0,
DescribeConfigs v0, CreateTopics v0 and DeleteTopics v0. Each request is decoded from the
bytes and each response encoded to them; fields a version lacks are simply not written.
"""
import pytest

from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import InvalidRequestException, UnsupportedVersionException
from kafkalite.protocol.messages import (create_topics, delete_topics, describe_configs, list_offsets, offset_commit,
                                         offset_fetch, offset_for_leader_epoch)
from kafkalite.protocol.schema import read, write

G, T = "000167", "000174"           # the strings "g" and "t"
ONE = "00000001"                    # an array of one


def check_request(cls, version, golden_hex, expected):
    golden = bytes.fromhex(golden_hex)
    assert read(cls, version, golden)[0] == expected
    assert write(expected, version) == golden


def check_response(obj, version, golden_hex):
    golden = bytes.fromhex(golden_hex)
    assert write(obj, version) == golden
    assert read(type(obj), version, golden)[0] == obj


def _commit_response():
    return offset_commit.OffsetCommitResponse(throttle_time_ms=7, topics=[offset_commit.OffsetCommitResponseTopic(
        name="t", partitions=[offset_commit.OffsetCommitResponsePartition(partition_index=0, error_code=0)])])


def test_offset_commit_v0_golden():
    req = offset_commit.OffsetCommitRequest(group_id="g", topics=[offset_commit.OffsetCommitRequestTopic(
        name="t", partitions=[offset_commit.OffsetCommitRequestPartition(
            partition_index=0, committed_offset=42, committed_metadata=None)])])
    # group, topics: name, partitions: index, offset, metadata (null)
    check_request(offset_commit.OffsetCommitRequest, 0,
                  G + ONE + T + ONE + "00000000" + "000000000000002a" + "ffff", req)
    resp = _commit_response()
    resp.throttle_time_ms = 0     # v0-2 have no throttle time
    check_response(resp, 0, ONE + T + ONE + "00000000" + "0000")


def test_offset_commit_v1_golden_has_generation_member_and_commit_timestamp():
    req = offset_commit.OffsetCommitRequest(
        group_id="g", generation_id=5, member_id="m", topics=[offset_commit.OffsetCommitRequestTopic(
            name="t", partitions=[offset_commit.OffsetCommitRequestPartition(
                partition_index=0, committed_offset=42, commit_timestamp=1000, committed_metadata="x")])])
    check_request(offset_commit.OffsetCommitRequest, 1,
                  G + "00000005" + "00016d" + ONE + T + ONE + "00000000" + "000000000000002a"
                  + "00000000000003e8" + "000178", req)
    # the v1 timestamp is not part of v2
    with pytest.raises(UnsupportedVersionException):
        write(req, 2)
    # the response drops the (ignorable) throttle time below v3
    assert write(_commit_response(), 1) == bytes.fromhex(ONE + T + ONE + "00000000" + "0000")


def test_offset_fetch_v0_golden():
    req = offset_fetch.OffsetFetchRequest(group_id="g", topics=[
        offset_fetch.OffsetFetchRequestTopic(name="t", partition_indexes=[0])])
    check_request(offset_fetch.OffsetFetchRequest, 0, G + ONE + T + ONE + "00000000", req)
    with pytest.raises(InvalidRequestException):          # "all topics" (null) is v2+
        read(offset_fetch.OffsetFetchRequest, 0, bytes.fromhex(G + "ffffffff"))
    resp = offset_fetch.OffsetFetchResponse(topics=[offset_fetch.OffsetFetchResponseTopic(name="t", partitions=[
        offset_fetch.OffsetFetchResponsePartition(partition_index=0, committed_offset=42, metadata="",
                                                  error_code=0)])])
    # no throttle time, no leader epoch, no top-level error code
    check_response(resp, 0, ONE + T + ONE + "00000000" + "000000000000002a" + "0000" + "0000")


def test_list_offsets_v0_golden_max_num_offsets_and_old_style_offsets():
    req = list_offsets.ListOffsetsRequest(replica_id=-1, topics=[list_offsets.ListOffsetsTopic(name="t", partitions=[
        list_offsets.ListOffsetsPartition(partition_index=0, timestamp=-1, max_num_offsets=5)])])
    check_request(list_offsets.ListOffsetsRequest, 0,
                  "ffffffff" + ONE + T + ONE + "00000000" + "ffffffffffffffff" + "00000005", req)
    resp = list_offsets.ListOffsetsResponse(topics=[list_offsets.ListOffsetsTopicResponse(name="t", partitions=[
        list_offsets.ListOffsetsPartitionResponse(partition_index=0, error_code=0, old_style_offsets=[10, 0])])])
    check_response(resp, 0, ONE + T + ONE + "00000000" + "0000" + "00000002" + "000000000000000a" + "0" * 16)
    # v1 has the (timestamp, offset) pair and no old-style offsets
    with pytest.raises(UnsupportedVersionException):
        write(resp, 1)


def test_offset_for_leader_epoch_v0_golden():
    req = offset_for_leader_epoch.OffsetForLeaderEpochRequest(topics=[offset_for_leader_epoch.OffsetForLeaderTopic(
        topic="t", partitions=[offset_for_leader_epoch.OffsetForLeaderPartition(partition=0, leader_epoch=3)])])
    check_request(offset_for_leader_epoch.OffsetForLeaderEpochRequest, 0,
                  ONE + T + ONE + "00000000" + "00000003", req)
    resp = offset_for_leader_epoch.OffsetForLeaderEpochResponse(topics=[
        offset_for_leader_epoch.OffsetForLeaderTopicResult(topic="t", partitions=[
            offset_for_leader_epoch.EpochEndOffset(error_code=0, partition=0, leader_epoch=3, end_offset=100)])])
    # v0 answers only (error, partition, end offset): the epoch found is v1+
    assert write(resp, 0) == bytes.fromhex(ONE + T + ONE + "0000" + "00000000" + "0000000000000064")


def test_describe_configs_v0_golden_is_default():
    req = describe_configs.DescribeConfigsRequest(resources=[
        describe_configs.DescribeConfigsResource(resource_type=2, resource_name="t", configuration_keys=None)])
    check_request(describe_configs.DescribeConfigsRequest, 0, ONE + "02" + T + "ffffffff", req)
    resp = describe_configs.DescribeConfigsResponse(throttle_time_ms=0, results=[describe_configs.DescribeConfigsResult(
        error_code=0, error_message=None, resource_type=2, resource_name="t", configs=[
            describe_configs.DescribeConfigsResourceResult(name="a", value="b", read_only=False, is_default=True,
                                                           is_sensitive=False)])])
    # throttle, results: error, message (null), type, name, configs: name, value, read_only, is_default, sensitive
    check_response(resp, 0, "00000000" + ONE + "0000" + "ffff" + "02" + T + ONE + "000161" + "000162" + "00" + "01"
                   + "00")
    with pytest.raises(UnsupportedVersionException):    # is_default is v0 only
        write(resp, 1)


def test_create_topics_v0_golden():
    req = create_topics.CreateTopicsRequest(topics=[create_topics.CreatableTopic(
        name="t", num_partitions=1, replication_factor=1)], timeout_ms=30000)
    check_request(create_topics.CreateTopicsRequest, 0,
                  ONE + T + "00000001" + "0001" + "00000000" + "00000000" + "00007530", req)
    resp = create_topics.CreateTopicsResponse(topics=[create_topics.CreatableTopicResult(name="t", error_code=36,
                                                                                         error_message="exists")])
    # v0 has no error message: it is dropped, only name and error code are written
    assert write(resp, 0) == bytes.fromhex(ONE + T + "0024")


def test_delete_topics_v0_golden():
    req = delete_topics.DeleteTopicsRequest(topic_names=["t"], timeout_ms=30000)
    check_request(delete_topics.DeleteTopicsRequest, 0, ONE + T + "00007530", req)
    resp = delete_topics.DeleteTopicsResponse(responses=[delete_topics.DeletableTopicResult(name="t", error_code=0)])
    check_response(resp, 0, ONE + T + "0000")


# Kafka 3.9.0's validVersions minimums (clients/src/main/resources/common/message/*.json at tag 3.9.0-rc3)
LOWERED = {ApiKeys.OFFSET_COMMIT: 0, ApiKeys.OFFSET_FETCH: 0, ApiKeys.LIST_OFFSETS: 0,
           ApiKeys.OFFSET_FOR_LEADER_EPOCH: 0, ApiKeys.DESCRIBE_CONFIGS: 0, ApiKeys.CREATE_TOPICS: 0,
           ApiKeys.DELETE_TOPICS: 0, ApiKeys.PRODUCE: 0, ApiKeys.FETCH: 0}   # Produce/Fetch: message formats v0/v1


@pytest.mark.parametrize("api", list(LOWERED), ids=lambda a: a.name)
def test_lowered_minimums_are_advertised_and_declared(api):
    assert api.min_version == api.min_accepted_version == LOWERED[api]
    assert api.request_class.SPEC.valid.lo == api.response_class.SPEC.valid.lo == LOWERED[api]
