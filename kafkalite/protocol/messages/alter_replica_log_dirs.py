"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/AlterReplicaLogDirsRequest.java and
AlterReplicaLogDirsResponse.java (same directory).

Classes: AlterReplicaLogDirsRequest (AlterReplicaLogDir, AlterReplicaLogDirTopic), AlterReplicaLogDirsResponse
(AlterReplicaLogDirTopicResult, AlterReplicaLogDirPartitionResult).

KIP-113: move replicas on the receiving broker into the named log dirs (absolute paths, one of its
``log.dirs``). The answer comes once each move has *started* (NONE), not when it is done; a replica the
broker does not host yet answers REPLICA_NOT_AVAILABLE (and will be created in that dir), an unknown dir
LOG_DIR_NOT_FOUND, an offline one KAFKA_STORAGE_ERROR.

Version history, in short: v1 is v0 (throttling on quota violation).
Era notes: the range is 2.4's (0-1); today's brokers add a flexible v2.
"""
from __future__ import annotations

from kafkalite.protocol.schema import INT16, INT32, STRING, array, field, message, struct


@struct
class AlterReplicaLogDirTopic:
    name: str = field(STRING, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@struct
class AlterReplicaLogDir:
    path: str = field(STRING, "0+")             # the absolute log dir to move them to
    topics: list[AlterReplicaLogDirTopic] = field(array(AlterReplicaLogDirTopic), "0+")


@message(api_key=34, kind="request", valid="0-1")
class AlterReplicaLogDirsRequest:
    dirs: list[AlterReplicaLogDir] = field(array(AlterReplicaLogDir), "0+")


@struct
class AlterReplicaLogDirPartitionResult:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@struct
class AlterReplicaLogDirTopicResult:
    topic_name: str = field(STRING, "0+")
    partitions: list[AlterReplicaLogDirPartitionResult] = field(array(AlterReplicaLogDirPartitionResult), "0+")


@message(api_key=34, kind="response", valid="0-1")
class AlterReplicaLogDirsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[AlterReplicaLogDirTopicResult] = field(array(AlterReplicaLogDirTopicResult), "0+")
