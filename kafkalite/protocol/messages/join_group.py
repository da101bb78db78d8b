"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/JoinGroupRequest.json
and JoinGroupResponse.json (same directory).

Classes: JoinGroupRequest (JoinGroupRequestProtocol) and JoinGroupResponse
(JoinGroupResponseMember).

The first step of a rebalance. Each member lists the protocols (assignors) it supports, with
its subscription as opaque ``metadata``; the coordinator waits for the group, picks a protocol
every member supports and answers. The leader's answer also carries every member's metadata,
so it can compute the assignment it then sends in SyncGroup.

Version history, in short:
- v1 adds ``rebalance_timeout_ms``; v2 adds ``throttle_time_ms``; v3 is v2.
- v4 lets the coordinator answer MEMBER_ID_REQUIRED so a new member rejoins with an id (KIP-394).
- v5 adds ``group_instance_id`` for static membership (KIP-345).
- v6 is the first flexible version; v7 adds ``protocol_type`` to the response and makes
  ``protocol_name`` nullable (KIP-559).

Era notes: 2.4 stopped at v6; v7 is today's wire (kafka-python sends it).
Left out: v8+ (``reason``, KIP-800; ``skip_assignment``, KIP-848).
"""
from kafkalite.protocol.schema import BYTES, INT16, INT32, STRING, array, field, message, struct


@struct
class JoinGroupRequestProtocol:
    name: str = field(STRING, "0+")               # e.g. "range", "roundrobin", "cooperative-sticky"
    metadata: bytes = field(BYTES, "0+")          # a ConsumerProtocolSubscription for consumers


@message(api_key=11, kind="request", valid="0-7", flexible="6+")
class JoinGroupRequest:
    group_id: str = field(STRING, "0+")
    session_timeout_ms: int = field(INT32, "0+")
    # How long the coordinator waits for members to rejoin; v0 used the session timeout.
    rebalance_timeout_ms: int = field(INT32, "1+", ignorable=True, default=-1)
    member_id: str = field(STRING, "0+")          # "" on the first join
    group_instance_id: str | None = field(STRING, "5+", nullable="5+", default=None)
    protocol_type: str = field(STRING, "0+")      # "consumer" for consumer groups
    protocols: list[JoinGroupRequestProtocol] = field(array(JoinGroupRequestProtocol), "0+")


@struct
class JoinGroupResponseMember:
    member_id: str = field(STRING, "0+")
    group_instance_id: str | None = field(STRING, "5+", nullable="5+", ignorable=True, default=None)
    metadata: bytes = field(BYTES, "0+")


@message(api_key=11, kind="response", valid="0-7", flexible="6+")
class JoinGroupResponse:
    throttle_time_ms: int = field(INT32, "2+", ignorable=True, default=0)
    error_code: int = field(INT16, "0+")
    generation_id: int = field(INT32, "0+", default=-1)
    protocol_type: str | None = field(STRING, "7+", nullable="7+", ignorable=True, default=None)
    protocol_name: str | None = field(STRING, "0+", nullable="7+")   # the chosen assignor
    leader: str = field(STRING, "0+")             # member id of the group leader
    member_id: str = field(STRING, "0+")          # this member's (possibly new) id
    members: list[JoinGroupResponseMember] = field(array(JoinGroupResponseMember), "0+")  # leader only
