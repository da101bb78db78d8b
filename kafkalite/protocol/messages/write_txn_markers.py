"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/WriteTxnMarkersRequest.json
and WriteTxnMarkersResponse.json (same directory).

Classes: WriteTxnMarkersRequest (WritableTxnMarker, WritableTxnMarkerTopic) and
WriteTxnMarkersResponse (WritableTxnMarkerResult, WritableTxnMarkerTopicResult,
WritableTxnMarkerPartitionResult).

The transaction coordinator's TxnMarkerSenderThread asks each partition leader to append a
control batch (COMMIT or ABORT) for one producer; one request carries the markers of many
transactions bound for the same broker. It is a cluster action: only brokers send it.

Version history, in short: v1 is v0 in the flexible encoding.

Era notes: 2.4 had v0 only, written by hand in WriteTxnMarkersRequest.java (the JSON spec came
in 2.6); the fields are the same.
"""
from kafkalite.protocol.schema import BOOL, INT16, INT32, INT64, STRING, array, field, message, struct


@struct
class WritableTxnMarkerTopic:
    name: str = field(STRING, "0+")
    partition_indexes: list[int] = field(array(INT32), "0+")


@struct
class WritableTxnMarker:
    producer_id: int = field(INT64, "0+")
    producer_epoch: int = field(INT16, "0+")
    transaction_result: bool = field(BOOL, "0+")       # True = COMMIT, False = ABORT
    topics: list[WritableTxnMarkerTopic] = field(array(WritableTxnMarkerTopic), "0+")
    coordinator_epoch: int = field(INT32, "0+")


@message(api_key=27, kind="request", valid="0-1", flexible="1+")
class WriteTxnMarkersRequest:
    markers: list[WritableTxnMarker] = field(array(WritableTxnMarker), "0+")


@struct
class WritableTxnMarkerPartitionResult:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")


@struct
class WritableTxnMarkerTopicResult:
    name: str = field(STRING, "0+")
    partitions: list[WritableTxnMarkerPartitionResult] = field(array(WritableTxnMarkerPartitionResult), "0+")


@struct
class WritableTxnMarkerResult:
    producer_id: int = field(INT64, "0+")
    topics: list[WritableTxnMarkerTopicResult] = field(array(WritableTxnMarkerTopicResult), "0+")


@message(api_key=27, kind="response", valid="0-1", flexible="1+")
class WriteTxnMarkersResponse:
    markers: list[WritableTxnMarkerResult] = field(array(WritableTxnMarkerResult), "0+")
