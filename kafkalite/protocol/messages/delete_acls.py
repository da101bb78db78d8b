"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DeleteAclsRequest.json and DeleteAclsResponse.json
(same directory)

Classes: DeleteAclsRequest (DeleteAclsFilter: the same filter fields as DescribeAcls), DeleteAclsResponse
(DeleteAclsFilterResult per filter, in request order, each listing the ACLs it matched as DeleteAclsMatchingAcl).

Versions: v1 adds the pattern type (v0 means LITERAL); v2 is the first flexible version; v3 admits USER.
Era notes: 2.4 served v0-1; the range is today's, 0-3.
Left out: nothing.
"""
from kafkalite.protocol.schema import INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class DeleteAclsFilter:
    resource_type_filter: int = field(INT8, "0+")
    resource_name_filter: str | None = field(STRING, "0+", nullable="0+")
    pattern_type_filter: int = field(INT8, "1+", default=3)
    principal_filter: str | None = field(STRING, "0+", nullable="0+")
    host_filter: str | None = field(STRING, "0+", nullable="0+")
    operation: int = field(INT8, "0+")
    permission_type: int = field(INT8, "0+")


@message(api_key=31, kind="request", valid="0-3", flexible="2+")
class DeleteAclsRequest:
    filters: list[DeleteAclsFilter] = field(array(DeleteAclsFilter), "0+")


@struct
class DeleteAclsMatchingAcl:
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+")
    resource_type: int = field(INT8, "0+")
    resource_name: str = field(STRING, "0+")
    pattern_type: int = field(INT8, "1+", default=3)
    principal: str = field(STRING, "0+")
    host: str = field(STRING, "0+")
    operation: int = field(INT8, "0+")
    permission_type: int = field(INT8, "0+")


@struct
class DeleteAclsFilterResult:
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+")
    matching_acls: list[DeleteAclsMatchingAcl] = field(array(DeleteAclsMatchingAcl), "0+")


@message(api_key=31, kind="response", valid="0-3", flexible="2+")
class DeleteAclsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    filter_results: list[DeleteAclsFilterResult] = field(array(DeleteAclsFilterResult), "0+")
