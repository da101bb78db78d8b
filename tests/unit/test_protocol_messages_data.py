"""Mirrors Kafka 2.4: clients/src/test/java/org/apache/kafka/common/message/MessageTest.java
(the data-path and admin messages; RequestResponseTest's round trips).

Round trips every valid version of Produce, Fetch, ListOffsets, OffsetForLeaderEpoch,
InitProducerId, DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, CreatePartitions and
DeleteRecords with a distinct value in every field, and checks hand-built wire bytes for
Produce v3/v9 and Fetch v4/v12 responses. The golden bytes below are written out field by field
from the protocol rules (int16/int32 lengths before v-flexible, uvarint(n + 1) after, a
tagged-field section closing every flexible struct), never produced by the writer.
"""
import pytest

from kafkalite.protocol.errors import UnsupportedVersionException
from kafkalite.protocol.messages import (
    alter_configs, create_partitions, delete_records, describe_configs, fetch,
    incremental_alter_configs, init_producer_id, list_offsets, offset_for_leader_epoch, produce,
)
from kafkalite.protocol.messages.fetch import (
    AbortedTransaction, EpochEndOffset, FetchableTopicResponse, FetchPartition, FetchRequest,
    FetchResponse, FetchTopic, PartitionData,
)
from kafkalite.protocol.messages.produce import (
    PartitionProduceData, PartitionProduceResponse, ProduceRequest, ProduceResponse,
    TopicProduceData, TopicProduceResponse,
)
from kafkalite.protocol.schema import read, write
from protocol_message_samples import (all_versions, check_request_and_response_agree, check_round_trip,
                                      message_classes)

MODULES = [produce, fetch, list_offsets, offset_for_leader_epoch, init_producer_id, describe_configs,
           alter_configs, incremental_alter_configs, create_partitions, delete_records]
CASES = [(cls, v) for m in MODULES for cls in message_classes(m) for v in all_versions(cls)]

# Version ranges and api keys the brief and protocol-matrix §6 fix for these messages.
EXPECTED = {
    "ProduceRequest": (0, "0-9", "9+"), "FetchRequest": (1, "0-12", "12+"),
    "ListOffsetsRequest": (2, "0-7", "6+"), "OffsetForLeaderEpochRequest": (23, "0-4", "4+"),
    "InitProducerIdRequest": (22, "0-4", "2+"), "DescribeConfigsRequest": (32, "0-4", "4+"),
    "AlterConfigsRequest": (33, "0-2", "2+"), "IncrementalAlterConfigsRequest": (44, "0-1", "1+"),
    "CreatePartitionsRequest": (37, "0-3", "2+"), "DeleteRecordsRequest": (21, "0-2", "2+"),
}


@pytest.mark.parametrize("nulls", [False, True], ids=["values", "nulls"])
@pytest.mark.parametrize("cls,version", CASES, ids=[f"{c.__name__}-v{v}" for c, v in CASES])
def test_round_trip_every_version(cls, version, nulls):
    check_round_trip(cls, version, nulls)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_request_and_response_agree_on_key_and_versions(name):
    request, response = check_request_and_response_agree(MODULES, EXPECTED, name)
    assert (request.SPEC.kind, response.SPEC.kind) == ("request", "response")


# ---- golden bytes ---------------------------------------------------------------------------

def test_produce_v3_request_golden():
    req = ProduceRequest(transactional_id=None, acks=-1, timeout_ms=30000, topic_data=[
        TopicProduceData(name="t", partition_data=[PartitionProduceData(index=0, records=b"\xaa\xbb\xcc")])])
    golden = bytes.fromhex(
        "ffff"              # transactional_id: null (int16 length -1)
        "ffff"              # acks -1
        "00007530"          # timeout_ms 30000
        "00000001"          # topic_data: 1 entry (int32 count)
        "000174"            # name "t"
        "00000001"          # partition_data: 1 entry
        "00000000"          # index 0
        "00000003aabbcc"    # records: int32 length 3 + bytes
    )
    assert write(req, 3) == golden
    back, end = read(ProduceRequest, 3, golden)
    assert end == len(golden) and back == req


def test_produce_v9_request_golden():
    req = ProduceRequest(transactional_id="tx", acks=1, timeout_ms=1000, topic_data=[
        TopicProduceData(name="t", partition_data=[PartitionProduceData(index=2, records=b"\xaa\xbb\xcc")])])
    golden = bytes.fromhex(
        "037478"            # transactional_id "tx": uvarint(2 + 1)
        "0001"              # acks 1
        "000003e8"          # timeout_ms 1000
        "02"                # topic_data: uvarint(1 + 1)
        "0274"              # name "t"
        "02"                # partition_data: 1 entry
        "00000002"          # index 2
        "04aabbcc"          # records: compact, uvarint(3 + 1)
        "00"                # PartitionProduceData tagged fields: none
        "00"                # TopicProduceData tagged fields: none
        "00"                # ProduceRequest tagged fields: none
    )
    assert write(req, 9) == golden
    back, _ = read(ProduceRequest, 9, golden)
    assert back == req


