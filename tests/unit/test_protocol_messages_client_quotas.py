"""Tests for the client-quota messages (Kafka 2.6: RequestResponseTest's DescribeClientQuotas / AlterClientQuotas
cases): golden bytes for v0 and v1 (flexible), written by hand from the field list, and round trips over every
version."""
from __future__ import annotations

import struct

import pytest

from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.messages import alter_client_quotas as acq
from kafkalite.protocol.messages import describe_client_quotas as dcq

from protocol_message_samples import SampleBuilder


def s16(v): return b"\xff\xff" if v is None else struct.pack(">h", len(v)) + v.encode()
def cs(v): return b"\x00" if v is None else bytes([len(v) + 1]) + v.encode()


def test_api_keys():
    assert [(k.id, k.min_version, k.max_version) for k in (ApiKeys.DESCRIBE_CLIENT_QUOTAS,
                                                          ApiKeys.ALTER_CLIENT_QUOTAS)] == [(48, 0, 1), (49, 0, 1)]
    assert ApiKeys.ALTER_CLIENT_QUOTAS.is_flexible(1) and not ApiKeys.ALTER_CLIENT_QUOTAS.is_flexible(0)


def test_describe_client_quotas_request_golden():
    request = dcq.DescribeClientQuotasRequest(components=[
        dcq.ComponentData(entity_type="user", match_type=0, match="al"),
        dcq.ComponentData(entity_type="client-id", match_type=1, match=None)], strict=True)
    assert schema.write(request, 0) == (struct.pack(">i", 2) + s16("user") + b"\x00" + s16("al")
                                        + s16("client-id") + b"\x01" + s16(None) + b"\x01")
    assert schema.write(request, 1) == (b"\x03" + cs("user") + b"\x00" + cs("al") + b"\x00"
                                        + cs("client-id") + b"\x01" + cs(None) + b"\x00" + b"\x01\x00")


def test_describe_client_quotas_response_golden():
    response = dcq.DescribeClientQuotasResponse(throttle_time_ms=7, error_code=0, error_message=None, entries=[
        dcq.EntryData(entity=[dcq.EntityData(entity_type="client-id", entity_name=None)],
                      values=[dcq.ValueData(key="producer_byte_rate", value=1024.0)])])
    v0 = (struct.pack(">ih", 7, 0) + s16(None) + struct.pack(">i", 1) + struct.pack(">i", 1) + s16("client-id")
          + s16(None) + struct.pack(">i", 1) + s16("producer_byte_rate") + struct.pack(">d", 1024.0))
    assert schema.write(response, 0) == v0
    assert schema.read(dcq.DescribeClientQuotasResponse, 0, v0)[0] == response


def test_alter_client_quotas_request_golden():
    request = acq.AlterClientQuotasRequest(validate_only=False, entries=[acq.EntryData(
        entity=[acq.EntityData(entity_type="user", entity_name="alice")],
        ops=[acq.OpData(key="consumer_byte_rate", value=0.0, remove=True)])])
    v1 = (b"\x02" + b"\x02" + cs("user") + cs("alice") + b"\x00" + b"\x02" + cs("consumer_byte_rate")
          + struct.pack(">d", 0.0) + b"\x01\x00" + b"\x00" + b"\x00" + b"\x00")
    assert schema.write(request, 1) == v1
    assert schema.read(acq.AlterClientQuotasRequest, 1, v1)[0] == request


CLASSES = [dcq.DescribeClientQuotasRequest, dcq.DescribeClientQuotasResponse, acq.AlterClientQuotasRequest,
           acq.AlterClientQuotasResponse]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_round_trip_every_version(cls):
    for version in range(cls.SPEC.valid.lo, cls.SPEC.valid.hi + 1):
        obj = SampleBuilder().build(cls, version)
        data = schema.write(obj, version)
        back, end = schema.read(cls, version, data)
        assert end == len(data) and back == obj, version
