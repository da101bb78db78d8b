"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/StopReplicaRequest.json, StopReplicaResponse.json

Classes: StopReplicaRequest, StopReplicaPartitionV0, StopReplicaTopic, StopReplicaResponse,
StopReplicaPartitionError.

The controller sends this to make a broker stop fetching (and, with delete_partitions, delete)
replicas. Versions: v1 adds the broker epoch and groups partitions by topic; v2 is flexible.

Era notes: exactly 2.4's versions (v3's per-partition states came in 2.6).
Left out: Kafka's ``Builder``.
"""
from __future__ import annotations

from kafkalite.protocol.schema import BOOL, INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class StopReplicaPartitionV0:
    topic_name: str = field(STRING, "0")
    partition_index: int = field(INT32, "0")


@struct
class StopReplicaTopic:
    name: str = field(STRING, "1+")
    partition_indexes: list[int] = field(array(INT32), "1+")


@message(api_key=5, kind="request", valid="0-2", flexible="2+")
class StopReplicaRequest:
    controller_id: int = field(INT32, "0+")
    controller_epoch: int = field(INT32, "0+")
    broker_epoch: int = field(INT64, "1+", ignorable=True, default=-1)
    delete_partitions: bool = field(BOOL, "0+")
    ungrouped_partitions: list[StopReplicaPartitionV0] = field(array(StopReplicaPartitionV0), "0")
    topics: list[StopReplicaTopic] = field(array(StopReplicaTopic), "1+")

    # Kafka: StopReplicaRequest.partitions
    def partitions(self) -> list[tuple[str, int]]:
        """Every (topic, partition) named, whatever the version."""
        result = [(p.topic_name, p.partition_index) for p in self.ungrouped_partitions]
        for topic in self.topics:
            result.extend((topic.name, index) for index in topic.partition_indexes)
        return result


@struct
class StopReplicaPartitionError:
    topic_name: str = field(STRING, "0+")
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@message(api_key=5, kind="response", valid="0-2", flexible="2+")
class StopReplicaResponse:
    error_code: int = field(INT16, "0+")
    partition_errors: list[StopReplicaPartitionError] = field(array(StopReplicaPartitionError), "0+")