def test_produce_v9_response_golden():
    resp = ProduceResponse(responses=[TopicProduceResponse(name="t", partition_responses=[
        PartitionProduceResponse(index=0, error_code=0, base_offset=5, log_start_offset=0)])],
        throttle_time_ms=0)
    golden = bytes.fromhex(
        "02" "0274" "02"                # 1 topic "t", 1 partition
        "00000000" "0000"               # index 0, error_code 0
        "0000000000000005"              # base_offset 5
        "ffffffffffffffff"              # log_append_time_ms -1 (CreateTime)
        "0000000000000000"              # log_start_offset 0
        "01"                            # record_errors: empty compact array
        "00"                            # error_message: null compact string
        "00" "00"                       # partition and topic tagged fields
        "00000000"                      # throttle_time_ms
        "00"                            # message tagged fields
    )
    assert write(resp, 9) == golden
    assert read(ProduceResponse, 9, golden)[0] == resp


def test_produce_records_are_a_view_of_the_request_buffer():
    golden = bytes.fromhex("ffffffff00007530" "00000001000174" "0000000100000000" "00000003aabbcc")
    req, _ = read(ProduceRequest, 3, golden)
    records = req.topic_data[0].partition_data[0].records
    assert isinstance(records, memoryview)
    assert records.obj is golden          # a slice of the caller's buffer, not a copy
    assert bytes(records) == b"\xaa\xbb\xcc"


def test_fetch_v4_response_golden():
    resp = FetchResponse(throttle_time_ms=0, responses=[FetchableTopicResponse(topic="t", partitions=[
        PartitionData(partition_index=0, error_code=0, high_watermark=10, last_stable_offset=10,
                      aborted_transactions=None, records=b"\x01\x02")])])
    golden = bytes.fromhex(
        "00000000"                      # throttle_time_ms (v1+); no error_code/session_id before v7
        "00000001" "000174"             # 1 topic "t"
        "00000001"                      # 1 partition
        "00000000" "0000"               # partition_index 0, error_code 0
        "000000000000000a"              # high_watermark 10
        "000000000000000a"              # last_stable_offset 10 (v4+); log_start_offset is v5+
        "ffffffff"                      # aborted_transactions: null
        "000000020102"                  # records: int32 length 2
    )
    assert write(resp, 4) == golden
    back, _ = read(FetchResponse, 4, golden)
    assert back == resp and back.responses[0].partitions[0].aborted_transactions is None


def test_fetch_v12_response_golden_with_tagged_diverging_epoch():
    part = PartitionData(partition_index=1, error_code=0, high_watermark=10, last_stable_offset=8,
                         log_start_offset=0, diverging_epoch=EpochEndOffset(epoch=2, end_offset=5),
                         aborted_transactions=[AbortedTransaction(producer_id=7, first_offset=8)],
                         records=b"\x01\x02")
    resp = FetchResponse(responses=[FetchableTopicResponse(topic="t", partitions=[part])])
    golden = bytes.fromhex(
        "00000000" "0000" "00000000"    # throttle_time_ms, error_code, session_id
        "02" "0274"                     # 1 topic "t"
        "02"                            # 1 partition
        "00000001" "0000"               # partition_index 1, error_code 0
        "000000000000000a"              # high_watermark 10
        "0000000000000008"              # last_stable_offset 8
        "0000000000000000"              # log_start_offset 0
        "02"                            # aborted_transactions: 1 entry
        "0000000000000007" "0000000000000008" "00"   # producer_id 7, first_offset 8, its tags
        "ffffffff"                      # preferred_read_replica -1
        "030102"                        # records: compact, 2 bytes
        "01"                            # one tagged field follows
        "00" "0d"                       # tag 0 (diverging_epoch), 13 bytes
        "00000002" "0000000000000005" "00"   # epoch 2, end_offset 5, the struct's own tags
        "00"                            # topic tagged fields
        "00"                            # message tagged fields
    )
    assert write(resp, 12) == golden
    back, _ = read(FetchResponse, 12, golden)
    assert back == resp
    assert back.responses[0].partitions[0].current_leader.leader_id == -1   # absent tag: default


