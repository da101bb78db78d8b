"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/requests/DescribeLogDirsRequest.java and
DescribeLogDirsResponse.java (same directory).

Classes: DescribeLogDirsRequest (DescribableLogDirTopic), DescribeLogDirsResponse (DescribeLogDirsResult,
DescribeLogDirsTopic, DescribeLogDirsPartition), and the response's two value classes, LogDirInfo and ReplicaInfo
(what the ReplicaManager reports and the admin client returns).

KIP-113: which log dirs a broker has and which replicas each holds. The request names topics and partitions
(``topics`` null: every partition on the broker); the answer has one entry per configured log dir -- its
error (KAFKA_STORAGE_ERROR when offline) and, per partition, the size of its log in bytes, its lag (a
current log: the high watermark minus its end, a future log: the current log's end minus its end) and
whether it is a future log (a replica moving into this dir). The broker answers about itself only, so an
admin client sends it to each broker it wants to know about.

Version history, in short: v1 is v0 (throttling on quota violation).
Era notes: the range is 2.4's (0-1); today's brokers add a flexible v2, a top-level error code (v3) and the
dir's total and usable bytes (v4).
"""
from __future__ import annotations

import attrs

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.schema import BOOL, INT16, INT32, INT64, STRING, array, field, message, struct

INVALID_OFFSET_LAG = -1   # Kafka: DescribeLogDirsResponse.INVALID_OFFSET_LAG -- the partition has no local log


@struct
class DescribableLogDirTopic:
    topic: str = field(STRING, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@message(api_key=35, kind="request", valid="0-1")
class DescribeLogDirsRequest:
    topics: list[DescribableLogDirTopic] | None = field(array(DescribableLogDirTopic), "0+", nullable="0+",
                                                        default=None)   # null: every partition


@struct
class DescribeLogDirsPartition:
    partition_index: int = field(INT32, "0+")
    partition_size: int = field(INT64, "0+")    # bytes in the log's segments
    offset_lag: int = field(INT64, "0+")        # to the HW (current log) or to the current log's end (future log)
    is_future_key: bool = field(BOOL, "0+")     # a future log: it will replace the current one when it caught up


@struct
class DescribeLogDirsTopic:
    name: str = field(STRING, "0+")
    partitions: list[DescribeLogDirsPartition] = field(array(DescribeLogDirsPartition), "0+")


@struct
class DescribeLogDirsResult:
    error_code: int = field(INT16, "0+")
    log_dir: str = field(STRING, "0+")          # the absolute path
    topics: list[DescribeLogDirsTopic] = field(array(DescribeLogDirsTopic), "0+")


@message(api_key=35, kind="response", valid="0-1")
class DescribeLogDirsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[DescribeLogDirsResult] = field(array(DescribeLogDirsResult), "0+")


@attrs.frozen
class ReplicaInfo:
    """Kafka: DescribeLogDirsResponse.ReplicaInfo(size, offsetLag, isFuture)."""

    size: int
    offset_lag: int
    is_future: bool


@attrs.frozen
class LogDirInfo:
    """Kafka: DescribeLogDirsResponse.LogDirInfo(error, replicaInfos) -- replica_infos: {TopicPartition: ReplicaInfo}."""

    error: Errors
    replica_infos: dict
