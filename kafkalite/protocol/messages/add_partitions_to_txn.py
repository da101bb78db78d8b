"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/AddPartitionsToTxnRequest.json
and AddPartitionsToTxnResponse.json (same directory).

Classes: AddPartitionsToTxnRequest (AddPartitionsToTxnTopic) and AddPartitionsToTxnResponse
(AddPartitionsToTxnTopicResult, AddPartitionsToTxnPartitionResult).

A transactional producer tells its transaction coordinator which partitions it is about to
write, before the first Produce to each; the coordinator records them in
``__transaction_state`` so that EndTxn knows where to write the commit/abort markers.

Version history, in short: v1 is v0 (may answer CONCURRENT_TRANSACTIONS sooner); v2 is v1
(throttling on quota violation); v3 is the first flexible version.

Era notes: 2.4 stopped at v1. Today's Kafka renamed the v0-3 fields ``v3_and_below_*`` when it
added the broker-to-broker batch form (v4+); the names here are the plain ones of 2.4-3.5.
Left out: v4+ (KIP-890: batches of transactions, verify-only, sent by brokers only).
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class AddPartitionsToTxnTopic:
    name: str = field(STRING, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@message(api_key=24, kind="request", valid="0-3", flexible="3+")
class AddPartitionsToTxnRequest:
    transactional_id: str = field(STRING, "0+")
    producer_id: int = field(INT64, "0+")
    producer_epoch: int = field(INT16, "0+")
    topics: list[AddPartitionsToTxnTopic] = field(array(AddPartitionsToTxnTopic), "0+")


@struct
class AddPartitionsToTxnPartitionResult:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@struct
class AddPartitionsToTxnTopicResult:
    name: str = field(STRING, "0+")
    results: list[AddPartitionsToTxnPartitionResult] = field(
        array(AddPartitionsToTxnPartitionResult), "0+")


@message(api_key=24, kind="response", valid="0-3", flexible="3+")
class AddPartitionsToTxnResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    results: list[AddPartitionsToTxnTopicResult] = field(array(AddPartitionsToTxnTopicResult), "0+")
