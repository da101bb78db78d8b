"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/OffsetForLeaderEpochRequest.json
and OffsetForLeaderEpochResponse.json (same directory).

Classes: OffsetForLeaderEpochRequest (OffsetForLeaderTopic, OffsetForLeaderPartition) and
OffsetForLeaderEpochResponse (OffsetForLeaderTopicResult, EpochEndOffset).

Followers (on becoming a follower) and consumers (KIP-320, validating a position after a
leader change) ask: "what is the end offset of leader epoch E?" The leader answers with the
largest epoch <= E it knows and the first offset after that epoch's last record.

Version history, in short:
- v0 answers only the end offset; v1 adds ``leader_epoch`` to the response; v2 adds
  ``current_leader_epoch`` (fencing) and ``throttle_time_ms``.
- v3 adds ``replica_id`` (-2 = a debugging/consumer request, -1 = a consumer).
- v4 is the first flexible version.

Era notes: 2.4 stopped at v3 and named the fields ``name``/``partition_index``; the names here
(``topic``, ``partition``) are today's.
v0-1 were removed by Kafka 4.0 (KIP-896); 2.4 through 3.9 accept them, and so does kafkalite.
Left out: nothing.
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class OffsetForLeaderPartition:
    partition: int = field(INT32, "0+")
    current_leader_epoch: int = field(INT32, "2+", ignorable=True, default=-1)  # -1 = don't fence
    leader_epoch: int = field(INT32, "0+")        # the epoch whose end offset is wanted


@struct
class OffsetForLeaderTopic:
    topic: str = field(STRING, "0+")
    partitions: list[OffsetForLeaderPartition] = field(
        array(OffsetForLeaderPartition), "0+")


@message(api_key=23, kind="request", valid="0-4", flexible="4+")
class OffsetForLeaderEpochRequest:
    replica_id: int = field(INT32, "3+", ignorable=True, default=-2)
    topics: list[OffsetForLeaderTopic] = field(array(OffsetForLeaderTopic), "0+")


@struct
class EpochEndOffset:
    error_code: int = field(INT16, "0+")
    partition: int = field(INT32, "0+")
    leader_epoch: int = field(INT32, "1+", ignorable=True, default=-1)
    end_offset: int = field(INT64, "0+", default=-1)


@struct
class OffsetForLeaderTopicResult:
    topic: str = field(STRING, "0+")
    partitions: list[EpochEndOffset] = field(array(EpochEndOffset), "0+")


@message(api_key=23, kind="response", valid="0-4", flexible="4+")
class OffsetForLeaderEpochResponse:
    throttle_time_ms: int = field(INT32, "2+", ignorable=True, default=0)
    topics: list[OffsetForLeaderTopicResult] = field(
        array(OffsetForLeaderTopicResult), "0+")
