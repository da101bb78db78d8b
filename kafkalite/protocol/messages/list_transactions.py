"""Mirrors Kafka 3.0: clients/src/main/resources/common/message/ListTransactionsRequest.json
and ListTransactionsResponse.json (same directory). Not in 2.4: KIP-664 added it in 3.0.

Classes: ListTransactionsRequest and ListTransactionsResponse (TransactionState).

An admin client asks every broker for the transactional ids its transaction coordinator
holds, optionally only those in some states or of some producer ids.

Version history, in short: v1 adds ``duration_filter`` (KIP-994, Kafka 3.8): only transactions
running longer than that many milliseconds.
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@message(api_key=66, kind="request", valid="0-1", flexible="0+")
class ListTransactionsRequest:
    state_filters: list[str] = field(array(STRING), "0+")
    producer_id_filters: list[int] = field(array(INT64), "0+")
    duration_filter: int = field(INT64, "1+", default=-1)


@struct
class TransactionState:
    transactional_id: str = field(STRING, "0+")
    producer_id: int = field(INT64, "0+")
    transaction_state: str = field(STRING, "0+")


@message(api_key=66, kind="response", valid="0-1", flexible="0+")
class ListTransactionsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+")
    unknown_state_filters: list[str] = field(array(STRING), "0+")
    transaction_states: list[TransactionState] = field(array(TransactionState), "0+")
