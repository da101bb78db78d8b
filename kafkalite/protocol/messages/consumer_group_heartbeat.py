"""Mirrors Kafka 3.7: clients/src/main/resources/common/message/ConsumerGroupHeartbeatRequest.json and
ConsumerGroupHeartbeatResponse.json (same directory; KIP-848; v1 of the heartbeat is Kafka 4.0's)

Classes: ConsumerGroupHeartbeatRequest (ConsumerGroupHeartbeatRequestTopicPartitions) and
ConsumerGroupHeartbeatResponse (ConsumerGroupHeartbeatAssignment, ConsumerGroupHeartbeatTopicPartitions).

The one request of the next-generation consumer group protocol: a member joins (``member_epoch`` 0),
heartbeats with the epoch it was given, acknowledges revocations by reporting the partitions it still
owns (``topic_partitions``), and leaves (epoch -1; -2 for a static member that will come back). Fields
that did not change since the last heartbeat may be sent as null. The answer carries the member's epoch,
the heartbeat interval and, when it changed, the partitions (by topic id) the member may use now.

Versions 0-1, flexible. v1 (Kafka 4.0) adds ``subscribed_topic_regex`` and has the member generate its own
id (librdkafka 2.16 sends v1 only). Era notes: Kafka 3.7 (KIP-848; GA in Kafka 4.0, whose range this is; 3.9
accepts v0). Left out: nothing of the wire; a regex subscription is refused by the coordinator.
"""
from __future__ import annotations

import uuid

from kafkalite.protocol.schema import INT16, INT32, STRING, UUID, array, field, message, struct


@struct
class ConsumerGroupHeartbeatRequestTopicPartitions:
    topic_id: uuid.UUID = field(UUID, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@message(api_key=68, kind="request", valid="0-1", flexible="0+")
class ConsumerGroupHeartbeatRequest:
    group_id: str = field(STRING, "0+")
    member_id: str = field(STRING, "0+")            # "" when joining: the coordinator names the member
    member_epoch: int = field(INT32, "0+")          # 0 join, -1 leave, -2 static member leaving for a while
    instance_id: str | None = field(STRING, "0+", nullable="0+", default=None)
    rack_id: str | None = field(STRING, "0+", nullable="0+", default=None)
    rebalance_timeout_ms: int = field(INT32, "0+", default=-1)
    subscribed_topic_names: list[str] | None = field(array(STRING), "0+", nullable="0+", default=None)
    subscribed_topic_regex: str | None = field(STRING, "1+", nullable="1+", default=None)
    server_assignor: str | None = field(STRING, "0+", nullable="0+", default=None)
    topic_partitions: list[ConsumerGroupHeartbeatRequestTopicPartitions] | None = field(
        array(ConsumerGroupHeartbeatRequestTopicPartitions), "0+", nullable="0+", default=None)


@struct
class ConsumerGroupHeartbeatTopicPartitions:
    topic_id: uuid.UUID = field(UUID, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@struct
class ConsumerGroupHeartbeatAssignment:
    topic_partitions: list[ConsumerGroupHeartbeatTopicPartitions] = field(
        array(ConsumerGroupHeartbeatTopicPartitions), "0+")


@message(api_key=68, kind="response", valid="0-1", flexible="0+")
class ConsumerGroupHeartbeatResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    member_id: str | None = field(STRING, "0+", nullable="0+", default=None)
    member_epoch: int = field(INT32, "0+", default=-1)
    heartbeat_interval_ms: int = field(INT32, "0+", default=0)
    assignment: ConsumerGroupHeartbeatAssignment | None = field(
        ConsumerGroupHeartbeatAssignment, "0+", nullable="0+", default=None)
