"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/AddOffsetsToTxnRequest.json
and AddOffsetsToTxnResponse.json (same directory).

Classes: AddOffsetsToTxnRequest, AddOffsetsToTxnResponse.

A transactional producer that will commit consumer offsets inside its transaction
(consume-transform-produce) first tells its transaction coordinator the group id; the
coordinator adds that group's ``__consumer_offsets`` partition to the transaction. The offsets
themselves then go to the group coordinator in TxnOffsetCommit.

Version history, in short: v1 is v0 (may answer CONCURRENT_TRANSACTIONS sooner); v2 is v1
(throttling on quota violation); v3 is the first flexible version.

Era notes: 2.4 stopped at v1.
Left out: v4 (transactions v2, KIP-890).
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, field, message


@message(api_key=25, kind="request", valid="0-3", flexible="3+")
class AddOffsetsToTxnRequest:
    transactional_id: str = field(STRING, "0+")
    producer_id: int = field(INT64, "0+")
    producer_epoch: int = field(INT16, "0+")
    group_id: str = field(STRING, "0+")           # the group whose offsets join the transaction


@message(api_key=25, kind="response", valid="0-3", flexible="3+")
class AddOffsetsToTxnResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+")
