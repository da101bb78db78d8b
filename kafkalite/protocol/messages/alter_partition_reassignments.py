"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/AlterPartitionReassignmentsRequest.json and
AlterPartitionReassignmentsResponse.json (same directory).

Classes: AlterPartitionReassignmentsRequest (ReassignableTopic, ReassignablePartition),
AlterPartitionReassignmentsResponse (ReassignableTopicResponse, ReassignablePartitionResponse).

An admin asks the controller to move a partition to a new replica list (KIP-455): ``replicas`` is the target
list, or null to cancel the reassignment in progress. The controller answers once the reassignment has
*started* (the new assignment is in ZooKeeper); its progress is what ListPartitionReassignments shows.
Versions: only v0, flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import INT16, INT32, STRING, array, field, message, struct


@struct
class ReassignablePartition:
    partition_index: int = field(INT32, "0+")
    replicas: list[int] | None = field(array(INT32), "0+", nullable="0+", default=None)


@struct
class ReassignableTopic:
    name: str = field(STRING, "0+")
    partitions: list[ReassignablePartition] = field(array(ReassignablePartition), "0+")


@message(api_key=45, kind="request", valid="0", flexible="0+")
class AlterPartitionReassignmentsRequest:
    timeout_ms: int = field(INT32, "0+", default=60000)
    topics: list[ReassignableTopic] = field(array(ReassignableTopic), "0+")


@struct
class ReassignablePartitionResponse:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)


@struct
class ReassignableTopicResponse:
    name: str = field(STRING, "0+")
    partitions: list[ReassignablePartitionResponse] = field(array(ReassignablePartitionResponse), "0+")


@message(api_key=45, kind="response", valid="0", flexible="0+")
class AlterPartitionReassignmentsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    responses: list[ReassignableTopicResponse] = field(array(ReassignableTopicResponse), "0+")
