"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DeleteRecordsRequest.json
and DeleteRecordsResponse.json (same directory).

Classes: DeleteRecordsRequest (DeleteRecordsTopic, DeleteRecordsPartition) and
DeleteRecordsResponse (DeleteRecordsTopicResult, DeleteRecordsPartitionResult).

Moves a partition's log start offset forward: records below ``offset`` become unreadable and
their segments eligible for deletion. ``offset`` -1 means "up to the high watermark". The
answer carries the new log start offset as ``low_watermark``.

Version history, in short: v1 is v0 (throttling on quota violation); v2 is the first flexible
version.

Era notes: 2.4 stopped at v1; v2 is today's wire.
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class DeleteRecordsPartition:
    partition_index: int = field(INT32, "0+")
    offset: int = field(INT64, "0+")              # delete everything before this offset


@struct
class DeleteRecordsTopic:
    name: str = field(STRING, "0+")
    partitions: list[DeleteRecordsPartition] = field(array(DeleteRecordsPartition), "0+")


@message(api_key=21, kind="request", valid="0-2", flexible="2+")
class DeleteRecordsRequest:
    topics: list[DeleteRecordsTopic] = field(array(DeleteRecordsTopic), "0+")
    timeout_ms: int = field(INT32, "0+")


@struct
class DeleteRecordsPartitionResult:
    partition_index: int = field(INT32, "0+")
    low_watermark: int = field(INT64, "0+")       # the new log start offset
    error_code: int = field(INT16, "0+")


@struct
class DeleteRecordsTopicResult:
    name: str = field(STRING, "0+")
    partitions: list[DeleteRecordsPartitionResult] = field(
        array(DeleteRecordsPartitionResult), "0+")


@message(api_key=21, kind="response", valid="0-2", flexible="2+")
class DeleteRecordsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    topics: list[DeleteRecordsTopicResult] = field(array(DeleteRecordsTopicResult), "0+")
