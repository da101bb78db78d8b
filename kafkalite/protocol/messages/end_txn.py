"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/EndTxnRequest.json
and EndTxnResponse.json (same directory).

Classes: EndTxnRequest, EndTxnResponse.

A transactional producer commits or aborts. The transaction coordinator records PrepareCommit
or PrepareAbort, writes a control batch (the transaction marker) to every partition of the
transaction, then records CompleteCommit/CompleteAbort.

Version history, in short: v1 is v0 (may answer CONCURRENT_TRANSACTIONS sooner); v2 is v1
(throttling on quota violation); v3 is the first flexible version.

Era notes: 2.4 stopped at v1.
Left out: v4 (new error codes) and v5 (transactions v2, KIP-890: the response returns the
bumped producer id and epoch).
"""
from kafkalite.protocol.schema import BOOL, INT16, INT32, INT64, STRING, field, message


@message(api_key=26, kind="request", valid="0-3", flexible="3+")
class EndTxnRequest:
    transactional_id: str = field(STRING, "0+")
    producer_id: int = field(INT64, "0+")
    producer_epoch: int = field(INT16, "0+")
    committed: bool = field(BOOL, "0+")           # True = commit, False = abort


@message(api_key=26, kind="response", valid="0-3", flexible="3+")
class EndTxnResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+")
