"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DeleteGroupsRequest.json
and DeleteGroupsResponse.json (same directory).

Classes: DeleteGroupsRequest and DeleteGroupsResponse (DeletableGroupResult).

Deletes empty groups and their committed offsets (a tombstone per key in
``__consumer_offsets``); a group with members answers NON_EMPTY_GROUP.

Version history, in short: v1 is v0 (throttling on quota violation); v2 is the first flexible
version.

Era notes: v0-2 is exactly 2.4's range.
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import INT16, INT32, STRING, array, field, message, struct


@message(api_key=42, kind="request", valid="0-2", flexible="2+")
class DeleteGroupsRequest:
    groups_names: list[str] = field(array(STRING), "0+")


@struct
class DeletableGroupResult:
    group_id: str = field(STRING, "0+")
    error_code: int = field(INT16, "0+")


@message(api_key=42, kind="response", valid="0-2", flexible="2+")
class DeleteGroupsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[DeletableGroupResult] = field(array(DeletableGroupResult), "0+")
