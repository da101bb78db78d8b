"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/OffsetDeleteRequest.json
and OffsetDeleteResponse.json (same directory).

Classes: OffsetDeleteRequest (OffsetDeleteRequestTopic, OffsetDeleteRequestPartition) and
OffsetDeleteResponse (OffsetDeleteResponseTopic, OffsetDeleteResponsePartition).

KIP-496 (new in 2.4): delete a group's committed offsets for some partitions. Refused with
GROUP_SUBSCRIBED_TO_TOPIC per partition while an active member is subscribed to the topic.

Version history: only v0, which is not flexible.

Era notes: as in 2.4.
Left out: nothing.
"""
from kafkalite.protocol.schema import INT16, INT32, STRING, array, field, message, struct


@struct
class OffsetDeleteRequestPartition:
    partition_index: int = field(INT32, "0+")


@struct
class OffsetDeleteRequestTopic:
    name: str = field(STRING, "0+")
    partitions: list[OffsetDeleteRequestPartition] = field(array(OffsetDeleteRequestPartition), "0+")


@message(api_key=47, kind="request", valid="0", flexible="none")
class OffsetDeleteRequest:
    group_id: str = field(STRING, "0+")
    topics: list[OffsetDeleteRequestTopic] = field(array(OffsetDeleteRequestTopic), "0+")


@struct
class OffsetDeleteResponsePartition:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@struct
class OffsetDeleteResponseTopic:
    name: str = field(STRING, "0+")
    partitions: list[OffsetDeleteResponsePartition] = field(array(OffsetDeleteResponsePartition), "0+")


@message(api_key=47, kind="response", valid="0", flexible="none")
class OffsetDeleteResponse:
    error_code: int = field(INT16, "0+")          # group-level error
    throttle_time_ms: int = field(INT32, "0+", ignorable=True, default=0)
    topics: list[OffsetDeleteResponseTopic] = field(array(OffsetDeleteResponseTopic), "0+")
