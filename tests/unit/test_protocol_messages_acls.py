"""Tests for the ACL messages (Kafka: RequestResponseTest's CreateAcls / DescribeAcls / DeleteAcls cases): golden
bytes for v0 (no pattern type), v1 (pattern type) and v2 (flexible), and round trips over every version."""
from __future__ import annotations

import struct

import pytest

from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.messages.create_acls import AclCreation, CreateAclsRequest, CreateAclsResponse, AclCreationResult
from kafkalite.protocol.messages.delete_acls import (DeleteAclsFilter, DeleteAclsFilterResult, DeleteAclsMatchingAcl,
                                                     DeleteAclsRequest, DeleteAclsResponse)
from kafkalite.protocol.messages.describe_acls import (AclDescription, DescribeAclsRequest, DescribeAclsResource,
                                                       DescribeAclsResponse)

from protocol_message_samples import SampleBuilder


def s16(v): return b"\xff\xff" if v is None else struct.pack(">h", len(v)) + v.encode()
def cs(v): return b"\x00" if v is None else bytes([len(v) + 1]) + v.encode()


def test_api_keys():
    assert [(k.id, k.min_version, k.max_version) for k in (ApiKeys.DESCRIBE_ACLS, ApiKeys.CREATE_ACLS,
                                                          ApiKeys.DELETE_ACLS)] == [(29, 0, 3), (30, 0, 3), (31, 0, 3)]
    assert ApiKeys.CREATE_ACLS.is_flexible(2) and not ApiKeys.CREATE_ACLS.is_flexible(1)


def test_create_acls_request_golden():
    request = CreateAclsRequest(creations=[AclCreation(resource_type=2, resource_name="t", resource_pattern_type=4,
                                                       principal="User:a", host="*", operation=3, permission_type=3)])
    v0 = struct.pack(">i", 1) + b"\x02" + s16("t") + s16("User:a") + s16("*") + b"\x03\x03"
    v1 = struct.pack(">i", 1) + b"\x02" + s16("t") + b"\x04" + s16("User:a") + s16("*") + b"\x03\x03"
    v2 = b"\x02" + b"\x02" + cs("t") + b"\x04" + cs("User:a") + cs("*") + b"\x03\x03" + b"\x00" + b"\x00"
    assert schema.write(request, 1) == v1
    assert schema.write(request, 2) == v2
    back, _ = schema.read(CreateAclsRequest, 0, v0)
    assert back.creations[0].resource_pattern_type == 3      # v0 means LITERAL


def test_describe_acls_request_golden_with_null_filters():
    request = DescribeAclsRequest(resource_type_filter=1, resource_name_filter=None, pattern_type_filter=1,
                                  principal_filter=None, host_filter=None, operation=1, permission_type=1)
    assert schema.write(request, 1) == b"\x01" + b"\xff\xff" + b"\x01" + b"\xff\xff\xff\xff" + b"\x01\x01"
    assert schema.write(request, 2) == b"\x01\x00\x01\x00\x00\x01\x01\x00"


def test_delete_acls_response_golden():
    response = DeleteAclsResponse(throttle_time_ms=0, filter_results=[DeleteAclsFilterResult(
        error_code=0, error_message=None, matching_acls=[DeleteAclsMatchingAcl(
            error_code=0, error_message=None, resource_type=3, resource_name="g", pattern_type=3,
            principal="User:b", host="h", operation=8, permission_type=2)])])
    v1 = (struct.pack(">ii", 0, 1) + struct.pack(">h", 0) + b"\xff\xff" + struct.pack(">i", 1) + struct.pack(">h", 0)
          + b"\xff\xff" + b"\x03" + s16("g") + b"\x03" + s16("User:b") + s16("h") + b"\x08\x02")
    assert schema.write(response, 1) == v1
    assert schema.read(DeleteAclsResponse, 1, v1)[0] == response


CLASSES = [CreateAclsRequest, CreateAclsResponse, DescribeAclsRequest, DescribeAclsResponse, DeleteAclsRequest,
           DeleteAclsResponse]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_round_trip_every_version(cls):
    for version in range(cls.SPEC.valid.lo, cls.SPEC.valid.hi + 1):
        obj = SampleBuilder().build(cls, version)
        data = schema.write(obj, version)
        back, end = schema.read(cls, version, data)
        assert end == len(data) and back == obj, version
