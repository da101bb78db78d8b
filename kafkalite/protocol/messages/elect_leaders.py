"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/ElectLeadersRequest.json and
ElectLeadersResponse.json (same directory).

Classes: ElectLeadersRequest (TopicPartitions), ElectLeadersResponse (ReplicaElectionResult, PartitionResult).

An admin asks the controller to elect leaders (KIP-183, KIP-460): the preferred replica (election type 0)
or, for leaderless partitions, any live replica (1, unclean). ``topic_partitions`` null means every
partition. Versions: v1 adds ``election_type`` and the top-level ``error_code``; v2 is flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import INT8, INT16, INT32, STRING, array, field, message, struct

PREFERRED, UNCLEAN = 0, 1   # Kafka: ElectionType


@struct
class TopicPartitions:
    topic: str = field(STRING, "0+")
    partition_id: list[int] = field(array(INT32), "0+")


@message(api_key=43, kind="request", valid="0-2", flexible="2+")
class ElectLeadersRequest:
    election_type: int = field(INT8, "1+", default=PREFERRED)
    topic_partitions: list[TopicPartitions] | None = field(array(TopicPartitions), "0+", nullable="0+")
    timeout_ms: int = field(INT32, "0+", default=60000)


@struct
class PartitionResult:
    partition_id: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)


@struct
class ReplicaElectionResult:
    topic: str = field(STRING, "0+")
    partition_result: list[PartitionResult] = field(array(PartitionResult), "0+")


@message(api_key=43, kind="response", valid="0-2", flexible="2+")
class ElectLeadersResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "1+", ignorable=True, default=0)
    replica_election_results: list[ReplicaElectionResult] = field(array(ReplicaElectionResult), "0+")
