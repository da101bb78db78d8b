"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DescribeAclsRequest.json and
DescribeAclsResponse.json (same directory)

Classes: DescribeAclsRequest (one filter: null strings match anything, ANY (1) codes match anything, pattern type
MATCH (2) selects the literal, wildcard and prefixed patterns that apply to a name), DescribeAclsResponse
(DescribeAclsResource, AclDescription: the matching ACLs grouped by resource pattern).

Versions: v1 adds the pattern type (v0 means LITERAL); v2 is the first flexible version; v3 admits USER.
Era notes: 2.4 served v0-1; the range is today's, 0-3.
Left out: nothing.
"""
from kafkalite.protocol.schema import INT8, INT16, INT32, STRING, array, field, message, struct


@message(api_key=29, kind="request", valid="0-3", flexible="2+")
class DescribeAclsRequest:
    resource_type_filter: int = field(INT8, "0+")
    resource_name_filter: str | None = field(STRING, "0+", nullable="0+")
    pattern_type_filter: int = field(INT8, "1+", default=3)
    principal_filter: str | None = field(STRING, "0+", nullable="0+")
    host_filter: str | None = field(STRING, "0+", nullable="0+")
    operation: int = field(INT8, "0+")
    permission_type: int = field(INT8, "0+")


@struct
class AclDescription:
    principal: str = field(STRING, "0+")
    host: str = field(STRING, "0+")
    operation: int = field(INT8, "0+")
    permission_type: int = field(INT8, "0+")


@struct
class DescribeAclsResource:
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")
    pattern_type: int = field(INT8, "1+", default=3)
    acls: list[AclDescription] = field(array(AclDescription), "0+")


@message(api_key=29, kind="response", valid="0-3", flexible="2+")
class DescribeAclsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+")
    resources: list[DescribeAclsResource] = field(array(DescribeAclsResource), "0+")
