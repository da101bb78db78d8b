"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/LeaveGroupRequest.json
and LeaveGroupResponse.json (same directory).

Classes: LeaveGroupRequest (MemberIdentity) and LeaveGroupResponse (MemberResponse).

A member leaving on purpose, so the group rebalances at once instead of waiting for its
session to time out. From v3 one request may remove several members (an admin removing static
members, KIP-345), each answered with its own error code.

Version history, in short:
- v1 adds ``throttle_time_ms``; v2 is v1.
- v3 replaces the single ``member_id`` by the ``members`` batch.
- v4 is the first flexible version; v5 adds a per-member ``reason`` (KIP-800).

Era notes: 2.4 stopped at v4; v5 is today's wire (kafka-python sends it).
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import INT16, INT32, STRING, array, field, message, struct


@struct
class MemberIdentity:
    member_id: str = field(STRING, "3+")
    group_instance_id: str | None = field(STRING, "3+", nullable="3+", default=None)
    reason: str | None = field(STRING, "5+", nullable="5+", ignorable=True, default=None)


@message(api_key=13, kind="request", valid="0-5", flexible="4+")
class LeaveGroupRequest:
    group_id: str = field(STRING, "0+")
    member_id: str = field(STRING, "0-2", default="")                 # the one member (v0-2)
    members: list[MemberIdentity] = field(array(MemberIdentity), "3+")  # the batch (v3+)


@struct
class MemberResponse:
    member_id: str = field(STRING, "3+")
    group_instance_id: str | None = field(STRING, "3+", nullable="3+")
    error_code: int = field(INT16, "3+")


@message(api_key=13, kind="response", valid="0-5", flexible="4+")
class LeaveGroupResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
    error_code: int = field(INT16, "0+")
    members: list[MemberResponse] = field(array(MemberResponse), "3+")
