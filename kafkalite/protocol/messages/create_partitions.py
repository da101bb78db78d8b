"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/CreatePartitionsRequest.json
and CreatePartitionsResponse.json (same directory).

Classes: CreatePartitionsRequest (CreatePartitionsTopic, CreatePartitionsAssignment) and
CreatePartitionsResponse (CreatePartitionsTopicResult).

Grows a topic to ``count`` partitions (never shrinks it). ``assignments`` optionally lists the
replica brokers of each *new* partition; None lets the controller choose.

Version history, in short: v1 is v0 (throttling on quota violation); v2 is the first flexible
version; v3 is v2 (KIP-599 throttling of partition mutations).

Era notes: 2.4 stopped at v1; v2-3 are today's wire.
Left out: nothing inside the range.
"""
from kafkalite.protocol.schema import BOOL, INT16, INT32, STRING, array, field, message, struct


@struct
class CreatePartitionsAssignment:
    broker_ids: list[int] = field(array(INT32), "0+")   # replicas of one new partition


@struct
class CreatePartitionsTopic:
    name: str = field(STRING, "0+")
    count: int = field(INT32, "0+")               # the new total number of partitions
    assignments: list[CreatePartitionsAssignment] | None = field(
        array(CreatePartitionsAssignment), "0+", nullable="0+")  # None = let the controller choose


@message(api_key=37, kind="request", valid="0-3", flexible="2+")
class CreatePartitionsRequest:
    topics: list[CreatePartitionsTopic] = field(array(CreatePartitionsTopic), "0+")
    timeout_ms: int = field(INT32, "0+")
    validate_only: bool = field(BOOL, "0+", default=False)


@struct
class CreatePartitionsTopicResult:
    name: str = field(STRING, "0+")
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)


@message(api_key=37, kind="response", valid="0-3", flexible="2+")
class CreatePartitionsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[CreatePartitionsTopicResult] = field(
        array(CreatePartitionsTopicResult), "0+")
