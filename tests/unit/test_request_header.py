"""Tests for RequestHeader/ResponseHeader and requests.py (Kafka: RequestHeaderTest, RequestContextTest)."""
from __future__ import annotations

import struct

import pytest

from kafkalite.protocol import requests, schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import InvalidRequestException, UnsupportedVersionException
from kafkalite.protocol.messages.api_versions import ApiVersionsResponse
from kafkalite.protocol.messages.metadata import MetadataRequest, MetadataResponse
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.response_header import ResponseHeader


def test_request_header_v1_bytes():
    h = RequestHeader(api_key=3, api_version=8, correlation_id=5, client_id="cli")
    assert h.header_version == 1
    assert h.to_bytes() == bytes.fromhex("0003" "0008" "00000005" "0003" "636c69")
    assert RequestHeader.parse(h.to_bytes()) == (h, 13)


def test_request_header_v2_client_id_is_never_compact():
    h = RequestHeader(api_key=3, api_version=9, correlation_id=5, client_id="cli")
    assert h.header_version == 2
    assert h.to_bytes() == bytes.fromhex("0003" "0009" "00000005" "0003" "636c69" "00")
    h.client_id = None
    assert h.to_bytes() == bytes.fromhex("0003" "0009" "00000005" "ffff" "00")
    data = bytes.fromhex("0012" "0003" "00000001" "0002" "6b70" "01" "05" "01" "ff") + b"body"
    parsed, body_offset = RequestHeader.parse(data)
    assert parsed.client_id == "kp" and parsed.unknown_tagged_fields == [(5, b"\xff")]
    assert data[body_offset:] == b"body"


def test_controlled_shutdown_v0_uses_header_v0():
    h = RequestHeader(api_key=7, api_version=0, correlation_id=9)
    assert h.header_version == 0
    assert h.to_bytes() == bytes.fromhex("0007" "0000" "00000009")
    assert RequestHeader.parse(h.to_bytes() + b"x") == (h, 8)
    assert ApiKeys.CONTROLLED_SHUTDOWN.request_header_version(1) == 1


def test_unknown_api_key_carries_correlation_id():
    with pytest.raises(InvalidRequestException) as info:
        RequestHeader.parse(bytes.fromhex("03e7" "0000" "0000002a" "ffff"))
    assert info.value.correlation_id == 42
    with pytest.raises(InvalidRequestException) as info:
        RequestHeader.parse(bytes.fromhex("03e7" "0000" "00"))
    assert info.value.correlation_id is None


def test_truncated_header_raises():
    data = RequestHeader(api_key=3, api_version=9, correlation_id=5, client_id="cli").to_bytes()
    for cut in range(len(data)):
        with pytest.raises(InvalidRequestException):
            RequestHeader.parse(data[:cut])


def test_response_header_versions():
    assert ResponseHeader(correlation_id=7).to_bytes(0) == bytes.fromhex("00000007")
    assert ResponseHeader(correlation_id=7).to_bytes(1) == bytes.fromhex("00000007" "00")
    assert ResponseHeader.parse(bytes.fromhex("00000007" "00"), 1) == (ResponseHeader(correlation_id=7), 5)
    assert ApiKeys.METADATA.response_header_version(9) == 1 and ApiKeys.METADATA.response_header_version(8) == 0
    for v in range(5):
        assert ApiKeys.API_VERSIONS.response_header_version(v) == 0


def test_api_keys_table():
    assert ApiKeys.for_id(1) is ApiKeys.FETCH and ApiKeys.FETCH.flexible_from == 12
    assert ApiKeys.PRODUCE.min_version == 0 and ApiKeys.PRODUCE.min_accepted_version == 0   # message formats v0/v1
    assert ApiKeys.PRODUCE.is_version_supported(0) and ApiKeys.FETCH.is_version_supported(0)
    assert [k.name for k in ApiKeys if k.cluster_action] == [
        "LEADER_AND_ISR", "STOP_REPLICA", "UPDATE_METADATA", "CONTROLLED_SHUTDOWN", "WRITE_TXN_MARKERS"]
    assert ApiKeys.OFFSET_FOR_LEADER_EPOCH.api_name == "OffsetForLeaderEpoch"
    assert ApiKeys.METADATA.request_class is MetadataRequest
    assert ApiKeys.API_VERSIONS.response_class is ApiVersionsResponse
    with pytest.raises(InvalidRequestException):
        ApiKeys.for_id(1000)


def test_api_versions_response_header_is_v0_even_when_flexible():
    header = RequestHeader(api_key=18, api_version=3, correlation_id=1, client_id="x")
    chunks = requests.serialize_response(header, ApiVersionsResponse())
    assert chunks == [bytes.fromhex("00000001" "0000" "01" "00000000" "00")]


def test_kip_511_fallback_bytes():
    header = RequestHeader(api_key=18, api_version=99, correlation_id=0x01020304, client_id="x")
    data = RequestHeader.parse(header.to_bytes() + b"\x00\x00\x00")  # v99 uses header v2; the body is unknown
    assert data[0] == header
    assert requests.is_unsupported_api_versions_request(header)
    with pytest.raises(UnsupportedVersionException):
        requests.parse_request_body(header, header.to_bytes() + b"\x00", len(header.to_bytes()))
    payload = b"".join(requests.serialize_response(header, requests.api_versions_fallback_response()))
    framed = struct.pack(">i", len(payload)) + payload
    assert framed == bytes.fromhex("00000010" "01020304" "0023" "00000001" "0012" "0000" "0004")


def test_client_parses_the_fallback_even_after_asking_a_newer_version():
    payload = bytes.fromhex("01020304" "0023" "00000001" "0012" "0000" "0004")
    corr, body = requests.parse_response(ApiKeys.API_VERSIONS, 4, payload)
    assert corr == 0x01020304 and body.error_code == 35
    assert [(k.api_key, k.min_version, k.max_version) for k in body.api_keys] == [(18, 0, 4)]


def test_parse_request_body_round_trip():
    header = RequestHeader(api_key=3, api_version=9, correlation_id=1, client_id="c")
    body = MetadataRequest(topics=None)
    frame = requests.serialize_request(header, body)
    parsed, offset = RequestHeader.parse(frame)
    assert requests.parse_request_body(parsed, frame, offset) == body
    # trailing bytes are ignored, as Kafka's readers ignore them (librdkafka 2.16 sends some)
    assert requests.parse_request_body(parsed, frame + b"\x01\x00\x00", offset) == body
    with pytest.raises(InvalidRequestException):
        requests.parse_request_body(parsed, frame[:-1], offset)


def test_parse_request_body_rejects_unsupported_versions():
    for api_key, version in [(0, 10), (3, 13), (1, 13)]:
        header = RequestHeader(api_key=api_key, api_version=version, correlation_id=1)
        with pytest.raises(UnsupportedVersionException):
            requests.parse_request_body(header, b"", 0)


def test_serialize_response_and_parse_response():
    header = RequestHeader(api_key=3, api_version=9, correlation_id=77, client_id="c")
    body = MetadataResponse(controller_id=1, cluster_id="x")
    chunks = requests.serialize_response(header, body)
    assert len(chunks) == 1 and chunks[0][:5] == bytes.fromhex("0000004d" "00")  # header v1 has a tag section
    assert requests.parse_response(3, 9, chunks[0]) == (77, body)
    assert chunks[0][5:] == schema.write(body, 9)
