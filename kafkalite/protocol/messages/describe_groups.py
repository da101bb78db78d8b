"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DescribeGroupsRequest.json
and DescribeGroupsResponse.json (same directory).

Classes: DescribeGroupsRequest and DescribeGroupsResponse (DescribedGroup, DescribedGroupMember).

Admin tools (``kafka-consumer-groups --describe``) read a group's state, protocol and members,
with each member's subscription (``member_metadata``) and assignment as opaque bytes.

Version history, in short: v1 adds ``throttle_time_ms``; v2 is v1; v3 adds
``include_authorized_operations`` and ``authorized_operations`` (KIP-430); v4 adds
``group_instance_id`` (KIP-345); v5 is the first flexible version.

Era notes: v0-5 is exactly 2.4's range.
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import BOOL, BYTES, INT16, INT32, STRING, array, field, message, struct


@message(api_key=15, kind="request", valid="0-5", flexible="5+")
class DescribeGroupsRequest:
    groups: list[str] = field(array(STRING), "0+")
    include_authorized_operations: bool = field(BOOL, "3+", default=False)


@struct
class DescribedGroupMember:
    member_id: str = field(STRING, "0+")
    group_instance_id: str | None = field(STRING, "4+", nullable="4+", ignorable=True, default=None)
    client_id: str = field(STRING, "0+")
    client_host: str = field(STRING, "0+")
    member_metadata: bytes = field(BYTES, "0+")   # the subscription the member joined with
    member_assignment: bytes = field(BYTES, "0+")


@struct
class DescribedGroup:
    error_code: int = field(INT16, "0+")
    group_id: str = field(STRING, "0+")
    group_state: str = field(STRING, "0+")        # "Stable", "PreparingRebalance", "Dead", ...
    protocol_type: str = field(STRING, "0+")
    protocol_data: str = field(STRING, "0+")      # the chosen protocol (assignor) name
    members: list[DescribedGroupMember] = field(array(DescribedGroupMember), "0+")
    # A bit field of allowed ACL operations; INT32_MIN = not requested.
    authorized_operations: int = field(INT32, "3+", default=-2147483648)


@message(api_key=15, kind="response", valid="0-5", flexible="5+")
class DescribeGroupsResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
    groups: list[DescribedGroup] = field(array(DescribedGroup), "0+")
