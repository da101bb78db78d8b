"""Mirrors Kafka 2.4: core/src/main/scala/kafka/coordinator/group/GroupCoordinator.scala (its result records)

Classes: JoinGroupResult, SyncGroupResult, LeaveMemberResponse, LeaveGroupResult; the constants of
GroupCoordinator's companion object (NoProtocol, NoGeneration, NoMemberId, NoLeader) and ``joinError``.
Kafka declares them beside GroupCoordinator; they live in their own module so that GroupMetadata,
which hands them to parked callbacks, can use them without importing the coordinator (imports flow
one way: coordinator -> manager -> metadata -> these records).
"""
from __future__ import annotations

import attrs

from kafkalite.protocol.errors import Errors

NO_PROTOCOL = ""       # Kafka: GroupCoordinator.NoProtocol
NO_GENERATION = -1     # Kafka: GroupCoordinator.NoGeneration
NO_MEMBER_ID = ""      # Kafka: GroupCoordinator.NoMemberId
NO_LEADER = ""         # Kafka: GroupCoordinator.NoLeader


@attrs.frozen
class JoinGroupResult:
    """Kafka: JoinGroupResult (GroupCoordinator.scala) -- members is [(id, instance id, metadata)] for the leader."""

    members: list
    member_id: str
    generation_id: int
    protocol_type: str | None
    protocol_name: str | None
    leader_id: str
    error: Errors


@attrs.frozen
class SyncGroupResult:
    """Kafka: SyncGroupResult (GroupCoordinator.scala)."""

    protocol_type: str | None
    protocol_name: str | None
    member_assignment: bytes
    error: Errors


@attrs.frozen
class LeaveMemberResponse:
    """Kafka: LeaveMemberResponse (GroupCoordinator.scala)."""

    member_id: str
    group_instance_id: str | None
    error: Errors


@attrs.frozen
class LeaveGroupResult:
    """Kafka: LeaveGroupResult (GroupCoordinator.scala)."""

    top_level_error: Errors
    member_responses: list[LeaveMemberResponse]


# Kafka: GroupCoordinator.joinError
def join_error(member_id: str, error: Errors) -> JoinGroupResult:
    return JoinGroupResult([], member_id, NO_GENERATION, None, None, NO_LEADER, error)
