"""Mirrors Kafka 3.0: clients/src/main/resources/common/message/DescribeTransactionsRequest.json
and DescribeTransactionsResponse.json (same directory). Not in 2.4: KIP-664 added it in 3.0.

Classes: DescribeTransactionsRequest and DescribeTransactionsResponse (TransactionState,
TopicData).

An admin client asks a transaction coordinator for the state of some transactional ids: the
state name, the producer id and epoch, the timeout, when the transaction started and which
partitions it holds (while preparing, only those still waiting for a marker).

Version history, in short: v0 only, flexible.
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@message(api_key=65, kind="request", valid="0", flexible="0+")
class DescribeTransactionsRequest:
    transactional_ids: list[str] = field(array(STRING), "0+")


@struct
class TopicData:
    topic: str = field(STRING, "0+")
    partitions: list[int] = field(array(INT32), "0+")


@struct
class TransactionState:
    error_code: int = field(INT16, "0+")
    transactional_id: str = field(STRING, "0+")
    transaction_state: str = field(STRING, "0+")       # TransactionState.name, e.g. "Ongoing"
    transaction_timeout_ms: int = field(INT32, "0+")
    transaction_start_time_ms: int = field(INT64, "0+")
    producer_id: int = field(INT64, "0+")
    producer_epoch: int = field(INT16, "0+")
    topics: list[TopicData] = field(array(TopicData), "0+")


@message(api_key=65, kind="response", valid="0", flexible="0+")
class DescribeTransactionsResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    transaction_states: list[TransactionState] = field(array(TransactionState), "0+")
