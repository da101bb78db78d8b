"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/HeartbeatRequest.json
and HeartbeatResponse.json (same directory).

Classes: HeartbeatRequest, HeartbeatResponse.

A member proves it is alive between polls. The answer's error code is how members learn that a
rebalance started (REBALANCE_IN_PROGRESS) or that they were dropped (UNKNOWN_MEMBER_ID,
ILLEGAL_GENERATION).

Version history, in short: v1 adds ``throttle_time_ms``; v2 is v1; v3 adds
``group_instance_id`` (KIP-345); v4 is the first flexible version.

Era notes: v0-4 is exactly 2.4's range.
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import INT16, INT32, STRING, field, message


@message(api_key=12, kind="request", valid="0-4", flexible="4+")
class HeartbeatRequest:
    group_id: str = field(STRING, "0+")
    generation_id: int = field(INT32, "0+")
    member_id: str = field(STRING, "0+")
    group_instance_id: str | None = field(STRING, "3+", nullable="3+", default=None)


@message(api_key=12, kind="response", valid="0-4", flexible="4+")
class HeartbeatResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
    error_code: int = field(INT16, "0+")
