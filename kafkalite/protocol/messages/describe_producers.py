"""Mirrors Kafka 3.0: clients/src/main/resources/common/message/DescribeProducersRequest.json
and DescribeProducersResponse.json (same directory). Not in 2.4: KIP-664 added it in 3.0.

Classes: DescribeProducersRequest (TopicRequest) and DescribeProducersResponse (TopicResponse,
PartitionResponse, ProducerState).

An admin client asks a partition's leader which producers it knows: each producer id with its
epoch, last sequence and timestamp, and, when it has a transaction open on that partition, the
offset where the transaction began (what holds the last stable offset back).

Version history, in short: v0 only, flexible.
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class TopicRequest:
    name: str = field(STRING, "0+")
    partition_indexes: list[int] = field(array(INT32), "0+")


@message(api_key=61, kind="request", valid="0", flexible="0+")
class DescribeProducersRequest:
    topics: list[TopicRequest] = field(array(TopicRequest), "0+")


@struct
class ProducerState:
    producer_id: int = field(INT64, "0+")
    producer_epoch: int = field(INT32, "0+")
    last_sequence: int = field(INT32, "0+", default=-1)
    last_timestamp: int = field(INT64, "0+", default=-1)
    coordinator_epoch: int = field(INT32, "0+")
    current_txn_start_offset: int = field(INT64, "0+", default=-1)


@struct
class PartitionResponse:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    active_producers: list[ProducerState] = field(array(ProducerState), "0+")


@struct
class TopicResponse:
    name: str = field(STRING, "0+")
    partitions: list[PartitionResponse] = field(array(PartitionResponse), "0+")


@message(api_key=61, kind="response", valid="0", flexible="0+")
class DescribeProducersResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    topics: list[TopicResponse] = field(array(TopicResponse), "0+")
