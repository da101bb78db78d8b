"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/SyncGroupRequest.json
and SyncGroupResponse.json (same directory).

Classes: SyncGroupRequest (SyncGroupRequestAssignment) and SyncGroupResponse.

The second step of a rebalance. The leader sends every member's assignment; followers send an
empty list. When the leader's request arrives the coordinator stores the group and answers
each member with its own ``assignment`` (opaque bytes: a ConsumerProtocolAssignment).

Version history, in short:
- v1 adds ``throttle_time_ms``; v2 is v1; v3 adds ``group_instance_id`` (KIP-345).
- v4 is the first flexible version; v5 adds ``protocol_type``/``protocol_name`` so the
  coordinator can check them (KIP-559).

Era notes: 2.4 stopped at v4; v5 is today's wire (kafka-python sends it).
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import BYTES, INT16, INT32, STRING, array, field, message, struct


@struct
class SyncGroupRequestAssignment:
    member_id: str = field(STRING, "0+")
    assignment: bytes = field(BYTES, "0+")


@message(api_key=14, kind="request", valid="0-5", flexible="4+")
class SyncGroupRequest:
    group_id: str = field(STRING, "0+")
    generation_id: int = field(INT32, "0+")
    member_id: str = field(STRING, "0+")
    group_instance_id: str | None = field(STRING, "3+", nullable="3+", default=None)
    protocol_type: str | None = field(STRING, "5+", nullable="5+", ignorable=True, default=None)
    protocol_name: str | None = field(STRING, "5+", nullable="5+", ignorable=True, default=None)
    assignments: list[SyncGroupRequestAssignment] = field(array(SyncGroupRequestAssignment), "0+")


@message(api_key=14, kind="response", valid="0-5", flexible="4+")
class SyncGroupResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
    error_code: int = field(INT16, "0+")
    protocol_type: str | None = field(STRING, "5+", nullable="5+", ignorable=True, default=None)
    protocol_name: str | None = field(STRING, "5+", nullable="5+", ignorable=True, default=None)
    assignment: bytes = field(BYTES, "0+")        # this member's share of the partitions
