"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/MemberMetadata.scala

Classes: MemberSummary (one member as DescribeGroups shows it), MemberMetadata (one member of a
group, as the coordinator keeps it).

A member is known by its ``member_id`` (given by the coordinator) and, if it is a static member
(KIP-345), by its ``group_instance_id`` too. It lists the protocols (assignors) it supports, each
with opaque metadata (for consumers, a serialized subscription), in order of preference.

Two callbacks park the member's pending request while the group rebalances:
``awaiting_join_callback`` (a JoinGroup waiting in the DelayedJoin) and ``awaiting_sync_callback``
(a SyncGroup waiting for the leader's assignment). ``latest_heartbeat`` and
``should_keep_alive`` decide whether a DelayedHeartbeat may complete or must expire the member.

Era notes: as in 2.4, a new member that is still waiting for its first JoinGroup answer is given
``NEW_MEMBER_JOIN_TIMEOUT_MS`` (5 minutes) rather than its session timeout.
Left out: nothing of substance.
"""
from __future__ import annotations

from typing import Callable

import attrs

# Kafka: GroupCoordinator.NewMemberJoinTimeoutMs (kept here, where it is used)
NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000


@attrs.frozen
class MemberSummary:
    """Kafka: MemberSummary -- what DescribeGroups reports for one member."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


class MemberMetadata:
    """Kafka: MemberMetadata -- one group member; guarded by the group's lock."""

    def __init__(self, member_id: str, group_id: str, group_instance_id: str | None, client_id: str,
                 client_host: str, rebalance_timeout_ms: int, session_timeout_ms: int,
                 protocol_type: str, supported_protocols: list[tuple[str, bytes]]):
        self.member_id = member_id
        self.group_id = group_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.session_timeout_ms = session_timeout_ms
        self.protocol_type = protocol_type
        self.supported_protocols = list(supported_protocols)
        self.assignment: bytes = b""
        self.awaiting_join_callback: Callable | None = None
        self.awaiting_sync_callback: Callable | None = None
        self.latest_heartbeat = -1
        self.is_leaving = False
        self.is_new = False

    # Kafka: MemberMetadata.isStaticMember
    @property
    def is_static_member(self) -> bool:
        return self.group_instance_id is not None

    # Kafka: MemberMetadata.isAwaitingJoin
    @property
    def is_awaiting_join(self) -> bool:
        return self.awaiting_join_callback is not None

    # Kafka: MemberMetadata.isAwaitingSync
    @property
    def is_awaiting_sync(self) -> bool:
        return self.awaiting_sync_callback is not None

    # Kafka: MemberMetadata.shouldKeepAlive -- may a heartbeat due at deadline_ms complete?
    def should_keep_alive(self, deadline_ms: int) -> bool:
        if self.is_awaiting_join:
            # A new member may wait for its first join answer up to the new-member timeout.
            return not self.is_new or self.latest_heartbeat + NEW_MEMBER_JOIN_TIMEOUT_MS > deadline_ms
        # A member parked in SyncGroup is alive; otherwise it must have heartbeated recently.
        return self.is_awaiting_sync or self.latest_heartbeat + self.session_timeout_ms > deadline_ms

    # Kafka 3.x: MemberMetadata.protocols -- the names only
    def protocols(self) -> set[str]:
        return {name for name, _ in self.supported_protocols}

    # Kafka: MemberMetadata.metadata -- this member's metadata for one protocol
    def metadata(self, protocol: str) -> bytes:
        for name, data in self.supported_protocols:
            if name == protocol:
                return data
        raise ValueError(f"Member does not support protocol {protocol}")

    # Kafka: MemberMetadata.matches -- same protocols, same order, same metadata?
    def matches(self, protocols: list[tuple[str, bytes]]) -> bool:
        if len(protocols) != len(self.supported_protocols):
            return False
        return all(a[0] == b[0] and bytes(a[1]) == bytes(b[1])
                   for a, b in zip(protocols, self.supported_protocols))

    # Kafka: MemberMetadata.summary
    def summary(self, protocol: str) -> MemberSummary:
        return MemberSummary(self.member_id, self.group_instance_id, self.client_id, self.client_host,
                             self.metadata(protocol), self.assignment)

    # Kafka: MemberMetadata.summaryNoMetadata
    def summary_no_metadata(self) -> MemberSummary:
        return MemberSummary(self.member_id, self.group_instance_id, self.client_id, self.client_host, b"", b"")

    # Kafka: MemberMetadata.vote -- this member's favourite among the candidates
    def vote(self, candidates: set[str]) -> str:
        for name, _ in self.supported_protocols:
            if name in candidates:
                return name
        raise ValueError("Member does not support any of the candidate protocols")

    # Kafka: MemberMetadata.toString
    def __repr__(self) -> str:
        return (f"MemberMetadata(memberId={self.member_id}, groupInstanceId={self.group_instance_id}, "
                f"clientId={self.client_id}, clientHost={self.client_host}, "
                f"sessionTimeoutMs={self.session_timeout_ms}, rebalanceTimeoutMs={self.rebalance_timeout_ms}, "
                f"supportedProtocols={[n for n, _ in self.supported_protocols]})")


# Kafka: MemberMetadata.plainProtocolSet (companion object)
def plain_protocol_set(protocols: list[tuple[str, bytes]]) -> set[str]:
    return {name for name, _ in protocols}
