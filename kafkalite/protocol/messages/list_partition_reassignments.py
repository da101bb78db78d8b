"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/ListPartitionReassignmentsRequest.json and
ListPartitionReassignmentsResponse.json (same directory).

Classes: ListPartitionReassignmentsRequest (ListPartitionReassignmentsTopics),
ListPartitionReassignmentsResponse (OngoingTopicReassignment, OngoingPartitionReassignment).

Which partitions are moving (KIP-455): for each, the full replica set during the move and the replicas being
added and removed. ``topics`` null lists every reassignment in progress. Versions: only v0, flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import INT16, INT32, STRING, array, field, message, struct


@struct
class ListPartitionReassignmentsTopics:
    name: str = field(STRING, "0+")
    partition_indexes: list[int] = field(array(INT32), "0+")


@message(api_key=46, kind="request", valid="0", flexible="0+")
class ListPartitionReassignmentsRequest:
    timeout_ms: int = field(INT32, "0+", default=60000)
    topics: list[ListPartitionReassignmentsTopics] | None = field(
        array(ListPartitionReassignmentsTopics), "0+", nullable="0+", default=None)


@struct
class OngoingPartitionReassignment:
    partition_index: int = field(INT32, "0+")
    replicas: list[int] = field(array(INT32), "0+")
    adding_replicas: list[int] = field(array(INT32), "0+")
    removing_replicas: list[int] = field(array(INT32), "0+")


@struct
class OngoingTopicReassignment:
    name: str = field(STRING, "0+")
    partitions: list[OngoingPartitionReassignment] = field(array(OngoingPartitionReassignment), "0+")


@message(api_key=46, kind="response", valid="0", flexible="0+")
class ListPartitionReassignmentsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    topics: list[OngoingTopicReassignment] = field(array(OngoingTopicReassignment), "0+")
