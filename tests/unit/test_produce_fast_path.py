"""kafkalite/protocol/produce_fast_path.py against the schema codec: the same objects from the same bytes, the
same bytes from the same objects, and None (so the schema codec decides) on anything unusual."""
import struct

import pytest

from kafkalite.protocol import schema
from kafkalite.protocol.messages.produce import (
    BatchIndexAndErrorMessage, PartitionProduceData, PartitionProduceResponse, ProduceRequest, ProduceResponse,
    TopicProduceData, TopicProduceResponse,
)
from kafkalite.protocol.produce_fast_path import read_produce_request, write_produce_response
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_request_body, serialize_response

VERSIONS = range(3, 10)


def _requests():
    yield ProduceRequest(transactional_id=None, acks=1, timeout_ms=30000, topic_data=[
        TopicProduceData(name="t", partition_data=[PartitionProduceData(index=0, records=b"\x01" * 100)])])
    yield ProduceRequest(transactional_id="txn-é", acks=-1, timeout_ms=5, topic_data=[
        TopicProduceData(name="topic-a", partition_data=[
            PartitionProduceData(index=i, records=bytes(range(256)) * (i + 1)) for i in range(6)]),
        TopicProduceData(name="b" * 200, partition_data=[PartitionProduceData(index=7, records=None),
                                                         PartitionProduceData(index=8, records=b"")]),
        TopicProduceData(name="empty", partition_data=[])])
    yield ProduceRequest(transactional_id="", acks=0, timeout_ms=0, topic_data=[])
    yield ProduceRequest(transactional_id=None, acks=1, timeout_ms=1, topic_data=[
        TopicProduceData(name="big", partition_data=[PartitionProduceData(index=0, records=b"x" * 300_000)])])


def _same_request(a, b):
    assert (a.transactional_id, a.acks, a.timeout_ms) == (b.transactional_id, b.acks, b.timeout_ms)
    assert [t.name for t in a.topic_data] == [t.name for t in b.topic_data]
    for ta, tb in zip(a.topic_data, b.topic_data):
        assert [p.index for p in ta.partition_data] == [p.index for p in tb.partition_data]
        for pa, pb in zip(ta.partition_data, tb.partition_data):
            assert (pa.records is None) == (pb.records is None)
            if pa.records is not None:
                assert isinstance(pa.records, memoryview) and bytes(pa.records) == bytes(pb.records)
    assert a == b   # attrs equality: every field, unknown_tagged_fields included


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("which", range(4))
def test_request_reads_like_the_schema(version, which):
    request = list(_requests())[which]
    wire = b"\x07" * 5 + schema.write(request, version) + b"\x00\x00"   # at an offset, trailing bytes ignored
    fast = read_produce_request(version, memoryview(wire), 5)
    slow, _ = schema.read(ProduceRequest, version, wire, 5)
    assert fast is not None
    _same_request(fast, slow)


@pytest.mark.parametrize("version", (3, 7, 8, 9))
def test_records_are_views_of_the_request_buffer(version):
    request = list(_requests())[1]
    buf = bytearray(schema.write(request, version))
    fast = read_produce_request(version, memoryview(buf), 0)
    view = fast.topic_data[0].partition_data[2].records
    assert view.obj is buf   # no copy
    buf[buf.index(bytes(range(256)) * 3)] ^= 0xFF
    assert view[0] == 0xFF


@pytest.mark.parametrize("version", (3, 7, 9))
def test_a_truncated_request_falls_back_to_the_schema(version):
    wire = schema.write(list(_requests())[1], version)
    for cut in range(len(wire)):
        assert read_produce_request(version, memoryview(wire)[:cut], 0) is None, cut
        with pytest.raises(Exception):
            schema.read(ProduceRequest, version, wire[:cut])


