"""Mirrors Kafka 3.7: clients/src/main/resources/common/message/ConsumerGroupDescribeRequest.json and
ConsumerGroupDescribeResponse.json (same directory; KIP-848)

Classes: ConsumerGroupDescribeRequest and ConsumerGroupDescribeResponse (DescribedGroup, Member, Assignment,
TopicPartitions).

What admin tools ask about a consumer-protocol group: its state, group epoch, assignment epoch, assignor and,
per member, its epoch, subscription, current assignment and target assignment (topic ids and names).

Version 0 only, flexible. Era notes: Kafka 3.7 (KIP-848). Left out: nothing.
"""
from __future__ import annotations

import uuid

from kafkalite.protocol.schema import BOOL, INT16, INT32, STRING, UUID, array, field, message, struct

INT32_MIN = -2147483648   # "authorized operations not requested"


@message(api_key=69, kind="request", valid="0", flexible="0+")
class ConsumerGroupDescribeRequest:
    group_ids: list[str] = field(array(STRING), "0+")
    include_authorized_operations: bool = field(BOOL, "0+", default=False)


@struct
class TopicPartitions:
    topic_id: uuid.UUID = field(UUID, "0+")
    topic_name: str = field(STRING, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@struct
class Assignment:
    topic_partitions: list[TopicPartitions] = field(array(TopicPartitions), "0+")


@struct
class Member:
    member_id: str = field(STRING, "0+")
    instance_id: str | None = field(STRING, "0+", nullable="0+", default=None)
    rack_id: str | None = field(STRING, "0+", nullable="0+", default=None)
    member_epoch: int = field(INT32, "0+")
    client_id: str = field(STRING, "0+")
    client_host: str = field(STRING, "0+")
    subscribed_topic_names: list[str] = field(array(STRING), "0+")
    subscribed_topic_regex: str | None = field(STRING, "0+", nullable="0+", default=None)
    assignment: Assignment = field(Assignment, "0+")
    target_assignment: Assignment = field(Assignment, "0+")


@struct
class DescribedGroup:
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    group_id: str = field(STRING, "0+")
    group_state: str = field(STRING, "0+", default="")
    group_epoch: int = field(INT32, "0+", default=0)
    assignment_epoch: int = field(INT32, "0+", default=0)
    assignor_name: str = field(STRING, "0+", default="")
    members: list[Member] = field(array(Member), "0+")
    authorized_operations: int = field(INT32, "0+", default=INT32_MIN)


@message(api_key=69, kind="response", valid="0", flexible="0+")
class ConsumerGroupDescribeResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    groups: list[DescribedGroup] = field(array(DescribedGroup), "0+")
