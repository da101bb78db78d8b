"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/ListOffsetRequest.json
and ListOffsetResponse.json (same directory).

Classes: ListOffsetsRequest (ListOffsetsTopic, ListOffsetsPartition) and ListOffsetsResponse
(ListOffsetsTopicResponse, ListOffsetsPartitionResponse).

A client asks, per partition, for the offset that matches a timestamp. Special timestamps:
-1 = the latest offset (log end, or LSO for read_committed), -2 = the earliest offset,
-3 = the record with the largest timestamp (v7, KIP-734).

Version history, in short:
- v0 asks for up to ``max_num_offsets`` offsets per partition and answers them, largest
  first, in ``old_style_offsets``: the log end offset and the base offsets of the segments
  last written before the timestamp.
- v1 replaces v0's list of old-style offsets with one (timestamp, offset) pair.
- v2 adds ``isolation_level`` and the response ``throttle_time_ms``.
- v4 adds ``current_leader_epoch`` and the response ``leader_epoch`` (KIP-320).
- v6 is the first flexible version; v7 allows timestamp -3.

Era notes: 2.4 called these ListOffsetRequest/ListOffsetResponse and stopped at v5; the
class and field names here are today's (the rename came in 2.8).
v0 was removed by Kafka 4.0 (KIP-896); 2.4 through 3.9 accept it, and so does kafkalite.
Left out: v8+ (tiered storage's -4/-5
timestamps, ``timeout_ms``).
"""
from kafkalite.protocol.schema import INT8, INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class ListOffsetsPartition:
    partition_index: int = field(INT32, "0+")
    current_leader_epoch: int = field(INT32, "4+", ignorable=True, default=-1)
    timestamp: int = field(INT64, "0+")           # or -1 latest, -2 earliest, -3 max timestamp
    max_num_offsets: int = field(INT32, "0", default=1)   # v0: how many old-style offsets at most


@struct
class ListOffsetsTopic:
    name: str = field(STRING, "0+")
    partitions: list[ListOffsetsPartition] = field(array(ListOffsetsPartition), "0+")


@message(api_key=2, kind="request", valid="0-7", flexible="6+")
class ListOffsetsRequest:
    replica_id: int = field(INT32, "0+")          # -1 for ordinary consumers
    isolation_level: int = field(INT8, "2+", default=0)
    topics: list[ListOffsetsTopic] = field(array(ListOffsetsTopic), "0+")


@struct
class ListOffsetsPartitionResponse:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")
    old_style_offsets: list[int] = field(array(INT64), "0")   # v0: offsets, largest first
    timestamp: int = field(INT64, "1+", default=-1)   # timestamp of the offset found, or -1
    offset: int = field(INT64, "1+", default=-1)
    leader_epoch: int = field(INT32, "4+", default=-1)


@struct
class ListOffsetsTopicResponse:
    name: str = field(STRING, "0+")
    partitions: list[ListOffsetsPartitionResponse] = field(
        array(ListOffsetsPartitionResponse), "0+")


@message(api_key=2, kind="response", valid="0-7", flexible="6+")
class ListOffsetsResponse:
    throttle_time_ms: int = field(INT32, "2+", ignorable=True, default=0)
    topics: list[ListOffsetsTopicResponse] = field(array(ListOffsetsTopicResponse), "0+")