def test_unusual_requests_fall_back_to_the_schema():
    # a topic name that is not UTF-8
    bad_name = bytearray(schema.write(list(_requests())[0], 7))
    bad_name[bad_name.index(b"\x00\x01t") + 2] = 0xFF
    assert read_produce_request(7, memoryview(bad_name), 0) is None
    # a records length of -2 (only -1 means null)
    neg = bytearray(schema.write(list(_requests())[0], 7))
    at = neg.index(struct.pack(">i", 100))
    neg[at:at + 4] = struct.pack(">i", -2)
    assert read_produce_request(7, memoryview(neg), 0) is None
    # a v9 request carrying a tagged field: the schema codec keeps it as an unknown tag
    tagged = ProduceRequest(transactional_id=None, acks=1, timeout_ms=1, topic_data=[],
                            unknown_tagged_fields=[(5, b"ab")])
    wire = schema.write(tagged, 9)
    assert read_produce_request(9, memoryview(wire), 0) is None
    assert schema.read(ProduceRequest, 9, wire)[0] == tagged
    # versions it does not cover
    assert read_produce_request(2, memoryview(schema.write(list(_requests())[0], 2)), 0) is None


@pytest.mark.parametrize("version", (2, 3, 7, 9))
def test_parse_request_body_gives_the_schemas_answer(version):
    request = list(_requests())[0] if version >= 3 else ProduceRequest(acks=1, timeout_ms=1, topic_data=[
        TopicProduceData(name="t", partition_data=[PartitionProduceData(index=0, records=b"r")])])
    header = RequestHeader(api_key=0, api_version=version, correlation_id=1, client_id="c")
    wire = schema.write(request, version)
    _same_request(parse_request_body(header, memoryview(wire), 0), schema.read(ProduceRequest, version, wire)[0])


def _responses():
    yield ProduceResponse(responses=[TopicProduceResponse(name="t", partition_responses=[
        PartitionProduceResponse(index=0, error_code=0, base_offset=12345678901, log_append_time_ms=-1,
                                 log_start_offset=0)])])
    yield ProduceResponse(throttle_time_ms=250, responses=[
        TopicProduceResponse(name="tópic", partition_responses=[
            PartitionProduceResponse(index=i, error_code=6 if i % 2 else 0, base_offset=i * 1000,
                                     log_append_time_ms=1_700_000_000_000, log_start_offset=-1,
                                     error_message="Not leader" if i == 3 else None) for i in range(6)]),
        TopicProduceResponse(name="other", partition_responses=[])])
    yield ProduceResponse(responses=[])


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("which", range(3))
def test_response_writes_like_the_schema(version, which):
    response = list(_responses())[which]
    if version < 8:   # error_message is not ignorable before v8 in this spec: leave it out there
        for t in response.responses:
            for p in t.partition_responses:
                p.error_message = None
    assert write_produce_response(response, version) == schema.write(response, version)


def test_unusual_responses_fall_back_to_the_schema():
    with_record_errors = ProduceResponse(responses=[TopicProduceResponse(name="t", partition_responses=[
        PartitionProduceResponse(index=0, error_code=87, base_offset=-1,
                                 record_errors=[BatchIndexAndErrorMessage(batch_index=2)])])])
    assert write_produce_response(with_record_errors, 8) is None
    assert write_produce_response(list(_responses())[0], 2) is None
    tagged = ProduceResponse(responses=[], unknown_tagged_fields=[(3, b"x")])
    assert write_produce_response(tagged, 9) is None
    # and serialize_response still writes both through the schema codec
    header = RequestHeader(api_key=0, api_version=8, correlation_id=9, client_id="c")
    chunks = serialize_response(header, with_record_errors)
    assert b"".join(chunks)[4:] == schema.write(with_record_errors, 8)


@pytest.mark.parametrize("version", (3, 9))
def test_serialize_response_uses_one_chunk(version):
    header = RequestHeader(api_key=0, api_version=version, correlation_id=42, client_id="c")
    response = list(_responses())[0]
    chunks = serialize_response(header, response)
    assert len(chunks) == 1 and chunks[0].endswith(schema.write(response, version))
    assert struct.unpack(">i", chunks[0][:4])[0] == 42