def test_fetch_v12_request_carries_cluster_id_as_tag_0():
    req = FetchRequest(cluster_id="c", max_wait_ms=500, min_bytes=1, session_epoch=0,
                       topics=[FetchTopic(topic="t", partitions=[
                           FetchPartition(partition=0, fetch_offset=3, partition_max_bytes=1024)])])
    golden = bytes.fromhex(
        "ffffffff" "000001f4" "00000001"   # replica_id -1, max_wait_ms 500, min_bytes 1
        "7fffffff" "00"                    # max_bytes, isolation_level 0
        "00000000" "00000000"              # session_id 0, session_epoch 0
        "02" "0274" "02"                   # 1 topic "t", 1 partition
        "00000000" "ffffffff"              # partition 0, current_leader_epoch -1
        "0000000000000003"                 # fetch_offset 3
        "ffffffff"                         # last_fetched_epoch -1
        "ffffffffffffffff"                 # log_start_offset -1
        "00000400" "00" "00"               # partition_max_bytes 1024; partition, topic tags
        "01"                               # forgotten_topics_data: empty
        "01"                               # rack_id ""
        "01" "00" "02" "0263"              # 1 tag: tag 0, 2 bytes, compact string "c"
    )
    assert write(req, 12) == golden
    assert read(FetchRequest, 12, golden)[0] == req


# ---- version gating -----------------------------------------------------------------------

def test_fetch_preferred_read_replica_is_gated_to_v11():
    resp = FetchResponse(responses=[FetchableTopicResponse(topic="t", partitions=[
        PartitionData(partition_index=0, error_code=0, high_watermark=0, preferred_read_replica=2)])])
    with pytest.raises(UnsupportedVersionException):
        write(resp, 10)                   # preferred_read_replica only exists from v11
    assert read(FetchResponse, 11, write(resp, 11))[0] == resp


# Produce v0-2 and Fetch v0-3 (message formats v0/v1), bytes written out by hand from Kafka 2.4's
# ProduceRequest.json / FetchRequest.json field lists
def test_produce_v0_golden():
    req = ProduceRequest(acks=1, timeout_ms=1000, topic_data=[TopicProduceData(name="t", partition_data=[
        PartitionProduceData(index=0, records=b"\x01\x02")])])
    golden = bytes.fromhex("0001" "000003e8" "00000001" "0001" "74" "00000001" "00000000" "00000002" "0102")
    assert write(req, 0) == golden
    assert write(req, 2) == golden                  # v1 and v2 change only the response
    parsed, _ = read(ProduceRequest, 0, golden)
    assert (parsed.transactional_id, bytes(parsed.topic_data[0].partition_data[0].records)) == (None, b"\x01\x02")
    resp = ProduceResponse(responses=[TopicProduceResponse(name="t", partition_responses=[
        PartitionProduceResponse(index=0, error_code=0, base_offset=5, log_append_time_ms=7)])], throttle_time_ms=9)
    v0 = "00000001" "0001" "74" "00000001" "00000000" "0000" "0000000000000005"
    assert write(resp, 0).hex() == v0
    assert write(resp, 1).hex() == v0 + "00000009"
    assert write(resp, 2).hex() == v0 + "0000000000000007" + "00000009"


def test_fetch_v0_and_v3_golden():
    req = FetchRequest(replica_id=-1, max_wait_ms=500, min_bytes=1, max_bytes=1024, topics=[
        FetchTopic(topic="t", partitions=[FetchPartition(partition=0, fetch_offset=3, partition_max_bytes=4096)])])
    parts = "00000001" "0001" "74" "00000001" "00000000" "0000000000000003" "00001000"
    assert write(req, 0).hex() == "ffffffff" "000001f4" "00000001" + parts       # no max_bytes before v3
    assert write(req, 3).hex() == "ffffffff" "000001f4" "00000001" "00000400" + parts
    assert read(FetchRequest, 0, bytes.fromhex("ffffffff" "000001f4" "00000001" + parts))[0].max_bytes == 0x7FFFFFFF
    resp = FetchResponse(throttle_time_ms=2, responses=[FetchableTopicResponse(topic="t", partitions=[
        PartitionData(partition_index=0, error_code=0, high_watermark=8, records=b"\xaa")])])
    v0 = "00000001" "0001" "74" "00000001" "00000000" "0000" "0000000000000008" "00000001" "aa"
    assert write(resp, 0).hex() == v0
    assert write(resp, 3).hex() == "00000002" + v0


def test_list_offsets_v1_has_no_isolation_level():
    req = list_offsets.ListOffsetsRequest(replica_id=-1, isolation_level=1)
    with pytest.raises(UnsupportedVersionException):
        write(req, 1)
    assert write(list_offsets.ListOffsetsRequest(replica_id=-1), 1) == bytes.fromhex("ffffffff" "00000000")


def test_init_producer_id_v3_bumps_with_the_current_id():
    req = init_producer_id.InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000,
                                                 producer_id=17, producer_epoch=3)
    golden = bytes.fromhex("00" "0000ea60" "0000000000000011" "0003" "00")
    assert write(req, 3) == golden
    with pytest.raises(UnsupportedVersionException):
        write(req, 2)
