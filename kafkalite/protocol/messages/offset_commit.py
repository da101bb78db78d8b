"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/OffsetCommitRequest.json
and OffsetCommitResponse.json (same directory).

Classes: OffsetCommitRequest (OffsetCommitRequestTopic, OffsetCommitRequestPartition) and
OffsetCommitResponse (OffsetCommitResponseTopic, OffsetCommitResponsePartition).

A consumer stores its position per partition with the group coordinator, which appends it to
``__consumer_offsets`` as an OffsetCommitKey/OffsetCommitValue record. Members send their
generation and member id; simple consumers that only ``assign()`` send generation -1 and an
empty member id, and the coordinator accepts that when the group has no members.

Version history, in short:
- v0 has only the group id and the offsets; 2.4's broker stores v0 commits in ZooKeeper.
- v1 adds the member's ``generation_id`` and ``member_id`` and a per-partition
  ``commit_timestamp`` (-1 = the broker's clock).
- v2 adds ``retention_time_ms`` (dropped again in v5: the broker setting rules) and drops
  ``commit_timestamp``.
- v3 adds ``throttle_time_ms`` to the response; v4 is v3.
- v6 adds ``committed_leader_epoch`` (KIP-320); v7 adds ``group_instance_id`` (KIP-345).
- v8 is the first flexible version; v9 is v8 (it marks support for KIP-848 groups).

Era notes: 2.4 stopped at v8; v9 is today's wire. Today's Kafka calls the v9 field
``generation_id_or_member_epoch``; for classic groups it is the generation, so the name here is
2.4's ``generation_id``.
v0-1 were removed by Kafka 4.0 (KIP-896); 2.4 through 3.9 accept them, and so does kafkalite.
Left out: nothing.
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class OffsetCommitRequestPartition:
    partition_index: int = field(INT32, "0+")
    committed_offset: int = field(INT64, "0+")    # the next offset the consumer will read
    committed_leader_epoch: int = field(INT32, "6+", ignorable=True, default=-1)
    commit_timestamp: int = field(INT64, "1", default=-1)   # -1 = when the broker receives it
    committed_metadata: str | None = field(STRING, "0+", nullable="0+")   # free text from the client


@struct
class OffsetCommitRequestTopic:
    name: str = field(STRING, "0+")
    partitions: list[OffsetCommitRequestPartition] = field(array(OffsetCommitRequestPartition), "0+")


@message(api_key=8, kind="request", valid="0-9", flexible="8+")
class OffsetCommitRequest:
    group_id: str = field(STRING, "0+")
    generation_id: int = field(INT32, "1+", ignorable=True, default=-1)  # -1 = not a group member
    member_id: str = field(STRING, "1+", ignorable=True)                  # "" = not a group member
    group_instance_id: str | None = field(STRING, "7+", nullable="7+", default=None)
    retention_time_ms: int = field(INT64, "2-4", ignorable=True, default=-1)  # -1 = broker default
    topics: list[OffsetCommitRequestTopic] = field(array(OffsetCommitRequestTopic), "0+")


@struct
class OffsetCommitResponsePartition:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@struct
class OffsetCommitResponseTopic:
    name: str = field(STRING, "0+")
    partitions: list[OffsetCommitResponsePartition] = field(array(OffsetCommitResponsePartition), "0+")


@message(api_key=8, kind="response", valid="0-9", flexible="8+")
class OffsetCommitResponse:
    throttle_time_ms: int = field(INT32, "3+", ignorable=True, default=0)
    topics: list[OffsetCommitResponseTopic] = field(array(OffsetCommitResponseTopic), "0+")
