"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/OffsetFetchRequest.json
and OffsetFetchResponse.json (same directory).

Classes: OffsetFetchRequest (OffsetFetchRequestTopic) and OffsetFetchResponse
(OffsetFetchResponseTopic, OffsetFetchResponsePartition).

A consumer reads the committed positions of a group, typically right after a rebalance.
A partition without a committed offset answers offset -1 and no error; an unknown group
answers the same way for every partition.

Version history, in short:
- v0 reads the offsets that OffsetCommit v0 stored in ZooKeeper (2.4's broker does).
- v1 reads offsets from Kafka rather than ZooKeeper; the shape is v0's.
- v2 makes ``topics`` nullable (None = every partition the group committed) and adds a
  top-level ``error_code``; v3 adds ``throttle_time_ms``; v4 is v3.
- v5 adds ``committed_leader_epoch`` (KIP-320); v6 is the first flexible version.
- v7 adds ``require_stable``: wait (UNSTABLE_OFFSET_COMMIT) while a transaction has pending
  offsets for the partition (KIP-447).

Era notes: 2.4 stopped at v6; v7 is today's wire (kafka-python sends it).
v0 was removed by Kafka 4.0 (KIP-896); 2.4 through 3.9 accept it, and so does kafkalite.
Left out: v8+ (KIP-709), which asks for several groups at once and has a different shape.
"""
from kafkalite.protocol.schema import BOOL, INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class OffsetFetchRequestTopic:
    name: str = field(STRING, "0+")
    partition_indexes: list[int] = field(array(INT32), "0+")


@message(api_key=9, kind="request", valid="0-7", flexible="6+")
class OffsetFetchRequest:
    group_id: str = field(STRING, "0+")
    # None (v2+) asks for every partition the group has an offset for.
    topics: list[OffsetFetchRequestTopic] | None = field(
        array(OffsetFetchRequestTopic), "0+", nullable="2+")
    require_stable: bool = field(BOOL, "7+", default=False)


@struct
class OffsetFetchResponsePartition:
    partition_index: int = field(INT32, "0+")
    committed_offset: int = field(INT64, "0+")    # -1 = nothing committed
    committed_leader_epoch: int = field(INT32, "5+", ignorable=True, default=-1)
    metadata: str | None = field(STRING, "0+", nullable="0+")
    error_code: int = field(INT16, "0+")


@struct
class OffsetFetchResponseTopic:
    name: str = field(STRING, "0+")
    partitions: list[OffsetFetchResponsePartition] = field(array(OffsetFetchResponsePartition), "0+")


@message(api_key=9, kind="response", valid="0-7", flexible="6+")
class OffsetFetchResponse:
    throttle_time_ms: int = field(INT32, "3+", ignorable=True, default=0)
    topics: list[OffsetFetchResponseTopic] = field(array(OffsetFetchResponseTopic), "0+")
    error_code: int = field(INT16, "2+", ignorable=True, default=0)   # group-level error
