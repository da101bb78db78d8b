"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/TxnOffsetCommitRequest.json
and TxnOffsetCommitResponse.json (same directory).

Classes: TxnOffsetCommitRequest (TxnOffsetCommitRequestTopic, TxnOffsetCommitRequestPartition)
and TxnOffsetCommitResponse (TxnOffsetCommitResponseTopic, TxnOffsetCommitResponsePartition).

A transactional producer sends consumer offsets to the *group* coordinator. They are written
to ``__consumer_offsets`` as part of the producer's transaction and only become visible to
OffsetFetch when the transaction commits (the coordinator holds them as pending until the
commit marker arrives).

Version history, in short:
- v1 is v0 (may answer CONCURRENT_TRANSACTIONS sooner); v2 adds ``committed_leader_epoch``.
- v3 is the first flexible version and adds the member's ``generation_id``, ``member_id`` and
  ``group_instance_id`` so the coordinator can fence zombies by group generation (KIP-447).

Era notes: 2.4 stopped at v2; v3 is today's wire.
Left out: v4 (transactions v2, KIP-890).
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class TxnOffsetCommitRequestPartition:
    partition_index: int = field(INT32, "0+")
    committed_offset: int = field(INT64, "0+")
    committed_leader_epoch: int = field(INT32, "2+", ignorable=True, default=-1)
    committed_metadata: str | None = field(STRING, "0+", nullable="0+")


@struct
class TxnOffsetCommitRequestTopic:
    name: str = field(STRING, "0+")
    partitions: list[TxnOffsetCommitRequestPartition] = field(
        array(TxnOffsetCommitRequestPartition), "0+")


@message(api_key=28, kind="request", valid="0-3", flexible="3+")
class TxnOffsetCommitRequest:
    transactional_id: str = field(STRING, "0+")
    group_id: str = field(STRING, "0+")
    producer_id: int = field(INT64, "0+")
    producer_epoch: int = field(INT16, "0+")
    generation_id: int = field(INT32, "3+", default=-1)
    member_id: str = field(STRING, "3+", default="")
    group_instance_id: str | None = field(STRING, "3+", nullable="3+", default=None)
    topics: list[TxnOffsetCommitRequestTopic] = field(array(TxnOffsetCommitRequestTopic), "0+")


@struct
class TxnOffsetCommitResponsePartition:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@struct
class TxnOffsetCommitResponseTopic:
    name: str = field(STRING, "0+")
    partitions: list[TxnOffsetCommitResponsePartition] = field(
        array(TxnOffsetCommitResponsePartition), "0+")


@message(api_key=28, kind="response", valid="0-3", flexible="3+")
class TxnOffsetCommitResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    topics: list[TxnOffsetCommitResponseTopic] = field(array(TxnOffsetCommitResponseTopic), "0+")
