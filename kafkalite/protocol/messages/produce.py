"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/ProduceRequest.json
and ProduceResponse.json (same directory).

Classes: ProduceRequest (TopicProduceData, PartitionProduceData) and ProduceResponse
(TopicProduceResponse, PartitionProduceResponse, BatchIndexAndErrorMessage).

The producer sends, per topic and partition, one v2 record batch as an opaque ``records`` blob;
the broker answers with the base offset it assigned. ``records`` is read as a memoryview slice
of the request buffer, so the batch bytes reach the log without a copy.

Version history, in short:
- v0-2 carry message sets of magic 0 or 1 (Kafka's 0.9 / 0.10 clients); the broker up-converts them to
  magic 2 batches on append (kafkalite/log/log_validator.py). v1 adds ``throttle_time_ms`` to the response.
- v3 adds ``transactional_id`` and requires record batches of magic 2.
- v5 adds ``log_start_offset`` to the response; v2 had added ``log_append_time_ms``.
- v7 signals zstd support; v8 adds per-batch ``record_errors`` and ``error_message``.
- v9 is the first flexible version (compact strings/arrays, tagged fields).

Era notes: 2.4 stopped at v8 and was not flexible; v9 is today's wire (DESIGN §2). Field names
follow today's Kafka (``topic_data``, ``partition_data``, ``index``) rather than 2.4's JSON
(``topics``, ``partitions``, ``partition_index``).
Left out: the v10+ tagged fields ``current_leader`` / ``node_endpoints`` (KIP-951).
"""
from kafkalite.protocol.schema import (
    INT16, INT32, INT64, RECORDS, STRING, array, field, message, struct,
)


@struct
class PartitionProduceData:
    index: int = field(INT32, "0+")                                    # partition number
    records: object = field(RECORDS, "0+", nullable="0+", default=None)  # v3+: one v2 batch


@struct
class TopicProduceData:
    name: str = field(STRING, "0+")
    partition_data: list[PartitionProduceData] = field(array(PartitionProduceData), "0+")


@message(api_key=0, kind="request", valid="0-9", flexible="9+")
class ProduceRequest:
    transactional_id: str | None = field(STRING, "3+", nullable="3+", default=None)
    acks: int = field(INT16, "0+")              # 0 = no response, 1 = leader only, -1 = all ISR
    timeout_ms: int = field(INT32, "0+")        # how long to wait for the acks
    topic_data: list[TopicProduceData] = field(array(TopicProduceData), "0+")


@struct
class BatchIndexAndErrorMessage:
    batch_index: int = field(INT32, "8+")       # which record in the batch was rejected
    batch_index_error_message: str | None = field(STRING, "8+", nullable="8+", default=None)


@struct
class PartitionProduceResponse:
    index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")
    base_offset: int = field(INT64, "0+")       # offset given to the first record of the batch
    # Set only when the topic uses LogAppendTime; -1 means "CreateTime, keep your own".
    log_append_time_ms: int = field(INT64, "2+", ignorable=True, default=-1)
    log_start_offset: int = field(INT64, "5+", ignorable=True, default=-1)
    record_errors: list[BatchIndexAndErrorMessage] = field(
        array(BatchIndexAndErrorMessage), "8+", ignorable=True)
    error_message: str | None = field(STRING, "8+", nullable="8+", ignorable=True, default=None)


@struct
class TopicProduceResponse:
    name: str = field(STRING, "0+")
    partition_responses: list[PartitionProduceResponse] = field(array(PartitionProduceResponse), "0+")


@message(api_key=0, kind="response", valid="0-9", flexible="9+")
class ProduceResponse:
    responses: list[TopicProduceResponse] = field(array(TopicProduceResponse), "0+")
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
