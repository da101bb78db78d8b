"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DescribeTopicPartitionsRequest.json and
DescribeTopicPartitionsResponse.json (same directory; the API itself is Kafka 3.7's)

Classes: DescribeTopicPartitionsRequest (DescribeTopicPartitionsTopicRequest, Cursor) and
DescribeTopicPartitionsResponse (DescribeTopicPartitionsResponseTopic, DescribeTopicPartitionsResponsePartition,
Cursor).

What Kafka 3.7+ admin clients ask instead of Metadata when they describe topics (KIP-966): the partitions of
the named topics (or of every topic when the list is empty), in topic-name then partition order, at most
``response_partition_limit`` of them, starting at ``cursor``; ``next_cursor`` names where the next page starts
(null when there is none).

Version 0 only, flexible. Era notes: Kafka 3.7 (KIP-966); kafkalite has no eligible leader replicas, so those
two lists are always null. Left out: nothing.
"""
from __future__ import annotations

import uuid

from kafkalite.protocol.schema import BOOL, INT16, INT32, STRING, UUID, array, field, message, struct

INT32_MIN = -2147483648   # "authorized operations not requested"
DEFAULT_RESPONSE_PARTITION_LIMIT = 2000


@struct
class DescribeTopicPartitionsTopicRequest:
    name: str = field(STRING, "0+")


@struct
class Cursor:
    topic_name: str = field(STRING, "0+")
    partition_index: int = field(INT32, "0+")


@message(api_key=75, kind="request", valid="0", flexible="0+")
class DescribeTopicPartitionsRequest:
    topics: list[DescribeTopicPartitionsTopicRequest] = field(array(DescribeTopicPartitionsTopicRequest), "0+")
    response_partition_limit: int = field(INT32, "0+", default=DEFAULT_RESPONSE_PARTITION_LIMIT)
    cursor: Cursor | None = field(Cursor, "0+", nullable="0+", default=None)


@struct
class DescribeTopicPartitionsResponsePartition:
    error_code: int = field(INT16, "0+")
    partition_index: int = field(INT32, "0+")
    leader_id: int = field(INT32, "0+")
    leader_epoch: int = field(INT32, "0+", default=-1, ignorable=True)
    replica_nodes: list[int] = field(array(INT32), "0+")
    isr_nodes: list[int] = field(array(INT32), "0+")
    eligible_leader_replicas: list[int] | None = field(array(INT32), "0+", nullable="0+", default=None)
    last_known_elr: list[int] | None = field(array(INT32), "0+", nullable="0+", default=None)
    offline_replicas: list[int] = field(array(INT32), "0+", ignorable=True)


@struct
class DescribeTopicPartitionsResponseTopic:
    error_code: int = field(INT16, "0+")
    name: str | None = field(STRING, "0+", nullable="0+")
    topic_id: uuid.UUID = field(UUID, "0+", ignorable=True)
    is_internal: bool = field(BOOL, "0+", default=False, ignorable=True)
    partitions: list[DescribeTopicPartitionsResponsePartition] = field(
        array(DescribeTopicPartitionsResponsePartition), "0+")
    topic_authorized_operations: int = field(INT32, "0+", default=INT32_MIN)


@message(api_key=75, kind="response", valid="0", flexible="0+")
class DescribeTopicPartitionsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0, ignorable=True)
    topics: list[DescribeTopicPartitionsResponseTopic] = field(array(DescribeTopicPartitionsResponseTopic), "0+")
    next_cursor: Cursor | None = field(Cursor, "0+", nullable="0+", default=None)
